"""The forecast as a chart: an image file for ``preview --plot`` and the preview page's own.

``--plot FILE.png|FILE.svg`` is drawn by matplotlib (imported only then): three panels,
cards a day (reviews and new cards), minutes a day and cards memorized, titled with the
deck's name in whatever script it is written, using the installed fonts
(:func:`font_families`). The same forecast gives the same bytes.

The preview page embeds :func:`forecast_svg` instead: a small SVG written as text, which
the page's CSS restyles for night mode and which keeps the page free of font outlines;
with ``--sweep``, :func:`sweep_svg` beside it draws workload against retention.

Both draw every day (nothing is averaged away) and mark the peak reviews and peak
minutes with the summary's own figures, so chart and summary name the same day and value.
"""

from __future__ import annotations

import io
import math
from functools import cache
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from .atomic import atomic_write
from .errors import OutputError, UsageError
from .preview import MEMORIZED_MEANS, figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .preview import DeckPreview
    from .schedule import Peak

__all__ = [
    "FORMATS",
    "chart_image",
    "font_families",
    "forecast_svg",
    "sweep_svg",
    "write_chart",
]

FORMATS = (".svg", ".png")

REVIEW_COLOUR = "#3b6ea5"
NEW_COLOUR = "#e6963c"
LINE_COLOUR = "#3c8c5a"
AXIS_COLOUR = "#5a5a5a"
GRID_COLOUR = "#e1e1e1"
TEXT_COLOUR = "#1e1e1e"

# Tried in this order for each character: DejaVu Sans comes with matplotlib (Latin, Greek,
# Cyrillic); then the common CJK fonts of Linux, macOS and Windows. A character none of
# them has is looked for in every installed font (see font_families).
_PREFERRED_FONTS = (
    "DejaVu Sans",
    "Noto Sans",
    "NanumGothic",
    "Noto Sans CJK KR",
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Source Han Sans KR",
    "Source Han Sans",
    "Apple SD Gothic Neo",
    "Malgun Gothic",
    "Hiragino Sans",
    "Yu Gothic",
    "PingFang SC",
    "Microsoft YaHei",
    "Arial Unicode MS",
)
# Matplotlib's own last resort: a placeholder shape for every character, not a real glyph.
_PLACEHOLDER_FONTS = frozenset({"Last Resort High-Efficiency"})
# Makes the SVG's generated ids repeatable, so the same chart is the same file.
_SVG_HASH_SALT = "deckbuilder"


def write_chart(p: DeckPreview, path: Path, *, replaced: list[Path] | None = None) -> Path:
    """Write the forecast chart to ``path``; the suffix (.svg or .png) picks the format.
    ``replaced``: see :meth:`deckbuilder.atomic.Staging.commit`."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"unknown chart format {path.suffix!r}; use .svg or .png")
    data = chart_image(p, suffix[1:])
    try:
        atomic_write(path, lambda tmp: tmp.write_bytes(data), replaced=replaced)
    except OutputError as exc:
        raise UsageError(f"--plot: {exc}") from None
    return path


def _title(p: DeckPreview) -> str:
    s = p.settings
    return (
        f"{p.deck.name}: {p.deck.card_count} cards, retention {s.desired_retention:g}, "
        f"{s.new_per_day} new/day, {p.forecast.days} days"
    )


def chart_image(p: DeckPreview, image_format: str) -> bytes:
    """The forecast chart as ``png`` or ``svg`` file contents (text drawn as outlines)."""
    import matplotlib

    title = _title(p)
    with matplotlib.rc_context(
        {
            "font.family": font_families(title),
            "font.size": 10,
            "text.color": TEXT_COLOUR,
            "axes.edgecolor": AXIS_COLOUR,
            "axes.labelcolor": TEXT_COLOUR,
            "xtick.color": AXIS_COLOUR,
            "ytick.color": AXIS_COLOUR,
            "svg.fonttype": "path",
            "svg.hashsalt": _SVG_HASH_SALT,
        }
    ):
        figure = _draw(p, title)
        out = io.BytesIO()
        # No date: the same forecast writes the same bytes (PNG has none by default).
        metadata = {"Date": None} if image_format == "svg" else {}
        figure.savefig(out, format=image_format, metadata=metadata)
    return out.getvalue()


def _draw(p: DeckPreview, title: str) -> Figure:
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fc, whole = p.forecast, p.summary.whole
    days = fc.days
    figure = Figure(figsize=(9, 6.2), dpi=100, layout="constrained", facecolor="white")
    FigureCanvasAgg(figure)  # Agg draws the PNG; no window system is ever touched
    figure.suptitle(title, x=0.01, ha="left", fontsize=13)
    cards_axes, minutes_axes, memorized_axes = figure.subplots(3, 1, sharex=True)
    edges = np.arange(days + 1) + 0.5  # day d's bar spans d - 0.5 .. d + 0.5
    centres = np.arange(1, days + 1)
    reviews = np.asarray(fc.reviews, dtype=float)
    new = np.asarray(fc.new, dtype=float)

    cards_axes.set_title("cards a day: reviews and new cards", loc="left")
    cards_axes.stairs(
        reviews, edges, fill=True, color=REVIEW_COLOUR, label="reviews", gid="reviews"
    )
    cards_axes.stairs(
        reviews + new,
        edges,
        baseline=reviews,
        fill=True,
        color=NEW_COLOUR,
        label="new cards",
        gid="new",
    )
    cards_axes.legend(loc="upper right", frameon=False)
    _mark_peak(cards_axes, whole.peak_reviews, "reviews", days)
    minutes_axes.set_title("minutes a day", loc="left")
    minutes_axes.plot(centres, fc.minutes, color=LINE_COLOUR, linewidth=2, gid="minutes")
    _mark_peak(minutes_axes, whole.peak_minutes, "minutes", days)
    memorized_axes.set_title(f"memorized: {MEMORIZED_MEANS} (of {fc.cards})", loc="left")
    memorized_axes.plot(centres, fc.memorized, color=LINE_COLOUR, linewidth=2, gid="memorized")
    memorized_axes.set_ylim(0, max(fc.cards, 1))
    memorized_axes.set_xlabel("day")
    memorized_axes.set_xlim(0.5, days + 0.5)
    memorized_axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    for axes in (cards_axes, minutes_axes, memorized_axes):
        axes.set_ylim(bottom=0)
        axes.grid(axis="y", color=GRID_COLOUR)
        axes.set_axisbelow(True)
        axes.spines[["top", "right"]].set_visible(False)
    return figure


def _peak_label(top: Peak, unit: str) -> str:
    return f"peak {figure(top.value)} {unit} on day {top.day}"


def _mark_peak(axes: Axes, top: Peak, unit: str, days: int) -> None:
    """A dot on the peak day and the summary's figure beside it, on the side with room."""
    if not top.day:
        return
    axes.plot([top.day], [top.value], "o", color=TEXT_COLOUR, markersize=4, gid=f"peak-{unit}")
    left = top.day > days / 2
    axes.annotate(
        _peak_label(top, unit),
        (top.day, top.value),
        xytext=(-8 if left else 8, 0),
        textcoords="offset points",
        ha="right" if left else "left",
        va="center",
    )


def font_families(text: str) -> list[str]:
    """The installed font families to draw ``text`` with, as matplotlib's fallback list:
    the preferred fonts that are installed, then, for any character none of them has,
    the first installed font (by name) that has it."""
    from matplotlib import font_manager

    regular: dict[str, str] = {}  # family -> the file of its regular upright face
    for entry in sorted(font_manager.fontManager.ttflist, key=lambda f: (f.name, f.fname)):
        if (
            entry.style == "normal"
            and entry.weight in (400, "normal", "regular")
            and entry.stretch == "normal"
            and entry.name not in _PLACEHOLDER_FONTS
        ):
            regular.setdefault(entry.name, entry.fname)
    families = [name for name in _PREFERRED_FONTS if name in regular]
    missing = {c for c in text if c.isprintable() and not c.isspace()}
    for name in families:
        missing -= _characters(regular[name])
    for name, font_file in regular.items():
        if not missing:
            break
        found = missing & _characters(font_file)
        if found and name not in families:
            families.append(name)
            missing -= found
    return families


@cache
def _characters(font_file: str) -> frozenset[str]:
    """The characters a font file has glyphs for."""
    from matplotlib.ft2font import FT2Font

    return frozenset(map(chr, FT2Font(font_file).get_charmap()))


# ---------------------------------------------------------------------------------------
# The preview page's chart

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


def _day_labels(panel: _Panel, days: int) -> list[str]:
    """ "day 1" and "day N" under a panel's time axis."""
    return [
        f'<text x="{panel.x0}" y="{panel.y1 + BELOW}" fill="{TEXT_COLOUR}" class="label">day 1</text>',
        f'<text x="{panel.x1}" y="{panel.y1 + BELOW}" text-anchor="end" '
        f'fill="{TEXT_COLOUR}" class="label">day {days}</text>',
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
        f'fill="{TEXT_COLOUR}" class="label">{escape(_peak_label(top, series))}</text>',
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
        out.extend(_day_labels(panel, fc.days))
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
        out.append(
            f'<text x="{panel.x0}" y="{panel.y1 + BELOW}" fill="{TEXT_COLOUR}" class="label">'
            f"retention {first:.2f}</text>"
        )
        out.append(
            f'<text x="{panel.x1}" y="{panel.y1 + BELOW}" text-anchor="end" fill="{TEXT_COLOUR}" '
            f'class="label">{last:.2f}</text>'
        )
    out.append("</svg>")
    return "\n" + "\n".join(out)  # on a line of its own after the forecast
