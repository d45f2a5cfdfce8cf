"""A source file's text, whatever encoding it was saved in: :func:`read_source_text`.

The encoding is read from a byte order mark (UTF-8, UTF-16 as Windows Notepad and Excel's
"Unicode text" write it), else UTF-8, else CP949 where that reads as Korean (what Korean
Excel and Notepad write on Windows), else Windows-1252 (what Excel writes elsewhere on
Windows), with a warning for the last two. Line ends become ``\\n``.
"""

from __future__ import annotations

import re
from pathlib import Path

from deckbuilder.cardfile.yaml_tree import MAX_FILE_BYTES
from deckbuilder.errors import DeckError, Problem
from deckbuilder.files.reading import read_regular

_HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def decode(data: bytes, path: Path) -> tuple[str, list[Problem]]:
    """``data`` as text, and a warning when it was read in a guessed legacy encoding."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise DeckError.single(path, f"not valid {codec.upper()}: {exc.reason}") from None
            return _lines(text.removeprefix("\ufeff")), []
    if b"\x00" in data:
        raise DeckError.single(path, "this is a binary file, not text")
    try:
        return _lines(data.decode("utf-8")), []
    except UnicodeDecodeError:
        pass
    try:
        korean = data.decode("cp949")
    except UnicodeDecodeError:
        korean = ""
    # Western text is seldom valid CP949, and then reads as Chinese characters, not Hangul.
    if _HANGUL_SYLLABLE.search(korean):
        warning = "not UTF-8; read as CP949 (Korean Windows'); check the Korean text"
        return _lines(korean), [Problem.warning(str(path), None, warning)]
    warning = "not UTF-8; read as Windows-1252 (Excel's)"
    told = Problem.warning(str(path), None, warning)
    return _lines(data.decode("cp1252", errors="replace")), [told]


def read_source_text(path: Path) -> tuple[str, list[Problem]]:
    """The text of ``path`` with its line ends made ``\\n``, and any encoding warning;
    DeckError when it cannot be read, is no regular file or is over the size limit."""
    return decode(read_regular(path, MAX_FILE_BYTES), path)


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
