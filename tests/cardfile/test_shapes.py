"""Every value shape is one complete row of the shapes table (cardfile/shapes.py), and
the JSON Schema of every key is its shape's row (issue 41, item 1)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest

from deckbuilder.cardfile.fields import FieldReader
from deckbuilder.cardfile.keys import (
    CARD_TEMPLATE,
    CHOICE,
    DECK,
    FIELDS,
    MASK,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPE_DECLARATION,
    NOTE_TYPES,
    NUMBER,
    STUDY,
    Key,
    Shape,
    note_keys,
)
from deckbuilder.cardfile.schema import card_schema
from deckbuilder.cardfile.shapes import SHAPES, ReadBy, value_schema

# Every mapping of keys the card format has.
GROUPS: dict[str, tuple[Key, ...]] = {
    "deck": DECK,
    "study": STUDY,
    "choice": CHOICE,
    "typed number": NUMBER,
    "mask": MASK,
    "note type declaration": NOTE_TYPE_DECLARATION,
    "card template": CARD_TEMPLATE,
    "declared note": (*NOTE_FIRST, FIELDS, *NOTE_LAST),
    **{f"{t.kind.value} note": note_keys(t.kind) for t in NOTE_TYPES},
}
EVERY_KEY = [key for keys in GROUPS.values() for key in keys]


@pytest.mark.parametrize("shape", list(Shape), ids=lambda shape: shape.value)
def test_every_shape_has_a_complete_row(shape: Shape) -> None:
    """A shape says its value in messages and in the docs, gives its JSON Schema, and
    names what reads it: a FieldReader method, or the loader's functions that do."""
    row = SHAPES[shape]
    assert row.phrase.strip() and row.words.strip()
    keys = [key for key in EVERY_KEY if key.shape is shape]
    assert keys, f"no key is of the shape {shape.value}: its row is dead"
    for key in keys:
        assert isinstance(row.schema(key), dict)
    if isinstance(row.reader, ReadBy):
        assert row.reader.functions
        for name in row.reader.functions:
            module, _, function = name.partition(".")
            found = getattr(importlib.import_module(f"deckbuilder.cardfile.{module}"), function)
            assert callable(found), name
    else:
        assert callable(getattr(FieldReader, row.reader)), row.reader


def test_the_table_has_a_row_for_each_shape_and_no_other() -> None:
    assert set(SHAPES) == set(Shape)


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    """Every mapping of keys in ``schema`` (no others allowed), however deep."""
    if isinstance(schema, dict):
        if (
            isinstance(schema.get("properties"), dict)
            and schema.get("additionalProperties") is False
        ):
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


def _bare(fragment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fragment.items() if k not in ("description", "default")}


# Where the schema says a key otherwise than its shape's row, on purpose (what the
# loader takes there differs).
_OWN_SCHEMA = {
    # each note's 'type' is its own type's key (const), a declared note's any other key
    *((where, "type") for where in GROUPS if where.endswith(" note")),
    # a typed answer's numbers may be quoted ("4"), which a study block's may not
    *(("typed number", key.name) for key in NUMBER if key.shape is Shape.NUMBER),
    # Anki makes the card of a basic note with an empty back: the back may be blank
    ("basic note", "back"),
    # a label's text must not be blank
    ("mask", "text"),
}


def test_the_schema_of_each_key_is_its_shapes_row() -> None:
    """Requirement (issue 41, item 1): the schema cannot drift from the docs' words and
    the loader's reading, because each key's schema is its shape's row."""
    schema = card_schema()
    checked: set[tuple[str, str]] = set()
    for where, keys in GROUPS.items():
        names = {key.name for key in keys}
        found = [o for o in _objects(schema) if set(o["properties"]) <= names]
        assert found, f"the schema has no mapping of the {where}'s keys"
        for obj in found:
            for key in keys:
                if key.name not in obj["properties"] or (where, key.name) in _OWN_SCHEMA:
                    continue
                said = _bare(obj["properties"][key.name])
                assert said == value_schema(key), f"{where}: '{key.name}'"
                checked.add((where, key.name))
    unchecked = {(where, key.name) for where, keys in GROUPS.items() for key in keys}
    assert unchecked - checked == _OWN_SCHEMA
