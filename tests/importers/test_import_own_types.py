"""Notes of deckbuilder's own note types come back from Anki as card-file notes: a deck
built by deckbuilder, studied in Anki and exported by Anki, imports into a card file that
builds the same notes (the same GUIDs, note types and fields), so that importing the
rebuilt package into the collection adds nothing, conflicts with nothing and changes no
review; and an edit of one choice updates exactly that note."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from deckbuilder.importers.own_types import own_language, own_note
from deckbuilder.model import McqNote, NoteKind
from tests.conftest import ROOT, Run, answer_good, import_package

T0 = 1_800_000_000  # the first build, before the learner studies
T1 = 1_900_000_000  # the builds after the import

OWN_DECK = """\
deck: Own types
id: own-types
notes:
  - id: capital
    type: mcq
    question: Which city is the capital of **France**?
    choices:
      - text: Paris
        feedback: Yes, since the 10th century.
      - Lyon
      - text: Marseille
        feedback: The largest port, not the capital.
      - text: None of the above
        pin: true
    answer: A
    explanation: See `France` on a map.
    shuffle: false
    tags: [geo]

  - id: pi
    type: typed
    question: What is pi to two decimal places?
    answer:
      - {number: 3.14, tolerance: 0.005}
      - {min: 3.13, max: 3.15}
      - 3,14
    explanation: Close enough.

  - id: tomb
    type: typed
    question: Who is buried in Grant's tomb?
    answer: [Grant, Ulysses S. Grant]
    match_case: true

  - id: hola
    front: hola
    back: hello & hi
    reverse: true

  - id: seine
    text: Paris lies on the {{c1::Seine}}.
"""


@dataclass
class Studied:
    col: object
    export: Path


def _studied(
    tmp_path: Path, cli: Callable[..., Run], card_file: Path, *args: str, deck: str
) -> Studied:
    """Build ``card_file``, import it into a fresh collection, answer a few cards, and
    export the deck as Anki does (with scheduling and media)."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    run = cli("build", card_file, "--out", tmp_path / "first", "--no-preview", *args)
    assert run.code == 0, run.err
    (package,) = (tmp_path / "first").glob("*.apkg")
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    log = import_package(col, package, merge_notetypes=False)
    assert len(log.new) > 0  # type: ignore[attr-defined]
    for cid in col.find_cards("")[:4]:
        answer_good(col, cid)
    export = tmp_path / "anki" / "studied.apkg"
    options = ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False
    )
    limit = DeckIdLimit(deck_id=col.decks.id_for_name(deck))  # type: ignore[arg-type]
    col.export_anki_package(out_path=str(export), options=options, limit=limit)
    return Studied(col, export)


def _state(col: object) -> tuple[object, ...]:
    db = col.db  # type: ignore[attr-defined]
    cards = [col.get_card(cid) for cid in db.list("SELECT id FROM cards ORDER BY id")]  # type: ignore[attr-defined]
    return (
        db.all("SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id"),
        db.all(
            "SELECT id, nid, did, ord, ivl, due, reps, lapses, queue, type FROM cards ORDER BY id"
        ),
        db.all("SELECT * FROM revlog ORDER BY id"),
        db.all("SELECT id, name, mtime_secs FROM notetypes ORDER BY id"),
        [(card.question(), card.answer()) for card in cards],
    )


def _import_build(cli: Callable[..., Run], export: Path, out: str) -> tuple[Path, Path]:
    run = cli("import", export, "--out", out)
    assert run.code == 0, run.err
    assert "not imported" not in run.out and "warning" not in run.err, run.out + run.err
    run = cli("build", "cards", "--out", "output", "--no-preview")
    assert run.code == 0, run.err
    (package,) = Path("output").glob("*.apkg")
    return Path(out), package.resolve()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(T0))
    return folder


@pytest.mark.anki
@pytest.mark.parametrize(
    ("lang", "deck"),
    [("en", "ML Systems::Gradient Checkpointing"), ("ko", "ML 시스템::그래디언트 체크포인팅")],
)
def test_bundled_deck_comes_back_and_goes_back_unchanged(
    tmp_path: Path,
    project: Path,
    cli: Callable[..., Run],
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    deck: str,
) -> None:
    bundled = tmp_path / "bundled"
    shutil.copytree(ROOT / "cards", bundled / "cards")
    shutil.copytree(ROOT / "media", bundled / "media")
    monkeypatch.chdir(bundled)
    studied = _studied(
        tmp_path,
        cli,
        bundled / "cards" / "gradient-checkpointing.yaml",
        "--lang",
        lang,
        deck=deck,
    )
    monkeypatch.chdir(project)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(T1))
    col = studied.col
    before = _state(col)

    card_file, package = _import_build(cli, studied.export, "cards/gc.yaml")
    text = card_file.read_text(encoding="utf-8")
    assert f"languages: [{lang}]" in text and "type: mcq" in text and "type: cloze" in text
    assert "```python" in text  # the explanation's code block is Markdown again
    log = import_package(col, package, merge_notetypes=False)
    assert (len(log.new), len(log.conflicting), len(log.updated)) == (0, 0, 0)  # type: ignore[attr-defined]
    assert _state(col) == before  # notes, cards, reviews, note types and what the cards show

    # The second choice of the first note, as the card file writes it: '    - text'.
    lines = text.split("\n")
    at = lines.index("    choices:") + 2
    choice = lines[at].removeprefix("    - ")
    lines[at] += " (edited)"
    card_file.write_text("\n".join(lines), encoding="utf-8")
    run = cli("build", "cards", "--out", "output", "--no-preview")
    assert run.code == 0, run.err
    log = import_package(col, package, merge_notetypes=False)
    assert (len(log.new), len(log.conflicting), len(log.updated)) == (0, 0, 1)  # type: ignore[attr-defined]
    notes, cards, revlog, note_types, _ = _state(col)
    assert (cards, revlog, note_types) == before[1:4]
    changed = [new for new, old in zip(notes, before[0], strict=True) if new != old]  # type: ignore[call-overload]
    assert len(changed) == 1
    was = next(old for old in before[0] if old[0] == changed[0][0])  # type: ignore[attr-defined]
    assert f">{choice}<" in was[5]
    assert changed[0][5] == was[5].replace(f">{choice}<", f">{choice} (edited)<")


@pytest.mark.anki
def test_typed_notes_pins_feedback_and_flags_come_back(
    tmp_path: Path, project: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cardfile.loading import load_deck

    source = tmp_path / "source" / "own-types.yaml"
    source.parent.mkdir()
    source.write_text(OWN_DECK, encoding="utf-8")
    studied = _studied(tmp_path, cli, source, deck="Own types")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(T1))
    before = _state(studied.col)

    card_file, package = _import_build(cli, studied.export, "cards/own-types.yaml")
    log = import_package(studied.col, package, merge_notetypes=False)
    assert (len(log.new), len(log.conflicting), len(log.updated)) == (0, 0, 0)  # type: ignore[attr-defined]
    assert _state(studied.col) == before

    def comparable(path: Path) -> list[object]:
        deck = load_deck(path)
        return sorted(
            (replace(n, id="", line=0, guid="", field_lines={}) for n in deck.notes),
            key=repr,
        )

    assert comparable(card_file) == comparable(source)
    text = card_file.read_text(encoding="utf-8")
    for written in ("pin: true", "feedback: Yes, since", "shuffle: false", "match_case: true"):
        assert written in text
    assert "{number: 3.14, tolerance: 0.005}" in text and "{min: 3.13, max: 3.15}" in text


def _choices_html(*choices: str, attributes: str = "") -> str:
    return "\n".join(
        f'<div class="db-choice" data-choice="{chr(65 + i)}"{attributes}>{c}</div>'
        for i, c in enumerate(choices)
    )


def test_choices_feedback_and_pins_read_back() -> None:
    choices = (
        '<div class="db-choice" data-choice="A" data-db-lang="en">Paris'
        '<div class="db-choice-feedback">Yes</div></div>\n'
        '<div class="db-choice" data-choice="B" data-db-lang="en" data-db-pin="true">'
        "None of the above</div>"
    )
    fields = ("Q?", choices, "A", "", "no")
    language = own_language([(NoteKind.MCQ, fields)])
    assert language.label == "en" and not language.lang
    note = own_note(NoteKind.MCQ, "g", fields, language)
    assert isinstance(note, McqNote)
    assert (note.choices, note.feedback, note.pinned, note.answer, note.shuffle) == (
        ("Paris", "None of the above"),
        ("Yes", ""),
        (1,),
        (0,),
        False,
    )


@pytest.mark.parametrize(
    "fields",
    [
        ("Q?", _choices_html("a", "b"), "C", "", "yes"),  # answer beyond the choices
        ("Q?", _choices_html("a", "b"), "A", "", "maybe"),  # shuffle neither yes nor no
        ("Q?", "<div>a</div>\n<div>b</div>", "A", "", "yes"),  # not deckbuilder's choices
        ("Q?", _choices_html("a"), "A", "", "yes"),  # one choice
    ],
)
def test_own_notes_deckbuilder_did_not_write_are_not_read(fields: tuple[str, ...]) -> None:
    assert own_note(NoteKind.MCQ, "g", fields, own_language([])) is None


def test_a_language_wraps_every_field_or_none() -> None:
    wrapped = (
        '<div lang="ko" data-db-lang="ko">질문</div>',
        _choices_html("a", "b", attributes=' lang="ko"'),
        "A",
        '<div lang="ko">설명</div>',
        "yes",
    )
    assert own_language([(NoteKind.MCQ, wrapped)]).lang == "ko"
    cloze = (NoteKind.CLOZE, ("{{c1::x}}", ""))  # not wrapped: not one language's deck
    assert own_language([(NoteKind.MCQ, wrapped), cloze]).lang == ""
    note = own_note(NoteKind.MCQ, "g", wrapped, own_language([(NoteKind.MCQ, wrapped)]))
    assert isinstance(note, McqNote)
    assert (note.question, note.explanation) == ("질문", "설명")
