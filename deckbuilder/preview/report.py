"""The scheduler preview of a deck, and its text forms: report, one-line summary, JSON.

Library code: everything here returns strings or dicts; the CLI prints them. Where the
settings come from (options, the study block) is :mod:`deckbuilder.preview.settings`;
its functions are named here too, for the callers that preview a deck.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from deckbuilder.errors import Problem, plural
from deckbuilder.errors import shown as shown_text
from deckbuilder.model import Deck
from deckbuilder.preview.plan_report import (
    exam_lines,
    figure,
    sweep_agreement,
    sweep_lines,
)
from deckbuilder.preview.questions import Questions
from deckbuilder.preview.settings import (
    DEFAULT_DAYS,
    DEFAULT_SEED,
    DeckSettings,
    origin_text,
    parameters_text,
    settings_for,
)
from deckbuilder.schedule.exam import ExamPlan, plan_exam
from deckbuilder.schedule.intervals import Ladder, ladder
from deckbuilder.schedule.settings import PreviewSettings
from deckbuilder.schedule.sweep import Sweep, sweep
from deckbuilder.schedule.workload import (
    DECIMALS,
    Forecast,
    Load,
    Peak,
    Summary,
    forecast,
    peak,
    shown,
    summarize,
)


def build_summary(cards: int, settings: PreviewSettings) -> Summary:
    """The forecast summary ``build`` shows for a deck of ``cards`` cards."""
    days = forecast(cards, settings, DEFAULT_DAYS, seed=DEFAULT_SEED, memorized_every_day=False)
    return summarize(days)


@dataclass(frozen=True)
class DeckForecast:
    """What ``build`` tells of a deck's forecast, for the command line to word."""

    deck: str  # the deck's name
    summary: str  # the forecast in one line
    numbers: dict[str, Any] = field(compare=False)  # the summary's numbers, for JSON
    # Where the study block's FSRS parameters come from (None: it names none).
    parameters_from: str | None = None
    # The study block names a history that cannot be used: the defaults are.
    history_unused: bool = False


def build_previews(decks: Sequence[Deck]) -> tuple[dict[str, DeckForecast], list[Problem]]:
    """What ``build`` shows of each deck's preview, by deck key, and the warnings about
    the study blocks. A history the preview cannot use is a warning here, and the
    forecast uses the default parameters: the package does not depend on it."""
    out = {}
    warnings: list[Problem] = []
    # The languages of a deck have the same cards and settings: one forecast for all.
    summaries: dict[tuple[int, PreviewSettings], Summary] = {}
    for deck in decks:
        chosen = settings_for(deck, strict=False)
        warnings += [] if chosen.warning is None else [chosen.warning]
        key = (deck.card_count, chosen.settings)
        if key not in summaries:
            summaries[key] = build_summary(deck.card_count, chosen.settings)
        sm, chosen_from = summaries[key], chosen.parameters_from
        out[deck.key] = DeckForecast(
            deck.name,
            summary_line(sm),
            sm.as_dict(),
            None if chosen_from.study_block is None else parameters_text(chosen_from),
            chosen_from.study_block is not None and chosen.warning is not None,
        )
    return out, list(dict.fromkeys(warnings))


@dataclass(frozen=True)
class DeckPreview:
    deck: Deck
    chosen: DeckSettings  # the settings, and where they come from
    ladder: Ladder
    forecast: Forecast  # each day as shown
    summary: Summary
    simulated: Forecast  # each day as simulated, unrounded
    sweep: Sweep | None = None
    exam: ExamPlan | None = None

    @property
    def settings(self) -> PreviewSettings:
        return self.chosen.settings

    @property
    def origin(self) -> str:
        """Where the settings come from, for people."""
        return origin_text(self.chosen)

    def as_dict(self) -> dict[str, Any]:
        s = self.settings.study
        return {
            "deck": self.deck.name,
            "source": str(self.deck.source),
            "cards": self.deck.card_count,
            "settings": {
                "desired_retention": s.desired_retention,
                "new_per_day": s.new_per_day,
                "review_limit": s.review_limit,
                "days": self.forecast.days,
                "learning_steps_seconds": list(s.learning_steps),
                "relearning_steps_seconds": list(s.relearning_steps),
                "maximum_interval": s.maximum_interval,
                "parameters": list(self.settings.parameters),
            },
            "settings_from": self.origin,
            "ladder": self.ladder.as_dict(),
            "forecast": self.forecast.as_dict(),
            "summary": self.summary.as_dict(),
            **self._answers(),
        }

    def _answers(self) -> dict[str, Any]:
        out: dict[str, Any] = {"parameters_from": self.chosen.parameters_from.as_dict()}
        if self.sweep is not None:
            out["sweep"] = [p.as_dict() for p in self.sweep.points]
            out["optimal_retention"] = self.sweep.optimal_retention
        if self.exam is not None:
            out["exam"] = self.exam.as_dict()
        return out


def preview_deck(
    deck: Deck, chosen: DeckSettings, days: int, seed: int, questions: Questions | None = None
) -> DeckPreview:
    """Ladder, forecast and summary for one deck's cards (not notes: a cloze note with
    c1..c3 is three cards) with the settings chosen for it, and the sweep and exam plan
    ``questions`` asks for. The forecast is kept as every output shows it (each day
    rounded once, the figures the summary is computed from) and as simulated."""
    settings = chosen.settings
    fc = forecast(deck.card_count, settings, days, seed=seed)
    asked = questions or Questions()
    swept = exam = None
    if asked.sweep:
        swept = sweep(deck.card_count, settings, days, seed)
    if asked.exam is not None:
        start = asked.start or date.today()
        exam = plan_exam(
            deck.card_count, settings, start, asked.exam, asked.lead, asked.exam_new_per_day, seed
        )
    return DeckPreview(
        deck, chosen, ladder(settings, days), fc.as_shown(), summarize(fc), fc, swept, exam
    )


def to_json(previews: Sequence[DeckPreview]) -> dict[str, Any]:
    """One deck: its preview object. Several: ``{"decks": [...]}``, one object each."""
    if len(previews) == 1:
        return previews[0].as_dict()
    return {"decks": [p.as_dict() for p in previews]}


def _peak_text(top: Peak) -> str:
    return f"peak {figure(top.value)} on day {top.day}" if top.day else "no peak"


def _span(load: Load) -> str:
    if load.first_day == load.last_day:
        return f"day {load.first_day}"
    return f"days {load.first_day}-{load.last_day}"


# What the figures mean, in the words a teacher reads them in; the report and the page
# both show these.
MEMORIZED_MEANS = "cards expected to be recalled if asked that day"
ROUNDING_NOTE = "Days are rounded to one decimal; totals, peaks and averages come from those days."


def summary_rows(sm: Summary) -> list[tuple[str, str]]:
    """The summary as (label, value) rows, shared by the text report and the page."""
    whole, first = sm.whole, sm.first_weeks
    span, horizon = _span(first), plural(sm.days, "day")
    intro = (
        f"by day {sm.introduced_by}" if sm.introduced_by is not None else f"not within {horizon}"
    )
    return [
        (
            "reviews a day",
            f"{_peak_text(whole.peak_reviews)}; average {_average(first.average_reviews)} "
            f"in {span}, {_average(whole.average_reviews)} in all {horizon}",
        ),
        (
            "minutes a day",
            f"{_peak_text(whole.peak_minutes)}; average {_average(first.average_minutes)} "
            f"in {span}, {_average(whole.average_minutes)} in all {horizon}",
        ),
        (
            "total",
            f"{figure(whole.total_reviews)} reviews, {figure(whole.total_minutes)} minutes "
            f"in {horizon}",
        ),
        ("all cards introduced", intro),
        (
            "memorized at the end",
            f"{figure(sm.memorized_end)} of {plural(sm.cards, 'card')} on day {sm.days}",
        ),
    ]


def summary_notes() -> list[str]:
    """What the summary's words and roundings mean, one sentence each."""
    return [f"Memorized: {MEMORIZED_MEANS}.", ROUNDING_NOTE]


_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int = 60, top: float | None = None) -> str:
    """``values`` squeezed into ``width`` characters, each as tall as the highest day it
    covers (so the peak day is never averaged away), scaled to ``top`` (default: the
    highest day); an all-zero series is blank, and any non-zero mark shows at least ▁."""
    if not values:
        return ""
    n = len(values)
    width = max(1, min(width, n))
    marks = [max(values[i * n // width : (i + 1) * n // width]) for i in range(width)]
    top = max(marks) if top is None else top
    if top <= 0:
        return " " * width
    levels = len(_BARS) - 1
    return "".join(_BARS[max(1, round(m / top * levels))] if m > 0 else _BARS[0] for m in marks)


def _ladder_row(values: Sequence[int]) -> str:
    return " ".join(f"{v:>4}" for v in values)


def _settings_line(p: DeckPreview) -> str:
    s = p.settings.study
    limit = "no review limit" if s.review_limit is None else f"review limit {s.review_limit}/day"
    if p.exam is None:
        new_per_day, days = s.new_per_day, plural(p.forecast.days, "day")
    else:
        new_per_day, days = p.exam.new_per_day, f"{plural(p.exam.days, 'day')} to the exam"
    return f"retention {s.desired_retention:g}, {new_per_day} new/day, {limit}, {days}"


def _forecast_heading(p: DeckPreview, width: int) -> str:
    if p.exam is not None:
        plan = p.exam
        return (
            f"Forecast to the exam, day 1 ({plan.start.isoformat()}) to day {plan.days} "
            f"({plan.exam.isoformat()}), {plan.new_per_day} new/day "
            f"({_per_mark(plan.days, width)})"
        )
    return f"Forecast, day 1 to day {p.forecast.days} ({_per_mark(p.forecast.days, width)})"


def _per_mark(days: int, width: int) -> str:
    per = days / max(1, min(width, days))
    if per == 1:
        return "one mark a day"
    return f"one mark per {per:.3g} days, as tall as the highest of them"


def _average(value: float) -> str:
    """An average as shown; one that rounds to nothing but is not nothing (a small deck's
    few minutes spread over a year) reads "under 0.1", not "0.0", which says no study."""
    return f"under {figure(10.0**-DECIMALS)}" if value > 0 and not shown(value) else figure(value)


def summary_line(sm: Summary) -> str:
    """The summary in one line, as ``build`` prints it."""
    whole, first = sm.whole, sm.first_weeks
    parts = [plural(sm.cards, "card")]
    peaks = [
        f"{figure(top.value)} {unit} a day (day {top.day})"
        for top, unit in ((whole.peak_reviews, "reviews"), (whole.peak_minutes, "minutes"))
        if top.day
    ]
    if peaks:
        parts.append("peak " + ", ".join(peaks))
    parts.append(
        f"{_span(first)}: {_average(first.average_reviews)} reviews, "
        f"{_average(first.average_minutes)} minutes a day on average"
    )
    parts.append(f"{_average(whole.average_minutes)} minutes a day over {plural(sm.days, 'day')}")
    if sm.introduced_by is None:
        parts.append(f"not all introduced in {plural(sm.days, 'day')}")
    else:
        parts.append(f"all introduced by day {sm.introduced_by}")
    parts.append(f"{figure(sm.memorized_end)} of {sm.cards} memorized on day {sm.days}")
    return "; ".join(parts)


def shown_forecast(p: DeckPreview) -> tuple[Forecast, Summary]:
    """The forecast every view shows, and its summary: with an exam plan, the plan's
    forecast from the start to exam day; otherwise the preview's."""
    if p.exam is None:
        return p.forecast, p.summary
    return p.exam.forecast, p.exam.summary


def report(p: DeckPreview, width: int = 60) -> str:
    """The full text preview of one deck: ladder, forecast chart, summary. With an exam
    plan, the chart and summary are those of its forecast, from the start to exam day."""
    lad = p.ladder
    fc, sm = shown_forecast(p)
    lines = [
        f"{p.deck.name}  ({shown_text(p.deck.source, None, quoted=False)})  {plural(sm.cards, 'card')}",
        f"  {_settings_line(p)}",
        f"  settings from {p.origin}",
        "",
        "Interval ladder of a new card: days to the next review (FSRS, no fuzz, no learning steps)",
        f"  Good         {_ladder_row(lad.good)}",
        f"  Hard         {_ladder_row(lad.hard)}",
        f"  Easy         {_ladder_row(lad.easy)}",
        f"  Again, Good  {_ladder_row(lad.again_good)}",
        f"  Each row ends with the first interval that reaches day {lad.horizon}, or at "
        f"{lad.max_steps} intervals.",
        "",
        _forecast_heading(p, width),
    ]
    memorized_end = f"{figure(sm.memorized_end)} of {fc.cards} on day {fc.days}"
    series: list[tuple[str, Sequence[float], float | None, str]] = [
        ("reviews a day", fc.reviews, None, _peak_text(sm.whole.peak_reviews)),
        ("new cards a day", fc.new, None, _peak_text(peak(fc.new))),
        ("minutes a day", fc.minutes, None, _peak_text(sm.whole.peak_minutes)),
        ("memorized", fc.memorized, float(max(fc.cards, 1)), memorized_end),
    ]
    for label, values, top, note in series:
        lines.append(f"  {label:<15} |{sparkline(values, width, top)}| {note}")
    lines += ["", "Summary"]
    lines += [f"  {label:<21} {value}" for label, value in summary_rows(sm)]
    lines += [f"  {note}" for note in summary_notes()]
    if p.sweep is not None:
        lines += ["", *sweep_lines(p.sweep, sm.cards, p.forecast.days)]
        for line in sweep_agreement(p.sweep, p.summary, p.simulated, p.settings.study.new_per_day):
            lines += textwrap.wrap(line, 88, initial_indent="  ", subsequent_indent="  ")
    if p.exam is not None:
        lines += ["", *exam_lines(p.exam)]
    return "\n".join(lines)
