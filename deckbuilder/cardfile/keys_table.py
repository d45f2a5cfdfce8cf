"""The keys table of the README and docs/card-format.md, made from the declaration of the
card format (:mod:`.keys`), so that the documentation names every key as the loader
knows it."""

from __future__ import annotations

from deckbuilder.cardfile.keys import (
    CHOICE,
    DECK,
    NOTE_FIRST,
    NOTE_LAST,
    NOTE_TYPES,
    NUMBER,
    STUDY,
    Key,
    Shape,
)

__all__ = ["MARKERS", "keys_table"]

MARKERS = ("<!-- keys:start -->", "<!-- keys:end -->")

_VALUES = {
    Shape.TEXT: "text (Markdown)",
    Shape.PLAIN: "text (HTML, as Anki has it)",
    Shape.DECK_NAME: "text, one line",
    Shape.ID: "id: a-z, 0-9, - and _",
    Shape.GUID: "printable ASCII, no spaces",
    Shape.NOTE_TYPE: ", ".join(t.kind.value for t in NOTE_TYPES),
    Shape.LABEL: "language code",
    Shape.FLAG: "true or false",
    Shape.WHOLE: "whole number",
    Shape.NUMBER: "number",
    Shape.STEPS: "list of steps (30s, 10m, 1h, 1d)",
    Shape.PARAMS: "list of 21 numbers, or text",
    Shape.PATH: "path",
    Shape.TAGS: "tag or list of tags",
    Shape.FILES: "file name or list of them",
    Shape.LINT: "rule code or list of them",
    Shape.LANGUAGES: "list of language codes",
    Shape.LETTERS: "letter or list of letters",
    Shape.CHOICES: "list of choices",
    Shape.ANSWERS: "text, number mapping, or a list of them",
    Shape.STUDY: "mapping (the study keys)",
    Shape.NOTES: "list of notes",
    Shape.UNIT: "text, one line",
}


def keys_table() -> str:
    """Every key of the card format as a Markdown table: where it goes, its value, its
    default, what it does, an example. Required keys are in bold."""
    rows = ["| Key | In | Value | Default | What it is | Example |", "|---|---|---|---|---|---|"]
    groups: list[tuple[str, tuple[Key, ...]]] = [
        ("deck", DECK),
        ("study", STUDY),
        ("every note", NOTE_FIRST + NOTE_LAST),
        *((f"{t.kind.value} note", t.keys) for t in NOTE_TYPES),
        ("a choice mapping", CHOICE),
        ("a typed number", NUMBER),
    ]
    for where, keys in groups:
        rows.extend(_row(where, key) for key in keys)
    return "\n".join(rows) + "\n"


def _row(where: str, key: Key) -> str:
    name = f"**`{key.name}`**" if key.required else f"`{key.name}`"
    cells = [name, where, _value(key), _cell(key.default_text), _cell(key.doc)]
    cells.append(f"`{_cell(key.example)}`")
    return "| " + " | ".join(cells) + " |"


def _value(key: Key) -> str:
    words = _VALUES[key.shape]
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
