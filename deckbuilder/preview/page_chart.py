"""The preview page's charts, written as SVG text: the forecast (:func:`forecast_svg`), its
first weeks (:func:`first_weeks_svg`) and, with a sweep, workload against retention
(:func:`sweep_svg`).

Each chart spans the page's width while its text keeps its size, so a phone shows labels
as large as a desktop does: text, dots and marks stand in the chart at pixel heights and
at percentages of its width, and each panel's lines are drawn in an inner ``<svg>`` whose
days (or retentions) are stretched across the width (``preserveAspectRatio="none"``, the
strokes unscaled). The colours are those of the ``--plot`` image
(:mod:`deckbuilder.preview.chart`), which the page's style changes for night mode; the
peak labels are the summary's figures, so chart, image and summary name the same day and
value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from deckbuilder.errors import plural
from deckbuilder.preview.chart import (
    AXIS_COLOUR,
    GRID_COLOUR,
    LINE_COLOUR,
    NEW_COLOUR,
    REVIEW_COLOUR,
    TEXT_COLOUR,
    peak_label,
)
from deckbuilder.preview.plan_report import figure
from deckbuilder.preview.report import MEMORIZED_MEANS, DeckPreview, shown_forecast
from deckbuilder.schedule.workload import Peak, peak

FONT_SIZE = 12  # px, at any width
FIRST_DAYS = 60  # a forecast longer than this gets a chart of its first days as well
# Heights in pixels: a panel's title line, its note line (the peak), the line of its top
# value, its plot, the line of the axis labels under it, and the gap to the next panel.
TITLE, NOTE, VALUE, PLOT, AXIS, GAP = 14, 16, 14, 110, 18, 12
PANEL = TITLE + NOTE + VALUE + PLOT + AXIS + GAP
# Lines of mark labels inside a plot, below its top.
MARK_LINE, SECOND_LINE = 14, 30


def _nice_max(value: float) -> float:
    """The smallest 1/2/5 x 10^k at or above ``value`` (at least 1)."""
    if value <= 1:
        return 1.0
    exp = 10 ** math.floor(math.log10(value))
    return float(next((step * exp for step in (1, 2, 5) if step * exp >= value), 10 * exp))


def axis_label(value: float) -> str:
    """An axis value, short: 20000 is 20k, 5000000 is 5M (axis values are round, see
    :func:`_nice_max`)."""
    if value >= 10_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 10_000:
        return f"{value / 1_000:g}k"
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


@dataclass(frozen=True)
class _Panel:
    """One panel: ``steps`` columns (days, or retentions) across the width, values up to
    ``top`` over the plot's height; its top edge at ``y`` pixels."""

    index: int
    steps: int
    top: float

    @property
    def y(self) -> int:
        return self.index * PANEL

    @property
    def plot_top(self) -> int:
        return self.y + TITLE + NOTE + VALUE

    @property
    def plot_bottom(self) -> int:
        return self.plot_top + PLOT

    def height(self, value: float) -> float:
        """How far below the plot's top a value is drawn, in pixels."""
        return PLOT - PLOT * min(value, self.top) / self.top

    def percent(self, step: float) -> str:
        """Where a column (counted from 0, its middle at +0.5) is across the width."""
        return f"{100 * step / max(self.steps, 1):.3f}%"


def _text(x: str, y: float, text: str, css: str = "label", anchor: str = "start") -> str:
    return (
        f'<text x="{x}" y="{y:.1f}" text-anchor="{anchor}" fill="{TEXT_COLOUR}" '
        f'class="{css}">{escape(text)}</text>'
    )


def _frame(panel: _Panel, title: str, first: str, last: str) -> list[str]:
    """A panel's title, its grid lines with their values (right, above each line) and
    what its axis's two ends stand for ("day 1", "day 365")."""
    out = [_text("0", panel.y + TITLE - 2, title, "label title")]
    for frac in (0.0, 0.5, 1.0):
        y = panel.plot_top + panel.height(panel.top * frac)
        colour = GRID_COLOUR if frac else AXIS_COLOUR
        out.append(
            f'<line x1="0" y1="{y:.1f}" x2="100%" y2="{y:.1f}" stroke="{colour}" class="grid"/>'
        )
        if frac:  # 0 goes without saying, and would stand on the axis's own labels
            out.append(_text("100%", y - 3, axis_label(panel.top * frac), "label value", "end"))
    below = panel.plot_bottom + AXIS - 4
    out += [_text("0", below, first, "label axis"), _text("100%", below, last, "label axis", "end")]
    return out


def _plot(panel: _Panel, content: Sequence[str]) -> list[str]:
    """The panel's lines and bars, in columns stretched across the width."""
    return [
        f'<svg x="0" y="{panel.plot_top}" width="100%" height="{PLOT}" '
        f'viewBox="0 0 {max(panel.steps, 1)} {PLOT}" preserveAspectRatio="none" class="plot">',
        *content,
        "</svg>",
    ]


def _line(panel: _Panel, values: Sequence[float], series: str, colour: str) -> str:
    points = " ".join(f"{i + 0.5:g},{panel.height(v):.2f}" for i, v in enumerate(values))
    return (
        f'<polyline data-series="{series}" points="{points}" fill="none" stroke="{colour}" '
        f'stroke-width="2" stroke-linejoin="round" vector-effect="non-scaling-stroke" '
        f'class="series {series}"/>'
    )


def _bars(panel: _Panel, values: Sequence[float], series: str, colour: str) -> str:
    """One bar a day for the days with any (a path: one element for every bar)."""
    path = "".join(
        f"M{i},{panel.height(v):.2f}h1V{PLOT}h-1z" for i, v in enumerate(values) if v > 0
    )
    return f'<path data-series="{series}" d="{path}" fill="{colour}" class="series {series}"/>'


def _peak(panel: _Panel, top: Peak, series: str, unit: str) -> list[str]:
    """A dot on the peak day and the summary's figure on the panel's note line;
    ``data-day`` and ``data-value`` give both for tools and tests."""
    if not top.day:
        return []
    return [
        f'<g class="peak" data-series="{series}" data-day="{top.day}" '
        f'data-value="{figure(top.value)}">',
        f'<circle cx="{panel.percent(top.day - 0.5)}" '
        f'cy="{panel.plot_top + panel.height(top.value):.2f}" r="4" fill="{TEXT_COLOUR}" '
        'class="dot"/>',
        _text("0", panel.y + TITLE + NOTE - 3, peak_label(top, unit), "label note"),
        "</g>",
    ]


def _day_line(panel: _Panel, day: int, name: str) -> str:
    """A dashed line across the panel at the end of ``day`` (1-based)."""
    x = panel.percent(day)
    return (
        f'<line x1="{x}" y1="{panel.plot_top}" x2="{x}" y2="{panel.plot_bottom}" '
        f'stroke="{TEXT_COLOUR}" stroke-dasharray="6 4" class="mark" data-mark="{name}" '
        f'data-day="{day}"/>'
    )


def _svg(css: str, height: int, title: str, attributes: str, body: Sequence[str]) -> str:
    """A chart, in the box the page's style draws around it."""
    return "\n" + "\n".join(
        [
            '<div class="chart-box">',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="{height}" '
            f'role="img" aria-label="{escape(title)}" font-family="sans-serif" '
            f'font-size="{FONT_SIZE}" class="chart {css}"{attributes}>',
            f"<title>{escape(title)}</title>",
            *body,
            "</svg>",
            "</div>",
        ]
    )


def _cards_panel(
    index: int, reviews: Sequence[float], new: Sequence[float], top: Peak
) -> list[str]:
    panel = _Panel(index, len(reviews), _nice_max(max([*reviews, *new], default=0)))
    days = len(reviews)
    return [
        *_frame(panel, "reviews a day (line) and new cards (bars)", "day 1", f"day {days}"),
        *_plot(
            panel,
            [_bars(panel, new, "new", NEW_COLOUR), _line(panel, reviews, "reviews", REVIEW_COLOUR)],
        ),
        *_peak(panel, top, "reviews", "reviews"),
    ]


def _minutes_panel(index: int, minutes: Sequence[float], top: Peak) -> list[str]:
    panel = _Panel(index, len(minutes), _nice_max(max(minutes, default=0)))
    return [
        *_frame(panel, "minutes a day", "day 1", f"day {len(minutes)}"),
        *_plot(panel, [_line(panel, minutes, "minutes", LINE_COLOUR)]),
        *_peak(panel, top, "minutes", "minutes"),
    ]


def forecast_svg(p: DeckPreview) -> str:
    """The forecast: reviews a day (new cards as bars beneath), minutes a day and cards
    memorized, each a line with one point per simulated day, the peaks marked with the
    summary's figures. With an exam plan, the plan's forecast to exam day, a dashed line
    on the last day every card is to be introduced by."""
    fc, sm = shown_forecast(p)
    whole = sm.whole
    memorized = _Panel(2, fc.days, float(max(fc.cards, 1)))
    body = [
        *_cards_panel(0, fc.reviews, fc.new, whole.peak_reviews),
        *_minutes_panel(1, fc.minutes, whole.peak_minutes),
        *_frame(memorized, f"cards memorized (of {fc.cards})", "day 1", f"day {fc.days}"),
        _text("0", memorized.y + TITLE + NOTE - 3, MEMORIZED_MEANS, "label note"),
        *_plot(memorized, [_line(memorized, fc.memorized, "memorized", LINE_COLOUR)]),
    ]
    attributes = f' data-days="{fc.days}"'
    title = (
        f"Forecast of {p.deck.name}: reviews, minutes and cards memorized a day over "
        f"{plural(fc.days, 'day')}"
    )
    if p.exam is not None:
        last_intro = p.exam.days - p.exam.lead
        title = (
            f"Forecast of {p.deck.name} to the exam on {p.exam.exam.isoformat()} (day "
            f"{p.exam.days}), {p.exam.new_per_day} new cards a day"
        )
        attributes += f' data-exam="{p.exam.exam.isoformat()}"'
        if 1 <= last_intro < fc.days:
            body += [_day_line(_Panel(i, fc.days, 1.0), last_intro, "introduced") for i in range(3)]
    return _svg("forecast", 3 * PANEL, title, attributes, body)


def first_weeks_svg(p: DeckPreview) -> str:
    """The first FIRST_DAYS days of a longer forecast, where a new deck's work is, a day
    as wide as the page allows ("" for a forecast no longer than that)."""
    fc, _ = shown_forecast(p)
    if fc.days <= FIRST_DAYS:
        return ""
    reviews, new, minutes = (series[:FIRST_DAYS] for series in (fc.reviews, fc.new, fc.minutes))
    title = f"The first {FIRST_DAYS} days of the forecast of {p.deck.name}"
    body = [
        *_cards_panel(0, reviews, new, peak(list(reviews))),
        *_minutes_panel(1, minutes, peak(list(minutes))),
    ]
    return _svg("forecast first-weeks", 2 * PANEL, title, f' data-days="{FIRST_DAYS}"', body)


def sweep_svg(p: DeckPreview) -> str:
    """The retention sweep ("" without one): study minutes and cards memorized at each
    desired retention, 0.70 to 0.99, with the current and the optimal retention marked.
    ``data-retention`` names each mark."""
    sw = p.sweep
    if sw is None:
        return ""
    points = sw.points
    first, last = points[0].retention, points[-1].retention
    days = p.forecast.days
    minutes = _Panel(0, len(points), _nice_max(max(q.minutes for q in points)))
    memorized = _Panel(1, len(points), float(max(p.deck.card_count, 1)))
    title = (
        f"Retention sweep of {p.deck.name}: study minutes and cards memorized in "
        f"{plural(days, 'day')} at each desired retention"
    )
    body: list[str] = []
    panels = (
        (f"study minutes in {plural(days, 'day')}", minutes, "minutes", REVIEW_COLOUR),
        (f"memorized on day {days}", memorized, "memorized", LINE_COLOUR),
    )
    for label, panel, series, colour in panels:
        values = [getattr(q, series) for q in points]
        body += _frame(panel, label, f"retention {first:.2f}", f"{last:.2f}")
        body += _plot(panel, [_line(panel, values, series, colour)])
        # Each mark's name on a line of its own: the two may stand close, or at one place.
        marks = (("current", sw.current, MARK_LINE), ("optimal", sw.optimal_retention, SECOND_LINE))
        for name, retention, text_line in marks:
            if retention is None:  # no optimum: no card is studied
                continue
            if not first - 1e-9 <= retention <= last + 1e-9:
                continue  # a what-if retention outside the sweep has no point on it
            column = (retention - first) * 100 + 0.5
            x = panel.percent(column)
            shown = f"{retention:.2f}" if round(retention, 2) == retention else f"{retention:g}"
            dash = ' stroke-dasharray="6 4"' if name == "current" else ""
            # The name on the side of the line with room, as a peak's figure is.
            left_half = column < len(points) / 2
            label = (
                f'<text x="{x}" dx="{4 if left_half else -4}" y="{panel.plot_top + text_line}" '
                f'text-anchor="{"start" if left_half else "end"}" fill="{TEXT_COLOUR}" '
                f'class="label mark-label">{name} {shown}</text>'
                if panel is minutes
                else ""
            )
            body.append(
                f'<g class="mark" data-mark="{name}" data-retention="{shown}">'
                f'<line x1="{x}" y1="{panel.plot_top}" x2="{x}" y2="{panel.plot_bottom}" '
                f'stroke="{TEXT_COLOUR}" stroke-width="1.5"{dash}/>{label}</g>'
            )
    optimal = "" if sw.optimal_retention is None else f"{sw.optimal_retention:.2f}"
    attributes = f' data-optimal="{optimal}" data-current="{sw.current:g}"'
    return _svg("sweep", 2 * PANEL, title, attributes, body)
