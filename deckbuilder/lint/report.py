"""What lint found, and how it reads: one line per warning, or JSON.

A warning reads ``FILE:LINE: note 'id': warning [code]: what is wrong; how to fix it``,
the shape of the loader's errors, so editors jump to the line alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LintWarning", "collect", "warnings_json"]


@dataclass(frozen=True)
class LintWarning:
    """One flaw in one note. ``languages`` are the languages of a bilingual file in which
    the flaw shows (the message quotes the first); () for a file without languages."""

    file: str
    line: int
    note: str
    code: str
    problem: str  # what is wrong
    fix: str  # how to fix it
    languages: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        where = f" (in {', '.join(self.languages)})" if self.languages else ""
        return f"warning [{self.code}]: {self.problem}{where}; {self.fix}"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: note '{self.note}': {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "note": self.note,
            "code": self.code,
            "message": f"{self.problem}; {self.fix}",
            "languages": list(self.languages),
        }


def collect(
    found: Iterable[tuple[LintWarning, str]], file_order: Sequence[str]
) -> list[LintWarning]:
    """The warnings found in every language of every deck, each flaw once: the languages
    of one file share its lines, so the same code on the same note and line is one
    warning listing the languages it shows in. Sorted by file (in reading order), line,
    code."""
    merged: dict[tuple[str, int, str, str], LintWarning] = {}
    for warning, lang in found:
        key = (warning.file, warning.line, warning.note, warning.code)
        first = merged.get(key)
        if first is None:
            merged[key] = LintWarning(
                warning.file,
                warning.line,
                warning.note,
                warning.code,
                warning.problem,
                warning.fix,
                (lang,) if lang else (),
            )
        elif lang and lang not in first.languages:
            merged[key] = LintWarning(
                first.file,
                first.line,
                first.note,
                first.code,
                first.problem,
                first.fix,
                (*first.languages, lang),
            )
    rank = {file: i for i, file in reversed(list(enumerate(file_order)))}
    return sorted(
        merged.values(), key=lambda w: (rank.get(w.file, len(rank)), w.file, w.line, w.code)
    )


def warnings_json(warnings: Sequence[LintWarning], *, strict: bool = False) -> dict[str, Any]:
    """``deckbuilder lint --json``: ``ok`` is false when ``--strict`` fails on warnings."""
    ok = not (strict and warnings)
    return {"ok": ok, "warnings": [w.as_dict() for w in warnings], "count": len(warnings)}
