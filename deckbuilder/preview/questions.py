"""The preview command's questions (``--sweep``, ``--exam``, ``--history``) checked and
turned into what the preview computes; every wrong value is a one-line UsageError."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from deckbuilder.errors import Problem, UsageError

if TYPE_CHECKING:
    from deckbuilder.anki.history import FittedParameters
    from deckbuilder.preview.report import Questions

__all__ = ["MAX_EXAM_DAYS", "history_parameters", "questions_from_options"]

MAX_EXAM_DAYS = 3650  # as --days: Anki's simulator offers up to ten years


def _date(option: str, value: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(f"{option}: {value!r} is not a date like 2025-06-30") from None


def questions_from_options(
    sweep: bool,
    exam: str | None,
    start: str | None,
    lead: int,
    new_per_day: int | None,
    today: date | None = None,
) -> Questions:
    """The questions the options ask. ``--start`` and ``--lead`` need ``--exam``; the exam
    must come after the start, within MAX_EXAM_DAYS days."""
    from deckbuilder.preview.report import Questions

    if exam is None:
        given = [name for name, value in (("--start", start), ("--lead", lead != 7)) if value]
        if given:
            raise UsageError(f"{' and '.join(given)}: only with --exam YYYY-MM-DD")
        return Questions(sweep=sweep)
    exam_day = _date("--exam", exam)
    first = _date("--start", start) if start is not None else (today or date.today())
    problems = []
    days = (exam_day - first).days + 1
    if days < 1:
        problems.append(
            f"--exam: {exam_day.isoformat()} is before the first study day {first.isoformat()}"
        )
    elif days > MAX_EXAM_DAYS:
        problems.append(f"--exam: {days} days away; at most {MAX_EXAM_DAYS} are forecast")
    if not 0 <= lead <= MAX_EXAM_DAYS:
        problems.append(f"--lead: must be between 0 and {MAX_EXAM_DAYS} days, not {lead}")
    if problems:
        raise UsageError("; ".join(problems))
    return Questions(
        sweep=sweep, exam=exam_day, start=first, lead=lead, exam_new_per_day=new_per_day
    )


def history_parameters(path: Path) -> tuple[FittedParameters, Problem | None]:
    """The parameters fitted from the review history at ``path``, and a warning when it
    holds too few reviews to fit (the defaults are used then)."""
    from deckbuilder.anki.history import HistoryError, fit_history, too_few_reviews

    try:
        fitted = fit_history(path)
    except HistoryError as exc:
        raise UsageError(f"--history: {exc}") from None
    if fitted.fitted:
        return fitted, None
    return fitted, Problem(str(path), None, too_few_reviews(fitted, path))
