"""Errors users can fix, each knowing where in which file it comes from.

Library code raises :class:`DeckError` carrying every :class:`Problem` found, never
prints; the CLI turns them into ``FILE:LINE: note 'ID': what is wrong`` lines. A
problem's :class:`Severity` is data, never words in its message: the CLI words it
(``warning: ...``) when it prints the problem.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

_SHOWN_NOTE_CHARS = 60


def shown(value: object, width: int | None = 60, *, quoted: bool = True) -> str:
    """``value`` for a message: every character that is not printable (escapes, line
    breaks, tabs, direction overrides such as U+202E, no-break spaces, lone surrogates)
    written as its escape (``\\n``, ``\\u202e``), so that a name can neither forge a line
    nor turn the text around it; cut to ``width`` characters (None: whole) and quoted
    ('...') unless ``quoted`` is false. Bytes are shown as the text they hold."""
    if isinstance(value, bytes):  # text as a database gives it
        value = value.decode("utf-8", "replace")
    text = (
        value if isinstance(value, str) else str(value) if isinstance(value, Path) else repr(value)
    )
    if width is not None and len(text) > width:
        text = text[: width - 3] + "..."
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return f"'{text}'" if quoted else text


def plural(count: int, one: str, many: str = "") -> str:
    """'1 entry', '2 entries', '1,500 cards': ``count`` and the word that fits it."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


class Severity(str, Enum):
    """How much a problem matters: an error stops the command, a warning is told and
    the command goes on, a note only informs. The value is the word output uses."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the input, located as precisely as we know. ``message`` says
    what is wrong, without its severity; ``code`` names the rule that found it (a lint
    code), or for a problem of a request's or a setting's value (``file`` '') its field."""

    file: str
    line: int | None
    message: str
    note: str | None = None
    severity: Severity = Severity.ERROR
    code: str | None = None

    @property
    def place(self) -> str:
        """Where, as a line about it starts: ``FILE:LINE: note 'ID':``."""
        # A file or note named with a line break would forge a line of its own.
        file = shown(self.file, None, quoted=False)
        where = file if self.line is None else f"{file}:{self.line}"
        note = self.note or ""
        if len(note) > _SHOWN_NOTE_CHARS:  # a pasted id of thousands of characters
            note = f"{note[:_SHOWN_NOTE_CHARS]}… ({len(note):,} characters)"
        note = shown(note, None, quoted=False)
        who = f" note '{note}':" if note else ""
        return f"{where}:{who}"

    def __str__(self) -> str:
        return f"{self.place} {self.message}"

    @classmethod
    def warning(
        cls,
        file: str,
        line: int | None,
        message: str,
        note: str | None = None,
        code: str | None = None,
    ) -> Problem:
        """A problem that is told, the command going on."""
        return cls(file, line, message, note, Severity.WARNING, code)


class DeckError(Exception):
    """Input the user has to fix; carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem], partial: Iterable[Any] = ()) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        # What could still be read despite the problems (the loader's decks, less the
        # notes it refused), so that later checks (media) report in the same pass.
        self.partial: tuple[Any, ...] = tuple(partial)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def single(cls, file: str | Path, message: str, line: int | None = None) -> DeckError:
        return cls([Problem(str(file), line, message)])


class RequestError(Exception):
    """Values of a request that cannot be used (exit status 1, one line): each names the
    request field at fault (``days``, ``params``...) and what is wrong with its value.
    Callers word the fields as they ask for them (the CLI: as its options)."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(f"{p.code}: {p.message}" for p in self.problems))

    @staticmethod
    def about(field: str, message: str) -> Problem:
        """The problem of a request's ``field``: its code is the field's name."""
        return Problem("", None, message, code=field)

    @classmethod
    def single(cls, field: str, message: str) -> RequestError:
        return cls([cls.about(field, message)])


class TargetExists(Exception):
    """A file would be replaced that the request did not allow to replace."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"{path} already exists")


class UsageError(Exception):
    """A command-line value the CLI itself refuses (exit status 1, one line)."""


class OutputError(Exception):
    """An output file could not be written (disk full, no permission); the old one is kept."""
