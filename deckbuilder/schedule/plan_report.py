"""The retention sweep and the exam plan as text, for the preview report."""

from __future__ import annotations

from .exam import ExamPlan
from .forecast import DECIMALS, shown
from .sweep import OPTIMAL_RANGE, Sweep

__all__ = ["exam_lines", "recommendation", "sweep_lines"]

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
    for p in sw.points:
        marks = []
        if abs(p.retention - sw.current) < 1e-9:
            marks.append("current")
        if abs(p.retention - sw.optimal_retention) < 1e-9:
            marks.append("optimal")
        note = f"  <- {', '.join(marks)}" if marks else ""
        lines.append(
            f"  {p.retention:>9.2f}  {_figure(p.reviews):>9}  {_figure(p.minutes):>9}  "
            f"{_figure(p.memorized):>9}{note}"
        )
    lines.append(f"  Optimal retention {recommendation(sw)}")
    return lines


def exam_lines(plan: ExamPlan) -> list[str]:
    """The exam plan: new cards a day needed, and the forecast to exam day."""
    cards = plan.forecast.cards
    last_intro = plan.days - plan.lead
    lines = [
        f"Exam on {plan.exam.isoformat()}: day {plan.days} counting {plan.start.isoformat()} "
        f"as day 1; every card introduced by day {max(last_intro, 0)} ({plan.lead} days before)",
    ]
    if plan.new_per_day_needed is None:
        reason = (
            "too few days before the exam"
            if last_intro < 1
            else "the review limit holds new cards back"
        )
        lines.append(
            f"  Impossible: no number of new cards a day introduces all {cards} cards in "
            f"time ({reason})"
        )
    else:
        lines.append(f"  new cards a day needed    {plan.new_per_day_needed}")
    intro = (
        f"all introduced by day {plan.introduced_by}"
        if plan.introduced_by is not None
        else f"not all introduced by day {plan.days}"
    )
    lines += [
        f"  forecast with             {plan.new_per_day} new/day: {intro}",
        f"  memorized on exam day     {_figure(plan.memorized_on_exam)} of {cards} cards",
        "  reviews a day, last week  " + " ".join(_figure(x) for x in plan.reviews_last_week),
    ]
    return lines
