"""The retention sweep and the exam plan in words and figures, for the text report and
the page alike."""

from __future__ import annotations

import textwrap
from datetime import timedelta

from deckbuilder.deck_options import ANKI_PER_DAY_MAX
from deckbuilder.errors import plural
from deckbuilder.schedule.exam import ExamPlan
from deckbuilder.schedule.sweep import OPTIMAL_RANGE, Sweep, SweepPoint
from deckbuilder.schedule.workload import DECIMALS, Forecast, Summary, shown, simulated_cards

REVIEWS_COUNTED = (
    "reviews include each new card's first showing, as Anki's workload graph counts them"
)


def figure(value: float) -> str:
    """A figure of the forecast as every output shows it (one decimal)."""
    return f"{shown(value):.{DECIMALS}f}"


def recommendation(sw: Sweep, days: int) -> list[str]:
    """The recommendation, a sentence each: the optimal retention; that it is an end of
    the retentions searched, when it is (one beyond might cost even less); and what it
    costs against the current retention: cards memorized and study minutes."""
    optimal = sw.optimal_retention
    if optimal is None:
        return [
            f"No optimal retention: no card is remembered on day {days} at any retention "
            "(no card is studied with these new cards and review limit a day)."
        ]
    lines = [f"Optimal retention {optimal:.2f}: the least study time per card remembered."]
    if sw.edge:
        low, high = OPTIMAL_RANGE
        beyond = "lower" if sw.edge == "lowest" else "higher"
        lines.append(
            f"{optimal:.2f} is the {sw.edge} retention searched ({low:.2f} to {high:.2f}, the "
            f"range Anki's optimizer searches), so a {beyond} one may cost even less per card "
            "remembered."
        )
    best, current = sw.point_at(optimal), sw.point_at(sw.current)
    if best is not None and current is not None and best is not current:
        lines.append(
            f"At {optimal:.2f}, {figure(best.memorized)} cards are memorized on day {days} "
            f"instead of {figure(current.memorized)} at the current {sw.current:.2f}, for "
            f"{figure(best.minutes)} study minutes instead of {figure(current.minutes)}."
        )
    return lines


SWEEP_COLUMNS: tuple[str, ...] = ("retention", "reviews", "minutes", "memorized")


def sweep_table_rows(sw: Sweep) -> tuple[tuple[str, ...], list[tuple[tuple[str, ...], str]]]:
    """The sweep as a table: its column names, and each row's figures with its marks
    (the current retention, or the row nearest to it; the optimal one)."""
    nearest = _nearest(sw)
    rows: list[tuple[tuple[str, ...], str]] = []
    for p in sw.points:
        marks = []
        if p is nearest:
            exact = abs(p.retention - sw.current) < 1e-9
            marks.append("current" if exact else f"nearest to the current {sw.current:g}")
        if sw.optimal_retention is not None and abs(p.retention - sw.optimal_retention) < 1e-9:
            marks.append("optimal")
        figures = (
            f"{p.retention:.2f}",
            figure(p.reviews),
            figure(p.minutes),
            figure(p.memorized),
        )
        rows.append((figures, ", ".join(marks)))
    return SWEEP_COLUMNS, rows


def sweep_lines(sw: Sweep, cards: int, days: int) -> list[str]:
    """The sweep as a compact table, the current and optimal retention marked."""
    head, rows = sweep_table_rows(sw)
    lines = [
        f"Retention sweep: {plural(cards, 'card')} over {plural(days, 'day')} ({REVIEWS_COUNTED})",
        "  " + "  ".join(f"{name:>9}" for name in head),
    ]
    for figures, mark in rows:
        note = f"  <- {mark}" if mark else ""
        lines.append("  " + "  ".join(f"{figure:>9}" for figure in figures) + note)
    for sentence in recommendation(sw, days):
        lines += textwrap.wrap(sentence, 88, initial_indent="  ", subsequent_indent="  ")
    return lines


def sweep_agreement(sw: Sweep, summary: Summary, fc: Forecast, new_per_day: int) -> list[str]:
    """Why the sweep's row of the retention previewed and the forecast at it (``fc``, each
    day as simulated, and ``summary``: the preview's own, ``new_per_day`` new cards a day)
    differ, with both sets of figures: the sweep counts each new card's first showing, as
    Anki's workload graph does; the forecast's totals add up its days as shown, each
    rounded; and each of the sweep's retentions is a simulation of its own. Each
    difference is put down to the rounding when the unrounded forecast has the sweep's
    figure (a small deck's forecast is the sweep's own simulation), else to chance; a
    figure that does not differ as shown is not named."""
    point = sw.point_at(sw.current)
    if point is None:
        return [
            "Reviews in the sweep include each new card's first showing; the forecast's do not."
        ]
    whole = summary.whole
    first_showings = shown(sum(fc.as_shown().new))
    counted = whole.total_reviews + first_showings
    line = (
        f"At the retention previewed, {point.retention:.2f}, the sweep counts "
        f"{figure(point.reviews)} reviews: the forecast over {plural(fc.days, 'day')} at "
        f"{new_per_day} new cards a day has {figure(whole.total_reviews)}, and each new "
        f"card's first showing ({figure(first_showings)}) makes {figure(counted)}, as "
        "Anki's workload graph counts them."
    )
    rounding: list[str] = []
    chance: list[str] = []
    for what, swept, forecast, unrounded in (
        ("reviews", point.reviews, counted, sum(fc.reviews) + sum(fc.new)),
        ("minutes", point.minutes, whole.total_minutes, sum(fc.minutes)),
        ("cards memorized", point.memorized, summary.memorized_end, summary.memorized_end),
    ):
        if figure(swept) != figure(forecast):
            cause = rounding if figure(swept) == figure(unrounded) else chance
            cause.append(f"{what} ({figure(swept)} against {figure(forecast)})")
    if rounding:
        line += (
            f" The difference in {_listed(rounding)} is rounding: the forecast adds up its "
            f"days as shown, each rounded to {plural(DECIMALS, 'decimal')}, so a day with "
            f"less than {0.5 / 10**DECIMALS:g} counts as none."
        )
    if chance:
        line += (
            f" The difference in {_listed(chance)} is chance: each retention of the sweep "
            f"simulates {sw.simulated_cards:,} cards, the forecast {simulated_cards(fc.cards):,}."
        )
    return [line]


def _listed(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _nearest(sw: Sweep) -> SweepPoint | None:
    """The row of the current retention, or the nearest row to one between two steps;
    None for a what-if retention outside the sweep."""
    step = 0.01
    first, last = sw.points[0].retention, sw.points[-1].retention
    if not first - step / 2 <= sw.current <= last + step / 2:
        return None
    return min(sw.points, key=lambda p: abs(p.retention - sw.current))


def exam_rows(plan: ExamPlan) -> tuple[str, list[tuple[str, str]]]:
    """The exam plan: a heading, and (label, value) rows: the new cards a day needed (or
    why no number is enough, and what would make it possible), the forecast to exam day
    with them, what is remembered on exam day and the reviews of the last week."""
    cards = plan.forecast.cards
    last_intro = plan.days - plan.lead
    heading = (
        f"Exam on {plan.exam.isoformat()}: day {plan.days} counting "
        f"{plan.start.isoformat()} as day 1"
    )
    rows: list[tuple[str, str]]
    if plan.new_per_day_needed is None:
        rows = [("Impossible", impossible_reason(plan))]
        forecast_with = f"{plan.new_per_day} new/day instead"
    else:
        heading += (
            f"; every card introduced by day {last_intro} ({plural(plan.lead, 'day')} before)"
        )
        rows = [("new cards a day needed", str(plan.new_per_day_needed))]
        forecast_with = f"{plan.new_per_day} new/day" + ("" if plan.in_time else " (not in time)")
    intro = (
        f"all introduced by day {plan.introduced_by}"
        if plan.introduced_by is not None
        else f"not all introduced by day {plan.days}"
    )
    rows += [
        ("forecast with", f"{forecast_with}: {intro}"),
        ("memorized on exam day", f"{figure(plan.memorized_on_exam)} of {plural(cards, 'card')}"),
        ("reviews a day, last week", " ".join(figure(x) for x in plan.reviews_last_week)),
    ]
    return heading, rows


def exam_lines(plan: ExamPlan) -> list[str]:
    """The exam plan as text (see :func:`exam_rows`)."""
    heading, rows = exam_rows(plan)
    return [heading] + [
        f"  Impossible: {value}" if label == "Impossible" else f"  {label:<25} {value}"
        for label, value in rows
    ]


def impossible_reason(plan: ExamPlan) -> str:
    """Why no number of new cards a day introduces every card ``lead`` days before the
    exam, and what would make it possible, in one sentence."""
    cards, last_intro = plan.forecast.cards, plan.days - plan.lead
    wanted = f"every card {plural(plan.lead, 'day')} before the exam"
    if last_intro < 1:
        earliest = plan.start + timedelta(days=plan.lead)
        return (
            f"{wanted} means before the first study day, {plan.start.isoformat()}; "
            f"a lead of at most {plural(plan.days - 1, 'day')} (--lead), or an exam on "
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
