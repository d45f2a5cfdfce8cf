"""The retention sweep and the exam plan as text, for the preview report."""

from __future__ import annotations

from datetime import timedelta

from deckbuilder.schedule.exam import ExamPlan
from deckbuilder.schedule.settings import ANKI_PER_DAY_MAX
from deckbuilder.schedule.sweep import OPTIMAL_RANGE, Sweep, SweepPoint
from deckbuilder.schedule.workload import DECIMALS, shown

__all__ = ["exam_lines", "impossible_reason", "recommendation", "sweep_lines"]

REVIEWS_COUNTED = (
    "reviews include each new card's first showing, as Anki's workload graph counts them"
)


def _figure(value: float) -> str:
    return f"{shown(value):.{DECIMALS}f}"


def recommendation(sw: Sweep) -> str:
    """The one-line recommendation: the optimal retention and what it means."""
    line = f"{sw.optimal_retention:.2f}: the least study time per card remembered"
    if sw.at_range_edge:
        line += (
            f" (the lowest retention searched, as in Anki, {OPTIMAL_RANGE[0]:.2f}; a lower "
            "one may cost even less)"
        )
    return line


def sweep_lines(sw: Sweep, cards: int, days: int) -> list[str]:
    """The sweep as a compact table, the current and optimal retention marked."""
    lines = [
        f"Retention sweep: {cards} cards over {days} days ({REVIEWS_COUNTED})",
        f"  {'retention':>9}  {'reviews':>9}  {'minutes':>9}  {'memorized':>9}",
    ]
    nearest = _nearest(sw)
    for p in sw.points:
        marks = []
        if p is nearest:
            exact = abs(p.retention - sw.current) < 1e-9
            marks.append("current" if exact else f"nearest to the current {sw.current:g}")
        if abs(p.retention - sw.optimal_retention) < 1e-9:
            marks.append("optimal")
        note = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(
            f"  {p.retention:>9.2f}  {_figure(p.reviews):>9}  {_figure(p.minutes):>9}  "
            f"{_figure(p.memorized):>9}{note}"
        )
    lines.append(f"  Optimal retention {recommendation(sw)}")
    return lines


def _nearest(sw: Sweep) -> SweepPoint | None:
    """The row of the current retention, or the nearest row to one between two steps;
    None for a what-if retention outside the sweep."""
    step = 0.01
    first, last = sw.points[0].retention, sw.points[-1].retention
    if not first - step / 2 <= sw.current <= last + step / 2:
        return None
    return min(sw.points, key=lambda p: abs(p.retention - sw.current))


def exam_lines(plan: ExamPlan) -> list[str]:
    """The exam plan: new cards a day needed, and the forecast to exam day; when no
    number is enough, why, and what would make it possible."""
    cards = plan.forecast.cards
    last_intro = plan.days - plan.lead
    heading = f"Exam on {plan.exam.isoformat()}: day {plan.days} counting {plan.start.isoformat()} as day 1"
    if plan.new_per_day_needed is None:
        lines = [heading, f"  Impossible: {impossible_reason(plan)}"]
        forecast_with = f"{plan.new_per_day} new/day instead"
    else:
        lines = [
            f"{heading}; every card introduced by day {last_intro} ({_days(plan.lead)} before)",
            f"  new cards a day needed    {plan.new_per_day_needed}",
        ]
        forecast_with = f"{plan.new_per_day} new/day" + ("" if plan.in_time else " (not in time)")
    intro = (
        f"all introduced by day {plan.introduced_by}"
        if plan.introduced_by is not None
        else f"not all introduced by day {plan.days}"
    )
    lines += [
        f"  forecast with             {forecast_with}: {intro}",
        f"  memorized on exam day     {_figure(plan.memorized_on_exam)} of {cards} cards",
        "  reviews a day, last week  " + " ".join(_figure(x) for x in plan.reviews_last_week),
    ]
    return lines


def impossible_reason(plan: ExamPlan) -> str:
    """Why no number of new cards a day introduces every card ``lead`` days before the
    exam, and what would make it possible, in one sentence."""
    cards, last_intro = plan.forecast.cards, plan.days - plan.lead
    wanted = f"every card {_days(plan.lead)} before the exam"
    if last_intro < 1:
        earliest = plan.start + timedelta(days=plan.lead)
        return (
            f"{wanted} means before the first study day, {plan.start.isoformat()}; "
            f"a lead of at most {plan.days - 1} days (--lead), or an exam on "
            f"{earliest.isoformat()} or later, makes it possible"
        )
    if -(-cards // last_intro) > ANKI_PER_DAY_MAX:
        return (
            f"{wanted} needs over {ANKI_PER_DAY_MAX} new cards a day, Anki's limit; a later "
            "exam or a shorter lead (--lead) makes it possible"
        )
    return (
        f"the review limit leaves too few new cards a day to introduce {wanted}; a higher "
        "review limit (--review-limit) makes it possible, and a later exam or a shorter "
        "lead (--lead) may"
    )


def _days(count: int) -> str:
    return "1 day" if count == 1 else f"{count} days"
