"""``import``: questions and notes written elsewhere become card files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deckbuilder.app.requests import ImportRequest
from deckbuilder.cardfile.declared import RESERVED_KEYS, project_root
from deckbuilder.cardfile.fields import ID_RE, id_problem
from deckbuilder.cardfile.reader import load_note_type
from deckbuilder.errors import Problem, RequestError
from deckbuilder.importers import plan_import, read_source, write_import
from deckbuilder.importers.plan import QUIZ_FORMATS, ImportPlan
from deckbuilder.note_types import NoteType


@dataclass(frozen=True)
class ImportResult:
    # The decks and files written, what became of the notes of each note type of the
    # source (its ``read.report``), what was left out, and the diagnostics: the warnings,
    # with their lines, then notes (a note type kept as asked, how to import in place).
    plan: ImportPlan
    media_dir: Path

    @property
    def card_files(self) -> tuple[Path, ...]:
        return tuple(deck.out for deck in self.plan.decks)

    @property
    def diagnostics(self) -> tuple[Problem, ...]:
        return self.plan.diagnostics

    @property
    def questions(self) -> bool:
        """The source is a quiz: it holds questions rather than notes."""
        return self.plan.read.format in QUIZ_FORMATS


def import_file(request: ImportRequest) -> ImportResult:
    """Read ``request.source`` and write its card files (and, for an Anki package, their
    lock files, note types and media); nothing is written when the import is refused."""
    if request.deck is not None and not request.deck.strip():
        raise RequestError.single("deck", "must not be empty")
    read = read_source(
        request.source,
        request.format,
        _note_type(request),
        keep_scripts=request.keep_scripts,
    )
    plan = plan_import(read, request)
    write_import(plan, force=request.force, replaced=request.written)
    return ImportResult(plan, request.media_dir)


def _note_type(request: ImportRequest) -> NoteType | str | None:
    """The note type the request names: the project's ``note-types/<key>.yaml`` (the
    project of the card file named, else of this folder), or a new key."""
    key = request.note_type
    if key is None:
        return None
    if not ID_RE.match(key):
        raise RequestError.single("note_type", id_problem("note type key", key))
    if key in RESERVED_KEYS:
        raise RequestError.single(
            "note_type",
            f"'{key}' is one of deckbuilder's own note types; name a note type of the "
            "project, or a new key",
        )
    root = project_root(request.out) if request.out is not None else Path(".")
    return load_note_type(root, key) or key
