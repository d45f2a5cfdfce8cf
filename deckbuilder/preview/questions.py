"""The preview's questions (a retention sweep, an exam plan) checked and turned into what
the preview computes; every wrong value is a RequestError naming its field."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from deckbuilder.errors import RequestError

MAX_EXAM_DAYS = 3650  # as the forecast's days: Anki's simulator offers up to ten years


@dataclass(frozen=True)
class Questions:
    """What else the preview answers: the retention sweep, and an exam plan (exam date,
    start date, lead days, and the new cards a day to forecast it with: None, the
    fewest that are enough)."""

    sweep: bool = False
    exam: date | None = None
    start: date | None = None
    lead: int = 7
    exam_new_per_day: int | None = None


def questions_for(
    sweep: bool,
    exam: date | None,
    start: date,
    lead: int,
    new_per_day: int | None,
) -> Questions:
    """The questions asked: a sweep, and an exam on ``exam`` studied from ``start``
    (None: no exam plan). The exam must come after the start, within MAX_EXAM_DAYS
    days, and every card be introduced ``lead`` days before it."""
    if exam is None:
        return Questions(sweep=sweep)
    problems = []
    days = (exam - start).days + 1
    if days < 1:
        problems.append(
            RequestError.about(
                "exam", f"{exam.isoformat()} is before the first study day {start.isoformat()}"
            )
        )
    elif days > MAX_EXAM_DAYS:
        problems.append(
            RequestError.about("exam", f"{days} days away; at most {MAX_EXAM_DAYS} are forecast")
        )
    if not 0 <= lead <= MAX_EXAM_DAYS:
        problems.append(
            RequestError.about("lead", f"must be between 0 and {MAX_EXAM_DAYS} days, not {lead}")
        )
    if problems:
        raise RequestError(problems)
    return Questions(sweep=sweep, exam=exam, start=start, lead=lead, exam_new_per_day=new_per_day)
