"""Note types a deck keeps from the Anki collection it was imported from.

Anki updates a note in place only when the package gives it the note type it already has
(the same id, field names and template names); with another, the import reports the
note as conflicting and leaves it alone. So the notes
``deckbuilder import`` reads from an ``.apkg`` are built with their collection's note
types, kept beside the card file in ``<card file stem>.notetypes.json``: per note kind
(basic, basic-reversed, cloze), the id, name, fields, templates and CSS, as they were.
A deck without that file uses deckbuilder's own note types.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deckbuilder.anki.notetypes import NoteTypeSpec, note_type
from deckbuilder.errors import DeckError
from deckbuilder.model import BasicNote, Note, NoteKind

__all__ = [
    "SIDECAR_SUFFIX",
    "carried_json",
    "read_carried",
    "sidecar_path",
    "spec_fields",
    "spec_for",
]

SIDECAR_SUFFIX = ".notetypes.json"
# The kinds a carried note type may take: those whose fields render in Anki's stock order.
CARRIED_KINDS = {
    NoteKind.BASIC: 2,
    NoteKind.BASIC_REVERSED: 2,
    NoteKind.CLOZE: 2,
    NoteKind.BASIC_OPTIONAL_REVERSED: 3,  # Front, Back and Add Reverse
}
_ABOUT = (
    "Written by 'deckbuilder import': the Anki note types of this deck's notes, kept as "
    "they were in the collection so that Anki updates the notes in place. Commit it with "
    "the card file; change a template or the CSS here if you must, never an id or a name."
)
_NO_CARRIED: dict[NoteKind, NoteTypeSpec] = {}


def sidecar_path(card_file: Path) -> Path:
    return card_file.with_name(card_file.stem + SIDECAR_SUFFIX)


def spec_kind(note: Note) -> NoteKind:
    """The note type kind a note is built with: a reversed basic note has its own, and a
    note with ``add_reverse:`` Anki's "Basic (optional reversed card)"."""
    if isinstance(note, BasicNote):
        if note.add_reverse is not None:
            return NoteKind.BASIC_OPTIONAL_REVERSED
        if note.reverse:
            return NoteKind.BASIC_REVERSED
    return note.kind


def spec_for(note: Note, carried: Mapping[NoteKind, NoteTypeSpec]) -> NoteTypeSpec:
    kind = spec_kind(note)
    found = carried.get(kind)
    if found is not None:
        return found
    if kind is NoteKind.BASIC_OPTIONAL_REVERSED:
        # Without the collection's note type (no sidecar file), deckbuilder's own: the
        # same cards.
        assert isinstance(note, BasicNote)
        return note_type(NoteKind.BASIC_REVERSED if note.reverse else NoteKind.BASIC)
    return note_type(kind)


def spec_fields(note: Note, spec: NoteTypeSpec, fields: tuple[str, ...]) -> tuple[str, ...]:
    """A note's rendered ``fields`` as ``spec`` takes them: the "Add Reverse" field of
    Anki's "Basic (optional reversed card)" follows its front and back, as it was."""
    if spec.kind is NoteKind.BASIC_OPTIONAL_REVERSED and isinstance(note, BasicNote):
        return (*fields, note.add_reverse or "")
    return fields


def carried_json(specs: Mapping[NoteKind, NoteTypeSpec]) -> str:
    """The sidecar file's text for ``specs`` (deterministic)."""
    entries = [
        {
            "kind": kind.value,
            "id": spec.id,
            "name": spec.name,
            "fields": list(spec.fields),
            "templates": [
                {"name": name, "front": front, "back": back} for name, front, back in spec.templates
            ],
            "css": spec.css,
        }
        for kind, spec in sorted(specs.items(), key=lambda item: item[0].value)
    ]
    return json.dumps({"about": _ABOUT, "note_types": entries}, ensure_ascii=False, indent=2) + "\n"


def read_carried(card_file: Path) -> Mapping[NoteKind, NoteTypeSpec]:
    """The note types kept beside ``card_file`` (empty when it has none)."""
    path = sidecar_path(card_file)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _NO_CARRIED
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError.single(path, f"cannot read the note types file: {exc}") from exc
    try:
        return parse_carried(json.loads(text))
    except (ValueError, KeyError, TypeError) as exc:
        raise DeckError.single(
            path,
            f"not a note types file as 'deckbuilder import' writes it ({exc}); restore it "
            "from version control",
        ) from exc


def parse_carried(data: Any) -> dict[NoteKind, NoteTypeSpec]:
    out: dict[NoteKind, NoteTypeSpec] = {}
    for entry in data["note_types"]:
        kind = NoteKind(entry["kind"])
        fields = tuple(str(name) for name in entry["fields"])
        if kind not in CARRIED_KINDS or len(fields) != CARRIED_KINDS[kind]:
            raise ValueError(f"note type {entry['name']!r} cannot be kind {kind.value}")
        if kind in out:
            raise ValueError(f"kind {kind.value} is listed twice")
        first, *more = [
            (str(t["name"]), str(t["front"]), str(t["back"])) for t in entry["templates"]
        ]
        out[kind] = NoteTypeSpec(
            kind=kind,
            id=int(entry["id"]),
            name=str(entry["name"]),
            fields=fields,
            template_name=first[0],
            front=first[1],
            back=first[2],
            css=str(entry["css"]),
            more_templates=tuple(more),
        )
    return out
