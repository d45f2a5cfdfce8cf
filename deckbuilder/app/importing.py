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
from deckbuilder.importers.base import ActiveContent
from deckbuilder.note_types import NoteType


@dataclass(frozen=True)
class ImportResult:
    card_files: tuple[Path, ...]  # one per deck imported
    warnings: tuple[Problem, ...]  # notes or questions left out or changed, with lines
    report: tuple[str, ...]  # what became of the notes, and the files written
    # What the note types kept from a package run or fetch: removed, or kept as asked.
    active_content: tuple[ActiveContent, ...] = ()

    def as_json(self) -> dict[str, object]:
        """The result as ``import --json`` prints it."""
        return {
            "ok": True,
            "card_files": [str(path) for path in self.card_files],
            "warnings": [
                {
                    "file": p.file,
                    "line": p.line,
                    "note": p.note,
                    "message": p.message,
                    "severity": p.severity.value,
                }
                for p in self.warnings
            ],
            "report": list(self.report),
            "note_types": [
                {
                    "name": active.note_type,
                    "kept": active.kept,
                    "parts": [
                        {"kind": f.part.value, "where": f.where, "excerpt": f.excerpt}
                        for f in active.found
                    ],
                }
                for active in self.active_content
            ],
        }


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
    return ImportResult(
        tuple(deck.out for deck in plan.decks), plan.warnings, plan.report, plan.active
    )


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
