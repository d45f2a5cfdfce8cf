"""Questions and notes written elsewhere -> the model's notes -> card files.

:func:`read_source` reads a source file into a :class:`~deckbuilder.importers.base.SourceNotes`
(the model's notes, each with its source line, grouped by deck, and what could not be
read and why): the numbered quiz format, Moodle's Aiken and GIFT, spreadsheets, Anki's
text files and Anki packages. :func:`~deckbuilder.importers.plan.plan_import` checks the
notes in memory and prepares the files; :func:`~deckbuilder.importers.plan.write_import`
writes them. Nothing here prints.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from deckbuilder.anki.package_reader import SQLITE_MAGIC, is_anki_collection, read_package
from deckbuilder.errors import DeckError, RequestError
from deckbuilder.files.reading import open_regular
from deckbuilder.importers.aiken import looks_like_aiken, parse_aiken
from deckbuilder.importers.anki_package import package_notes
from deckbuilder.importers.anki_text import KNOWN_HEADERS, read_anki_text
from deckbuilder.importers.base import SourceNotes
from deckbuilder.importers.delimited import guess_delimiter, read_metadata
from deckbuilder.importers.gift import looks_like_gift, parse_gift
from deckbuilder.importers.plan import ImportOptions, ImportPlan, plan_import, write_import
from deckbuilder.importers.quiz import looks_like_quiz, parse_quiz
from deckbuilder.importers.spreadsheet import WORKBOOK_SUFFIXES, read_spreadsheet
from deckbuilder.importers.text_input import read_source_text
from deckbuilder.note_types import NoteType

__all__ = [
    "FORMATS",
    "ImportOptions",
    "ImportPlan",
    "SourceNotes",
    "detect_format",
    "plan_import",
    "read_source",
    "read_text_source",
    "write_import",
]

PARSERS: dict[str, Callable[[str, Path], SourceNotes]] = {
    "quiz": parse_quiz,
    "aiken": parse_aiken,
    "gift": parse_gift,
    "anki-text": read_anki_text,
}
FORMATS = ("auto", *PARSERS)
SUFFIXES = {".gift": "gift", ".aiken": "aiken"}
PACKAGE_SUFFIXES = (".apkg", ".colpkg")
SPREADSHEET_SUFFIXES = (".csv", ".tsv")
COLLECTION_SUFFIXES = (".anki2", ".anki21", ".anki21b")
_EXPORT = (
    "in Anki, export the deck with File > Export > 'Anki Deck Package (.apkg)' and "
    "'Include scheduling information' (or the whole collection as .colpkg), then import "
    "that file"
)
_NOTE_TYPE_FOR = "a note type applies to Anki's text files and spreadsheets"
# Header-less text is read as Anki's when it is delimited by one of these (the separators
# Anki guesses, but a space) and at least this share of its lines has the delimiter.
_TEXT_DELIMITERS = "\t|;:,"
_DELIMITED_SHARE = 0.5
# Moodle's XML export: an XML declaration and comments, then the <quiz> element.
_MOODLE_XML = re.compile(r"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<quiz[\s>]", re.DOTALL)


def detect_format(text: str, file: str, suffix: str = "") -> str:
    """Which format ``text`` is in: the file suffix first (.gift, .aiken), then Anki's
    headers, then its shape; header-less text with tabs (or pipes, semicolons) in most
    lines is Anki's, as Anki itself would read it."""
    if suffix.lower() in SUFFIXES:
        return SUFFIXES[suffix.lower()]
    if _MOODLE_XML.match(text):
        raise DeckError.single(
            file,
            "a Moodle XML question bank, which deckbuilder does not read: in Moodle, export "
            "the questions in GIFT format (Question bank > Export > GIFT format), then "
            "import that file",
        )
    lines = text.split("\n")
    first = lines[0] if lines else ""
    if first.startswith("tags:") or (
        first.startswith("#") and first[1:].partition(":")[0].strip().lower() in KNOWN_HEADERS
    ):
        return "anki-text"
    if looks_like_gift(lines):
        return "gift"
    if looks_like_quiz(lines):
        return "quiz"
    if looks_like_aiken(lines):
        return "aiken"
    if _looks_delimited(lines):
        return "anki-text"
    raise DeckError.single(
        file,
        "cannot tell the format: no numbered questions (quiz), 'ANSWER:' lines (Aiken), "
        "answer blocks in braces (GIFT) or columns separated by tabs (Anki's text files); "
        "give --format quiz, aiken, gift or anki-text",
    )


def _looks_delimited(lines: list[str]) -> bool:
    body = [line for line in lines[read_metadata(lines).lines :] if line.strip()]
    body = [line for line in body if not line.startswith("#")]
    delimiter = guess_delimiter("\n".join(body))
    if not body or delimiter not in _TEXT_DELIMITERS:
        return False
    return sum(delimiter in line for line in body) >= _DELIMITED_SHARE * len(body)


def read_text_source(
    text: str, source: Path, fmt: str = "auto", note_type: NoteType | str | None = None
) -> SourceNotes:
    """Read ``text`` (decoded, line ends ``\\n``) in format ``fmt``; ``note_type``: see
    :func:`read_source`."""
    if fmt not in FORMATS:
        raise RequestError.single("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "auto":
        fmt = detect_format(text, str(source), source.suffix)
    if note_type is None:
        return PARSERS[fmt](text, source)
    if fmt != "anki-text":
        raise RequestError.single("note_type", _NOTE_TYPE_FOR + f", not to {fmt} questions")
    return read_anki_text(text, source, note_type)


def read_source(
    source: Path,
    fmt: str = "auto",
    note_type: NoteType | str | None = None,
    *,
    keep_scripts: Sequence[str] = (),
) -> SourceNotes:
    """Read the file at ``source``: an Anki package or a spreadsheet by its suffix (with
    ``fmt`` "auto"), else text in format ``fmt`` (or the one it looks like).
    ``note_type``: the note type the notes of Anki text or a spreadsheet that names none
    come in onto: a declared one, or the key of a new one named from the columns.
    ``keep_scripts``: the note types of a package whose templates and CSS are kept with
    what they run or fetch (see :func:`~deckbuilder.importers.anki_package.package_notes`)."""
    if fmt not in FORMATS:
        raise RequestError.single("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    suffix = source.suffix.lower()
    package = fmt == "auto" and suffix in PACKAGE_SUFFIXES
    if keep_scripts and not package:
        raise RequestError.single(
            "keep_scripts",
            f"only an Anki package ({', '.join(PACKAGE_SUFFIXES)}) brings note types; "
            f"{source.name} is not one",
        )
    if fmt == "auto":
        if package:
            if note_type is not None:
                raise RequestError.single(
                    "note_type", _NOTE_TYPE_FOR + ": a package brings its own note types"
                )
            return package_notes(read_package(source), source, keep_scripts)
        if suffix in SPREADSHEET_SUFFIXES:
            return read_spreadsheet(source, note_type)
        database = suffix not in COLLECTION_SUFFIXES and _starts_with(source, SQLITE_MAGIC)
        if suffix in COLLECTION_SUFFIXES or (database and is_anki_collection(source)):
            raise DeckError.single(source, f"this is an Anki collection, not an export: {_EXPORT}")
        if database:
            raise DeckError.single(
                source, "a database, but not an Anki collection; deckbuilder does not import it"
            )
        if suffix in WORKBOOK_SUFFIXES:
            raise DeckError.single(
                source,
                "a workbook is not read as it is: save the sheet as CSV UTF-8 (in Excel: File "
                "> Save As > 'CSV UTF-8 (Comma delimited)'), then import the .csv file",
            )
    text, warnings = read_source_text(source)
    read = read_text_source(text, source, fmt, note_type)
    read.warnings[:0] = warnings
    return read


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open_regular(path) as stream:
            return stream.read(len(magic)) == magic
    except (OSError, DeckError):
        return False  # told by the reader that tries it next
