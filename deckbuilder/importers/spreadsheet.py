"""Spreadsheets (``.csv``, ``.tsv``) -> the model's notes.

A header row says what the rows are: ``front, back[, tags]`` (basic notes);
``question, A, B, ...[, answer][, explanation][, tags]`` (multiple choice, one column per
choice); ``text[, extra][, tags]`` (cloze); an ``id`` column gives each note its id (and
so its GUID), a ``guid`` column the GUID Anki knows it by. Column names are matched
ignoring case and spaces, in English or Korean (질문 or 문제, 보기1 ..., 정답, 해설, 태그;
앞면, 뒷면); choice columns are letters (``A``, ``option b``) or numbered (``choice 1``, 보기1).
``question, answer`` with no choice columns is ``front, back``. Other columns beside a
layout's (a numbering, a difficulty) are left out with a warning naming them; beside
``question, answer`` read as ``front, back`` they are refused (one may hold choices).

A sheet without such a header is read as Anki reads a text file (:mod:`.anki_text`): two
or three columns are front, back and tags. So are files with Anki's ``#`` headers. A
wider sheet whose header row names none of these columns gives basic notes of its first
two columns, as Anki reads them, with a warning naming the columns left out.
The delimiter is a tab for ``.tsv``, else guessed from the file (``csv.Sniffer``).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from deckbuilder.errors import DeckError, Problem, shown
from deckbuilder.importers.anki_text import anki_text_notes
from deckbuilder.importers.base import Skipped, SourceDeck, SourceNotes, Tally, parse_answer
from deckbuilder.importers.delimited import Metadata, read_metadata, rows
from deckbuilder.importers.html_markdown import hard_breaks
from deckbuilder.importers.text_input import read_source_text
from deckbuilder.model import BasicNote, ClozeNote, McqNote, Note, letter
from deckbuilder.note_types import NoteType

_LAYOUTS = {
    "basic": ({"front", "back"}, {"tags", "id", "guid"}),
    "cloze": ({"text"}, {"extra", "tags", "id", "guid"}),
    "mcq": ({"question", "answer"}, {"explanation", "tags", "id", "guid"}),
}
_EXPECTED = (
    "front, back[, tags]; question, A, B, ...[, explanation][, tags] with answer; "
    "or text[, extra][, tags]"
)
# Column names in other words (Korean), by the English name they mean.
_NAMES = {
    "질문": "question",
    "문제": "question",
    "정답": "answer",
    "답": "answer",
    "해설": "explanation",
    "설명": "explanation",
    "태그": "tags",
    "앞면": "front",
    "뒷면": "back",
    "본문": "text",
    "추가": "extra",
}
_LETTER = re.compile(r"[a-z]\Z")
# Choice columns by number or letter: 'choice 1', '보기1', 'option b' (a letter after a
# space: 'choices' names no choice S).
_NUMBERED = re.compile(r"(?:choice|option|보기|선택지?)(?:\s*(\d{1,2})| ([a-z]))\Z")
# A flashcard sheet's usual header: the question and its answer, no choice columns.
_BASIC_NAMES = {"question": "front", "answer": "back"}
# Names that make the first row a header row (one that names no layout is refused).
_KNOWN_NAMES = frozenset(
    {name for required, optional in _LAYOUTS.values() for name in required | optional}
)
# The columns every layout reads.
_SHARED_NAMES = frozenset({"id", "guid", "tags"})
# Workbooks that must be saved as CSV first.
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")
# A sheet without a header row is read as Anki reads it when it has at most this many
# columns: front, back, tags.
_HEADERLESS_COLUMNS = 3


def _column(name: str) -> str:
    """A header cell as the layouts name it: 'choice 2', '보기2' and 'option b' are 'b'."""
    name = " ".join(name.split()).casefold()
    numbered = _NUMBERED.match(name)
    if numbered and numbered.group(2):
        return numbered.group(2)
    if numbered and 1 <= int(numbered.group(1)) <= 26:
        return letter(int(numbered.group(1)) - 1).lower()
    return _NAMES.get(name, name)


def read_spreadsheet(path: Path, note_type: NoteType | str | None = None) -> SourceNotes:
    """Read the spreadsheet at ``path``: every row that can be a note is one; each that
    cannot is skipped and said why. ``note_type``: the note type every row is a note of
    (a declared one, or the key of a new one named from the header row's columns)."""
    text, warnings = read_source_text(path)
    lines = text.split("\n")
    meta = read_metadata(lines)
    if path.suffix.lower() == ".tsv":
        delimiter = "\t"
    else:
        try:
            delimiter = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    if meta.lines:  # Anki's headers: Anki's rules
        result = anki_text_notes(lines, meta, path, delimiter, note_type=note_type)
        result.warnings[:0] = warnings
        return result
    table = [
        (line, row) for line, row in rows(lines, 0, delimiter, path) if any(c.strip() for c in row)
    ]
    if note_type is not None:
        result = _onto_note_type(lines, table, delimiter, path, note_type)
        result.warnings[:0] = warnings
        return result
    header = table[0][1] if table else []
    named_columns = [_column(name) for name in header]
    columns = named_columns
    if not any(_LETTER.match(name) for name in columns):
        columns = [_BASIC_NAMES.get(name, name) for name in columns]
    kind = _layout(columns)
    renamed = not {"front", "back"} <= set(named_columns)
    if kind == "basic" and renamed and _unread(kind, columns):
        # 'question, choice 99, answer' as front and back: a column left out may hold the
        # choices, and the answer letters would be the backs of the cards.
        kind = None
    if kind is None:
        named = _KNOWN_NAMES.intersection(columns)
        if not named and max((len(row) for _, row in table), default=0) <= _HEADERLESS_COLUMNS:
            result = anki_text_notes(lines, Metadata(), path, delimiter)
            result.format = "spreadsheet"
            result.warnings[:0] = warnings
            return result
        others = [i for i, name in enumerate(columns) if name not in _SHARED_NAMES]
        if named <= _SHARED_NAMES and len(others) > 1:
            return _first_two_columns(table, columns, others, path, warnings)
        named_cells = ", ".join(shown(n, quoted=False) for n in header if n.strip()) or "nothing"
        raise DeckError.single(
            path, f"the header row names {named_cells}; expected the columns {_EXPECTED}", 1
        )
    result = SourceNotes(
        "spreadsheet", source=path, decks=[SourceDeck(path.stem)], warnings=warnings
    )
    # Columns of the sheet's own (a numbering, a difficulty) leave the rest readable.
    unread = [shown(header[i].strip(), quoted=False) for i in _unread(kind, columns)]
    if unread:
        told = (
            f"not imported: the column{'s' if len(unread) > 1 else ''} {', '.join(unread)}, "
            f"which no layout reads (expected the columns {_EXPECTED})"
        )
        result.warnings.append(Problem.warning(str(path), table[0][0], told))
    choices = [i for i, name in enumerate(columns) if kind == "mcq" and _LETTER.match(name)]
    for line, row in table[1:]:
        cell = {
            name: hard_breaks(row[i].strip()) if i < len(row) else ""
            for i, name in enumerate(columns)
        }
        tags = _tags(cell.get("tags", ""))
        common = {
            "id": cell.get("id", ""),
            "line": line,
            "tags": tags,
            "guid": cell.get("guid", ""),
        }
        note: Note
        if kind == "mcq":
            cells = [row[i].strip() if i < len(row) else "" for i in choices]
            found, answer = _choices(cells, cell["answer"], str(path), line)
            if found:
                result.skipped.append(Skipped(line, "; ".join(p.message for p in found)))
                continue
            note = McqNote(
                **common,  # type: ignore[arg-type]
                question=cell["question"],
                choices=tuple(hard_breaks(text) for text in cells if text),
                answer=tuple(answer),
                explanation=cell.get("explanation", ""),
            )
        elif kind == "basic":
            note = BasicNote(**common, front=cell["front"], back=cell.get("back", ""))  # type: ignore[arg-type]
        else:
            note = ClozeNote(**common, text=cell["text"], extra=cell.get("extra", ""))  # type: ignore[arg-type]
        result.decks[0].notes.append(note)
    what = {"basic": "basic notes", "cloze": "cloze notes", "mcq": "multiple-choice notes"}[kind]
    result.report.append(Tally(f"{path.name} rows", len(result.decks[0].notes), what))
    return result


def _onto_note_type(
    lines: list[str],
    table: list[tuple[int, list[str]]],
    delimiter: str,
    path: Path,
    note_type: NoteType | str,
) -> SourceNotes:
    """Every row as a note of ``note_type``, read as Anki reads text with that note type.
    The first row names the columns (and is no note) when it names a column of a layout
    or a field of the note type, or when the sheet is wider than front, back and tags;
    its ``tags`` and ``guid`` columns keep their meaning."""
    header = table[0][1] if table else []
    named = {_column(name) for name in header} & _KNOWN_NAMES
    if isinstance(note_type, NoteType):
        fields = {name.casefold() for name in note_type.fields}
        named |= {name for name in header if name.strip().casefold() in fields}
    wide = max((len(row) for _, row in table), default=0) > _HEADERLESS_COLUMNS
    meta = Metadata()
    labels: list[str] = []
    if named or wide:
        meta.lines = table[0][0]  # the rows after the header row
        labels = [name.strip() for name in header]
        for number, name in enumerate(header, start=1):
            if _column(name) in ("tags", "guid"):
                meta.column.setdefault(_column(name), number)
    result = anki_text_notes(lines, meta, path, delimiter, note_type=note_type, labels=labels)
    result.format = "spreadsheet"
    return result


def _tags(cell: str) -> tuple[str, ...]:
    """A tags cell's tags: split at white space, commas and semicolons, each kept once."""
    return tuple(dict.fromkeys(tag for tag in re.split(r"[\s,;]+", cell) if tag))


def _first_two_columns(
    table: list[tuple[int, list[str]]],
    columns: list[str],
    others: list[int],
    path: Path,
    warnings: list[Problem],
) -> SourceNotes:
    """A sheet whose header row names columns of its own (besides ``id``, ``guid``,
    ``tags``): each row is a basic note of the first two of them, as Anki reads a sheet's
    first two columns (Anki also makes a note of the header row)."""
    (_, header), *body = table
    front_at, back_at = others[:2]
    left_out = ", ".join(
        shown(label, quoted=False) for i in others[2:] if (label := header[i].strip())
    )
    warning = (
        f"the header row names none of the columns {_EXPECTED}: "
        f"{shown(header[front_at].strip())} is read as the front and "
        f"{shown(header[back_at].strip())} "
        "as the back, as Anki reads the first two columns"
    )
    if left_out:
        warning += f"; not imported: {left_out} (name the columns to choose others)"
    result = SourceNotes(
        "spreadsheet", source=path, decks=[SourceDeck(path.stem)], warnings=warnings
    )
    result.warnings.append(Problem.warning(str(path), table[0][0], warning))
    for line, row in body:
        cell = {name: row[i].strip() if i < len(row) else "" for i, name in enumerate(columns)}
        front, back = (hard_breaks(row[i].strip()) if i < len(row) else "" for i in others[:2])
        if not front:
            reason = "not imported: its first field is empty (Anki skips such a row too)"
            result.skipped.append(Skipped(line, reason))
            continue
        result.decks[0].notes.append(
            BasicNote(
                id=cell.get("id", ""),
                line=line,
                tags=_tags(cell.get("tags", "")),
                guid=cell.get("guid", ""),
                front=front,
                back=back,
            )
        )
    result.report.append(Tally(f"{path.name} rows", len(result.decks[0].notes), "basic notes"))
    return result


def _choices(
    cells: list[str], answer: str, file: str, line: int
) -> tuple[list[Problem], list[int]]:
    """What is wrong with a row's choices (the choice columns' ``cells``) and answer (a
    letter or number, or the text of one choice), and the answer's indexes."""
    # The letters name the columns: an empty cell before a filled one would shift them.
    filled = [k for k, text in enumerate(cells) if text]
    problems = [
        Problem(
            file,
            line,
            f"choice {letter(k)} is empty but a later choice is not (the answer's "
            "letters name the columns); fill it, or move the later choices left",
        )
        for k in range(filled[-1] if filled else 0)
        if not cells[k]
    ]
    picked: list[int] = []
    if not answer:
        problems.append(Problem(file, line, "the answer is empty"))
    else:
        loose = " ".join(answer.split()).casefold()
        same_text = [
            i for i, c in enumerate(cells) if c and " ".join(c.split()).casefold() == loose
        ]
        # Read against the columns: with no empty cell before a filled one (refused above),
        # a column's letter is its choice's.
        picked, found = parse_answer(answer, len(cells), file, line)
        if found and len(same_text) == 1:
            picked, found = same_text, []  # the right choice's text, written out
        elif picked and len(same_text) == 1 and picked != same_text and not answer.isalpha():
            # '2' for the choices 3, 1, 2: either reading may be meant, and a wrong guess
            # marks a wrong choice right. A letter names its column, as the header does.
            problems.append(
                Problem(
                    file,
                    line,
                    f"answer {shown(answer)} is choice {letter(picked[0])} "
                    f"({shown(cells[picked[0]])}) by its number but the text of choice "
                    f"{letter(same_text[0])}; write the right choice's letter",
                )
            )
        problems += [
            Problem(file, line, f"choice {letter(i)}, the answer, is empty")
            for i in picked
            if not cells[i]
        ]
        problems += found
    if len(filled) < 2:
        problems.append(Problem(file, line, "give at least 2 choices"))
    return problems, [i for i in picked if cells[i]]


def _layout(columns: list[str]) -> str | None:
    """Which note kind the header describes: of those whose columns it names, the one
    that leaves the fewest columns unread; None when it names the columns of none."""
    named = {name for name in columns if name}
    found: list[tuple[int, str]] = []
    for kind, (required, _) in _LAYOUTS.items():
        if not required <= named:
            continue
        if kind == "mcq" and not any(_LETTER.match(name) for name in named):
            continue
        found.append((len(_unread(kind, columns)), kind))
    return min(found)[1] if found else None


def _unread(kind: str, columns: list[str]) -> list[int]:
    """The columns (by index) that the notes of ``kind`` do not read."""
    required, optional = _LAYOUTS[kind]
    return [
        i
        for i, name in enumerate(columns)
        if name and name not in required | optional and not (kind == "mcq" and _LETTER.match(name))
    ]
