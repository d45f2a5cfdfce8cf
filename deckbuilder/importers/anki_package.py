"""An Anki package's notes as the model's notes: each note of a note type this tool can
build as it was, with its GUID, and its Anki note id and modification time for the lock
file; every other note counted in the report under its note type. The notes are grouped
by their top-level deck (a subdeck's notes go with it)."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from deckbuilder.anki.collection import AnkiNote, AnkiNoteType
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.anki.notetypes.active_content import note_type_parts, without_note_type_parts
from deckbuilder.anki.notetypes.carried import spec_problems
from deckbuilder.anki.package_reader import AnkiPackage
from deckbuilder.cardfile.checks import ANKI_EMPTY
from deckbuilder.errors import Problem, RequestError, shown
from deckbuilder.importers.any_type import declared_notes
from deckbuilder.importers.base import (
    ActiveContent,
    AnkiIdentity,
    PackageParts,
    Skipped,
    SourceNotes,
    Tally,
    decks_of,
)
from deckbuilder.importers.html_markdown import field_markdown, markup_losses, shown_text
from deckbuilder.importers.image_occlusion import (
    in_collection,
    is_occlusion_type,
    occlusion_notes,
    restyled,
)
from deckbuilder.importers.own_types import (
    OWN_TYPE_IDS,
    OwnLanguage,
    own_language,
    own_note,
    spoken_texts,
)
from deckbuilder.lock.format import LAST_SECOND
from deckbuilder.model import BasicNote, ClozeNote, Note, NoteKind
from deckbuilder.templates import cloze_fields, fields_named


def package_notes(
    package: AnkiPackage, source: Path, keep_scripts: Collection[str] = ()
) -> SourceNotes:
    """The package's notes as the model's notes, each of a note type this tool can build
    as it was; every other note is counted in the report under its note type. What the
    note types kept from the package run or fetch is removed from their templates and
    CSS, but in those named in ``keep_scripts``; RequestError for a name that is not one
    of them."""
    used: dict[int, list[AnkiNote]] = {}
    for anki_note in package.notes:
        used.setdefault(anki_note.type_id, []).append(anki_note)
    parts = PackageParts(media=package.media)
    result = SourceNotes("Anki package", source, named_decks=True, package=parts)
    kept: list[tuple[AnkiNote, Note]] = []
    kinds: dict[NoteKind, int] = {}  # kind -> the note type id that takes it
    taken: list[tuple[AnkiNoteType, NoteKind, list[AnkiNote], _Carried | None]] = []
    # Note types of no kind of the card format (or whose kind another took): declared.
    others: list[tuple[AnkiNoteType, list[AnkiNote]]] = []
    keep = {unicodedata.normalize("NFC", name) for name in keep_scripts}
    names: list[str] = []  # of the note types that could be kept from the package
    # The note type with the most notes takes a kind first.
    for type_id, notes in sorted(used.items(), key=lambda item: (-len(item[1]), item[0])):
        anki_type = package.note_types.get(type_id)
        name = anki_type.name if anki_type else f"note type {type_id}"
        kind = OWN_TYPE_IDS.get(type_id) or (_stock_kind(anki_type) if anki_type else None)
        if anki_type is None:
            result.report.append(Tally(name, len(notes), _NO_TYPE, imported=False))
            continue
        if is_occlusion_type(anki_type) and NoteKind.IMAGE_OCCLUSION not in kinds:
            kinds[NoteKind.IMAGE_OCCLUSION] = type_id
            kept += _occlusions(result, anki_type, notes, package)
            continue
        if kind is None or (type_id not in OWN_TYPE_IDS and _types_answer(anki_type)):
            others.append((anki_type, notes))
            continue
        carried = None
        if anki_type is not None and type_id not in OWN_TYPE_IDS:
            names.append(anki_type.name)
            carried = _carried(anki_type.spec(kind), keep)
            if carried.refused:
                result.report.append(Tally(name, len(notes), carried.refused, imported=False))
                continue
        if kind in kinds:
            # A card file keeps one Anki note type per kind of note: this one comes in as
            # a note type of the deck's own.
            others.append((anki_type, notes))
            continue
        kinds[kind] = type_id
        taken.append((anki_type, kind, notes, carried))
    names += [anki_type.name for anki_type, _ in others]
    _all_kept_are_known(keep, names, source)
    language = own_language(
        [
            (kind, spoken_texts(n.fields)[0])
            for t, kind, notes, _ in taken
            if t.id in OWN_TYPE_IDS
            for n in notes
        ]
    )
    parts.language, parts.label_language = language.lang, language.label
    for anki_type, kind, notes, carried in taken:
        if carried is None:
            kept += _own(result, anki_type, kind, notes, language)
            continue
        assert carried.spec is not None
        parts.carried[kind] = (carried.spec, _lock_time(anki_type.mod))
        if carried.active is not None:
            parts.active[kind.value] = carried.active
            parts.in_collection[kind.value] = anki_type.spec(kind)
        result.report.append(Tally(anki_type.name, len(notes), f"{_shown(kind)} notes"))
        kept += [(anki_note, _note(anki_note, kind, result)) for anki_note in notes]
    keys: set[str] = set()
    for anki_type, notes in others:
        kept_as_is = unicodedata.normalize("NFC", anki_type.name) in keep
        found = declared_notes(anki_type, notes, keys, keep_scripts=kept_as_is)
        if isinstance(found, str):
            result.report.append(Tally(anki_type.name, len(notes), found, imported=False))
            continue
        note_type, read = found.note_type, found.notes
        keys.add(note_type.key)
        parts.declared_mods[note_type.key] = _lock_time(anki_type.mod)
        if found.active is not None:
            parts.active[note_type.key] = found.active
        if found.in_collection is not None:
            parts.in_collection[note_type.key] = found.in_collection
        outcome = f"notes of a note type of the deck's own ('{note_type.key}')"
        result.report.append(Tally(anki_type.name, len(read), outcome))
        kept += read
    kept.sort(key=lambda pair: pair[0].id)
    for anki_note, _ in kept:
        parts.identities[anki_note.guid] = AnkiIdentity(anki_note.id, _lock_time(anki_note.mod))
    # A note without cards has no deck of its own: it goes with the deck most notes are in.
    counts = Counter(anki_note.deck for anki_note, _ in kept if anki_note.deck)
    home = counts.most_common(1)[0][0] if counts else ""
    decks = decks_of([(anki_note.deck or home, note) for anki_note, note in kept])
    result.decks = sorted(decks, key=lambda deck: (-len(deck.notes), deck.name))
    # Notes the reader could not read (fields stored as a blob, an id not a number...).
    result.skipped += [
        Skipped(None, left_out.reason, who=f"note {left_out.id or '?'}")
        for left_out in package.unreadable
    ]
    return result


def _lock_time(mod: int) -> int:
    """A modification time the lock file can hold. Some generators store milliseconds
    (year 57000), which Anki keeps as they are: the lock records year 9999 instead, still
    not later than Anki's time, so the built deck leaves such a note as Anki has it."""
    return min(max(mod, 0), LAST_SECOND)


def _shown(kind: NoteKind) -> str:
    return {
        NoteKind.BASIC_REVERSED: "reversed basic",
        NoteKind.BASIC_OPTIONAL_REVERSED: "basic (optional reversed card)",
    }.get(kind, str(kind))


def _own(
    result: SourceNotes,
    anki_type: AnkiNoteType,
    kind: NoteKind,
    notes: list[AnkiNote],
    language: OwnLanguage,
) -> list[tuple[AnkiNote, Note]]:
    """Notes of one of deckbuilder's own note types: they keep its id, so the lock file
    records only the note type's modification time in the collection."""
    assert result.package is not None
    result.package.own_type_mods[kind] = _lock_time(anki_type.mod)
    read: list[tuple[AnkiNote, Note]] = []
    for anki_note in notes:
        note = own_note(kind, anki_note.guid, anki_note.fields, language)
        if note is None:
            continue
        if note.speak and not result.package.speak_language:
            result.package.speak_language = next(iter(spoken_texts(anki_note.fields)[1].values()))
        read.append((anki_note, replace(note, tags=anki_note.tags)))
        result.package.source_fields[anki_note.guid] = anki_note.fields
    if read:
        result.report.append(Tally(anki_type.name, len(read), f"{_shown(kind)} notes"))
    if len(read) < len(notes):
        why = "their fields are not as deckbuilder writes them"
        result.report.append(Tally(anki_type.name, len(notes) - len(read), why, imported=False))
    return read


_NO_TYPE = "the package does not hold their note type"


def _occlusions(
    result: SourceNotes, anki_type: AnkiNoteType, notes: list[AnkiNote], package: AnkiPackage
) -> list[tuple[AnkiNote, Note]]:
    """Image occlusion notes (:mod:`.image_occlusion`), their note type kept."""
    assert result.package is not None
    found = occlusion_notes(anki_type, notes, package.media)
    kind = NoteKind.IMAGE_OCCLUSION
    if found.spec is None:
        result.package.own_type_mods[kind] = _lock_time(anki_type.mod)
    else:
        result.package.carried[kind] = (found.spec, _lock_time(anki_type.mod))
        if restyled(anki_type):
            # Recorded as the collection has it: the first build gives it Anki's own
            # templates and CSS, in place.
            result.package.in_collection[kind.value] = in_collection(anki_type)
            result.warnings.append(
                Problem.warning(
                    str(result.source),
                    None,
                    f"note type {anki_type.name!r}: its templates or CSS are not "
                    "Anki's own Image Occlusion ones; the card file keeps Anki's (whose "
                    "script draws the masks), and the first build gives them to the "
                    "collection's note type in place",
                )
            )
    if found.notes:
        result.report.append(Tally(anki_type.name, len(found.notes), f"{kind} notes"))
    result.skipped += [
        Skipped(None, f"not imported: {why}", who=f"note {anki_note.guid!r}")
        for anki_note, why in found.left_out
    ]
    for anki_note in found.inexact:
        result.warnings.append(
            Problem.warning(
                str(result.source),
                None,
                f"note {anki_note.guid!r}: its masks come in as they are drawn, "
                "written a little otherwise than Anki's editor wrote them; the next import of "
                "a build changes the note's Occlusion field to that, drawn the same",
            )
        )
    return [(anki_note, note) for anki_note, note in found.notes]


def _types_answer(anki_type: AnkiNoteType) -> bool:
    return any("{{type:" in front for _, front, _ in anki_type.templates)


def _stock_kind(anki_type: AnkiNoteType) -> NoteKind | None:
    """The card-file kind of a note type shaped as Anki's stock Basic, Basic (and reversed
    card), Basic (optional reversed card) or Cloze (names and templates may be translated
    or restyled)."""
    count = len(anki_type.templates)
    if count == 0 or len(anki_type.fields) not in (2, 3):
        return None
    # The kinds read the first field as the front (or the deletions): a type whose first
    # card asks another would lose the notes that leave the first field empty.
    first, front = anki_type.fields[0], anki_type.templates[0][1]
    if first not in (cloze_fields(front) if anki_type.is_cloze else fields_named(front)):
        return None
    if len(anki_type.fields) == 3 and count == 2 and not anki_type.is_cloze:
        # The second card is asked only when the third field is not empty.
        condition = "{{#" + anki_type.fields[2] + "}}"
        return NoteKind.BASIC_OPTIONAL_REVERSED if condition in anki_type.templates[1][1] else None
    if len(anki_type.fields) != 2:
        return None
    if anki_type.is_cloze:
        return NoteKind.CLOZE if count == 1 else None
    return {1: NoteKind.BASIC, 2: NoteKind.BASIC_REVERSED}.get(count)


@dataclass(frozen=True)
class _Carried:
    """A note type to keep from the package, as the card file keeps it; or why not."""

    spec: NoteTypeSpec | None
    active: ActiveContent | None = None  # what it runs or fetches, removed or kept
    refused: str = ""


def _carried(spec: NoteTypeSpec, keep: Collection[str]) -> _Carried:
    """``spec`` without what it runs or fetches, or as it is when ``keep`` names it; not
    at all when Anki would refuse it, or removing leaves more (parts hidden in parts)."""
    asked = f"; to keep them as they are, import with --keep-scripts {shown(spec.name)}"
    if unicodedata.normalize("NFC", spec.name) in keep:
        spec = replace(spec, keep_scripts=True)
        refused = spec_problems(spec)
        if refused:
            return _Carried(None, refused=_refused(refused[0]))
        found = note_type_parts(spec)
        return _Carried(spec, ActiveContent(spec.name, found, kept=True) if found else None)
    cleaned = without_note_type_parts(spec)
    if not cleaned.clean:
        why = (
            "its templates or CSS hide what they run or fetch inside other "
            f"such parts, and removing them leaves more{asked}"
        )
        return _Carried(None, refused=why)
    refused = spec_problems(cleaned.spec)
    if refused and cleaned.found and not spec_problems(replace(spec, keep_scripts=True)):
        why = (
            "without what its templates run or fetch, Anki would refuse its "
            f"note type ({refused[0]}){asked}"
        )
        return _Carried(None, refused=why)
    if refused:
        return _Carried(None, refused=_refused(refused[0]))
    active = ActiveContent(spec.name, cleaned.found, kept=False) if cleaned.found else None
    return _Carried(cleaned.spec, active)


def _refused(problem: str) -> str:
    return f"Anki would refuse its note type or change it ({problem})"


def _all_kept_are_known(keep: Collection[str], names: list[str], source: Path) -> None:
    """RequestError when ``keep`` names a note type that is not one kept from the
    package (``names``)."""
    known = {unicodedata.normalize("NFC", name) for name in names}
    unknown = sorted(set(keep) - known)
    if not unknown:
        return
    listed = ", ".join(shown(name) for name in dict.fromkeys(names))
    there = (
        f"its note types are {listed}"
        if names
        else "its notes keep no note type of their own (they are of deckbuilder's note types, "
        "or not imported)"
    )
    raise RequestError.single(
        "keep_scripts",
        f"{', '.join(shown(name) for name in unknown)}: no such note type among those "
        f"{source.name} brings with its notes; {there}",
    )


def _note(anki_note: AnkiNote, kind: NoteKind, result: SourceNotes) -> Note:
    cloze = kind is NoteKind.CLOZE
    keys = ("text", "extra") if cloze else ("front", "back")
    texts = dict.fromkeys(keys, "")
    label = f"note {anki_note.guid!r}"
    for key, html in zip(keys, anki_note.fields, strict=False):
        converted = field_markdown(html, cloze=cloze)
        texts[key] = converted.markdown
        if not converted.exact:
            lost = "; ".join(markup_losses(html)) or "markup"
            result.warnings.append(
                Problem.warning(
                    str(result.source),
                    None,
                    f'{label} ("{shown_text(anki_note.fields[0])[:40]}"): its {key} has '
                    f"markup the card format cannot hold: {lost}. Anki keeps showing it as it "
                    "is now; once you change this note in the card file (even only its "
                    "tags) and build, Anki's copy loses that markup",
                )
            )
    common = {"id": "", "line": 0, "tags": anki_note.tags, "guid": anki_note.guid}
    if cloze:
        return ClozeNote(**common, text=texts["text"], extra=texts["extra"])  # type: ignore[arg-type]
    optional = kind is NoteKind.BASIC_OPTIONAL_REVERSED
    # "Add Reverse" is kept as Anki has it: built again, the field is the same.
    add_reverse = (anki_note.fields[2] if len(anki_note.fields) > 2 else "") if optional else None
    return BasicNote(
        **common,  # type: ignore[arg-type]
        front=texts["front"],
        back=texts["back"],
        reverse=kind is NoteKind.BASIC_REVERSED
        or (optional and not ANKI_EMPTY.match(add_reverse or "")),
        add_reverse=add_reverse,
    )
