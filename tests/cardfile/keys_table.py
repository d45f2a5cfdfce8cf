"""The keys table of the README and docs/card-format.md, made from the declaration of the
card format (:mod:`deckbuilder.cardfile.keys`), so that the documentation names every key
as the loader knows it; test_keys_table.py checks the pages hold it."""

from __future__ import annotations

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
)
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.model import NoteKind

MARKERS = ("<!-- keys:start -->", "<!-- keys:end -->")
# What the README's shorter table holds: the keys of decks and of each kind of note an
# author writes by hand (image occlusion has docs/image-occlusion.md).
_IN_README = frozenset(
    [
        "deck",
        "every note",
        "note of a declared type",
        *(f"{t.kind.value} note" for t in NOTE_TYPES if t.kind is not NoteKind.IMAGE_OCCLUSION),
    ]
)


def keys_table(*, full: bool = True) -> str:
    """Every key of the card format as a Markdown table: where it goes, its value, its
    default, what it does, an example. Required keys are in bold. Not ``full`` (the
    README's): the keys authors write in decks and notes, the rest left to
    docs/card-format.md."""
    rows = ["| Key | In | Value | Default | What it is | Example |", "|---|---|---|---|---|---|"]
    groups: list[tuple[str, tuple[Key, ...]]] = [
        ("deck", DECK),
        ("study", STUDY),
        ("every note", NOTE_FIRST + NOTE_LAST),
        *((f"{t.kind.value} note", t.keys) for t in NOTE_TYPES),
        ("note of a declared type", (FIELDS,)),
        ("a choice mapping", CHOICE),
        ("a typed number", NUMBER),
        ("a mask", MASK),
        ("a note type declaration", NOTE_TYPE_DECLARATION),
        ("a card of a declared type", CARD_TEMPLATE),
    ]
    for where, keys in groups:
        if full or where in _IN_README:
            rows.extend(_row(where, key) for key in keys if full or not key.by_import)
    return "\n".join(rows) + "\n"


def _row(where: str, key: Key) -> str:
    name = f"**`{key.name}`**" if key.required else f"`{key.name}`"
    cells = [name, where, _value(key), _cell(key.default_text), _cell(key.doc)]
    cells.append(f"`{_cell(key.example)}`")
    return "| " + " | ".join(cells) + " |"


def _value(key: Key) -> str:
    words = SHAPES[key.shape].words
    if key.values and key.shape is not Shape.LINT:
        words = " or ".join(key.values)
    if key.low is not None and key.high is not None and key.low != key.high:
        words += f", {key.low:,g} to {key.high:,g}"
    elif key.low is not None and key.high is None:
        words += f", at least {key.low:g}"
    if key.shape is Shape.CHOICES:
        words += "; each may be per language"
    elif key.localized:
        words += "; or per language"
    return _cell(words)


def _cell(text: str) -> str:
    """``text`` safe in a table cell."""
    return text.replace("|", "\\|")
