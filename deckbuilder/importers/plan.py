"""The model's notes read from a source -> the files ``deckbuilder import`` writes.

Every note is checked in memory with the checks ``check`` runs
(:func:`deckbuilder.cardfile.checks.note_problems`) and rendered as ``build`` renders it
(:func:`deckbuilder.render.deck.render_deck`), note by note: a note that cannot be
carried is left out, with its source line and the reason, and the rest come in. Each
deck becomes one card file (:func:`deckbuilder.cardfile.writer.card_file_text`); notes
from an Anki package also bring what keeps them Anki's notes: the note types beside the
card file, the lock file with each note's Anki note id and modification time, and the
media files. A media file that neither the package nor media/ has is a warning per
file: the note keeps its reference, and ``check`` asks for the file until it is there.

Everything is planned before anything is written, and then written together or not at
all (:func:`write_import`).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Protocol

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.anki.notetypes.active_content import counted
from deckbuilder.anki.notetypes.carried import kept_declaration
from deckbuilder.cardfile.checks import Spellings, note_problems
from deckbuilder.cardfile.deck import detected_label_language
from deckbuilder.cardfile.declared import NOTE_TYPES_FOLDER
from deckbuilder.cardfile.keys import MAX_NOTES
from deckbuilder.cardfile.reader import SOURCE_SUFFIXES
from deckbuilder.cardfile.writer import card_file_text, note_type_file_text
from deckbuilder.cardfile.yaml_tree import MAX_FILE_BYTES
from deckbuilder.errors import DeckError, Problem, RequestError, Severity, TargetExists, shown
from deckbuilder.files.atomic import Staging
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.importers.base import (
    ActiveContent,
    Skipped,
    SourceDeck,
    SourceNotes,
    Tally,
    with_ids,
)
from deckbuilder.importers.naming import clean_deck_name, deck_id, file_stem
from deckbuilder.invisible import is_blank
from deckbuilder.lock.format import Manifest, NoteEntry, NoteTypeEntry, format_manifest, lock_path
from deckbuilder.lock.manifest import card_names, note_hashes, templates_hash
from deckbuilder.model import Deck, FieldsNote, McqNote, Note, NoteKind, TypedAnswer, TypedNote
from deckbuilder.note_types import NoteType
from deckbuilder.render.deck import RenderedDeck, render_deck

QUIZ_FORMATS = ("quiz", "aiken", "gift")
MISSING_HINT = {
    "quiz": "put ✓ after the right choice or add a line 'ANSWER: B'",
    "aiken": "add a line 'ANSWER: B' after the choices",
    "gift": "mark the right choice with '=' (or a positive weight '~%50%')",
}


# Where the card files of an import go when no file is named.
CARDS_DIR = Path("cards")


class ImportChoices(Protocol):
    """What an import is asked to do. The application's ``ImportRequest`` is passed
    through as it is; :class:`ImportOptions` is the same for a caller without one."""

    @property
    def out(self) -> Path | None: ...  # the card file (one deck); None: cards/<deck name>.yaml

    @property
    def deck(self) -> str | None: ...  # the deck to import (a source with decks), else its name

    @property
    def allow_missing_answers(self) -> bool: ...

    @property
    def strict(self) -> bool: ...  # refuse the import when anything is left out or unsure

    @property
    def media_dir(self) -> Path: ...


@dataclass(frozen=True)
class ImportOptions:
    """:class:`ImportChoices` as a value of its own."""

    out: Path | None = None
    deck: str | None = None
    allow_missing_answers: bool = False
    strict: bool = False
    media_dir: Path = Path("media")


@dataclass(frozen=True)
class PlannedDeck:
    out: Path
    name: str
    id: str
    notes: tuple[Note, ...]
    skipped: int  # notes of this deck left out
    unanswered: int  # notes written without an answer (--allow-missing-answers)


@dataclass(frozen=True)
class ImportPlan:
    read: SourceNotes
    decks: tuple[PlannedDeck, ...]
    files: dict[Path, bytes]  # everything to write
    media: tuple[Path, ...]  # the media files among them
    skipped: tuple[Skipped, ...]  # what was left out, and why, in source order
    # The warnings, with their lines, then what is told besides (severity note).
    diagnostics: tuple[Problem, ...]
    # What the note types written beside the card files run or fetch: removed, or kept.
    active: tuple[ActiveContent, ...] = ()


@dataclass
class _PlanDraft:
    """The import's plan while it is made: the files so far, what was left out and why."""

    read: SourceNotes
    options: ImportChoices
    files: dict[Path, bytes] = field(default_factory=dict)
    media: list[Path] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # refuse the whole import
    skipped: list[Skipped] = field(default_factory=list)
    # Each media file nobody has -> the line and id of the first note naming it.
    missing_media: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    carried: set[NoteKind] = field(default_factory=set)  # note types written beside a deck
    declared: dict[NoteType, None] = field(default_factory=dict)  # declared in a card file
    # Declared note types whose notes go into more than one card file: written once, to
    # the project's note-types/ folder, by key.
    shared: dict[str, NoteType] = field(default_factory=dict)
    # The package's media files media/ lacks, by the path each would be written to, and
    # why one cannot be; the paths the notes kept use (only those are written).
    media_files: dict[Path, bytes] = field(default_factory=dict)
    media_clashes: dict[Path, str] = field(default_factory=dict)
    used_media: set[Path] = field(default_factory=set)

    @property
    def file(self) -> str:
        return str(self.read.source)


def plan_import(read: SourceNotes, options: ImportChoices) -> ImportPlan:
    """Check the notes of ``read`` and prepare every file; raise DeckError when nothing
    can be imported (or, ``strict``, when anything is left out), RequestError for
    options that cannot be followed."""
    if options.out is not None and options.out.suffix not in SOURCE_SUFFIXES:
        raise RequestError.single(
            "out", f"must name a .yaml file (build and check look for *.yaml), not {options.out}"
        )
    decks = _chosen_decks(read, options)
    draft = _PlanDraft(read, options)
    package = read.package
    if package is not None and package.media:
        refuse_links_out(
            [options.media_dir / "-"], "nothing is read or written through it; make it a folder"
        )
        _package_media(draft)
    targets = _targets(read, decks, options)
    if options.out is None:  # cards/ is not the user's choice; a file named with --out is
        refuse_links_out(targets, "nothing is written through it; make it a folder")
    draft.shared = _shared_types([deck for deck, _ in decks])
    planned = [
        _plan_deck(draft, deck, name, target)
        for (deck, name), target in zip(decks, targets, strict=True)
    ]
    _shared_type_files(draft, planned)
    _media_to_write(draft)
    return _finish(draft, planned)


def _shared_types(decks: Sequence[SourceDeck]) -> dict[str, NoteType]:
    """The declared note types whose notes are in more than one of ``decks``: a card file
    declares a note type for itself alone, and two declaring one Anki note type would be
    taken by Anki for one."""
    decks_of_type: dict[NoteType, set[int]] = {}
    for number, deck in enumerate(decks):
        for note in deck.notes:
            if isinstance(note, FieldsNote) and not note.note_type.source:
                decks_of_type.setdefault(note.note_type, set()).add(number)
    return {t.key: t for t, numbers in decks_of_type.items() if len(numbers) > 1}


def _shared_type_files(draft: _PlanDraft, planned: Sequence[PlannedDeck]) -> None:
    """Each shared note type that notes kept use, as ``note-types/<key>.yaml`` (left as it
    is when the project has it with the same text; refused when with another)."""
    used = {n.note_type.key for deck in planned for n in deck.notes if isinstance(n, FieldsNote)}
    folder = CARDS_DIR.parent / NOTE_TYPES_FOLDER
    header = [
        f"Imported by 'deckbuilder import' from {draft.read.source.name}: the note type "
        "of notes in several card files, which name it with 'type: <key>'."
    ]
    for key, note_type in draft.shared.items():
        if key not in used:
            continue
        path = folder / f"{key}.yaml"
        data = note_type_file_text(note_type, header).encode("utf-8")
        if not path.exists():
            draft.files[path] = data
        elif not path.is_file() or path.read_bytes() != data:
            draft.problems.append(
                Problem(
                    str(path),
                    None,
                    f"already exists with another note type than the import's '{key}' "
                    f"({note_type.name}); rename or move it, and import again",
                )
            )


def _chosen_decks(read: SourceNotes, options: ImportChoices) -> list[tuple[SourceDeck, str]]:
    """The decks to import, each with its name."""
    decks = [deck for deck in read.decks if deck.notes] or read.decks[:1] or [SourceDeck("")]
    fallback = clean_deck_name(_file_name(read.source)) or "Imported"
    if options.deck is not None:
        wanted = clean_deck_name(options.deck)
        if not read.named_decks:
            return [(decks[0], wanted or fallback)]
        chosen = [deck for deck in decks if clean_deck_name(deck.name) == wanted]
        if not chosen:
            names = ", ".join(f"'{clean_deck_name(d.name)}'" for d in decks if d.name)
            raise RequestError.single(
                "deck",
                f"{read.source.name} has no top-level deck '{wanted}'"
                + (f"; its decks are {names}" if names else ""),
            )
        decks = chosen
    if len(decks) > 1 and options.out is not None:
        names = ", ".join(f"'{clean_deck_name(d.name)}'" for d in decks)
        raise RequestError.single(
            "out",
            f"{read.source.name} has {len(decks)} decks ({names}), one card file each: name "
            "one of them with deck to write it to this file, or leave out the file name",
        )
    # Anki matches deck names without case: 'con' and 'CON' are one deck, spelt as first.
    spellings = Spellings("deck name")
    return [(deck, spellings.spelling(clean_deck_name(deck.name) or fallback)) for deck in decks]


def _file_name(source: Path) -> str:
    """The input file's name for a deck: ``unit2.aiken.txt`` is unit2, as ``unit2.txt``."""
    stem = Path(source.stem)
    return stem.stem if stem.suffix.lower() in (".aiken", ".gift", ".quiz") else stem.name


def _targets(
    read: SourceNotes, decks: list[tuple[SourceDeck, str]], options: ImportChoices
) -> list[Path]:
    if options.out is not None:
        return [options.out]
    out: list[Path] = []
    for _, name in decks:
        stem = file_stem(name) or file_stem(_file_name(read.source)) or "imported"
        target, n = CARDS_DIR / f"{stem}.yaml", 1
        while target in out:  # two decks whose names make the same file name
            n += 1
            target = CARDS_DIR / f"{stem}-{n}.yaml"
        out.append(target)
    return out


def _package_media(draft: _PlanDraft) -> None:
    """Where each of the package's media files would go in media/ (unless it is there with
    the same bytes), read there while the notes are planned; each that cannot go there,
    with why (the import is refused when a note kept uses it)."""
    package = draft.read.package
    assert package is not None
    media_dir = draft.options.media_dir
    for name, data in package.media.items():
        existing = media_dir / name
        if existing.is_file():
            if existing.read_bytes() == data:
                continue  # read from media/, as build reads it
            draft.media_clashes[existing] = (
                f"already exists with other contents than the package's '{name}'; "
                "rename or move it, and import again"
            )
        elif existing.exists():  # a folder, say: writing there would fail
            draft.media_clashes[existing] = (
                f"is not a file, and the package's media file '{name}' would be written "
                "there; rename or move it, and import again"
            )
        draft.media_files[existing] = data


def _media_to_write(draft: _PlanDraft) -> None:
    """The package's media files the notes kept use (a collection's others, of decks not
    imported, stay out of media/), unless media/ has them with the same bytes."""
    for path, data in draft.media_files.items():
        if path not in draft.used_media:
            continue
        if path in draft.media_clashes:
            draft.problems.append(Problem(str(path), None, draft.media_clashes[path]))
        else:
            draft.files[path] = data
            draft.media.append(path)


def _not_media(draft: _PlanDraft, path: Path, what: str) -> None:
    """A problem when ``path`` is where one of the package's media files goes (a card file
    written into media/, however its path is written): one would replace the other."""
    package = draft.read.package
    where = Path(os.path.realpath(path))  # not resolve(): a link loop raises there
    if (
        package is not None
        and where.name in package.media
        and where.parent == Path(os.path.realpath(draft.options.media_dir))
    ):
        draft.problems.append(
            Problem(
                str(path),
                None,
                f"the {what} and the package's media file {shown(where.name, None)} would both "
                "be written here; write the card file to another folder",
            )
        )


def _plan_deck(draft: _PlanDraft, source_deck: SourceDeck, name: str, target: Path) -> PlannedDeck:
    read, options = draft.read, draft.options
    package = read.package
    key = deck_id(target.stem) or "imported"
    notes = _tags_as_anki_keeps([_nfc(note) for note in with_ids(source_deck.notes)])
    before = len(draft.skipped)
    notes, unanswered = _answered(draft, notes)
    notes = _passing_notes(draft, notes, unanswered)
    lang = package.language if package is not None else ""
    label = package.label_language if package is not None else ""
    deck = Deck(
        key=f"{key}.{lang}" if lang else key,
        name=name,
        source=target,
        notes=tuple(notes),
        description=source_deck.description,
        # The package's media are read as the files written into media/ (draft.files).
        media_dirs=(options.media_dir, target.parent),
        lang=lang,
        languages=(lang,) if lang else (),
        label_language="" if lang else label or detected_label_language(notes),
        # A note type shared with other card files is declared in note-types/ instead.
        note_types=tuple(
            dict.fromkeys(
                note.note_type
                for note in notes
                if isinstance(note, FieldsNote)
                and note.note_type.key not in draft.shared
                and not note.note_type.source
            )
        ),
        speak_language=package.speak_language if package is not None else "",
    )
    carried = {} if package is None else {k: spec for k, (spec, _) in package.carried.items()}
    rendered = _rendered(draft, deck, carried)
    draft.used_media.update(rendered.media.values())
    deck = rendered.deck
    if len(deck.notes) > MAX_NOTES:
        draft.problems.append(
            Problem(
                draft.file,
                deck.notes[MAX_NOTES].line or None,
                f"more than {MAX_NOTES:,} notes; a card file holds at most {MAX_NOTES:,} "
                "(split the file, and import each part)",
            )
        )
    missing = tuple(sorted({src for rn in rendered.notes for src in rn.missing_media}))
    # The collection's note types the notes are built with, kept in the card file.
    used = {rn.spec.kind for rn in rendered.notes}
    kept = {kind: spec for kind, spec in carried.items() if kind in used}
    written = replace(
        deck,
        label_language="" if lang else label,
        missing_media=missing,
        kept_types=tuple(kept_declaration(kept[kind]) for kind in sorted(kept)),
    )
    unanswered_kept = sum(1 for note in deck.notes if note.id in unanswered)
    text = card_file_text(written, _header(read, deck.notes, unanswered_kept))
    data = text.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        draft.problems.append(
            Problem(
                draft.file,
                None,
                f"the card file would be {len(data):,} bytes; the limit is {MAX_FILE_BYTES:,} "
                "(split the file, and import each part)",
            )
        )
    _not_media(draft, target, "card file")
    draft.files[target] = data
    if source_deck.subdecks and deck.notes:
        others = sum(source_deck.subdecks.values())
        draft.warnings.append(
            Problem.warning(
                draft.file,
                None,
                f"{others} {'note is' if others == 1 else 'notes are'} in subdecks of "
                f"'{name}' ({', '.join(sorted(source_deck.subdecks))}); the card file "
                f"{target} holds them all in '{name}'",
            )
        )
    if package is not None and deck.notes:
        _package_files(draft, rendered, kept)
    skipped = len(draft.skipped) - before
    return PlannedDeck(target, name, key, deck.notes, skipped, unanswered_kept)


def _nfc(note: Note) -> Note:
    """``note`` with its texts in NFC, as the card loader reads them."""
    changes: dict[str, object] = {}
    for f in fields(note):
        value = getattr(note, f.name)
        if f.name in ("id", "guid", "add_reverse"):
            continue
        if isinstance(value, str):
            changes[f.name] = unicodedata.normalize("NFC", value)
        elif isinstance(value, tuple) and value and isinstance(value[0], str):
            changes[f.name] = tuple(unicodedata.normalize("NFC", v) for v in value)
        elif isinstance(value, tuple) and value and isinstance(value[0], TypedAnswer):
            changes[f.name] = tuple(
                replace(
                    a,
                    text=unicodedata.normalize("NFC", a.text),
                    shown=unicodedata.normalize("NFC", a.shown),
                )
                for a in value
            )
    return replace(note, **changes)  # type: ignore[arg-type]


def _tags_as_anki_keeps(notes: list[Note]) -> list[Note]:
    """``notes`` with their tags as Anki would keep them: parts with no text between '::'
    dropped (Anki would name them 'blank'), and every tag spelt as the first like it
    (Anki matches tags without case)."""
    spellings = Spellings("tag")
    out: list[Note] = []
    for note in notes:
        if not note.tags:
            out.append(note)
            continue
        tags = []
        for tag in note.tags:
            parts = [part for part in tag.split("::") if not is_blank(part)]
            if parts:
                tags.append(spellings.spelling("::".join(parts)))
        kept = tuple(dict.fromkeys(tags))
        out.append(note if kept == note.tags else replace(note, tags=kept))
    return out


def _unanswered(note: Note) -> bool:
    if isinstance(note, McqNote):
        return not note.answer
    return isinstance(note, TypedNote) and not note.answers


def _answered(draft: _PlanDraft, notes: list[Note]) -> tuple[list[Note], set[str]]:
    """The notes to keep, and the ids of those kept without an answer: only with
    ``allow_missing_answers``; otherwise each is skipped, with the format's hint."""
    read = draft.read
    kept: list[Note] = []
    unanswered: set[str] = set()
    for note in notes:
        if not _unanswered(note):
            kept.append(note)
        elif draft.options.allow_missing_answers:
            kept.append(note)
            unanswered.add(note.id)
            draft.warnings.append(
                Problem.warning(
                    draft.file,
                    note.line,
                    "no answer marked; 'answer:' left empty",
                )
            )
        else:
            own = read.unanswered.get(note.line)
            if own is not None:
                draft.skipped.append(Skipped(own.line, own.message))
                continue
            hint = MISSING_HINT.get(read.format, "give its answer")
            reason = (
                f"question has no marked answer; {hint} (or import with "
                "--allow-missing-answers and fill it in later)"
            )
            draft.skipped.append(Skipped(note.line, reason))
    return kept, unanswered


def _stand_in(note: Note) -> Note:
    """A note without an answer, with one: to check everything else about it."""
    if isinstance(note, McqNote):
        return replace(note, answer=(0,))
    assert isinstance(note, TypedNote)
    return replace(note, answers=(TypedAnswer(text="-", shown="-"),))


def _passing_notes(draft: _PlanDraft, notes: list[Note], unanswered: set[str]) -> list[Note]:
    """The notes that pass ``check``'s checks; each other one is skipped with its
    problems. (``unanswered``: the ids of notes kept without an answer.)"""
    checked = [_stand_in(note) if note.id in unanswered else note for note in notes]
    kept: list[Note] = []
    for note, problems in zip(notes, note_problems(checked, draft.file), strict=True):
        if problems:
            _skip(draft, note, [p.message for p in problems])
        else:
            kept.append(note)
    return kept


def _skip(draft: _PlanDraft, note: Note, messages: Sequence[str]) -> None:
    # A package's GUID may hold any character: shown escaped, so the message stays one line.
    who = "" if note.line else f"note {shown(note.guid or note.id)}"
    draft.skipped.append(Skipped(note.line or None, "; ".join(dict.fromkeys(messages)), who=who))


def _rendered(
    draft: _PlanDraft, deck: Deck, carried: Mapping[NoteKind, NoteTypeSpec]
) -> RenderedDeck:
    """``deck`` rendered as build renders it, each note once. A media file nobody has
    keeps its reference (and gets a warning, once per file); every other note that does
    not render is left out, with why."""
    try:
        rendered = render_deck(
            deck,
            carried,
            leave_out_failing=True,
            keep_missing_media=True,
            unwritten=draft.media_files,
        )
    except DeckError as exc:  # the deck's description, or a note type
        draft.problems += [replace(problem, file=draft.file) for problem in exc.problems]
        raise DeckError(draft.problems) from None
    by_note: dict[str, list[str]] = {}
    for problem in rendered.left_out:
        assert problem.note is not None
        by_note.setdefault(problem.note, []).append(problem.message)
    for note in deck.notes:
        if note.id in by_note:
            _skip(draft, note, by_note[note.id])
    for rn in rendered.notes:
        for src in rn.missing_media:
            draft.missing_media.setdefault(src, (rn.note.line or None, rn.note.id))
    return rendered


def _package_files(
    draft: _PlanDraft, rendered: RenderedDeck, kept: Mapping[NoteKind, NoteTypeSpec]
) -> None:
    """What keeps the package's notes Anki's notes: the lock file, and what the note
    types kept in the card file (``kept``) held that import removed."""
    package = draft.read.package
    assert package is not None
    draft.warnings += _built_differently(draft, rendered)
    draft.carried.update(kept)
    draft.declared.update(dict.fromkeys(rendered.deck.note_types))
    mods: dict[str, int] = {
        **{kind.value: mod for kind, mod in package.own_type_mods.items()},
        **{kind.value: mod for kind, (_, mod) in package.carried.items()},
        **package.declared_mods,
    }
    # A note type without what it ran or fetched is recorded as the collection has it:
    # the first build then changes it, and Anki updates it in place.
    as_in_anki = package.in_collection
    note_types = {
        spec.type_key: NoteTypeEntry(
            spec.type_key,
            spec.id,
            spec.fields,
            templates_hash(as_in_anki.get(spec.type_key, spec)),
            mods.get(spec.type_key, 0),
            cards=card_names(as_in_anki.get(spec.type_key, spec)),
        )
        for spec in rendered.note_types
    }
    entries = {}
    for rn, digest in zip(rendered.notes, note_hashes(rendered, draft.media_files), strict=True):
        identity = package.identities[rn.note.guid]
        entries[rn.note.id] = NoteEntry(rn.note.id, identity.note_id, digest, identity.mod)
    top = max((package.identities[rn.note.guid].note_id for rn in rendered.notes), default=0)
    manifest = Manifest(note_types, entries, top + 1)
    path = lock_path(rendered.deck)
    _not_media(draft, path, "lock file")
    draft.files[path] = format_manifest(rendered.deck, manifest).encode("utf-8")


def _built_differently(draft: _PlanDraft, rendered: RenderedDeck) -> list[Problem]:
    """A warning for each own-type note whose card-file note would build other fields
    than the package has: Anki keeps such a note as it is until it is edited."""
    package = draft.read.package
    assert package is not None
    warnings = []
    for rn in rendered.notes:
        was = package.source_fields.get(rn.note.guid)
        if was is None or tuple(rn.fields) == was:
            continue
        names = [
            n for n, new, old in zip(rn.spec.fields, rn.fields, was, strict=False) if new != old
        ]
        warnings.append(
            Problem.warning(
                draft.file,
                None,
                f"note '{rn.note.guid}': built from the card file, its "
                f"{', '.join(names) or 'fields'} would not be exactly as in the package "
                "(markup the card format cannot hold); Anki keeps the note as it is until "
                "you edit it",
            )
        )
    return warnings


def _header(read: SourceNotes, notes: Sequence[Note], unanswered: int) -> list[str]:
    lines = [
        f"Imported by 'deckbuilder import' from {read.source.name} ({read.format}).",
        "The notes' ids"
        + (" and guids" if any(note.guid for note in notes) else "")
        + " identify them in Anki: keep them when you edit the text.",
    ]
    if unanswered:
        lines.append(
            f"{unanswered} {'note has' if unanswered == 1 else 'notes have'} no answer yet "
            "('answer: []'): write it in before you build."
        )
    return lines


def _skipped_warning(read: SourceNotes, skipped: Skipped) -> Problem:
    if skipped.kind:
        article = "an" if skipped.kind[0] in "aeiou" else "a"
        message = f"skipped {article} {skipped.kind} question ({skipped.reason})"
    else:
        who = f" {skipped.who}" if skipped.who else ""
        message = f"skipped{who}: {skipped.reason}"
    return Problem.warning(str(read.source), skipped.line, message)


def _finish(draft: _PlanDraft, planned: list[PlannedDeck]) -> ImportPlan:
    read, options = draft.read, draft.options
    skipped = sorted([*read.skipped, *draft.skipped], key=lambda s: s.line or 0)
    refused = [_skipped_warning(read, s) for s in skipped]
    missing = [
        Problem.warning(
            draft.file,
            line,
            f"media file {shown(src, None)} is in neither the source nor "
            f"{options.media_dir}/; note {shown(note, None)} keeps its reference: put the file in {options.media_dir}/ "
            "(the card file lists it under missing_media; check and build warn until then)",
        )
        for src, (line, note) in draft.missing_media.items()
    ]
    if draft.problems:
        raise DeckError(draft.problems)
    if not any(deck.notes for deck in planned):
        reasons = [
            Problem(draft.file, s.line, f"{s.who}: {s.reason}" if s.who else s.reason)
            for s in skipped
        ]
        # The readers name note types as the source has them: a line break or a direction
        # override there must not forge or turn a line of the message.
        left = [shown(_left_out(t), None, quoted=False) for t in read.report if not t.imported]
        more = "".join(f"; {line}" for line in left)
        raise DeckError([Problem(draft.file, None, f"no notes to import{more}"), *reasons])
    if options.strict and (refused or read.strict_refusals):
        raise DeckError(
            replace(p, severity=Severity.ERROR) for p in [*read.strict_refusals, *refused]
        )
    package = read.package
    active = (
        [package.active[kind] for kind in sorted(draft.carried) if kind in package.active]
        + [
            package.active[note_type.key]
            for note_type in draft.declared
            if note_type.key in package.active
        ]
        if package is not None
        else []
    )
    removed = [Problem.warning(draft.file, None, _removed(a)) for a in active if not a.kept]
    kept = [Problem(draft.file, None, _kept(a), severity=Severity.NOTE) for a in active if a.kept]
    diagnostics = [
        *read.warnings,
        *removed,
        *read.strict_refusals,
        *refused,
        *missing,
        *draft.warnings,
        *kept,
        *read.notes_after,
    ]
    return ImportPlan(
        read,
        tuple(planned),
        dict(draft.files),
        tuple(draft.media),
        tuple(skipped),
        tuple(dict.fromkeys(diagnostics)),
        tuple(active),
    )


def _left_out(tally: Tally) -> str:
    """'Basic: 3 notes -> not imported: why', for the message that nothing is imported."""
    notes = f"{tally.notes} note{'' if tally.notes == 1 else 's'}"
    return f"{tally.name}: {notes} -> not imported: {tally.outcome}"


def _removed(active: ActiveContent) -> str:
    name = shown(active.note_type)
    return (
        f"note type {name}: removed from its templates and CSS what Anki would run "
        f"or fetch on every review: {counted(active.found)}; packages built from the card "
        "file update the note type in Anki without them. To keep them as they are, import "
        f"with --keep-scripts {name}"
    )


def _kept(active: ActiveContent) -> str:
    return (
        f"note type {shown(active.note_type)}: templates and CSS kept as they are, as asked, "
        f"with what Anki runs or fetches on every review: {counted(active.found)}"
    )


def write_import(
    plan: ImportPlan, *, force: bool = False, replaced: list[Path] | None = None
) -> None:
    """Write every planned file together; refuse to replace a card file (or its lock file
    or note types) unless ``force``; media files are never replaced (one with other bytes
    stopped the plan). ``replaced``: see :meth:`deckbuilder.files.atomic.Staging.commit`."""
    source = plan.read.source
    for path in plan.files:
        if path.exists() and source.exists() and path.resolve() == source.resolve():
            raise RequestError.single("out", f"{path} is the file being imported; choose another")
        if path.is_dir():
            raise RequestError.single(
                "out", f"{path} is a folder; give a file name such as {path}/deck.yaml"
            )
        if path.exists() and not force:
            raise TargetExists(path)
    with Staging() as staging:
        for path, data in plan.files.items():
            staging.stage_bytes(path, data)
        staging.commit(replaced)
