"""Reading a quiz text as ``deckbuilder import`` does, through the public calls, for
tests of the readers: what came in (a view of each note as the source wrote it), what was
skipped, and the problems a question had."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers import (
    ImportOptions,
    ImportPlan,
    SourceNotes,
    plan_import,
    read_source,
    read_text_source,
)
from deckbuilder.importers.base import Skipped
from deckbuilder.model import McqNote, Note, TypedAnswer, TypedNote


@dataclass
class Question:
    """A note as the tests compare it: lists, typed answers as the card file writes them."""

    line: int
    question: str
    choices: list[str]
    answer: list[int]
    explanation: str
    tags: list[str]
    feedback: list[str]
    shuffle: bool
    typed: list[dict[str, str]] | None
    id: str


@dataclass
class Imported:
    format: str
    deck: str
    description: str
    questions: list[Question]
    skipped: list[Skipped]
    warnings: list[Problem] = field(default_factory=list)
    plan: ImportPlan | None = None


def _entry(answer: TypedAnswer) -> dict[str, str]:
    if not answer.is_number:
        return {"text": answer.text}
    number, _, tolerance = answer.shown.partition(" \u00b1 ")
    low, dash, high = answer.shown.partition(" \u2013 ")
    if dash:
        return {"min": low, "max": high}
    return {"number": number, **({"tolerance": tolerance} if tolerance else {})}


def question(note: Note) -> Question:
    if isinstance(note, TypedNote):
        return Question(
            note.line, note.question, [], [], note.explanation, list(note.tags), [], True,
            [_entry(a) for a in note.answers], note.id,
        )  # fmt: skip
    assert isinstance(note, McqNote)
    return Question(
        note.line, note.question, list(note.choices), list(note.answer), note.explanation,
        list(note.tags), list(note.feedback), note.shuffle, None, note.id,
    )  # fmt: skip


def import_text(
    text: str, file: str = "in.txt", fmt: str = "auto", *, allow_missing_answers: bool = False
) -> Imported:
    """Read ``text``; raise DeckError with each problem of a question left out (questions
    of kinds the card format has no note for, essays and such, are only skipped)."""
    read = read_text_source(text, Path(file), fmt)
    return _planned(read, allow_missing_answers)


def import_file(
    path: Path, fmt: str = "auto", *, allow_missing_answers: bool = False, deck: str | None = None
) -> Imported:
    """As :func:`import_text`, from the file at ``path``."""
    return _planned(read_source(path, fmt), allow_missing_answers, deck)


def _planned(read: SourceNotes, allow_missing_answers: bool, deck: str | None = None) -> Imported:
    file = str(read.source)
    options = ImportOptions(
        out=Path("out.yaml"), deck=deck, allow_missing_answers=allow_missing_answers
    )
    plan = plan_import(read, options)
    refused = [Problem(file, s.line, s.reason) for s in plan.skipped if not s.kind]
    if refused:
        raise DeckError(refused)
    (planned,) = plan.decks
    notes = [question(note) for note in planned.notes]
    skipped = [s for s in plan.skipped if s.kind]
    description = read.decks[0].description if read.decks else ""
    return Imported(
        read.format, planned.name, description, notes, skipped, list(plan.diagnostics), plan
    )


def card_text(result: Imported) -> str:
    """The card file the import would write."""
    assert result.plan is not None
    return result.plan.files[result.plan.decks[0].out].decode("utf-8")
