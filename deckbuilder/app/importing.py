"""``import``: questions and notes written elsewhere become a card file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deckbuilder.app.requests import ImportRequest
from deckbuilder.errors import Problem, RequestError
from deckbuilder.importers import FORMATS, plan_import, write_card_file
from deckbuilder.importers.base import skipped_summary
from deckbuilder.importers.notes_plan import (
    NotesImport,
    notes_report,
    plan_notes,
    read_notes_source,
    write_notes,
)

__all__ = ["ImportResult", "import_file"]


@dataclass(frozen=True)
class ImportResult:
    card_file: Path
    warnings: tuple[Problem, ...]  # notes or questions left out or changed, with lines
    report: tuple[str, ...]  # what became of the notes, and the files written


def import_file(request: ImportRequest) -> ImportResult:
    """Read ``request.source`` and write its card file (and, for an Anki package, its
    lock file, note types and media); nothing is written when anything is refused."""
    notes = read_notes_source(request.source) if request.format == "auto" else None
    if notes is not None:
        return _import_notes(notes, request)
    if request.format not in FORMATS:
        raise RequestError.single(
            "format", f"must be one of {', '.join(FORMATS)}, not {request.format!r}"
        )
    if request.deck is not None and not request.deck.strip():
        raise RequestError.single("deck", "must not be empty")
    source = request.source
    plan = plan_import(
        source,
        request.format,
        out=request.out,
        deck=request.deck,
        allow_missing_answers=request.allow_missing_answers,
    )
    result = plan.result
    warnings = [
        Problem(
            str(source),
            s.line,
            f"warning: skipped {'an' if s.kind[0] in 'aeiou' else 'a'} {s.kind} question "
            f"({s.reason})",
        )
        for s in result.skipped
    ]
    warnings += [
        Problem(str(source), q.line, "warning: no answer marked; 'answer:' left empty")
        for q in result.missing_answers
    ]
    warnings += result.warnings  # e.g. a GIFT mark inside feedback, read as Moodle does
    path = write_card_file(plan, source, force=request.force, replaced=request.written)
    missing = len(result.missing_answers)
    questions = len(result.questions)
    line = (
        f"wrote {path}: {questions} question{'' if questions == 1 else 's'} imported, "
        f"{skipped_summary(result.skipped)} ({result.format} format, deck '{plan.deck_name}')"
        + (f"; {missing} without an answer" if missing else "")
    )
    return ImportResult(path, tuple(warnings), (line,))


def _import_notes(notes: NotesImport, request: ImportRequest) -> ImportResult:
    """An Anki package, Anki's text export or a spreadsheet: plan, write, report."""
    plan = plan_notes(notes, request.source, request.out, request.deck, request.media_dir)
    write_notes(plan, request.source, force=request.force, replaced=request.written)
    return ImportResult(plan.out, tuple(notes.warnings), tuple(notes_report(plan)))
