"""Notes of any Anki note type, as notes of a declared note type (issue 41).

A note type a card file has no short form for (a vocabulary type with five fields and
two cards, a medical type with Extra and Source, a type-in cloze) comes in whole: its
fields, templates, CSS and sort field become a ``note_types:`` declaration that keeps
Anki's id, so the next build updates the same note type, and each of its notes a note
with ``type: <key>`` and its texts under ``fields:``. A field comes in as Markdown when
the Markdown builds back to exactly Anki's HTML for every note; otherwise the field is
declared raw and kept as Anki has it, so that every field is identical after a build.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from deckbuilder.anki.collection import AnkiNote, AnkiNoteType
from deckbuilder.anki.notetypes import declared_spec
from deckbuilder.anki.notetypes.carried import spec_problems
from deckbuilder.cardfile.declared import RESERVED_KEYS
from deckbuilder.importers.base import slugify
from deckbuilder.importers.html_markdown import field_markdown, rendered_field
from deckbuilder.model import FieldsNote
from deckbuilder.note_types import CardTemplate, NoteType, TypeKind
from deckbuilder.templates import tts_problems

__all__ = ["declared_notes", "type_key"]

_KEY_LENGTH = 40


def type_key(name: str, taken: Collection[str]) -> str:
    """A note type key for Anki's note type ``name``, not one of ``taken`` nor one of
    deckbuilder's own: its name as a slug (``Korean vocabulary`` -> ``korean-vocabulary``),
    numbered when taken."""
    base = slugify(name, _KEY_LENGTH) or "note-type"
    key, number = base, 1
    while key in taken or key in RESERVED_KEYS:
        number += 1
        key = f"{base}-{number}"
    return key


def declared_notes(
    anki_type: AnkiNoteType, notes: Sequence[AnkiNote], taken: Collection[str]
) -> tuple[NoteType, list[tuple[AnkiNote, FieldsNote]]] | str:
    """The note type as a declaration and its notes, or why it cannot come in (what Anki
    or genanki would refuse or change in it)."""
    cloze = anki_type.is_cloze
    raw = frozenset(
        name
        for index, name in enumerate(anki_type.fields)
        if not all(_as_markdown(_field(n, index), cloze) is not None for n in notes)
    )
    sort_field = anki_type.sort_field if 0 <= anki_type.sort_field < len(anki_type.fields) else 0
    note_type = NoteType(
        key=type_key(anki_type.name, taken),
        name=anki_type.name,
        fields=anki_type.fields,
        templates=tuple(CardTemplate(*template) for template in anki_type.templates),
        css=anki_type.css,
        sort_field=sort_field,
        kind=TypeKind.CLOZE if cloze else TypeKind.STANDARD,
        raw=raw,
        anki_id=anki_type.id,
    )
    if not note_type.templates or not note_type.fields:
        return "its note type has no fields or no card templates"
    refused = spec_problems(declared_spec(note_type))
    refused += [
        p
        for t in anki_type.templates
        for side in t[1:]
        for p in tts_problems(side, anki_type.fields)
    ]
    if refused:
        return f"Anki would refuse its note type or change it ({refused[0]})"
    read = []
    for anki_note in notes:
        texts = []
        for index, name in enumerate(anki_type.fields):
            html = _field(anki_note, index)
            texts.append(html if name in raw else _as_markdown(html, cloze) or "")
        note = FieldsNote(
            id="",
            line=0,
            tags=anki_note.tags,
            guid=anki_note.guid,
            note_type=note_type,
            fields=tuple(texts),
        )
        read.append((anki_note, note))
    return note_type, read


def _field(note: AnkiNote, index: int) -> str:
    return note.fields[index] if index < len(note.fields) else ""


def _as_markdown(html: str, cloze: bool) -> str | None:
    """The Markdown that builds back to exactly ``html``, or None."""
    if not html:
        return ""
    converted = field_markdown(html, cloze=cloze)
    if converted.exact and rendered_field(converted.markdown, cloze) == html:
        return converted.markdown
    return None
