"""What a pull takes from Anki, field by field (issue 43, item 2): multiple-choice choices,
answers and explanations, typed answers, cloze text and extra, basic fronts and backs, a
declared note type's fields, spoken texts; edited as Anki's editor writes HTML. Checked
with the real backend: after the pull, a build imported into the same collection
changes nothing there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.model import BasicNote, ClozeNote, FieldsNote, McqNote, TypedNote
from tests.app.test_pull import BUILT, _build, _collection, _export, _import
from tests.cardfile.loading import load_deck
from tests.conftest import Run

CliRun = Callable[..., Run]
pytestmark = pytest.mark.anki

CARD_FILE = """\
deck: Kinds
id: kinds
note_types:
  vocab:
    fields: [Korean, English]
    cards:
      - name: Recognition
        front: "{{Korean}}"
        back: "{{FrontSide}}<hr id=answer>{{English}}"
notes:
  - id: organelle
    question: Which organelles have their own DNA?
    choices: [Mitochondrion, Ribosome, Chloroplast]
    answer: A
    explanation: The mitochondrion.

  - id: nuclei
    type: typed
    question: How many nuclei does a red blood cell have?
    answer: [none, "0", zero]

  - id: membrane
    text: The membrane is a {{c1::phospholipid}} bilayer.

  - id: term
    front: Activation
    back: A layer's output.
    reverse: true

  - id: hello
    type: vocab
    fields: {Korean: 안녕하세요, English: hello}

  - id: spoken
    front: Bonjour
    back: Hello
    speak: [front]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cards").mkdir()
    (tmp_path / "media").mkdir()
    (tmp_path / "cards" / "kinds.yaml").write_text(CARD_FILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(BUILT))
    _build()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    with _collection(tmp_path) as col:
        assert len(_import(col, tmp_path / "output" / "kinds.apkg").new) == 6
    return tmp_path


def _edit(col: Any, starts: str, edit: Callable[[Any], None]) -> None:
    (nid,) = [
        n for n in col.find_notes("deck:Kinds") if col.get_note(n).fields[0].startswith(starts)
    ]
    note = col.get_note(nid)
    edit(note)
    col.update_note(note)


def test_every_kind_of_field_comes_back(project: Path, cli: CliRun) -> None:
    def mcq(note: Any) -> None:
        note.fields[1] = note.fields[1].replace(">Ribosome<", ">A ribosome<")
        note.fields[2] = "A, C"
        note.fields[3] = "The mitochondrion<br>and the chloroplast."

    def typed(note: Any) -> None:
        note.fields[1] = note.fields[1].replace(">zero<", ">nil<")

    def cloze(note: Any) -> None:
        note.fields[0] = "The membrane is a {{c1::phospholipid}} {{c2::double}} layer."
        note.fields[1] = "See <i>Alberts</i>."

    def basic(note: Any) -> None:
        note.fields[1] = "A layer's <b>output</b>."

    def vocab(note: Any) -> None:
        note.fields[1] = "hello,&nbsp;there"

    def spoken(note: Any) -> None:
        note.fields[1] = "Hello!"

    with _collection(project) as col:
        for starts, edit in (
            ("Which organelles", mcq),
            ("How many", typed),
            ("The membrane", cloze),
            ("Activation", basic),
            ("안녕", vocab),
            ("Bonjour", spoken),
        ):
            _edit(col, starts, edit)
        source = _export(col, project / "Kinds.apkg", "Kinds")
    run = cli("pull", source)
    assert run.code == 0, run.err
    deck = load_deck(project / "cards" / "kinds.yaml")
    notes = {note.id: note for note in deck.notes}
    organelle = notes["organelle"]
    assert isinstance(organelle, McqNote)
    assert organelle.choices == ("Mitochondrion", "A ribosome", "Chloroplast")
    assert organelle.answer == (0, 2)
    assert organelle.explanation == "The mitochondrion<br>and the chloroplast."
    nuclei = notes["nuclei"]
    assert isinstance(nuclei, TypedNote)
    assert [a.text for a in nuclei.answers] == ["none", "0", "nil"]
    membrane = notes["membrane"]
    assert isinstance(membrane, ClozeNote)
    assert membrane.text == "The membrane is a {{c1::phospholipid}} {{c2::double}} layer."
    assert membrane.extra == "See <i>Alberts</i>."  # as import writes it: it builds back the same
    term = notes["term"]
    assert isinstance(term, BasicNote) and term.back == "A layer's <b>output</b>." and term.reverse
    hello = notes["hello"]
    assert isinstance(hello, FieldsNote) and hello.fields == ("안녕하세요", "hello,\xa0there")
    spoken = notes["spoken"]
    assert isinstance(spoken, BasicNote) and spoken.back == "Hello!" and spoken.speak == ("front",)
    assert cli("check").code == 0
    _build()
    with _collection(project) as col:
        log = _import(col, project / "output" / "kinds.apkg")
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)


def test_an_edited_spoken_text_is_spoken_anew_by_the_next_build(project: Path, cli: CliRun) -> None:
    """Anki's copy keeps the speech of the text the build gave it: the next build gives
    Anki the new text's speech (one update), not the old one."""
    with _collection(project) as col:
        _edit(
            col,
            "Bonjour",
            lambda note: note.fields.__setitem__(0, note.fields[0].replace("Bonjour", "Salut", 1)),
        )
        source = _export(col, project / "Kinds.apkg", "Kinds")
    assert cli("pull", source).code == 0
    _build()
    with _collection(project) as col:
        log = _import(col, project / "output" / "kinds.apkg")
        assert len(log.updated) == 1
        (nid,) = col.find_notes("deck:Kinds Salut")
        assert "[anki:tts lang=en_US]Salut[/anki:tts]" in col.get_note(nid).fields[0]


def test_a_choices_field_edited_as_html_is_not_pulled(project: Path, cli: CliRun) -> None:
    with _collection(project) as col:
        _edit(
            col,
            "Which organelles",
            lambda note: note.fields.__setitem__(1, "Mitochondrion<br>Ribosome"),
        )
        source = _export(col, project / "Kinds.apkg", "Kinds")
    before = (project / "cards" / "kinds.yaml").read_text(encoding="utf-8")
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/kinds.yaml:11: note 'organelle': not pulled: Anki's copy of its fields is not as deckbuilder writes them"
        in run.err
    )
    assert (project / "cards" / "kinds.yaml").read_text(encoding="utf-8") == before


def test_an_image_occlusion_note_edited_in_anki_is_named_and_the_others_come_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: CliRun
) -> None:
    """An image occlusion note was read as a basic note (its Occlusion field as the
    front), which the card file's checks then refused, and the whole pull with it: even a
    tag added to such a note in Anki stopped every other note from coming in. Pull does
    not read image occlusion notes: it names the note, and pulls the others."""
    from tests.occlusion_decks import picture

    picture(tmp_path / "media" / "heart.png")
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "heart.yaml").write_text(
        "deck: Heart\nnotes:\n  - {id: term, front: Atrium, back: An upper chamber.}\n"
        "  - id: chambers\n    image: heart.png\n    header: Chambers\n"
        "    masks:\n      - rect: [120, 40, 80, 60]\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(BUILT))
    _build()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    with _collection(tmp_path) as col:
        _import(col, tmp_path / "output" / "heart.apkg")
        for nid in col.find_notes("deck:Heart"):
            note = col.get_note(nid)
            if note.fields[0] == "Atrium":
                note.fields[1] = "An <b>upper</b> chamber."
            else:
                note.fields[2] = "Chambers of the heart"
                note.tags = ["anatomy"]
            col.update_note(note)
        source = _export(col, tmp_path / "Heart.apkg", "Heart")
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/heart.yaml:4: note 'chambers': not pulled: pull does not read image occlusion "
        "notes yet"
    ) in run.err
    assert "updated from Anki: term" in run.out
    text = (tmp_path / "cards" / "heart.yaml").read_text(encoding="utf-8")
    assert "back: An <b>upper</b> chamber." in text and "header: Chambers\n" in text


def test_braces_of_a_cloze_deletion_in_a_basic_note_come_back_as_shown(
    project: Path, cli: CliRun
) -> None:
    """A basic note shows '{{c1::...}}' as typed, braces and all. Pulled as written, the
    card file's checks refused it as a deletion in the wrong note type, and the whole
    pull with it; the card file says such braces with a backslash, which builds back to
    what Anki has."""
    with _collection(project) as col:
        _edit(col, "Activation", lambda note: note.fields.__setitem__(1, "Not a {{c1::deletion}}."))
        source = _export(col, project / "Kinds.apkg", "Kinds")
    run = cli("pull", source)
    assert run.code == 0, run.err
    text = (project / "cards" / "kinds.yaml").read_text(encoding="utf-8")
    assert "back: Not a \\{{c1::deletion}}.\n" in text
    assert cli("check").code == 0
    _build()
    with _collection(project) as col:
        log = _import(col, project / "output" / "kinds.apkg")
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)


def test_what_the_card_file_cannot_hold_is_a_warning_at_the_note_s_line(
    project: Path, cli: CliRun
) -> None:
    with _collection(project) as col:
        _edit(
            col,
            "Activation",
            lambda note: note.fields.__setitem__(1, '<span style="color: red">red</span>'),
        )
        source = _export(col, project / "Kinds.apkg", "Kinds")
    run = cli("pull", source)
    assert run.code == 0, run.err
    assert (
        "cards/kinds.yaml:25: note 'term': warning: Anki's copy of its back has markup the "
        "card file cannot hold"
    ) in run.err


def test_characters_above_u_ffff_are_written_as_they_are(project: Path, cli: CliRun) -> None:
    """An emoji or a math letter typed in Anki comes into the card file as it is, and a
    text of lines stays a block: libyaml wrote each as an 8-digit escape ('\\U0001F52C'),
    quoted the text, and a text of lines became one double-quoted line of '\\n's."""
    with _collection(project) as col:
        _edit(col, "Activation", lambda note: note.fields.__setitem__(1, "A layer's output 🔬"))
        _edit(
            col,
            "Which organelles",
            lambda note: note.fields.__setitem__(
                3, "The mitochondrion.<br>Think \U0001d465 ≠ \U0001d466."
            ),
        )
        _edit(
            col,
            "The membrane",
            lambda note: note.fields.__setitem__(1, "<ul><li>Lipids 🧪</li><li>Proteins</li></ul>"),
        )
        source = _export(col, project / "Kinds.apkg", "Kinds")
    run = cli("pull", source)
    assert run.code == 0, run.err
    text = (project / "cards" / "kinds.yaml").read_text(encoding="utf-8")
    assert "    back: A layer's output 🔬\n" in text
    assert "    explanation: The mitochondrion.<br>Think \U0001d465 ≠ \U0001d466.\n" in text
    assert "    extra: |-\n      - Lipids 🧪\n      - Proteins\n" in text
    assert "\\U" not in text
    assert cli("check").code == 0


def test_a_letter_or_flag_typed_otherwise_in_anki_is_named_with_its_field(
    project: Path, cli: CliRun
) -> None:
    """An answer typed in Anki's editor in lower case ('b'), or a flag as 'Yes', is no
    HTML edit: the note was refused as one whose "choices, answers or language markup were
    edited as HTML". The message names the field, its value and what it holds."""
    with _collection(project) as col:
        _edit(col, "Which organelles", lambda note: note.fields.__setitem__(2, "b"))
        source = _export(col, project / "Kinds.apkg", "Kinds")
    run = cli("pull", source)
    assert run.code == 1
    assert (
        "cards/kinds.yaml:11: note 'organelle': not pulled: Anki's copy is not as deckbuilder "
        "writes it: its Answer field is 'b', where deckbuilder writes the right choices' "
        "letters, such as B or A, C; make the edit in the card file"
    ) in run.err
