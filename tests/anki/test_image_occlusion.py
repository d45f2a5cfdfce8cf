"""Image occlusion notes as Anki sees them (issue 42, items 1 and 2): the package carries
Anki's own Image Occlusion note type, Anki's backend reads the masks back at the
positions written (to 4 decimals) and makes one card per card number, and rebuilds keep
the note and its cards."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.notetypes import note_type
from deckbuilder.anki.occlusion import fraction
from deckbuilder.model import NoteKind
from tests.conftest import import_package
from tests.occlusion_decks import CARDS, HEART, HEIGHT, T1, WIDTH, build, heart_project, picture

pytestmark = pytest.mark.anki


def _stock(col: Any) -> dict[str, Any]:
    """Anki's own Image Occlusion note type, as the backend put it in a new collection."""
    (found,) = [m for m in col.models.all() if m.get("originalStockKind") == 6]
    return found  # type: ignore[no-any-return]


def test_the_note_type_is_anki_s_own(collection: Any) -> None:
    """Templates, CSS, fields and their tags as Anki makes the stock note type (they are
    data Anki writes into every collection, kept in anki/notetypes/image-occlusion/)."""
    stock = _stock(collection)
    spec = note_type(NoteKind.IMAGE_OCCLUSION)
    (template,) = stock["tmpls"]
    assert (spec.front, spec.back, spec.css) == (template["qfmt"], template["afmt"], stock["css"])
    assert spec.template_name == template["name"] == stock["name"]
    assert spec.fields == tuple(f["name"] for f in stock["flds"])
    assert spec.field_tags == tuple((f["tag"], f["preventDeletion"]) for f in stock["flds"])
    assert stock["type"] == 1 and spec.is_cloze


def _masks(col: Any, nid: int) -> dict[int, list[tuple[str, dict[str, str]]]]:
    """The shapes Anki's backend reads from the note, by card number."""
    reply = col._backend.get_image_occlusion_note(note_id=nid)
    assert reply.WhichOneof("value") == "note", reply
    out: dict[int, list[tuple[str, dict[str, str]]]] = {}
    for occlusion in reply.note.occlusions:
        out[occlusion.ordinal] = [
            (shape.shape, {p.name: p.value for p in shape.properties}) for shape in occlusion.shapes
        ]
    return out


def _expected(shape: str, pixels: Any) -> dict[str, float]:
    """What Anki should read for a mask given in pixels: fractions of the picture."""
    if shape == "polygon":
        return {"points": pixels}  # compared point by point below
    left, top, width, height = pixels
    place = {"left": left / WIDTH, "top": top / HEIGHT}
    if shape == "ellipse":
        return {**place, "rx": width / 2 / WIDTH, "ry": height / 2 / HEIGHT}
    return {**place, "width": width / WIDTH, "height": height / HEIGHT}


def test_anki_reads_the_masks_where_they_were_put(tmp_path: Path, collection: Any) -> None:
    heart_project(tmp_path)
    log: Any = import_package(collection, build(tmp_path))
    assert len(log.new) == 1
    (nid,) = collection.find_notes("")
    note = collection.get_note(nid)
    kind = note.note_type()
    # Anki knows the note type as image occlusion: its stock kind, a cloze note type.
    assert kind.get("originalStockKind") == 6 and kind["type"] == 1
    assert [(f["name"], f["tag"]) for f in kind["flds"]] == [
        ("Occlusion", 0),
        ("Image", 1),
        ("Header", 2),
        ("Back Extra", 3),
        ("Comments", 4),
    ]
    # One card per card number.
    assert sorted(card.ord for card in note.cards()) == [0, 1, 2]
    read = _masks(collection, nid)
    assert sorted(read) == [0, 1, 2, 3]  # 0: the label
    for number, masks in CARDS.items():
        assert [shape for shape, _ in read[number]] == [shape for shape, _ in masks]
        for (shape, props), (_, pixels) in zip(read[number], masks, strict=True):
            assert props["oi"] == "1"  # hide-all
            wanted = _expected(shape, pixels)
            if shape == "polygon":
                points = [tuple(map(float, p.split(","))) for p in props["points"].split()]
                assert points == [
                    pytest.approx((x / WIDTH, y / HEIGHT), abs=5e-5) for x, y in pixels
                ]
                continue
            for key, value in wanted.items():
                assert float(props[key]) == pytest.approx(value, abs=5e-5), key
    ((label, props),) = read[0]
    assert label == "text" and props["text"] == "RA"
    assert float(props["left"]) == pytest.approx(200 / WIDTH, abs=5e-5)
    assert float(props["top"]) == pytest.approx(120 / HEIGHT, abs=5e-5)
    # The backend's reply holds the picture, which the mask editor opens.
    reply = collection._backend.get_image_occlusion_note(note_id=nid)
    assert reply.note.image_file_name == "heart.png" and reply.note.occlude_inactive
    assert reply.note.image_data == (tmp_path / "media" / "heart.png").read_bytes()
    assert reply.note.header == "Chambers of the heart"
    assert reply.note.back_extra == "Blood enters through the atria."
    assert collection.fix_integrity() == ("Database rebuilt and optimized.", True)
    assert collection.media.check().missing == []


def test_hide_one_mode_writes_no_hide_all_flag(tmp_path: Path, collection: Any) -> None:
    heart_project(tmp_path, mode="hide-one")
    import_package(collection, build(tmp_path))
    (nid,) = collection.find_notes("")
    reply = collection._backend.get_image_occlusion_note(note_id=nid)
    assert not reply.note.occlude_inactive


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "SVG"])
def test_every_picture_format_is_measured(tmp_path: Path, collection: Any, fmt: str) -> None:
    """The fractions come from the picture's real size, whatever its format."""
    suffix = {"JPEG": "jpg"}.get(fmt, fmt.lower())
    name = f"plan.{suffix}"
    heart_project(tmp_path, text=HEART.format(mode="hide-all").replace("heart.png", name))
    picture(tmp_path / "media" / name, (640, 480), fmt)
    import_package(collection, build(tmp_path))
    (nid,) = collection.find_notes("")
    ((shape, props),) = _masks(collection, nid)[1]
    assert shape == "rect"
    assert float(props["left"]) == pytest.approx(120 / 640, abs=5e-5)
    assert float(props["height"]) == pytest.approx(60 / 480, abs=5e-5)


def _cards(col: Any) -> dict[int, str]:
    """Each card's ordinal and the masks its front hides (the active ones' data)."""
    (nid,) = col.find_notes("")
    out = {}
    for card in col.get_note(nid).cards():
        active = re.findall(r'<div class="cloze" data-ordinal="[1-9][^>]*>', card.question())
        out[card.ord] = "".join(active)
    return out


def test_a_mask_added_is_a_card_added_and_reordering_numbered_masks_keeps_cards(
    tmp_path: Path, collection: Any
) -> None:
    cards = heart_project(tmp_path)
    import_package(collection, build(tmp_path))
    before = _cards(collection)
    source = cards / "heart.yaml"
    # A mask at the end: a new card; the note is updated in place.
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "      - rect: [250, 100, 30, 30]\n", encoding="utf-8")
    log: Any = import_package(collection, build(tmp_path, T1))
    assert (len(log.new), len(log.updated)) == (0, 1)
    after = _cards(collection)
    assert sorted(after) == [0, 1, 2, 3]
    assert {ord_: after[ord_] for ord_ in before} == before
    # Masks with their numbers, in another order: the same cards.
    numbered = HEART.format(mode="hide-all").replace(
        "      - rect: [120, 40, 80, 60]      # left, top, width, height in the image's pixels\n"
        "      - ellipse: [300, 200, 40, 30]  # left, top, width, height of its box\n"
        "      - polygon: [[10, 10], [60, 10], [35, 50]]\n",
        "      - polygon: [[10, 10], [60, 10], [35, 50]]\n        card: 3\n"
        "      - ellipse: [300, 200, 40, 30]\n        card: 2\n"
        "      - rect: [120, 40, 80, 60]\n        card: 1\n",
    )
    source.write_text(numbered + "      - rect: [250, 100, 30, 30]\n", encoding="utf-8")
    log = import_package(collection, build(tmp_path, T1 + 86_400))
    assert len(log.new) == 0
    reordered = _cards(collection)
    for ord_, masks in after.items():  # each card hides the same shapes, in any order
        assert sorted(re.findall(r"<div[^>]*>", reordered[ord_])) == sorted(
            re.findall(r"<div[^>]*>", masks)
        )


@pytest.mark.parametrize("mode", ["hide-all", "hide-one"])
def test_the_preview_renders_each_side_as_the_backend_does(
    tmp_path: Path, collection: Any, mode: str
) -> None:
    """The preview's template renderer writes the masks' <div>s as Anki's cloze filter
    does (the page's script then draws them as the clients do)."""
    from deckbuilder.preview.anki_template import render_card

    heart_project(tmp_path, mode=mode)
    import_package(collection, build(tmp_path))
    (nid,) = collection.find_notes("")
    note = collection.get_note(nid)
    spec = note_type(NoteKind.IMAGE_OCCLUSION)
    fields = dict(zip(spec.fields, note.fields, strict=True))
    for card in note.cards():
        out = card.render_output(reload=True)
        ours = render_card(spec.front, spec.back, fields, card.ord, as_client=False)
        assert (ours.question, ours.answer) == (out.question_text, out.answer_text)


def test_identities_are_pinned(tmp_path: Path) -> None:
    """What a learner's collection depends on (tests/test_stability.py): the note's GUID,
    the note type's id, the card ordinals; and a rebuild after a mask is added at the
    end keeps the note id and adds the fourth card."""
    import sqlite3
    import zipfile

    def identities(package: Path) -> list[tuple[Any, ...]]:
        database = tmp_path / "collection.anki2"
        with zipfile.ZipFile(package) as zf:
            database.write_bytes(zf.read("collection.anki2"))
        con = sqlite3.connect(database)
        try:
            rows = con.execute(
                "SELECT n.guid, n.id, n.mid, c.ord FROM notes n, cards c"
                " WHERE c.nid = n.id ORDER BY c.ord"
            ).fetchall()
        finally:
            con.close()
        return rows

    built_at = 1_767_225_600
    cards = heart_project(tmp_path)
    first = identities(build(tmp_path, built_at))
    assert first == [("QjPjHr%3CY", 1767225600000, 1379929385129766, n) for n in range(3)]
    source = cards / "heart.yaml"
    source.write_text(source.read_text(encoding="utf-8") + "      - rect: [250, 100, 30, 30]\n")
    again = identities(build(tmp_path, built_at + 86_400))
    assert again == [*first, ("QjPjHr%3CY", 1767225600000, 1379929385129766, 3)]


@pytest.mark.parametrize(
    ("value", "written"),
    [(0.25, ".25"), (1, "1."), (0, ".0000"), (0.00002, ".0000"), (-0.00002, ".0000")],
)
def test_a_fraction_is_written_as_anki_s_editor_writes_it(value: float, written: str) -> None:
    """A fraction that rounds to nothing at four decimals (a mask 0.01 pixels wide on a
    400-pixel picture) was written '.', which is no number."""
    assert fraction(value) == written
