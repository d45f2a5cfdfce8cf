"""Anki's "Notes in Plain Text" export -> card-file notes.

The file starts with ``#key:value`` headers (``#separator:tab``, ``#html:true``,
``#guid column:1``, ``#notetype column:2``, ``#deck column:3``, ``#tags column:6``);
each row is then one note, its columns separated by the separator and quoted as CSV.
The columns the headers do not name are the note's fields, in order.

The export names each note's note type but does not carry it, so the notes become notes
of deckbuilder's own types and keep their GUIDs: built and re-imported into the
collection they came from, Anki reports them as conflicting and changes nothing (see
:data:`deckbuilder.importers.notes_plan.IN_PLACE_HINT`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

from deckbuilder.cardfile.reader import read_text
from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers.base import CardNote
from deckbuilder.importers.html_markdown import field_markdown, plain_html
from deckbuilder.importers.notes_plan import NotesImport, TypeReport, subdeck_warning

__all__ = ["looks_like_anki_text", "read_anki_text"]

_HEADER = re.compile(r"#([a-z ]+):(.*)\Z")
_SEPARATORS = {
    "tab": "\t",
    "comma": ",",
    "semicolon": ";",
    "space": " ",
    "pipe": "|",
    "colon": ":",
}
_KNOWN_HEADERS = frozenset(
    {"separator", "html", "guid column", "notetype column", "deck column", "tags column"}
    | {"columns", "notetype", "deck", "tags", "if matches"}
)
_NO_GUID = (
    "the export has no '#guid column' header, so its notes cannot be told apart from "
    "the ones already in Anki: importing the built deck back would add every note a "
    "second time. In Anki, export the deck again as Notes in Plain Text with 'Include "
    "unique identifier' ticked (or export it as an .apkg), and import that file"
)
_CLOZE = re.compile(r"\{\{c\d+::")
# Note type names as Anki (in English) and deckbuilder write them -> (kind, reverse rule).
_BASIC_NAMES = {"basic", "deckbuilder basic"}
_REVERSED_NAMES = {"basic (and reversed card)", "deckbuilder basic (and reversed card)"}
_OPTIONAL_NAMES = {"basic (optional reversed card)"}
_CLOZE_NAMES = {"cloze", "deckbuilder cloze"}


def looks_like_anki_text(path: Path) -> bool:
    """Whether ``path`` starts with Anki's ``#separator:`` or ``#html:`` header."""
    try:
        with path.open("rb") as stream:
            start = stream.read(64).removeprefix(b"\xef\xbb\xbf")
    except OSError:
        return False
    return start.startswith((b"#separator:", b"#html:"))


def read_anki_text(path: Path) -> NotesImport:
    """Read the export at ``path``; raise DeckError listing every row it cannot import."""
    text = read_text(path).removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    headers: dict[str, str] = {}
    problems: list[Problem] = []
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        match = _HEADER.match(lines[start])
        if match and match[1] in _KNOWN_HEADERS:
            headers[match[1]] = match[2].strip()
        start += 1
    separator = headers.get("separator", "tab")
    delimiter = _SEPARATORS.get(separator.lower(), separator)
    if len(delimiter) != 1:
        raise DeckError.single(path, f"unknown #separator '{separator}'", 1)
    html = headers.get("html", "false").lower() == "true"
    special = {}
    for key in ("guid", "notetype", "deck", "tags"):
        value = headers.get(f"{key} column")
        if value is not None:
            if not value.isdigit() or int(value) < 1:
                problems.append(
                    Problem(str(path), None, f"#{key} column:{value} is not a column number")
                )
            else:
                special[key] = int(value) - 1
    if "guid" not in special:
        problems.append(Problem(str(path), None, _NO_GUID))
    result = NotesImport("Anki text export", str(path), "")
    counts: dict[str, list[str]] = {}  # note type name -> [outcome, count...]
    decks: dict[str, int] = {}
    for line, row in _rows(lines, start, delimiter):
        if not any(cell.strip() for cell in row):
            continue
        cell = {key: row[i] if i < len(row) else "" for key, i in special.items()}
        fields = [value for i, value in enumerate(row) if i not in special.values()]
        type_name = cell.get("notetype", "")
        outcome = _note(result, line, fields, cell, type_name, html, problems)
        counts.setdefault(type_name or "(no note type column)", []).append(outcome)
        if cell.get("deck"):
            decks[cell["deck"]] = decks.get(cell["deck"], 0) + 1
    if problems:
        raise DeckError(problems)
    result.deck = max(sorted(decks), key=lambda d: decks[d], default="")
    others = sum(n for deck, n in decks.items() if deck != result.deck)
    if others:
        result.warnings.append(subdeck_warning(str(path), others, result.deck))
    for name, outcomes in counts.items():
        for outcome in dict.fromkeys(outcomes):
            n = outcomes.count(outcome)
            result.report.append(
                TypeReport(name, n, outcome, not outcome.startswith("not imported"))
            )
    return result


def _rows(lines: list[str], start: int, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Each row after the headers with the line it starts on: a quoted field may hold
    line breaks, which stay in the field."""
    body = io.StringIO("\n".join(lines[start:]), newline="")
    reader = csv.reader(body, delimiter=delimiter, quotechar='"', strict=False)
    first = start + 1
    for row in reader:
        yield first, row
        first = start + reader.line_num + 1


def _note(
    result: NotesImport,
    line: int,
    fields: list[str],
    cell: dict[str, str],
    type_name: str,
    html: bool,
    problems: list[Problem],
) -> str:
    """Add the row's note to ``result``; say what became of it."""
    name = type_name.casefold()
    reverse = name in _REVERSED_NAMES
    if name in _OPTIONAL_NAMES and len(fields) >= 3:
        reverse = bool(fields[2].strip())
        fields = fields[:2] + [f for f in fields[3:] if f.strip()]
    # Anki pads each row to the widest note type's fields.
    while len(fields) > 2 and not fields[-1].strip():
        fields = fields[:-1]
    if len(fields) != 2:
        return f"not imported: {len(fields)} fields (deckbuilder reads notes of two fields)"
    cloze = name in _CLOZE_NAMES or (
        name not in _BASIC_NAMES | _REVERSED_NAMES | _OPTIONAL_NAMES
        and bool(_CLOZE.search(fields[0]))
    )
    keys = ("text", "extra") if cloze else ("front", "back")
    markdown: dict[str, str] = {}
    for key, value in zip(keys, fields, strict=True):
        converted = field_markdown(value if html else plain_html(value), cloze=cloze)
        markdown[key] = converted.markdown
    if not markdown[keys[0]].strip():
        problems.append(Problem(result.source, line, f"row {line}: the {keys[0]} is empty"))
    result.notes.append(
        CardNote(
            kind="cloze" if cloze else "basic",
            line=line,
            label=f"row {line}",
            fields=markdown,
            tags=cell.get("tags", "").split(),
            guid=cell.get("guid", "").strip(),
            reverse=reverse and not cloze,
        )
    )
    known = name in _BASIC_NAMES | _REVERSED_NAMES | _OPTIONAL_NAMES | _CLOZE_NAMES
    kind = "cloze" if cloze else ("reversed basic" if reverse else "basic")
    return f"{kind} notes" if known or not type_name else f"{kind} notes (read by their two fields)"
