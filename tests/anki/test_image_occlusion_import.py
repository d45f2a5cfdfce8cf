"""Image occlusion notes from Anki (issue 42, item 3): notes Anki's own backend made, in
an exported package, come in as the card format (fractions back to the picture's pixels,
the picture copied to media/), and round trip: import, build, import into the same
collection gives no new note and the fields as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run
from tests.occlusion_decks import picture

pytestmark = pytest.mark.anki

# What Anki's mask editor writes (ts/routes/image-occlusion/shapes/to-cloze.ts): each
# shape a deletion followed by <br>, fractions of the picture with four decimals at most.
EDITOR = (
    "{{c1::image-occlusion:rect:left=.3:top=.1333:width=.2:height=.2:oi=1}}<br>"
    "{{c2::image-occlusion:ellipse:left=.75:top=.6667:rx=.05:ry=.05:oi=1}}<br>"
    "{{c3::image-occlusion:polygon:left=.025:top=.0333:points=.025,.0333 .15,.0333 "
    ".0875,.1667:oi=1}}<br>"
    "{{c2::image-occlusion:rect:left=.05:top=.7333:width=.125:height=.0667:oi=1}}<br>"
    "{{c0::image-occlusion:text:left=.5:top=.4:text=R\\:A:scale=1.:fs=.1333:oi=1}}<br>"
)
HIDE_ONE = "{{c1::image-occlusion:rect:left=.1234:top=.5:width=.0625:height=.25}}<br>"


def _fields(col: Any) -> dict[str, list[str]]:
    return {col.get_note(nid).guid: list(col.get_note(nid).fields) for nid in col.find_notes("")}


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Any, Path]:
    """A collection with two image occlusion notes made by Anki's backend, exported."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    folder = tmp_path / "anki"
    folder.mkdir()
    col = Collection(str(folder / "collection.anki2"))
    did = col.decks.id("Anatomy")
    col.decks.select(did)
    (io_type,) = [m for m in col.models.all() if m.get("originalStockKind") == 6]
    for name, occlusions, header in (
        ("heart.png", EDITOR, "Chambers of the <b>heart</b>"),
        ("lung.png", HIDE_ONE, ""),
    ):
        image = picture(tmp_path / "pictures" / name)
        col._backend.add_image_occlusion_note(
            notetype_id=io_type["id"],
            image_path=str(image),
            occlusions=occlusions,
            header=header,
            back_extra="Blood enters through the atria.",
            tags=["anatomy"],
        )
    path = tmp_path / "anatomy.apkg"
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    col.export_anki_package(out_path=str(path), options=options, limit=DeckIdLimit(deck_id=did))
    return col, path


def test_anki_s_notes_come_in_and_round_trip(
    exported: tuple[Any, Path], project: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    col, package = exported
    before = _fields(col)
    run: Run = cli("import", package, "--out", "cards/anatomy.yaml")
    assert run.code == 0, run.err
    assert "Image Occlusion: 2 notes -> image-occlusion notes" in run.out
    assert (project / "media" / "heart.png").read_bytes() == (
        Path(col.media.dir()) / "heart.png"
    ).read_bytes()
    text = (project / "cards" / "anatomy.yaml").read_text(encoding="utf-8")
    # The pixels of the 400 x 300 picture, the label, the card numbers, the modes.
    assert "- rect: [120, 39.99, 80, 60]\n" in text
    assert "- ellipse: [300, 200.01, 40, 30]\n" in text
    assert "- polygon: [[10, 9.99], [60, 9.99], [35, 50.01]]\n" in text
    assert "- rect: [20, 219.99, 50, 20.01]\n      card: 2\n" in text
    assert "- text: R:A\n      at: [200, 120]\n      size: 39.99\n" in text
    assert "mode: hide-one" in text and text.count("mode:") == 1
    assert cli("check", "cards").code == 0
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "2000000000")
    built = cli("build", "cards", "--out", "output")
    assert built.code == 0, built.err
    from tests.conftest import import_package

    log: Any = import_package(col, project / "output" / "anatomy.apkg", merge_notetypes=False)
    assert (len(log.new), len(log.conflicting)) == (0, 0)
    assert _fields(col) == before
    col.close()


def _package(tmp_path: Path, notes: list[tuple[str, str]], fmt: str = "PNG", **fields: str) -> Path:
    """A package of image occlusion notes Anki's backend made, each of a 400 x 300
    picture (``fmt``) named as given and an Occlusion field as given."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    (tmp_path / "made").mkdir()
    col = Collection(str(tmp_path / "made" / "collection.anki2"))
    did = col.decks.id("Anatomy")
    col.decks.select(did)
    (io_type,) = [m for m in col.models.all() if m.get("originalStockKind") == 6]
    for name, occlusions in notes:
        image = picture(tmp_path / "pictures" / name, fmt=fmt)
        col._backend.add_image_occlusion_note(
            notetype_id=io_type["id"],
            image_path=str(image),
            occlusions=occlusions,
            header=fields.get("header", ""),
            back_extra=fields.get("back_extra", ""),
            tags=[],
        )
    path = tmp_path / "made.apkg"
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=False)
    col.export_anki_package(out_path=str(path), options=options, limit=DeckIdLimit(deck_id=did))
    col.close()
    return path


def test_a_note_of_an_svg_picture_comes_in(tmp_path: Path, project: Path, cli: Any) -> None:
    """An SVG picture's size is read as decimals (imagesize gives floats for SVG): the
    import stopped with an internal error, Decimal times float."""
    package = _package(tmp_path, [("chart.svg", HIDE_ONE)], fmt="SVG")
    run: Run = cli("import", package, "--out", "cards/chart.yaml")
    assert run.code == 0, run.err
    text = (project / "cards" / "chart.yaml").read_text(encoding="utf-8")
    assert "- rect: [49.36, 150, 25, 75]\n" in text
    assert cli("check", "cards").code == 0


def test_a_label_whose_scale_is_no_number_is_left_out(
    tmp_path: Path, project: Path, cli: Any
) -> None:
    """A label's scale edited by hand into no number left the import with an internal
    error (Decimal's InvalidOperation); the note is left out with the reason."""
    label = "{{c0::image-occlusion:text:left=.5:top=.4:text=RA:scale=big:fs=.1333}}<br>"
    package = _package(tmp_path, [("heart.png", HIDE_ONE + label), ("lung.png", HIDE_ONE)])
    run: Run = cli("import", package, "--out", "cards/anatomy.yaml")
    assert run.code == 0, run.err
    assert "its shape 2 is a label whose scale is no number" in run.err
    assert "image: lung.png" in (project / "cards" / "anatomy.yaml").read_text(encoding="utf-8")


def _rect(card: int, left: str = ".1", width: str = ".1") -> str:
    return f"{{{{c{card}::image-occlusion:rect:left={left}:top=.1:width={width}:height=.1}}}}<br>"


@pytest.mark.parametrize(
    ("occlusions", "reason"),
    [
        (_rect(1, left="-.05"), "its shape 1 reaches left of or above the picture"),
        (_rect(1, width="0"), "its shape 1 is 0 wide or high: it hides nothing"),
        (_rect(501), "its shape 1 is on card 501; the card format holds cards 1 to 500"),
        (_rect(1) + _rect(3), "its masks skip card 2 (they are on cards 1 and 3)"),
        (
            _rect(1) + "{{c0::image-occlusion:text:left=.5:top=.4:text=A:scale=1.:fs=.001}}<br>",
            "its shape 2 is a label of font size 0.3; the card format holds 1 to 10000",
        ),
    ],
)
def test_masks_the_card_format_refuses_leave_their_note_out(
    tmp_path: Path, project: Path, cli: Any, occlusions: str, reason: str
) -> None:
    """Masks Anki holds but the card format refuses (left of the picture, hiding nothing,
    a card beyond the highest, a card number skipped, a label's size out of bounds) were
    written into a card file that check then refused; the note is left out, named with
    the reason, and the others come in."""
    package = _package(tmp_path, [("heart.png", occlusions), ("lung.png", HIDE_ONE)])
    run: Run = cli("import", package, "--out", "cards/anatomy.yaml")
    assert run.code == 0, run.err
    assert reason in run.err
    text = (project / "cards" / "anatomy.yaml").read_text(encoding="utf-8")
    assert "image: heart.png" not in text and "image: lung.png" in text
    assert cli("check", "cards").code == 0


def test_planning_reads_the_package_s_media_in_memory(
    tmp_path: Path, project: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The package's media files were written to a temporary folder while the import was
    planned, for their sizes, the pictures' dimensions and the lock file's hashes (a
    collection's worth of media written twice), and a masked picture the package lacks
    was "not found in /tmp/deckbuilder-import-.../ or media/". They are read where they
    are, in memory, now."""
    import tempfile

    from deckbuilder.importers import ImportOptions, plan_import, read_source

    package = _package(tmp_path, [("heart.png", EDITOR), ("lung.png", HIDE_ONE)])
    read = read_source(package)

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("planning the import made a temporary folder")

    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "TemporaryDirectory", refused)
        patched.setattr(tempfile, "mkdtemp", refused)
        plan = plan_import(read, ImportOptions(out=Path("cards/anatomy.yaml")))
    text = plan.files[Path("cards/anatomy.yaml")].decode("utf-8")
    assert "- rect: [120, 39.99, 80, 60]\n" in text  # the picture's size, read in memory
    assert sorted(plan.media) == [Path("media/heart.png"), Path("media/lung.png")]
    # What the lock file holds is what build finds: nothing changed since the import.
    assert cli("import", package, "--out", "cards/anatomy.yaml").code == 0
    built = cli("build", "cards", "--out", "output", "--json")
    assert built.code == 0, built.err
    (deck,) = [d for d in json.loads(built.out)["decks"] if d["id"] == "anatomy"]
    changes = deck["changes"]
    assert (changes["added"], changes["changed"], changes["unchanged"]) == ([], [], 2)
