"""Notes read from Anki or a spreadsheet -> the files ``deckbuilder import`` writes.

The card file, and for notes from an Anki package also what keeps them the notes Anki
already has: the note types beside the card file (:mod:`deckbuilder.anki.notetypes.carried`),
the lock file with each note's Anki note id and modification time, and the media files.
Everything is planned and checked (loaded and rendered as ``build`` would) before
anything is written, and then written together or not at all.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.errors import DeckError, Problem
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.importers.base import (
    CardNote,
    check_target,
    distinct_ids,
    field_problem,
    note_id_for,
    slugify,
)
from deckbuilder.model import NoteKind

if TYPE_CHECKING:
    from deckbuilder.render.deck import RenderedDeck
from deckbuilder.cardfile.records_writer import notes_yaml

__all__ = [
    "NotesImport",
    "NotesPlan",
    "TypeReport",
    "plan_notes",
    "subdeck_warning",
    "write_notes",
]

IN_PLACE_HINT = (
    "Anki's text export does not carry its note types, so re-importing the built package "
    "into the collection it came from reports these notes as conflicting and leaves them "
    "as they are (no duplicates, review history untouched). To get edits updated in place, "
    "export the deck as an .apkg and import that instead"
)


def subdeck_warning(source: str, others: int, deck: str) -> Problem:
    """The card format has one deck per file: notes of subdecks land in the main one."""
    return Problem(
        source,
        None,
        f"warning: {others} {'note is' if others == 1 else 'notes are'} in other decks than "
        f"'{deck}' (subdecks); the card file holds them all in '{deck}'",
    )


@dataclass(frozen=True)
class TypeReport:
    """What became of one source note type's notes."""

    name: str
    count: int
    outcome: str  # "basic notes", "not imported: ..." ...
    imported: bool


@dataclass
class NotesImport:
    """What an importer read: notes, and for a package what keeps them Anki's notes."""

    format: str
    source: str
    deck: str
    notes: list[CardNote] = field(default_factory=list)
    report: list[TypeReport] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    # From a package: note types kept as they were (with their modification time), the
    # modification times of deckbuilder's own note types, and the media files.
    carried: dict[NoteKind, tuple[NoteTypeSpec, int]] = field(default_factory=dict)
    own_type_mods: dict[NoteKind, int] = field(default_factory=dict)
    media: dict[str, bytes] = field(default_factory=dict)
    in_place: bool = False  # a lock file is written: notes keep Anki note ids and times
    # Notes of deckbuilder's own note types: the deck's one language when they were built
    # from a bilingual card file ('' for none), else their multiple-choice label language;
    # and their fields as the package has them, by Anki note id, to check that the card
    # file builds them back the same.
    language: str = ""
    label_language: str = ""
    source_fields: dict[int, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class NotesPlan:
    result: NotesImport
    out: Path
    deck_name: str
    deck_id: str
    files: dict[Path, bytes]  # everything to write
    media_kept: tuple[str, ...]  # media files already in media/ with the same bytes


# Tags and image references: an id is made from the words a note shows.
_MARKUP = re.compile(r"<[^>]*>|!\[[^\]]*\]\([^)]*\)|\[sound:[^\]]*\]")


def _assign_ids(notes: list[CardNote]) -> list[str]:
    def text(note: CardNote) -> str:
        fields = note.fields
        return fields.get("front") or fields.get("text") or fields.get("question", "")

    return distinct_ids([note_id_for(_MARKUP.sub(" ", text(note))) for note in notes])


def _refusals(result: NotesImport) -> list[Problem]:
    problems = []
    for note in result.notes:
        texts = [
            *note.fields.items(),
            *((f"choice {i + 1}", c) for i, c in enumerate(note.choices)),
            *((f"choice {i + 1}'s feedback", f) for i, f in enumerate(note.feedback)),
        ]
        for key, text in texts:
            why = field_problem(text)
            if why:
                problems.append(
                    Problem(result.source, note.line or None, f"{note.label}: {key} {why}")
                )
    return problems


def plan_notes(
    result: NotesImport, source: Path, out: Path | None, deck: str | None, media_dir: Path
) -> NotesPlan:
    """Prepare every file; raise DeckError with every problem, or UsageError."""
    from deckbuilder.anki.notetypes.carried import carried_json, sidecar_path
    from deckbuilder.cardfile.reader import decks_from_tree
    from deckbuilder.cardfile.yaml_tree import parse_yaml
    from deckbuilder.lock.format import (
        Manifest,
        NoteEntry,
        NoteTypeEntry,
        format_manifest,
        lock_path,
    )
    from deckbuilder.lock.manifest import note_hashes, templates_hash
    from deckbuilder.render.deck import render_deck

    problems = _refusals(result)
    if problems:
        raise DeckError(problems)
    deck_name = " ".join((deck or result.deck or source.stem).split()) or "Imported"
    target = (
        out
        or Path("cards")
        / f"{slugify(deck_name, 60) or slugify(source.stem, 60) or 'imported'}.yaml"
    )
    stem = unicodedata.normalize("NFC", target.stem)
    deck_id = slugify(stem, 60) or "imported"
    if not result.notes:
        raise DeckError.single(source, "no notes to import" + _not_imported(result))
    # The card file named with --out is the user's choice; media/ and cards/ are not.
    unnamed = ([media_dir / "-"] if result.media else []) + ([] if out else [target])
    refuse_links_out(unnamed, "nothing is read or written through it; make it a folder")
    ids = _assign_ids(result.notes)
    header = [
        f"Imported by 'deckbuilder import' from {source.name} ({result.format}).",
        "The notes' ids"
        + (" and guids" if any(note.guid for note in result.notes) else "")
        + " identify them in Anki: keep them when you edit the text.",
    ]
    text = notes_yaml(
        header,
        deck_name,
        deck_id,
        list(zip(ids, result.notes, strict=True)),
        language=result.language,
        label_language=result.label_language,
    )
    carried = {kind: spec for kind, (spec, _) in result.carried.items()}
    files: dict[Path, bytes] = {target: text.encode("utf-8")}
    kept: list[str] = []
    with tempfile.TemporaryDirectory(prefix="deckbuilder-import-") as folder:
        staged_media = Path(folder)
        for name, data in result.media.items():
            existing = media_dir / name
            if existing.is_file():
                if existing.read_bytes() != data:
                    problems.append(
                        Problem(
                            str(existing),
                            None,
                            f"already exists with other contents than the package's '{name}'; "
                            "rename or move it, and import again",
                        )
                    )
                kept.append(name)
            else:
                files[media_dir / name] = data
            (staged_media / name).write_bytes(data)
        found: list[Problem] = []
        try:
            media = staged_media if result.media else media_dir
            decks = decks_from_tree(target, parse_yaml(text, str(target)), media)
        except DeckError as exc:
            found += exc.problems
            decks = list(exc.partial)
        rendered = []
        for loaded in decks:
            if result.media:  # a file the package lacks may be in media/, as build finds it
                staged, *rest = loaded.media_dirs
                loaded = replace(loaded, media_dirs=(staged, media_dir, *rest))
            try:
                rendered.append(render_deck(loaded, carried))
            except DeckError as exc:
                found += exc.problems
        where = f"{staged_media}/ or "
        for i, problem in enumerate(found):
            if where in problem.message:  # the package's media, staged in a scratch folder
                message = problem.message.replace(where, "the package, ")
                found[i] = Problem(problem.file, problem.line, message, problem.note)
        problems += _at_source_lines(found, ids, result, source)
        if problems:
            raise DeckError(problems)
        (rd,) = rendered
        result.warnings += _built_differently(rd, result)
        if carried:
            files[sidecar_path(target)] = carried_json(carried).encode("utf-8")
        if result.in_place:
            mods = {**result.own_type_mods, **{k: mod for k, (_, mod) in result.carried.items()}}
            note_types = {
                spec.kind: NoteTypeEntry(
                    spec.kind, spec.id, spec.fields, templates_hash(spec), mods.get(spec.kind, 0)
                )
                for spec in rd.note_types
            }
            entries = {
                nid: NoteEntry(nid, note.anki_id, digest, note.mod)
                for nid, note, digest in zip(ids, result.notes, note_hashes(rd), strict=True)
            }
            top = max((note.anki_id for note in result.notes), default=0)
            manifest = Manifest(note_types, entries, top + 1)
            files[lock_path(rd.deck)] = format_manifest(rd.deck, manifest).encode("utf-8")
    return NotesPlan(result, target, deck_name, deck_id, files, tuple(kept))


def _built_differently(rd: RenderedDeck, result: NotesImport) -> list[Problem]:
    """A warning for each own-type note whose card-file note would build other fields
    than the package has: Anki keeps such a note as it is until it is edited."""
    warnings = []
    for rn, note in zip(rd.notes, result.notes, strict=True):
        was = result.source_fields.get(note.anki_id)
        if was is None or tuple(rn.fields) == was:
            continue
        names = [
            n for n, new, old in zip(rn.spec.fields, rn.fields, was, strict=False) if new != old
        ]
        warnings.append(
            Problem(
                result.source,
                None,
                f"warning: {note.label}: built from the card file, its {', '.join(names) or 'fields'} "
                "would not be exactly as in the package (markup the card format cannot hold); "
                "Anki keeps the note as it is until you edit it",
            )
        )
    return warnings


def _not_imported(result: NotesImport) -> str:
    left = [f"{r.name}: {r.count} ({r.outcome})" for r in result.report if not r.imported]
    return f"; not imported: {'; '.join(left)}" if left else ""


def _at_source_lines(
    found: list[Problem], ids: list[str], result: NotesImport, source: Path
) -> list[Problem]:
    """What checking the planned card file found, at the source line of each note."""
    by_id = dict(zip(ids, result.notes, strict=True))
    problems = []
    for problem in dict.fromkeys(found):
        note = by_id.get(problem.note or "")
        if note is None:
            problems.append(Problem(str(source), None, problem.message))
        else:
            problems.append(
                Problem(str(source), note.line or None, f"{note.label}: {problem.message}")
            )
    return problems


def write_notes(
    plan: NotesPlan, source: Path, *, force: bool = False, replaced: list[Path] | None = None
) -> None:
    """Write every planned file together; refuse to replace a file unless ``force``
    (media files are never replaced: one with other bytes stops the plan). ``replaced``:
    see :meth:`deckbuilder.files.atomic.Staging.commit`."""
    from deckbuilder.files.atomic import Staging

    for path in plan.files:
        check_target(path, source, force=force, example="cards/deck.yaml")
    with Staging() as staging:
        for path, data in plan.files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            staging.stage_bytes(path, data)
        staging.commit(replaced)


PACKAGE_SUFFIXES = (".apkg", ".colpkg")
SPREADSHEET_SUFFIXES = (".csv", ".tsv")


def read_notes_source(source: Path) -> NotesImport | None:
    """The notes of an Anki package, an Anki text export or a spreadsheet at ``source``;
    None when it is none of these (a quiz, Aiken or GIFT file)."""
    suffix = source.suffix.lower()
    if suffix in PACKAGE_SUFFIXES:
        from deckbuilder.anki.package_reader import read_package
        from deckbuilder.importers.anki_package import package_notes

        return package_notes(read_package(source), str(source))
    if suffix in SPREADSHEET_SUFFIXES:
        from deckbuilder.importers.spreadsheet import read_spreadsheet

        return read_spreadsheet(source)
    if suffix in (".anki2", ".anki21", ".anki21b") or _starts_with(source, b"SQLite format 3\0"):
        raise DeckError.single(
            source,
            "this is an Anki collection, not an export: in Anki, export the deck with File > "
            "Export > 'Anki Deck Package (.apkg)' and 'Include scheduling information' (or "
            "the whole collection as .colpkg), then import that file",
        )
    from deckbuilder.importers.spreadsheet import WORKBOOK_SUFFIXES

    if suffix in WORKBOOK_SUFFIXES:
        raise DeckError.single(
            source,
            "a workbook is not read as it is: save the sheet as CSV UTF-8 (in Excel: File > "
            "Save As > 'CSV UTF-8 (Comma delimited)'), then import the .csv file",
        )
    from deckbuilder.importers.anki_text import looks_like_anki_text, read_anki_text

    if looks_like_anki_text(source):
        return read_anki_text(source)
    return None


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with path.open("rb") as stream:
            return stream.read(len(magic)) == magic
    except OSError:
        return False  # told by the reader that tries it next


def notes_report(plan: NotesPlan) -> list[str]:
    """What ``deckbuilder import`` tells: per source note type, what became of its notes;
    then the files written."""
    result = plan.result
    lines = [
        f"{r.name}: {r.count} {'note' if r.count == 1 else 'notes'} -> {r.outcome}"
        for r in result.report
    ]
    imported = len(result.notes)
    lines.append(
        f"wrote {plan.out}: {imported} {'note' if imported == 1 else 'notes'} imported "
        f"({result.format}, deck '{plan.deck_name}')"
    )
    media = [path for path in plan.files if path.name in result.media]
    lines += [f"wrote {path}" for path in plan.files if path != plan.out and path not in media]
    if media:
        lines.append(
            f"wrote {len(media)} media {'file' if len(media) == 1 else 'files'} into {media[0].parent}/"
        )
    if any(r.name and not r.imported for r in result.report):
        lines.append("notes of the note types marked 'not imported' stay in Anki as they are")
    if result.format == "Anki text export" and any(n.guid for n in result.notes):
        lines.append(f"note: {IN_PLACE_HINT}.")
    return lines
