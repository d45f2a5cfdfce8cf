"""Delimited text as Anki's own CSV importer reads it (rslib,
``import_export/text/csv/metadata.rs`` and ``import.rs``): the ``#key:value`` header
lines, the separator, and the rows with the line each starts on.

- Header lines come first. Each ``#`` line is one (a ``#`` line without ``key:value`` is
  a comment); the very first may also be the old ``tags:...`` line. Keys are read
  without case and spaces around them.
- ``#separator:`` is a name (``tab``, ``pipe``, ``semicolon``, ``colon``, ``comma``,
  ``space``) or the character itself, a literal space or tab included (the value is not
  stripped). What a mistaken export appends after the first character (``Pipe,,,,``,
  ``tab\\t\\t``) is dropped first. An unknown name is as if the header were absent.
- Without a separator, the first of tab, pipe, semicolon, colon and comma that occurs in
  the first 8 KiB after the headers is taken, else a space.
- ``#html:`` is ``true`` or ``false``; without it, the text is HTML when one of the first
  five rows holds anything like a tag (``<...>``).
- Rows are CSV with ``"`` quotes (``""`` inside them); a row starting with ``#`` is a
  comment; rows may have any number of columns.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.errors import DeckError

# Anki's Delimiter enum, in its order: the order in which a separator is guessed.
DELIMITERS = {
    "tab": "\t",
    "pipe": "|",
    "semicolon": ";",
    "colon": ":",
    "comma": ",",
    "space": " ",
}
_GUESS_CHARS = 8 * 1024
_PREVIEW_ROWS = 5
# Anki's is_html: a comment, a style or script element, or anything in angle brackets.
_HTML = re.compile(
    r"(<!--.*?-->)|(<style.*?>.*?</style>)|(<script.*?>.*?</script>)|(<.*?>)",
    re.IGNORECASE | re.DOTALL,
)
COLUMN_KEYS = ("guid", "notetype", "deck", "tags")


@dataclass
class Metadata:
    """What the header lines say; each ``*_column`` is 1-based, 0 when not given."""

    lines: int = 0  # how many lines the headers take
    delimiter: str = ""  # '' when the headers name none
    html: bool | None = None
    tags: tuple[str, ...] = ()
    columns: list[str] = field(default_factory=list)
    notetype: str = ""
    deck: str = ""
    column: dict[str, int] = field(default_factory=dict)  # "guid", "notetype", ... -> column
    keys: set[str] = field(default_factory=set)  # the header keys given


def _trimmed(value: str) -> str:
    """The value without what follows its first character from the first character that
    is not an ASCII letter or digit on: ``Pipe,,,`` -> ``Pipe``, ``,`` -> ``,``."""
    for i, ch in enumerate(value[1:], start=1):
        if not (ch.isascii() and ch.isalnum()):
            return value[:i]
    return value


def _delimiter(value: str) -> str:
    normed = value.lower()
    for name, char in DELIMITERS.items():
        if normed.strip() == name or normed == char:
            return char
    return ""


def read_metadata(lines: list[str]) -> Metadata:
    """The headers at the start of ``lines``, as Anki reads them."""
    meta = Metadata()
    for i, line in enumerate(lines):
        if i == 0 and line.startswith("tags:"):
            meta.tags = tuple(line[len("tags:") :].split())
        elif line.startswith("#"):
            key, colon, value = line[1:].partition(":")
            if colon:
                _header(meta, key.strip().lower(), value)
        else:
            break
        meta.lines = i + 1
    return meta


def _header(meta: Metadata, key: str, value: str) -> None:
    trimmed = _trimmed(value)
    meta.keys.add(key)
    if key == "separator":
        meta.delimiter = _delimiter(trimmed) or meta.delimiter
    elif key == "html":
        if trimmed.lower() in ("true", "false"):
            meta.html = trimmed.lower() == "true"
    elif key == "tags":
        meta.tags = tuple(value.split())
    elif key == "columns":
        meta.columns = next(csv.reader([value], delimiter=meta.delimiter or "\t"), [])
    elif key == "notetype":
        meta.notetype = value
    elif key == "deck":
        meta.deck = value
    elif key.endswith(" column") and key[: -len(" column")] in COLUMN_KEYS:
        # Anki reads the number as a 32-bit one and ignores the line when it is not one
        # (int() would refuse over 4,300 digits).
        number = trimmed.strip().lstrip("0") or "0"
        if number.isascii() and number.isdigit() and len(number) <= 10 and int(number) < 1 << 32:
            meta.column[key[: -len(" column")]] = int(number)


def guess_delimiter(body: str) -> str:
    """Anki's guess: the first of its separators found in the first 8 KiB, else a space."""
    sample = body[:_GUESS_CHARS]
    return next((char for char in DELIMITERS.values() if char in sample), " ")


def rows(
    lines: list[str], start: int, delimiter: str, source: Path
) -> Iterator[tuple[int, list[str]]]:
    """Each row after the first ``start`` lines with the (1-based) line it starts on: a
    quoted field may hold line breaks; a row starting with ``#`` is a comment. DeckError
    for a field longer than Python's csv reader takes (a quote never closed, often)."""
    at_start = [True]
    first_line = [0]

    def feed() -> Iterator[str]:
        for number in range(start, len(lines)):
            line = lines[number]
            if at_start[0]:
                if line.startswith("#"):
                    continue
                first_line[0] = number + 1
                at_start[0] = False
            yield line + "\n"

    reader = csv.reader(feed(), delimiter=delimiter, quotechar='"', strict=False)
    try:
        for row in reader:
            at_start[0] = True
            yield first_line[0], row
    except csv.Error as exc:  # only a field over csv.field_size_limit() with strict=False
        raise DeckError.single(
            source,
            f"the row starting here has a field over {csv.field_size_limit():,} characters "
            f"({exc}); a quote never closed takes in the rows after it",
            first_line[0],
        ) from None


def looks_like_html(first_rows: list[list[str]]) -> bool:
    """Anki's guess when ``#html:`` is absent: one of the first five rows has markup."""
    return any(_HTML.search(cell) for row in first_rows[:_PREVIEW_ROWS] for cell in row)
