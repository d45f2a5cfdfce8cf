"""The scheduler preview of a deck, and its text forms: report, one-line summary, JSON.

Library code: everything here returns strings or dicts; the CLI prints them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UsageError
from .model import Deck, StudySettings
from .schedule import (
    Forecast,
    Ladder,
    Load,
    Peak,
    PreviewSettings,
    Summary,
    forecast,
    ladder,
    parse_parameters,
    summarize,
)
from .schedule.forecast import DECIMALS, peak, shown
from .schedule.settings import ANKI_RETENTION_RANGE, ParameterSyntaxError

__all__ = [
    "DeckPreview",
    "build_summary",
    "deck_settings",
    "figure",
    "preview_deck",
    "report",
    "retention_warning",
    "settings_from_options",
    "sparkline",
    "summary_line",
    "summary_notes",
    "summary_rows",
    "to_json",
]

DEFAULT_DAYS = 365
DEFAULT_SEED = 42
# Anki's simulator offers 1 to 3650 days (see schedule.settings for the source). The
# forecast's memory grows with days times simulated cards: a longer horizon for a small
# deck could exhaust a laptop's memory, for a plan no learner makes.
MAX_DAYS = 3650
# A parameter file holds 21 numbers, a few hundred bytes; a larger file is not one.
MAX_PARAMS_FILE_BYTES = 64 * 1024

# The command-line option that sets each PreviewSettings field (for error messages).
OPTION_NAMES = {
    "desired_retention": "--retention",
    "new_per_day": "--new-per-day",
    "review_limit": "--review-limit",
    "parameters": "--params",
}


def settings_from_options(
    retention: float | None,
    new_per_day: int | None,
    review_limit: int | None,
    params: str | None,
    days: int = DEFAULT_DAYS,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """The preview command's option values that were given, as settings overrides.

    Every value out of range is named in one one-line UsageError, with the option and
    the allowed range. ``params`` is the parameter list as text, or the name of a file
    holding it; ``days`` and ``seed`` are checked too.
    """
    parameters, params_file = (None, None) if params is None else _parameters_option(params)
    overrides = {
        "desired_retention": retention,
        "new_per_day": new_per_day,
        "review_limit": review_limit,
        "parameters": parameters,
    }
    overrides = {k: v for k, v in overrides.items() if v is not None}
    names = (
        {**OPTION_NAMES, "parameters": f"--params {params_file}"} if params_file else OPTION_NAMES
    )
    problems = [
        f"{names.get(p.name, p.name)}: {p.message}"
        for p in PreviewSettings().with_values(**overrides).problems()
    ]
    problems += _run_problems(days, seed)
    if problems:
        raise UsageError("; ".join(problems))
    return overrides


def retention_warning(retention: float | None) -> str | None:
    """A sentence when ``--retention`` is usable for a forecast but outside what Anki's
    deck options accept (a what-if the deck's study block could not carry)."""
    low, high = ANKI_RETENTION_RANGE
    if retention is None or low <= retention <= high:
        return None
    return (
        f"--retention {retention:g} is outside {low:.2f} to {high:.2f}, the range Anki's "
        "deck options accept; Anki will not schedule with it"
    )


def _parameters_option(value: str) -> tuple[tuple[float, ...], str | None]:
    """The parameters ``--params`` gives, and the file they were read from (None: the
    value itself). A value that names an existing path is read as a file."""
    if not value.strip():
        raise UsageError(
            "--params: empty; expected 21 comma-separated numbers or a file holding them"
        )
    path = Path(value)
    try:
        exists = path.exists()
    except (OSError, ValueError):  # e.g. 21 numbers without spaces: too long for a name
        exists = False
    if exists:
        text = _read_parameter_file(path)
        try:
            return parse_parameters(text), value
        except ParameterSyntaxError as exc:
            raise UsageError(
                f"--params {value}:{exc.line}: {exc}; expected 21 comma-separated numbers"
            ) from None
    try:
        return parse_parameters(value), None
    except ParameterSyntaxError as exc:
        if len(value.split()) == 1 and "," not in value:  # one word: meant as a file?
            raise UsageError(
                f"--params: {exc.entry!r} is neither a number nor a file; expected 21 "
                "comma-separated numbers or a file holding them"
            ) from None
        raise UsageError(f"--params: {exc}; expected 21 comma-separated numbers") from None


def _read_parameter_file(path: Path) -> str:
    """The text of a parameter file; a folder, a device, an unreadable, binary or huge
    file is a one-line UsageError. Reads no more than the size limit."""
    if path.is_dir():
        raise UsageError(f"--params: {path} is a folder, not a file of parameters")
    if not path.is_file():
        raise UsageError(f"--params: {path} is not a regular file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PARAMS_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--params: cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PARAMS_FILE_BYTES:
        raise UsageError(
            f"--params: {path} is larger than {MAX_PARAMS_FILE_BYTES // 1024} KB; "
            "a parameter file holds 21 numbers"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"--params: {path} is not a text file (UTF-8)") from None


def _run_problems(days: int, seed: int) -> list[str]:
    problems = []
    if not 1 <= days <= MAX_DAYS:
        problems.append(f"--days: must be between 1 and {MAX_DAYS}, not {days}")
    if seed < 0:  # NumPy's generators take seeds of 0 or more
        problems.append(f"--seed: must be 0 or more, not {seed}")
    return problems


def deck_settings(
    deck: Deck, overrides: dict[str, Any] | None = None
) -> tuple[PreviewSettings, str]:
    """The settings a deck is previewed with, and a sentence saying where they come from:
    the deck's ``study:`` block, with Anki's defaults (:class:`StudySettings`) for what
    it leaves out; a deck with no study block gets all of Anki's defaults, the preset
    Anki gives it on import. Options given on the command line win over both."""
    overrides = overrides or {}
    if deck.study is not None:
        study = deck.study
        origin = (
            f"the deck's study block ({deck.source}:{study.line}); Anki's defaults for the rest"
        )
    else:
        study = StudySettings()
        origin = "Anki's default deck options (the deck has no study block)"
    if overrides:
        options = ", ".join(OPTION_NAMES.get(k, k) for k in overrides)
        origin += f", with {options} from the command line"
    return PreviewSettings.from_study(study, **overrides), origin


def build_summary(cards: int, settings: PreviewSettings) -> Summary:
    """The forecast summary ``build`` shows for a deck of ``cards`` cards."""
    return summarize(forecast(cards, settings, DEFAULT_DAYS, seed=DEFAULT_SEED))


@dataclass(frozen=True)
class DeckPreview:
    deck: Deck
    settings: PreviewSettings
    ladder: Ladder
    forecast: Forecast
    summary: Summary
    origin: str = "preview defaults"  # where the settings come from, for people

    def as_dict(self) -> dict[str, Any]:
        s = self.settings
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
                "parameters": list(s.parameters),
            },
            "settings_from": self.origin,
            "ladder": self.ladder.as_dict(),
            "forecast": self.forecast.as_dict(),
            "summary": self.summary.as_dict(),
        }


def preview_deck(
    deck: Deck, settings: PreviewSettings, days: int, seed: int, origin: str = "preview defaults"
) -> DeckPreview:
    """Ladder, forecast and summary for one deck's cards (not notes: a cloze note with
    c1..c3 is three cards). The forecast is kept as every output shows it: each day
    rounded once, the figures the summary is computed from."""
    fc = forecast(deck.card_count, settings, days, seed=seed)
    return DeckPreview(deck, settings, ladder(settings, days), fc.as_shown(), summarize(fc), origin)


def to_json(previews: Sequence[DeckPreview]) -> dict[str, Any]:
    """One deck: its preview object. Several: ``{"decks": [...]}``, one object each."""
    if len(previews) == 1:
        return previews[0].as_dict()
    return {"decks": [p.as_dict() for p in previews]}


def figure(value: float) -> str:
    """A figure of the forecast as every output shows it (one decimal)."""
    return f"{shown(value):.{DECIMALS}f}"


def _peak_text(top: Peak) -> str:
    return f"peak {figure(top.value)} on day {top.day}" if top.day else "no peak"


def _days(count: int) -> str:
    return "1 day" if count == 1 else f"{count} days"


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
    span, horizon = _span(first), _days(sm.days)
    intro = (
        f"by day {sm.introduced_by}" if sm.introduced_by is not None else f"not within {horizon}"
    )
    return [
        (
            "reviews a day",
            f"{_peak_text(whole.peak_reviews)}; average {figure(first.average_reviews)} "
            f"in {span}, {figure(whole.average_reviews)} in all {horizon}",
        ),
        (
            "minutes a day",
            f"{_peak_text(whole.peak_minutes)}; average {figure(first.average_minutes)} "
            f"in {span}, {figure(whole.average_minutes)} in all {horizon}",
        ),
        (
            "total",
            f"{figure(whole.total_reviews)} reviews, {figure(whole.total_minutes)} minutes "
            f"in {horizon}",
        ),
        ("all cards introduced", intro),
        (
            "memorized at the end",
            f"{figure(sm.memorized_end)} of {sm.cards} cards on day {sm.days}",
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
    s = p.settings
    limit = "no review limit" if s.review_limit is None else f"review limit {s.review_limit}/day"
    return (
        f"retention {s.desired_retention:g}, {s.new_per_day} new/day, {limit}, "
        f"{p.forecast.days} days"
    )


def _per_mark(days: int, width: int) -> str:
    per = days / max(1, min(width, days))
    if per == 1:
        return "one mark a day"
    return f"one mark per {per:.3g} days, as tall as the highest of them"


def summary_line(sm: Summary) -> str:
    """The summary in one line, as ``build`` prints it."""
    whole, first = sm.whole, sm.first_weeks
    parts = [f"{sm.cards} cards"]
    peaks = [
        f"{figure(top.value)} {unit} a day (day {top.day})"
        for top, unit in ((whole.peak_reviews, "reviews"), (whole.peak_minutes, "minutes"))
        if top.day
    ]
    if peaks:
        parts.append("peak " + ", ".join(peaks))
    parts.append(
        f"{_span(first)}: {figure(first.average_reviews)} reviews, "
        f"{figure(first.average_minutes)} minutes a day on average"
    )
    parts.append(f"{figure(whole.average_minutes)} minutes a day over {_days(sm.days)}")
    if sm.introduced_by is None:
        parts.append(f"not all introduced in {_days(sm.days)}")
    else:
        parts.append(f"all introduced by day {sm.introduced_by}")
    parts.append(f"{figure(sm.memorized_end)} of {sm.cards} memorized on day {sm.days}")
    return "; ".join(parts)


def report(p: DeckPreview, width: int = 60) -> str:
    """The full text preview of one deck: ladder, forecast chart, summary."""
    sm, fc, lad = p.summary, p.forecast, p.ladder
    lines = [
        f"{p.deck.name}  ({p.deck.source})  {sm.cards} cards",
        f"  {_settings_line(p)}",
        f"  settings from {p.origin}",
        "",
        "Interval ladder of a new card: days to the next review (FSRS, no fuzz, no learning steps)",
        f"  Good         {_ladder_row(lad.good)}",
        f"  Hard         {_ladder_row(lad.hard)}",
        f"  Easy         {_ladder_row(lad.easy)}",
        f"  Again, Good  {_ladder_row(lad.again_good)}",
        "",
        f"Forecast, day 1 to day {fc.days} ({_per_mark(fc.days, width)})",
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
    return "\n".join(lines)
