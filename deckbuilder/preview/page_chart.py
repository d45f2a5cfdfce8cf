"""The preview page's charts, written as SVG text: the forecast (:func:`forecast_svg`)
and, with ``--sweep``, workload against retention (:func:`sweep_svg`).

Text, not an image: the page's CSS restyles it for night mode and for a phone's width,
and the page carries no font outlines. The colours and peak labels are those of the
``--plot`` image (:mod:`deckbuilder.preview.chart`), so chart, image and summary name the same
day and value.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

from deckbuilder.preview.chart import (
    AXIS_COLOUR,
    GRID_COLOUR,
    LINE_COLOUR,
    NEW_COLOUR,
    REVIEW_COLOUR,
    TEXT_COLOUR,
    peak_label,
)
from deckbuilder.preview.report import MEMORIZED_MEANS, figure

if TYPE_CHECKING:
    from deckbuilder.preview.report import DeckPreview
    from deckbuilder.schedule import Peak

__all__ = ["forecast_svg", "sweep_svg"]

WIDTH = 900
LEFT, RIGHT, TOP = 70, 20, 50
PANEL_H, GAP = 150, 48
# Baseline of the labels under a panel: room for the larger labels a phone shows
# (static/page.css), whose chart is drawn at 0.4 of its width.
BELOW = 22
# Baselines of labels inside a panel, below its top: a line, then a second one.
MARK_LINE, SECOND_LINE = 20, 46


def _nice_max(value: float) -> float:
    """The smallest 1/2/5 x 10^k at or above ``value`` (at least 1)."""
    if value <= 1:
        return 1.0
    exp = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * exp >= value:
            return float(step * exp)
    return float(10 * exp)  # pragma: no cover


def _label(value: float) -> str:
    """An axis value, short enough for the room left of the axis at a phone's label size:
    20000 is 20k, 5000000 is 5M (axis values are round, see :func:`_nice_max`)."""
    if value >= 10_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 10_000:
        return f"{value / 1_000:g}k"
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


class _Panel:
    """One panel's geometry: maps (day, value) to pixels."""

    def __init__(self, index: int, days: int, top_value: float, shift: int = 0) -> None:
        self.x0, self.x1 = LEFT, WIDTH - RIGHT
        self.y0 = TOP + index * (PANEL_H + GAP) + shift
        self.y1 = self.y0 + PANEL_H
        self.days = max(days, 1)
        self.top = top_value

    def x(self, day: float) -> float:
        return self.x0 + (self.x1 - self.x0) * day / self.days

    def y(self, value: float) -> float:
        return self.y1 - (self.y1 - self.y0) * min(value, self.top) / self.top


def _grid(panel: _Panel) -> list[str]:
    """The axis, the half and top grid lines and their value labels of one panel."""
    out = []
    for frac in (0.0, 0.5, 1.0):
        y = panel.y(panel.top * frac)
        out.append(
            f'<line x1="{panel.x0}" y1="{y:.1f}" x2="{panel.x1}" y2="{y:.1f}" '
            f'stroke="{GRID_COLOUR if frac else AXIS_COLOUR}" class="grid"/>'
        )
        out.append(
            f'<text x="{panel.x0 - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'fill="{TEXT_COLOUR}" class="label">{_label(panel.top * frac)}</text>'
        )
    return out


def _axis_ends(panel: _Panel, first: str, last: str) -> list[str]:
    """What the two ends of a panel's axis stand for, under them ("day 1", "day 365")."""
    return [
        f'<text x="{panel.x0}" y="{panel.y1 + BELOW}" fill="{TEXT_COLOUR}" class="label">'
        f"{first}</text>",
        f'<text x="{panel.x1}" y="{panel.y1 + BELOW}" text-anchor="end" '
        f'fill="{TEXT_COLOUR}" class="label">{last}</text>',
    ]


def _peak_mark(panel: _Panel, top: Peak, series: str) -> list[str]:
    """A dot on the peak day and the summary's figure beside it, on the side with room;
    ``data-day`` and ``data-value`` give both for tools and tests."""
    if not top.day:
        return []
    x, y = panel.x(top.day - 0.5), panel.y(top.value)
    left = top.day > panel.days / 2
    text_x = x - 8 if left else x + 8
    text_y = max(y + 4, panel.y0 + MARK_LINE)  # a peak at the top stays clear of the title
    return [
        f'<g class="peak" data-series="{series}" data-day="{top.day}" '
        f'data-value="{figure(top.value)}">',
        f'<circle cx="{x:.2f}" cy="{y:.2f}" r="4" fill="{TEXT_COLOUR}"/>',
        f'<text x="{text_x:.2f}" y="{text_y:.2f}" text-anchor="{"end" if left else "start"}" '
        f'fill="{TEXT_COLOUR}" class="label">{escape(peak_label(top, series))}</text>',
        "</g>",
    ]


def forecast_svg(p: DeckPreview) -> str:
    """The forecast for the preview page: reviews a day (new cards as bars beneath),
    minutes a day and cards memorized, each a line with one point per simulated day, the
    peaks marked with the summary's figures. Sized by its viewBox, so it fits any width;
    ``data-series`` names each line for tools and tests."""
    fc, whole = p.forecast, p.summary.whole
    # Each panel after the first sits lower, to leave room for the day labels above it.
    reviews = _Panel(0, fc.days, _nice_max(max([*fc.reviews, *fc.new], default=0)))
    minutes = _Panel(1, fc.days, _nice_max(max(fc.minutes, default=0)), shift=24)
    memorized = _Panel(2, fc.days, float(max(fc.cards, 1)), shift=48)
    height = memorized.y1 + 30
    title = (
        f"Forecast of {p.deck.name}: reviews, minutes and cards memorized a day over {fc.days} days"
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="13" '
        f'class="forecast" data-days="{fc.days}">',
        f"<title>{escape(title)}</title>",
    ]
    panels = (
        ("reviews a day (line), new cards a day (bars)", reviews, fc.reviews, "reviews"),
        ("minutes a day", minutes, fc.minutes, "minutes"),
        (f"memorized: {MEMORIZED_MEANS} (of {fc.cards})", memorized, fc.memorized, "memorized"),
    )
    for label, panel, values, series in panels:
        out.append(
            f'<text x="{panel.x0}" y="{panel.y0 - 16}" fill="{TEXT_COLOUR}" class="label">'
            f"{escape(label)}</text>"
        )
        out.extend(_grid(panel))
        if series == "reviews":
            bar_w = (panel.x1 - panel.x0) / panel.days
            out.append(f'<g fill="{NEW_COLOUR}" data-series="new">')
            out.extend(
                f'<rect x="{panel.x(day):.2f}" y="{panel.y(n):.2f}" width="{bar_w:.2f}" '
                f'height="{panel.y1 - panel.y(n):.2f}"/>'
                for day, n in enumerate(fc.new)
                if n > 0
            )
            out.append("</g>")
        colour = REVIEW_COLOUR if series == "reviews" else LINE_COLOUR
        points = " ".join(
            f"{panel.x(day + 0.5):.2f},{panel.y(v):.2f}" for day, v in enumerate(values)
        )
        out.append(
            f'<polyline data-series="{series}" points="{points}" fill="none" '
            f'stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
        if series == "reviews":
            out.extend(_peak_mark(panel, whole.peak_reviews, series))
        elif series == "minutes":
            out.extend(_peak_mark(panel, whole.peak_minutes, series))
        out.extend(_axis_ends(panel, "day 1", f"day {fc.days}"))
    out.append("</svg>")
    return "\n" + "\n".join(out)  # on a line of its own after the forecast


def sweep_svg(p: DeckPreview) -> str:
    """The retention sweep for the preview page ("" without one): study minutes and
    cards memorized at each desired retention, 0.70 to 0.99, with the current and the
    optimal retention marked. ``data-retention`` names each mark and point."""
    sw = p.sweep
    if sw is None:
        return ""
    points = sw.points
    first, last = points[0].retention, points[-1].retention
    # Each retention sits in the middle of its own step, as each day of the forecast
    # does: a mark at the first or last retention stays clear of the panel's edge.
    minutes = _Panel(0, len(points), _nice_max(max(q.minutes for q in points)))
    memorized = _Panel(1, len(points), float(max(p.deck.card_count, 1)), shift=24)
    height = memorized.y1 + 30
    title = (
        f"Retention sweep of {p.deck.name}: study minutes and cards memorized in "
        f"{p.forecast.days} days at each desired retention"
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="13" '
        f'class="forecast sweep" data-optimal="{sw.optimal_retention:.2f}" '
        f'data-current="{sw.current:g}">',
        f"<title>{escape(title)}</title>",
    ]
    panels = (
        (f"study minutes in {p.forecast.days} days", minutes, "minutes", REVIEW_COLOUR),
        (f"memorized on day {p.forecast.days}", memorized, "memorized", LINE_COLOUR),
    )
    for label, panel, series, colour in panels:
        out.append(
            f'<text x="{panel.x0}" y="{panel.y0 - 16}" fill="{TEXT_COLOUR}" class="label">'
            f"{escape(label)}</text>"
        )
        out.extend(_grid(panel))
        values = [getattr(q, series) for q in points]
        line = " ".join(f"{panel.x(i + 0.5):.2f},{panel.y(v):.2f}" for i, v in enumerate(values))
        out.append(
            f'<polyline data-series="{series}" points="{line}" fill="none" '
            f'stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
        # Each mark's name on a line of its own: the two may stand close, or at one place.
        marks = (("current", sw.current, MARK_LINE), ("optimal", sw.optimal_retention, SECOND_LINE))
        for name, retention, text_line in marks:
            if not first - 1e-9 <= retention <= last + 1e-9:
                continue  # a what-if retention outside the sweep has no point on it
            x = panel.x((retention - first) * 100 + 0.5)
            shown = f"{retention:.2f}" if round(retention, 2) == retention else f"{retention:g}"
            dash = ' stroke-dasharray="6 4"' if name == "current" else ""
            # The name on the side of the line with room, as a peak's figure is.
            right_half = x > (panel.x0 + panel.x1) / 2
            label_x, anchor = (x - 4, "end") if right_half else (x + 4, "start")
            out.append(
                f'<g class="mark" data-mark="{name}" data-retention="{shown}">'
                f'<line x1="{x:.2f}" y1="{panel.y0}" x2="{x:.2f}" y2="{panel.y1}" '
                f'stroke="{TEXT_COLOUR}" stroke-width="1.5"{dash}/>'
                + (
                    f'<text x="{label_x:.2f}" y="{panel.y0 + text_line}" text-anchor="{anchor}" '
                    f'fill="{TEXT_COLOUR}" class="label">{name} {shown}</text>'
                    if panel is minutes
                    else ""
                )
                + "</g>"
            )
        out.extend(_axis_ends(panel, f"retention {first:.2f}", f"{last:.2f}"))
    out.append("</svg>")
    return "\n" + "\n".join(out)  # on a line of its own after the forecast
