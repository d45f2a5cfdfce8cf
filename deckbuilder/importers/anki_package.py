"""An Anki package's notes as card-file notes: each note of a note type this tool can
build as it was; every other note counted in the report under its note type."""

from __future__ import annotations

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.anki.package_reader import AnkiNote, AnkiNoteType, AnkiPackage
from deckbuilder.errors import Problem
from deckbuilder.importers.base import CardNote
from deckbuilder.importers.html_markdown import field_markdown, markup_losses, shown_text
from deckbuilder.importers.notes_plan import NotesImport, TypeReport, subdeck_warning
from deckbuilder.importers.own_types import OWN_TYPE_IDS, OwnLanguage, own_card_note, own_language
from deckbuilder.model import NoteKind

__all__ = ["package_notes"]


def package_notes(package: AnkiPackage, source: str) -> NotesImport:
    """The package's notes as card-file notes, each of a note type this tool can build as
    it was; every other note is counted in the report under its note type."""
    used: dict[int, list[AnkiNote]] = {}
    for note in package.notes:
        used.setdefault(note.type_id, []).append(note)
    result = NotesImport("Anki package", source, _main_deck(package.notes), in_place=True)
    kinds: dict[NoteKind, int] = {}  # kind -> the note type id that takes it
    taken: list[tuple[AnkiNoteType, NoteKind, list[AnkiNote]]] = []
    # The note type with the most notes takes a kind first.
    for type_id, notes in sorted(used.items(), key=lambda item: (-len(item[1]), item[0])):
        anki_type = package.note_types.get(type_id)
        name = anki_type.name if anki_type else f"note type {type_id}"
        kind = OWN_TYPE_IDS.get(type_id) or (_stock_kind(anki_type) if anki_type else None)
        if anki_type is not None and type_id not in OWN_TYPE_IDS and _types_answer(anki_type):
            result.report.append(TypeReport(name, len(notes), _TYPED_ANSWER, False))
            continue
        if kind is None:
            result.report.append(TypeReport(name, len(notes), _OTHER_TYPE, False))
            continue
        if kind in kinds:
            why = (
                f"not imported: a card file keeps one Anki note type per kind of note, and "
                f"{package.note_types[kinds[kind]].name!r} (with more notes) already takes "
                f"the {_shown(kind)} notes; export these notes from Anki as a package of "
                "their own and import that into another card file"
            )
            result.report.append(TypeReport(name, len(notes), why, False))
            continue
        kinds[kind] = type_id
        assert anki_type is not None
        taken.append((anki_type, kind, notes))
    language = own_language(
        [(kind, n.fields) for t, kind, notes in taken if t.id in OWN_TYPE_IDS for n in notes]
    )
    result.language, result.label_language = language.lang, language.label
    for anki_type, kind, notes in taken:
        if anki_type.id in OWN_TYPE_IDS:
            _add_own(result, anki_type, kind, notes, language)
            continue
        result.carried[kind] = (_spec(anki_type, kind), anki_type.mod)
        result.report.append(TypeReport(anki_type.name, len(notes), f"{_shown(kind)} notes", True))
        for note in notes:
            result.notes.append(_card_note(note, kind, result))
    result.notes.sort(key=lambda n: n.anki_id)
    result.media = package.media
    others = sum(1 for note in package.notes if note.deck and note.deck != result.deck)
    if others:
        result.warnings.append(subdeck_warning(source, others, result.deck))
    unreadable: dict[str, list[str]] = {}  # the reader leaves these notes out, saying why
    for left_out in package.unreadable:
        unreadable.setdefault(left_out.reason, []).append(str(left_out.id or "?"))
    for reason, ids in unreadable.items():
        which = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        text = f"note {which} is" if len(ids) == 1 else f"notes {which} are"
        result.warnings.append(
            Problem(source, None, f"warning: {text} not imported: {reason}; Anki keeps them")
        )
    return result


def _shown(kind: NoteKind) -> str:
    return {
        NoteKind.BASIC_REVERSED: "reversed basic",
        NoteKind.BASIC_OPTIONAL_REVERSED: "basic (optional reversed card)",
    }.get(kind, str(kind))


def _add_own(
    result: NotesImport,
    anki_type: AnkiNoteType,
    kind: NoteKind,
    notes: list[AnkiNote],
    language: OwnLanguage,
) -> None:
    """Notes of one of deckbuilder's own note types: they keep its id, so the lock file
    records only the note type's modification time in the collection."""
    result.own_type_mods[kind] = anki_type.mod
    read = 0
    for note in notes:
        card_note = own_card_note(kind, note.guid, note.fields, language)
        if card_note is None:
            continue
        card_note.tags, card_note.anki_id, card_note.mod = list(note.tags), note.id, note.mod
        result.notes.append(card_note)
        result.source_fields[note.id] = note.fields
        read += 1
    if read:
        result.report.append(TypeReport(anki_type.name, read, f"{_shown(kind)} notes", True))
    if read < len(notes):
        why = "not imported: their fields are not as deckbuilder writes them"
        result.report.append(TypeReport(anki_type.name, len(notes) - read, why, False))


def _main_deck(notes: list[AnkiNote]) -> str:
    counts: dict[str, int] = {}
    for note in notes:
        if note.deck:
            counts[note.deck] = counts.get(note.deck, 0) + 1
    return max(sorted(counts), key=lambda deck: counts[deck], default="")


_OTHER_TYPE = (
    "not imported: deckbuilder builds only Basic, Basic (and reversed card), Basic "
    "(optional reversed card), Cloze and its own note types"
)
_TYPED_ANSWER = (
    "not imported: its cards ask to type the answer ({{type:...}}), and a card-file basic "
    "note cannot; the notes stay in Anki as they are"
)


def _types_answer(anki_type: AnkiNoteType) -> bool:
    return any("{{type:" in front for _, front, _ in anki_type.templates)


def _stock_kind(anki_type: AnkiNoteType) -> NoteKind | None:
    """The card-file kind of a note type shaped as Anki's stock Basic, Basic (and reversed
    card), Basic (optional reversed card) or Cloze (names and templates may be translated
    or restyled)."""
    count = len(anki_type.templates)
    if len(anki_type.fields) == 3 and count == 2 and not anki_type.is_cloze:
        # The second card is asked only when the third field is not empty.
        condition = "{{#" + anki_type.fields[2] + "}}"
        return NoteKind.BASIC_OPTIONAL_REVERSED if condition in anki_type.templates[1][1] else None
    if len(anki_type.fields) != 2:
        return None
    if anki_type.is_cloze:
        return NoteKind.CLOZE if count == 1 else None
    return {1: NoteKind.BASIC, 2: NoteKind.BASIC_REVERSED}.get(count)


def _spec(anki_type: AnkiNoteType, kind: NoteKind) -> NoteTypeSpec:
    (name, front, back), *more = anki_type.templates
    return NoteTypeSpec(
        kind=kind,
        id=anki_type.id,
        name=anki_type.name,
        fields=anki_type.fields,
        template_name=name,
        front=front,
        back=back,
        css=anki_type.css,
        more_templates=tuple(more),
    )


def _card_note(note: AnkiNote, kind: NoteKind, result: NotesImport) -> CardNote:
    cloze = kind is NoteKind.CLOZE
    keys = ("text", "extra") if cloze else ("front", "back")
    fields: dict[str, str] = {}
    label = f"note {note.guid!r}"
    for key, html in zip(keys, note.fields, strict=False):
        converted = field_markdown(html, cloze=cloze)
        fields[key] = converted.markdown
        if not converted.exact:
            lost = "; ".join(markup_losses(html)) or "markup"
            result.warnings.append(
                Problem(
                    result.source,
                    None,
                    f'warning: {label} ("{shown_text(note.fields[0])[:40]}"): its {key} has '
                    f"markup the card format cannot hold: {lost}. Anki keeps showing it as it "
                    "is now; once you change this note in the card file (even only its "
                    "tags) and build, Anki's copy loses that markup",
                )
            )
    optional = kind is NoteKind.BASIC_OPTIONAL_REVERSED
    # "Add Reverse" is kept as Anki has it: built again, the field is the same.
    add_reverse = (note.fields[2] if len(note.fields) > 2 else "") if optional else None
    return CardNote(
        kind="cloze" if cloze else "basic",
        line=0,
        label=label,
        fields=fields,
        tags=list(note.tags),
        guid=note.guid,
        reverse=kind is NoteKind.BASIC_REVERSED,
        anki_id=note.id,
        mod=note.mod,
        add_reverse=add_reverse,
    )
