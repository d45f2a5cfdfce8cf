"""Note types of the author's own, as Anki sees them (issue 41): the package carries the
declared fields, templates, CSS and sort field; Anki makes the cards the card rule says;
`{{tts}}` speaks in the declared language; rebuilds update in place."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder import app
from deckbuilder.templates import cards_made
from tests.cardfile.test_declared_types import VOCAB
from tests.conftest import import_package

pytestmark = pytest.mark.anki

# Anki stamps a note type it adds with its own clock, and updates it only from a package
# whose note type is newer: builds are dated after today.
T0 = int(time.time()) + 86_400
T1 = T0 + 86_400


def _build(cards: Path, out: Path, timestamp: int = T0) -> app.BuildResult:
    request = app.BuildRequest(
        timestamp,
        app.Selection(sources=(cards,), media_dir=None),
        out_dir=out,
        preview=False,
        lint=False,
    )
    return app.build(request)


@pytest.fixture
def vocab(tmp_path: Path) -> Path:
    cards = tmp_path / "cards"
    cards.mkdir()
    text = VOCAB + (
        "  - id: thanks\n    type: vocab\n    fields:\n      English: thank you\n"
        "      Example: '**Thank you** very much.'\n"
    )
    (cards / "vocab.yaml").write_text(text, encoding="utf-8")
    return cards


def _notes(col: Any) -> dict[str, Any]:
    return {col.get_note(nid)["English"]: col.get_note(nid) for nid in col.find_notes("")}


def test_anki_gets_the_declared_note_type_and_cards(
    vocab: Path, tmp_path: Path, collection: Any
) -> None:
    result = _build(vocab, tmp_path / "out")
    (package,) = result.packages
    log = import_package(collection, package.path)
    assert len(log.new) == 2  # type: ignore[attr-defined]
    notes = _notes(collection)
    hello, thanks = notes["hello"], notes["thank you"]
    model = hello.note_type()
    assert model["name"] == "Korean vocabulary"
    assert [f["name"] for f in model["flds"]] == ["Korean", "Romanization", "English", "Example"]
    assert [t["name"] for t in model["tmpls"]] == ["Recognition", "Production"]
    assert model["sortf"] == 2 and model["css"] == ".card { font-size: 24px; }"
    # The card rule: hello has Korean and English (two cards); thanks has no Korean, so
    # no Recognition card, as Anki decides.
    rendered = {rn.note.id: rn.note.card_ordinals for rn in package.rendered.notes}
    assert rendered == {"hello": (0, 1), "thanks": (1,)}
    assert sorted(c.ord for c in hello.cards()) == [0, 1]
    assert sorted(c.ord for c in thanks.cards()) == [1]
    # Markdown in a field, as in every other text.
    assert thanks["Example"] == "<strong>Thank you</strong> very much."
    recognition = next(c for c in hello.cards() if c.ord == 0)
    (tag,) = recognition.question_av_tags()
    assert (tag.lang, tag.field_text) == ("ko_KR", "안녕하세요")
    production = next(c for c in thanks.cards() if c.ord == 1)
    assert "thank you" in production.question() and "Thank you" not in production.question()
    assert "very much" not in production.answer()  # the Production back shows Korean only


def test_rebuilds_update_the_same_notes_and_note_type(
    vocab: Path, tmp_path: Path, collection: Any
) -> None:
    out = tmp_path / "out"
    (first,) = _build(vocab, out).packages
    import_package(collection, first.path)
    (again,) = _build(vocab, out, T1).packages
    assert again.path.read_bytes() == first.path.read_bytes()
    log = import_package(collection, again.path)
    assert not log.new and not log.updated and not log.conflicting  # type: ignore[attr-defined]

    card_file = vocab / "vocab.yaml"
    text = card_file.read_text(encoding="utf-8")
    text = text.replace("English: hello", "English: hello (formal)")
    text = text.replace('css: ".card { font-size: 24px; }"', 'css: ".card { font-size: 30px; }"')
    card_file.write_text(text, encoding="utf-8")
    (changed,) = _build(vocab, out, T1).packages
    assert changed.changes.changed == ("hello",)
    assert [spec.name for spec in changed.changes.note_types_changed] == ["Korean vocabulary"]
    log = import_package(collection, changed.path, merge_notetypes=False)
    assert len(log.updated) == 1 and not log.new and not log.conflicting  # type: ignore[attr-defined]
    assert collection.note_count() == 2
    models = [m for m in collection.models.all() if m["name"].startswith("Korean vocabulary")]
    assert len(models) == 1 and models[0]["css"] == ".card { font-size: 30px; }"


def test_a_card_added_to_a_note_type_is_told_to_need_merge_note_types(
    vocab: Path, tmp_path: Path, collection: Any
) -> None:
    """Anki's import takes a note type whose cards changed (added, removed, renamed) for
    another one, as for new fields: without "Merge note types" it adds 'Name+' and the
    notes conflict. The build said "templates or CSS changed (updates in place)"."""
    out = tmp_path / "out"
    (first,) = _build(vocab, out).packages
    import_package(collection, first.path)
    card_file = vocab / "vocab.yaml"
    listening = (
        "      - name: Listening\n"
        '        front: "{{tts ko_KR:Korean}}"\n'
        '        back: "{{FrontSide}}<hr id=answer>{{Korean}}"\n'
    )
    text = card_file.read_text(encoding="utf-8").replace("notes:\n", listening + "notes:\n", 1)
    card_file.write_text(text, encoding="utf-8")
    result = _build(vocab, out, T1)
    (added,) = result.packages
    assert not added.changes.note_types_changed
    (replaced,) = added.changes.note_types_replaced
    assert replaced.old.cards == ("Recognition", "Production")
    (warning,) = (w for w in result.warnings if "now has the cards" in w.message)
    assert "Recognition, Production, Listening, not Recognition, Production" in warning.message
    assert "'Korean vocabulary+'" in warning.message
    # What the warning says Anki does, and what it advises.
    log = import_package(collection, added.path, merge_notetypes=False)
    assert len(log.conflicting) == 2 and not log.updated  # type: ignore[attr-defined]
    assert "Korean vocabulary+" in [m["name"] for m in collection.models.all()]
    log = import_package(collection, added.path, merge_notetypes=True)
    assert not log.conflicting  # type: ignore[attr-defined]
    hello = _notes(collection)["hello"]
    assert sorted(c.ord for c in hello.cards()) == [0, 1, 2]
    # Built again unchanged: told once, not on every build.
    (again,) = _build(vocab, out, T1).packages
    assert not again.changes.note_types_replaced


def test_a_cloze_note_type_with_type_in_answers(tmp_path: Path, collection: Any) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "c.yaml").write_text(
        """\
deck: Capitals
id: capitals
note_types:
  type-in:
    kind: cloze
    fields: [Text, Source]
    cards:
      - front: "{{cloze:Text}}<br>{{type:cloze:Text}}"
        back: "{{cloze:Text}}<br>{{type:cloze:Text}}<br>{{Source}}"
notes:
  - id: seoul
    type: type-in
    fields: {Text: "{{c1::Seoul}} is the capital of {{c2::Korea}}.", Source: atlas}
""",
        encoding="utf-8",
    )
    (package,) = _build(cards, tmp_path / "out").packages
    import_package(collection, package.path)
    (nid,) = collection.find_notes("")
    note = collection.get_note(nid)
    assert note.note_type()["type"] == 1  # Anki's cloze kind
    assert sorted(c.ord for c in note.cards()) == [0, 1]
    assert "[[type:cloze:Text]]" in note.cards()[0].question()


# -- the card rule against Anki's own card generation -------------------------------------------

FIELDS = ("A", "B", "C")
_PIECES = st.sampled_from(
    ["{{A}}", "{{B}}", "{{text:C}}", "text ", "{{FrontSide}}", "{{Card}}", "{{Tags}}",
     "{{#A}}", "{{^B}}", "{{/A}}", "{{/B}}", "{{#C}}{{B}}{{/C}}", "{{^A}}{{C}}{{/A}}"]
)  # fmt: skip


def _balanced(pieces: list[str]) -> str | None:
    """The pieces as a template, or None when its conditionals do not nest."""
    stack: list[str] = []
    for piece in pieces:
        if piece in ("{{#A}}", "{{^B}}"):
            stack.append(piece[3])
        elif piece in ("{{/A}}", "{{/B}}") and (not stack or stack.pop() != piece[3]):
            return None
    return None if stack else "".join(pieces)


@pytest.fixture(scope="module")
def anki_collection(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from anki.collection import Collection

    col = Collection(str(tmp_path_factory.mktemp("rule") / "collection.anki2"))
    yield col
    col.close()


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    fronts=st.lists(st.lists(_PIECES, min_size=1, max_size=4), min_size=1, max_size=3),
    filled=st.lists(st.booleans(), min_size=3, max_size=3),
    tagged=st.booleans(),
)
def test_the_card_rule_is_ankis(
    anki_collection: Any, fronts: list[list[str]], filled: list[bool], tagged: bool
) -> None:
    col = anki_collection
    templates = [t for t in (_balanced(pieces) for pieces in fronts) if t is not None]
    if not templates or len(set(templates)) < len(templates):
        return
    models = col.models
    model = models.new(f"rule {len(models.all())}")
    for name in FIELDS:
        models.add_field(model, models.new_field(name))
    for number, front in enumerate(templates, start=1):
        template = models.new_template(f"Card {number}")
        template["qfmt"], template["afmt"] = front, "{{FrontSide}}"
        models.add_template(model, template)
    try:
        models.add(model)
    except Exception:  # a template Anki's note type editor refuses: not a case here
        return
    note = col.new_note(model)
    fields = {name: ("x" if on else "") for name, on in zip(FIELDS, filled, strict=True)}
    for name, text in fields.items():
        note[name] = text
    if tagged:
        note.tags = ["t"]
    expected = cards_made(templates, fields, tags=tagged)
    try:
        col.add_note(note, 1)
    except Exception:
        assert expected == ()  # Anki refuses a note that makes no card
        return
    made = tuple(sorted(card.ord for card in note.cards()))
    assert made == (expected or (0,)), (templates, fields)


FONT_CSS = (
    "@font-face { font-family: nanum; src: url('_nanum.ttf'); } .card { font-family: nanum; }"
)


def _with_font(tmp_path: Path, *, font: bool) -> Path:
    """The vocabulary deck whose note type's CSS uses a font from the media folder, and
    whose template has a link opening in a new tab (``target="_blank"``, which Anki's
    pattern finds too and which names no file)."""
    cards = tmp_path / "cards"
    cards.mkdir()
    text = VOCAB.replace('css: ".card { font-size: 24px; }"', f'css: "{FONT_CSS}"').replace(
        'back: "{{FrontSide}}<hr id=answer>{{Korean}}"',
        "back: \"{{FrontSide}}<hr id=answer>{{Korean}}<a href='#' target='_blank'>more</a>\"",
    )
    assert FONT_CSS in text and "_blank" in text
    (cards / "vocab.yaml").write_text(text, encoding="utf-8")
    media = tmp_path / "media"
    media.mkdir()
    if font:
        (media / "_nanum.ttf").write_bytes(b"\x00\x01\x00\x00 a font")
    return cards


def _build_with_media(cards: Path, out: Path) -> app.BuildResult:
    request = app.BuildRequest(
        T0,
        app.Selection(sources=(cards,), media_dir=cards.parent / "media"),
        out_dir=out,
        preview=False,
        lint=False,
    )
    return app.build(request)


def test_a_font_the_note_types_css_uses_is_packaged_as_ankis_export_packages_it(
    tmp_path: Path, collection: Any
) -> None:
    """Anki's export packages the files a note type's CSS and templates name with a
    leading underscore (rslib notetype gather_media_names): a deck imported from Anki with
    its font lost the font when built again ("no card uses this file")."""
    result = _build_with_media(_with_font(tmp_path, font=True), tmp_path / "out")
    (package,) = result.packages
    assert list(package.rendered.media) == ["_nanum.ttf"]
    assert not [w for w in result.warnings if "_nanum" in w.message or "_blank" in w.message]
    import_package(collection, package.path)
    media = Path(collection.media.dir())
    assert (media / "_nanum.ttf").read_bytes() == b"\x00\x01\x00\x00 a font"
    assert not (media / "_blank").exists()


def test_a_font_the_note_types_css_uses_that_is_missing_is_a_warning(tmp_path: Path) -> None:
    result = _build_with_media(_with_font(tmp_path, font=False), tmp_path / "out")
    (warning,) = [w for w in result.warnings if w.code == "missing-media"]
    assert warning.file.endswith("vocab.yaml")
    assert warning.message == (
        f"note type 'Korean vocabulary' uses media file '_nanum.ttf', not found in "
        f"{tmp_path / 'media'}/ or {tmp_path / 'cards'}/; its cards show without it"
    )
    assert result.packages and not result.packages[0].rendered.media
