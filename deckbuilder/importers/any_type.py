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
from dataclasses import dataclass, replace

from deckbuilder.anki.collection import AnkiNote, AnkiNoteType
from deckbuilder.anki.notetypes import NoteTypeSpec, declared_spec
from deckbuilder.anki.notetypes.active_content import note_type_parts, without_note_type_parts
from deckbuilder.anki.notetypes.carried import spec_problems
from deckbuilder.cardfile.declared import RESERVED_KEYS
from deckbuilder.errors import shown
from deckbuilder.importers.base import ActiveContent, slugify
from deckbuilder.importers.html_markdown import field_markdown, rendered_field
from deckbuilder.model import FieldsNote
from deckbuilder.note_types import CardTemplate, NoteType, TypeKind
from deckbuilder.templates import tts_problems

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


@dataclass(frozen=True)
class Declared:
    """A package's note type as a declaration, and its notes."""

    note_type: NoteType
    notes: list[tuple[AnkiNote, FieldsNote]]
    # What its templates and CSS ran or fetched (removed, or kept as asked), and Anki's
    # note type as the collection has it, which the lock file records so that the first
    # build updates it in place without them; None when there was nothing.
    active: ActiveContent | None = None
    in_collection: NoteTypeSpec | None = None


def declared_notes(
    anki_type: AnkiNoteType,
    notes: Sequence[AnkiNote],
    taken: Collection[str],
    *,
    keep_scripts: bool = False,
) -> Declared | str:
    """The note type as a declaration and its notes, or why it cannot come in (what Anki
    or genanki would refuse or change in it). What its templates and CSS run or fetch is
    removed (issue 45) unless ``keep_scripts``."""
    sort_field = anki_type.sort_field if 0 <= anki_type.sort_field < len(anki_type.fields) else 0
    original = NoteType(
        key=type_key(anki_type.name, taken),
        name=anki_type.name,
        fields=anki_type.fields,
        templates=tuple(CardTemplate(*template) for template in anki_type.templates),
        css=anki_type.css,
        sort_field=sort_field,
        kind=TypeKind.CLOZE if anki_type.is_cloze else TypeKind.STANDARD,
        anki_id=anki_type.id,
    )
    found = _without_active_parts(original, keep_scripts)
    if isinstance(found, str):
        return found
    cleaned, active = found
    note_type = declared_type(cleaned, [n.fields for n in notes])
    if isinstance(note_type, str):
        return note_type
    read = [(n, fields_note(note_type, n.fields, tags=n.tags, guid=n.guid, line=0)) for n in notes]
    in_collection = declared_spec(replace(original, raw=note_type.raw))
    return Declared(note_type, read, active, in_collection if active and not active.kept else None)


def _without_active_parts(
    note_type: NoteType, keep_scripts: bool
) -> tuple[NoteType, ActiveContent | None] | str:
    """``note_type`` without what its templates and CSS run or fetch (issue 45), with
    what that was; as it is, ``keep_scripts``, when asked; or why it cannot come in."""
    original = declared_spec(note_type)
    found = note_type_parts(replace(original, keep_scripts=False))
    if not found:
        return note_type, None
    if keep_scripts:
        return replace(note_type, keep_scripts=True), ActiveContent(note_type.name, found, True)
    cleaned = without_note_type_parts(original)
    if not cleaned.clean:
        return (
            "its templates or CSS hide what they run or fetch inside other such parts, "
            "and removing them leaves more; to keep them as they are, import with "
            f"--keep-scripts {shown(note_type.name)}"
        )
    spec = cleaned.spec
    without = replace(
        note_type,
        templates=tuple(CardTemplate(*template) for template in spec.templates),
        css=spec.css,
    )
    return without, ActiveContent(note_type.name, cleaned.found, kept=False)


def declared_type(note_type: NoteType, notes: Sequence[Sequence[str]]) -> NoteType | str:
    """``note_type`` for notes whose fields' HTML is ``notes``, with each field that some
    note's HTML cannot be written for in Markdown kept raw; or why it cannot come in
    (what Anki or genanki would refuse or change in it)."""
    cloze = note_type.is_cloze
    raw = frozenset(
        name
        for index, name in enumerate(note_type.fields)
        if not all(_as_markdown(_field(n, index), cloze) is not None for n in notes)
    )
    note_type = replace(note_type, raw=raw)
    if not note_type.templates or not note_type.fields:
        return "its note type has no fields or no card templates"
    refused = spec_problems(declared_spec(note_type))
    refused += [
        p
        for t in note_type.templates
        for side in (t.front, t.back)
        for p in tts_problems(side, note_type.fields)
    ]
    if refused:
        return f"Anki would refuse its note type or change it ({refused[0]})"
    return note_type


def fields_note(
    note_type: NoteType, html: Sequence[str], *, tags: tuple[str, ...], guid: str, line: int
) -> FieldsNote:
    """A note of ``note_type`` whose fields' HTML is ``html``: a raw field as it is, any
    other in Markdown (that builds back to exactly the HTML when it can)."""
    cloze = note_type.is_cloze
    texts = []
    for index, name in enumerate(note_type.fields):
        text = _field(html, index)
        if name not in note_type.raw:
            text = _as_markdown(text, cloze) or field_markdown(text, cloze=cloze).markdown
        texts.append(text)
    return FieldsNote(
        id="", line=line, tags=tags, guid=guid, note_type=note_type, fields=tuple(texts)
    )


def _field(fields: Sequence[str], index: int) -> str:
    return fields[index] if index < len(fields) else ""


def _as_markdown(html: str, cloze: bool) -> str | None:
    """The Markdown that builds back to exactly ``html``, or None."""
    if not html:
        return ""
    converted = field_markdown(html, cloze=cloze)
    if converted.exact and rendered_field(converted.markdown, cloze) == html:
        return converted.markdown
    return None
