"""Spreadsheets (``.csv``, ``.tsv``) with a header row -> card-file notes.

The header says what the rows are: ``front, back[, tags]`` (basic notes);
``question, A, B, ...[, answer][, explanation][, tags]`` (multiple choice, one column per
choice); ``text[, extra][, tags]`` (cloze). Column names are matched ignoring case and
spaces; ``question, answer`` with no choice columns is ``front, back``. The encoding is
read from a byte order mark (UTF-8, UTF-16), else UTF-8, else CP949 where that reads as
Korean (what Korean Excel writes on Windows), else Windows-1252 (what Excel writes
elsewhere on Windows); the delimiter from the file (``csv.Sniffer``), a tab for ``.tsv``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from deckbuilder.cardfile.reader import MAX_FILE_BYTES
from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers.base import CardNote, choice_problems, parse_answer
from deckbuilder.importers.html_markdown import hard_breaks
from deckbuilder.importers.notes_plan import NotesImport, TypeReport
from deckbuilder.model import letter

__all__ = ["WORKBOOK_SUFFIXES", "read_spreadsheet"]

_LAYOUTS = {
    "basic": ({"front", "back"}, {"tags"}),
    "cloze": ({"text"}, {"extra", "tags"}),
    "mcq": ({"question", "answer"}, {"explanation", "tags"}),
}
_EXPECTED = (
    "front, back[, tags]; question, A, B, ...[, explanation][, tags] with answer; "
    "or text[, extra][, tags]"
)
_CHOICE = re.compile(r"[a-z]\Z")
# A flashcard sheet's usual header: the question and its answer, no choice columns.
_BASIC_NAMES = {"question": "front", "answer": "back"}
_HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
# Workbooks that must be saved as CSV first.
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


def _decode(data: bytes, path: Path) -> tuple[str, list[Problem]]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), []
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError:
        pass
    try:
        korean = data.decode("cp949")
    except UnicodeDecodeError:
        korean = ""
    # Western text is seldom valid CP949, and then reads as Chinese characters, not Hangul.
    if _HANGUL_SYLLABLE.search(korean):
        warning = "warning: not UTF-8; read as CP949 (Korean Excel's); check the Korean text"
        return korean, [Problem(str(path), None, warning)]
    warning = "warning: not UTF-8; read as Windows-1252 (Excel's)"
    return data.decode("cp1252", errors="replace"), [Problem(str(path), None, warning)]


def read_spreadsheet(path: Path) -> NotesImport:
    """Read the spreadsheet at ``path``; raise DeckError listing every bad row."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DeckError.single(path, f"cannot read the file: {exc.strerror or exc}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise DeckError.single(path, f"the file is over {MAX_FILE_BYTES:,} bytes; split it")
    text, warnings = _decode(data, path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if path.suffix.lower() == ".tsv":
        delimiter = "\t"
    else:
        try:
            delimiter = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    rows = _rows(text, delimiter)
    _, header = next(rows, (1, []))
    columns = [" ".join(name.split()).casefold() for name in header]
    if not any(_CHOICE.match(name) for name in columns):
        columns = [_BASIC_NAMES.get(name, name) for name in columns]
    kind = _layout(columns)
    if kind is None:
        shown = ", ".join(name for name in header if name.strip()) or "nothing"
        raise DeckError.single(
            path, f"the header row names {shown}; expected the columns {_EXPECTED}", 1
        )
    result = NotesImport("spreadsheet", str(path), path.stem, warnings=warnings)
    problems: list[Problem] = []
    choices = [i for i, name in enumerate(columns) if kind == "mcq" and _CHOICE.match(name)]
    for number, (line, row) in enumerate(rows, start=2):  # the header is row 1
        if not any(cell.strip() for cell in row):
            continue
        cell = {
            name: hard_breaks(row[i].strip()) if i < len(row) else ""
            for i, name in enumerate(columns)
        }
        note = CardNote(
            kind, line, f"row {number}", {}, tags=re.split(r"[\s,;]+", cell.get("tags", ""))
        )
        note.tags = [tag for tag in note.tags if tag]
        if kind == "mcq":
            note.fields = {"question": cell["question"], "explanation": cell.get("explanation", "")}
            cells = [row[i].strip() if i < len(row) else "" for i in choices]
            problems += _choice_problems(note, cells, cell["answer"], str(path), line, number)
        else:
            keys = ("front", "back") if kind == "basic" else ("text", "extra")
            note.fields = {key: cell.get(key, "") for key in keys}
        first = next(iter(note.fields))
        if not note.fields[first]:
            problems.append(Problem(str(path), line, f"row {number}: the {first} is empty"))
        result.notes.append(note)
    if problems:
        raise DeckError(problems)
    what = {"basic": "basic notes", "cloze": "cloze notes", "mcq": "multiple-choice notes"}[kind]
    result.report.append(TypeReport(f"{path.name} rows", len(result.notes), what, True))
    return result


def _rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Each row with the line it starts on: a quoted cell may hold line breaks."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    start = 1
    for row in reader:
        yield start, row
        start = reader.line_num + 1


def _choice_problems(
    note: CardNote, cells: list[str], answer: str, file: str, line: int, number: int
) -> list[Problem]:
    """Set ``note``'s choices (from the choice columns' ``cells``) and answer, and say
    everything wrong with them, as the card loader would find it, in one pass. ``line``:
    where the row starts in the file; ``number``: its row in the spreadsheet. The answer is
    a letter or number, or the text of one choice."""
    row = f"row {number}"
    problems = []
    # The letters name the columns: an empty cell before a filled one would shift them.
    filled = [k for k, text in enumerate(cells) if text]
    for k in range(filled[-1] if filled else 0):
        if not cells[k]:
            problems.append(
                Problem(
                    file,
                    line,
                    f"{row}: choice {letter(k)} is empty but a later choice is not (the answer's "
                    "letters name the columns); fill it, or move the later choices left",
                )
            )
    note.choices = [hard_breaks(text) for text in cells if text]
    if not answer:
        problems.append(Problem(file, line, f"{row}: the answer is empty"))
    else:
        loose = " ".join(answer.split()).casefold()
        same_text = [
            i for i, c in enumerate(note.choices) if " ".join(c.split()).casefold() == loose
        ]
        # Read against the columns: with no empty cell before a filled one (refused above),
        # a column's letter is its choice's.
        picked, found = parse_answer(answer, len(cells), file, line)
        if found and len(same_text) == 1:
            picked, found = same_text, []  # the right choice's text, written out
        note.answer = [i for i in picked if cells[i]]
        problems += [
            Problem(file, line, f"{row}: choice {letter(i)}, the answer, is empty")
            for i in picked
            if not cells[i]
        ]
        problems += [replace(p, message=f"{row}: {p.message}") for p in found]
    if len(note.choices) < 2:
        problems.append(Problem(file, line, f"{row}: give at least 2 choices"))
    else:
        problems += choice_problems(file, line, row, note.choices)
    return problems


def _layout(columns: list[str]) -> str | None:
    """Which note kind the header describes; None when it matches none, or names a column
    none of them has."""
    named = {name for name in columns if name}
    for kind, (required, optional) in _LAYOUTS.items():
        if not required <= named:
            continue
        rest = named - required - optional
        if kind == "mcq":
            rest = {name for name in rest if not _CHOICE.match(name)}
            if not any(_CHOICE.match(name) for name in named):
                continue
        if not rest:
            return kind
    return None
