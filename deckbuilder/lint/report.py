"""What lint found, and how it reads: one line per warning, or JSON.

A warning reads ``FILE:LINE: note 'id': warning [code]: what is wrong; how to fix it``,
the shape of the loader's errors, so editors jump to the line alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deckbuilder.errors import Problem, Severity


@dataclass(frozen=True, order=True)
class LintWarning(Problem):
    """One flaw in one note: a problem of severity warning whose ``code`` is the rule's.
    Its message says what is wrong (``problem``), in which languages of a bilingual file
    it shows (``languages``, the message quoting the first; () for a file without
    languages), and how to fix it (``fix``). Made by :meth:`found`."""

    note: str = ""  # every flaw is of a note
    severity: Severity = Severity.WARNING
    code: str = ""
    problem: str = ""
    fix: str = ""
    languages: tuple[str, ...] = ()

    @classmethod
    def found(
        cls,
        file: str,
        line: int,
        note: str,
        code: str,
        problem: str,
        fix: str,
        languages: tuple[str, ...] = (),
    ) -> LintWarning:
        where = f" (in {', '.join(languages)})" if languages else ""
        return cls(
            file,
            line,
            f"{problem}{where}; {fix}",
            note,
            code=code,
            problem=problem,
            fix=fix,
            languages=languages,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "note": self.note,
            "code": self.code,
            "message": f"{self.problem}; {self.fix}",
            "languages": list(self.languages),
            "severity": self.severity.value,
        }


def collect(
    found: Iterable[tuple[LintWarning, str]], file_order: Sequence[str]
) -> list[LintWarning]:
    """The warnings found in every language of every deck, each flaw once: the languages
    of one file share its lines, so the same code on the same note and line is one
    warning listing the languages it shows in. Sorted by file (in reading order), line,
    code."""
    merged: dict[tuple[str, int | None, str, str], LintWarning] = {}
    for warning, lang in found:
        key = (warning.file, warning.line, warning.note, warning.code)
        first = merged.get(key)
        if first is None:
            merged[key] = _with_languages(warning, (lang,) if lang else ())
        elif lang and lang not in first.languages:
            merged[key] = _with_languages(first, (*first.languages, lang))
    rank = {file: i for i, file in reversed(list(enumerate(file_order)))}
    return sorted(
        merged.values(),
        key=lambda w: (rank.get(w.file, len(rank)), w.file, w.line or 0, w.code),
    )


def _with_languages(warning: LintWarning, languages: tuple[str, ...]) -> LintWarning:
    return LintWarning.found(
        warning.file,
        warning.line or 0,
        warning.note,
        warning.code,
        warning.problem,
        warning.fix,
        languages,
    )
