"""The built-in note types are records of one registry (deckbuilder.note_types.BUILT_IN):
Anki's note type of each is made from its record, and every part of the record names
what the note type has (tests/test_stability.py pins their ids and what builds give)."""

from __future__ import annotations

import pytest

from deckbuilder.anki.notetypes import OWN_KINDS, note_type
from deckbuilder.cardfile.keys import NOTE_TYPES
from deckbuilder.model import NoteKind
from deckbuilder.note_types import BUILT_IN, BuiltinType


@pytest.mark.parametrize("own", BUILT_IN.values(), ids=list(BUILT_IN))
def test_anki_note_type_is_made_from_the_record(own: BuiltinType) -> None:
    spec = note_type(NoteKind(own.key))
    assert (spec.id, spec.name, spec.fields) == (own.anki_id, own.name, own.fields)
    assert [name for name, _, _ in spec.templates] == [t.name for t in own.templates]
    assert spec.is_cloze == own.is_cloze
    assert (spec.stock_kind, spec.field_tags) == (own.stock_kind, own.field_tags)
    assert spec.sort_field == own.sort_field


@pytest.mark.parametrize("own", BUILT_IN.values(), ids=list(BUILT_IN))
def test_the_record_names_only_fields_it_has(own: BuiltinType) -> None:
    indexes = [i for _, i in own.spoken] + list(own.text_fields)
    if own.source_field is not None:
        indexes.append(own.source_field)
    assert all(0 <= i < len(own.fields) for i in indexes)
    assert 0 <= own.sort_field < len(own.fields)


def test_ids_and_names_are_unique() -> None:
    records = list(BUILT_IN.values())
    assert len({t.anki_id for t in records}) == len({t.name for t in records}) == len(records)


def test_the_card_format_follows_the_registry() -> None:
    """keys.py attaches keys to records in the registry's order; the one record without
    keys is the note type of basic notes with ``reverse: true``."""
    assert [t.record for t in NOTE_TYPES] == [
        t for t in BUILT_IN.values() if t.key != "basic-reversed"
    ]
    assert tuple(NoteKind(key) for key in BUILT_IN) == OWN_KINDS
