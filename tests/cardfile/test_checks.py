"""deck_problems: the content rules of notes, run on model notes built in memory (as an
importer builds them), located by each note's lines in the deck's source file."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.cardfile.fields import MAX_FIELD_BYTES
from deckbuilder.errors import DeckError, Problem
from deckbuilder.model import (
    BasicNote,
    ClozeNote,
    Deck,
    McqNote,
    Note,
    TypedAnswer,
    TypedNote,
)
from tests.cardfile.loading import deck_problems, load_deck
from tests.conftest import DATA, ROOT

SOURCE = Path("questions.txt")


def checked(*notes: Note) -> list[str]:
    found = deck_problems(Deck(key="d", name="D", source=SOURCE, notes=notes))
    assert all(p.file == str(SOURCE) for p in found)
    return [f"{p.line} {p.note}: {p.message}" for p in found]


def mcq(**changes: object) -> McqNote:
    fields: dict[str, object] = {
        "id": "q",
        "line": 10,
        "question": "Which?",
        "choices": ("x", "y", "z"),
        "answer": (0,),
    }
    return McqNote(**(fields | changes))  # type: ignore[arg-type]


def test_decks_that_load_pass() -> None:
    for path in (ROOT / "cards" / "gradient-checkpointing.yaml", DATA / "mixed.yaml"):
        assert deck_problems(load_deck(path)) == []


def test_a_duplicate_id_is_one_problem_among_the_notes_others() -> None:
    """Issue 32: a duplicate id hid the note's other problems."""
    first = BasicNote(id="a", line=3, front="f", back="b")
    second = BasicNote(
        id="a", line=7, front="f\x1fx", back="b", field_lines={"id": 7, "front": 8, "back": 9}
    )
    assert checked(first, second) == [
        "7 a: duplicate note id (first at line 3)",
        "8 a: 'front' contains the control character U+001F (Anki's field separator), "
        "which Anki cannot store; delete it",
    ]


def test_lines_come_from_the_note_and_default_to_its_first_line() -> None:
    note = mcq(choices=("x", "X "), field_lines={"choices[1]": 14})
    assert checked(note) == ["14 q: choice B repeats choice A"]
    assert checked(mcq(id="Q Id")) == [
        "10 Q Id: note id 'Q Id' must match [a-z0-9][a-z0-9_-]*; did you mean 'q-id'?"
    ]


@pytest.mark.parametrize(
    ("note", "message"),
    [
        (mcq(choices=("x",)), "'choices' has 1 entry; give 2 to 26"),
        (mcq(choices=("x", "")), "'choices[1]' is empty"),
        (mcq(answer=()), "'answer' is empty; give at least one letter"),
        (mcq(answer=(0, 3)), "answer 'D' is not one of the choices (A-C)"),
        (mcq(answer=(1, 1)), "answer 'B' is given twice"),
        (mcq(pinned=(5,)), "a pinned choice (6) is not one of the choices"),
        (mcq(question="x" * (MAX_FIELD_BYTES + 1)), f"'question' is {MAX_FIELD_BYTES + 1:,} bytes"),
        (mcq(tags=("a b",)), "tag 'a b' contains a space; Anki tags cannot (use '_' or '-')"),
        (mcq(tags=("",)), "'tags' is empty"),
        (mcq(guid="has space"), "'guid' must be 1 to 100 printable ASCII characters"),
        (
            mcq(lint_ignored=("longest-corect",)),
            "unknown lint rule 'longest-corect' in 'lint'; did you mean 'longest-correct'?",
        ),
        (ClozeNote(id="c", line=10, text="no gaps"), "cloze text has no deletion"),
        (ClozeNote(id="c", line=10, text="{{c1::a}} {{c2:b}}"), "malformed cloze near '{{c2:b}}'"),
        (ClozeNote(id="c", line=10, text="{{c1::}}"), "empty cloze deletion"),
        (
            BasicNote(id="b", line=10, front="f", back="b", reverse=False, add_reverse="y"),
            "'reverse' must be whether 'add_reverse' has text",
        ),
        (
            TypedNote(id="t", line=10, question="q"),
            "'answer' is empty; give at least one accepted answer",
        ),
        (
            TypedNote(
                id="t", line=10, question="q", answers=(TypedAnswer(text="a\nb", shown="a\nb"),)
            ),
            "'answer' must be one line",
        ),
        (
            TypedNote(
                id="t",
                line=10,
                question="q",
                answers=(TypedAnswer(low=5, high=3, shown="5 \u2013 3"),),
            ),
            "'answer': 'min' (5) is above 'max' (3)",
        ),
        (
            TypedNote(
                id="t",
                line=10,
                question="q",
                answers=(TypedAnswer(low=float("nan"), high=1, shown="?"),),
            ),
            "'answer' must be a number or a range of two numbers",
        ),
        (
            TypedNote(
                id="t",
                line=10,
                question="q",
                answers=(TypedAnswer(text="No", shown="No"), TypedAnswer(text="no", shown="no")),
            ),
            "answer[1] repeats answer[0]",
        ),
    ],
)
def test_each_rule_speaks_of_the_field_at_fault(note: Note, message: str) -> None:
    (found,) = checked(note)
    assert message in found


def test_a_repeated_guid_names_the_first_note() -> None:
    notes = [
        BasicNote(id=n, line=line, front="f", back="b", guid="G1")
        for n, line in (("a", 2), ("b", 5))
    ]
    assert checked(*notes) == [
        "5 b: guid 'G1' is also the guid of note 'a' (line 2); Anki would take them for one "
        "note. A copied note needs no guid: delete this line"
    ]


def test_the_loader_reports_what_check_deck_reports(tmp_path: Path) -> None:
    """One set of content rules: the loader's problems for a file are deck_problems's for
    the notes it read."""
    path = tmp_path / "deck.yaml"
    path.write_text(
        "deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [x, ' X']\n    answer: [A, D]\n"
        "  - id: a\n    text: none\n",
        encoding="utf-8",
    )
    with pytest.raises(DeckError) as info:
        load_deck(path)
    read = [
        McqNote(
            id="a",
            line=3,
            question="q",
            choices=("x", " X"),
            answer=(0, 3),
            field_lines={"id": 3, "choices": 5, "choices[1]": 5, "answer[1]": 6},
        ),
        ClozeNote(id="a", line=7, text="none", field_lines={"id": 7, "text": 8}),
    ]
    assert list(info.value.problems) == deck_problems(
        Deck(key="d", name="D", source=path, notes=tuple(read))
    )
    assert [p.message for p in info.value.problems] == [
        "choice B repeats choice A",
        "answer 'D' is not one of the choices (A-B)",
        "duplicate note id (first at line 3)",
        "cloze text has no deletion; mark answers as {{c1::answer}} or {{c1::answer::hint}}",
    ]
    assert all(isinstance(p, Problem) for p in info.value.problems)
