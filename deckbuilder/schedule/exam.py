"""Planning for an exam: the fewest new cards a day that introduce the whole deck early
enough, and what that plan leaves remembered on exam day.

Days count from the start day (day 1) to the exam day (day ``days``), both included: the
forecast ends on the exam day, and "memorized on exam day" is its last day. Every card is
introduced at least ``lead`` days before the exam, so on day ``days - lead`` at the latest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from deckbuilder.deck_options import ANKI_PER_DAY_MAX
from deckbuilder.schedule.settings import PreviewSettings
from deckbuilder.schedule.workload import Forecast, Summary, forecast, introduced, shown, summarize

DEFAULT_LEAD = 7  # days
LAST_WEEK = 7  # days before the exam whose reviews are shown


def exam_days(start: date, exam: date) -> int:
    """Study days from ``start`` to ``exam``, both included (0 when the exam is earlier)."""
    return max(0, (exam - start).days + 1)


def new_per_day_needed(
    cards: int, settings: PreviewSettings, days: int, lead: int, seed: int = 42
) -> int | None:
    """The fewest new cards a day that introduce all ``cards`` by day ``days - lead``, as
    the forecast studies them (the review limit may hold new cards back); None when no
    number of new cards a day does (too few days, or the review limit)."""
    last_day = days - lead
    if cards == 0:
        return 0
    if last_day < 1:
        return None

    def in_time(per_day: int) -> bool:
        fc = forecast(cards, settings.with_new_per_day(per_day), last_day, seed)
        return introduced(fc) is not None

    low = -(-cards // last_day)  # no fewer can do it, even with no review limit
    high = min(cards, ANKI_PER_DAY_MAX)
    if low > high:
        return None
    if settings.study.review_limit is None or in_time(low):
        return low
    if not in_time(high):
        return None
    while high - low > 1:  # in_time(high) holds, in_time(low) does not
        middle = (low + high) // 2
        if in_time(middle):
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class ExamPlan:
    exam: date
    start: date
    days: int
    lead: int
    new_per_day_needed: int | None  # None: impossible with these settings
    new_per_day: int  # the plan forecast: the needed figure, or the one given
    forecast: Forecast  # day 1 = start, last day = exam day; each day as shown
    introduced_by: int | None
    summary: Summary  # of the forecast to exam day

    @property
    def memorized_on_exam(self) -> float:
        return self.forecast.memorized[-1] if self.forecast.days else 0.0

    @property
    def reviews_last_week(self) -> tuple[float, ...]:
        """Reviews on each of the last LAST_WEEK days, the exam day last."""
        return self.forecast.reviews[-LAST_WEEK:]

    @property
    def in_time(self) -> bool:
        """Whether the plan forecast introduces every card ``lead`` days before the exam."""
        cards = self.forecast.cards
        return cards == 0 or (
            self.introduced_by is not None and self.introduced_by <= self.days - self.lead
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "date": self.exam.isoformat(),
            "start": self.start.isoformat(),
            "days": self.days,
            "lead": self.lead,
            "new_per_day_needed": self.new_per_day_needed,
            "new_per_day": self.new_per_day,
            "memorized_on_exam": shown(self.memorized_on_exam),
            "reviews_last_week": [shown(x) for x in self.reviews_last_week],
            "all_introduced_day": self.introduced_by,
            "in_time": self.in_time,
            "forecast": self.forecast.as_dict(),
            "summary": self.summary.as_dict(),
        }


def plan_exam(
    cards: int,
    settings: PreviewSettings,
    start: date,
    exam: date,
    lead: int = DEFAULT_LEAD,
    new_per_day: int | None = None,
    seed: int = 42,
) -> ExamPlan:
    """The exam plan: new cards a day needed, and the forecast to exam day with that many
    (or with ``new_per_day`` when given; also with the settings' own when it is
    impossible, so the forecast still shows where the deck stands on exam day)."""
    if lead < 0:
        raise ValueError("lead must be 0 or more")
    days = exam_days(start, exam)
    needed = new_per_day_needed(cards, settings, days, lead, seed)
    chosen = new_per_day if new_per_day is not None else needed
    if chosen is None:
        chosen = settings.study.new_per_day
    fc = forecast(cards, settings.with_new_per_day(chosen), days, seed)
    return ExamPlan(
        exam=exam,
        start=start,
        days=days,
        lead=lead,
        new_per_day_needed=needed,
        new_per_day=chosen,
        forecast=fc.as_shown(),
        introduced_by=introduced(fc),
        summary=summarize(fc),
    )
