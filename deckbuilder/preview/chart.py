"""The forecast as an image file for ``preview --plot``.

``--plot FILE.png|FILE.svg`` is drawn by matplotlib (imported only then): cards a day
(reviews and new cards), minutes a day and cards memorized; for a forecast longer than
two months its first 60 days as well, where a new deck's work is; with an exam plan, the
plan's forecast to exam day and the day every card is to be introduced by; with a sweep,
minutes and cards memorized at each desired retention. The title names the deck in
whatever script it is written, using the installed fonts (:func:`font_families`), and
the settings the chart was drawn with. The same forecast gives the same bytes.

The preview page draws its own charts as text (:mod:`deckbuilder.preview.page_chart`), in the
colours and with the peak labels defined here. Both draw every day (nothing is averaged
away) and mark the peak reviews and peak minutes with the summary's own figures, so chart
and summary name the same day and value.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from deckbuilder.errors import OutputError, RequestError, plural
from deckbuilder.files.atomic import atomic_write_bytes
from deckbuilder.preview.plan_report import figure
from deckbuilder.preview.report import MEMORIZED_MEANS, DeckPreview, shown_forecast
from deckbuilder.schedule.workload import Peak, peak

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import HashableList

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
    ``replaced``: see :meth:`deckbuilder.files.atomic.Staging.commit`."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"unknown chart format {path.suffix!r}; use .svg or .png")
    data = chart_image(p, suffix[1:])
    try:
        atomic_write_bytes(path, data, replaced=replaced)
    except OutputError as exc:
        raise RequestError.single("plot", str(exc)) from None
    return path


def _title(p: DeckPreview) -> str:
    """The chart's title: the deck, and on a line of its own the settings of the forecast
    it draws (with an exam plan, the plan's new cards a day and days to the exam)."""
    s = p.settings.study
    fc, _ = shown_forecast(p)
    limit = "no review limit" if s.review_limit is None else f"review limit {s.review_limit}/day"
    if p.exam is not None:
        plan = p.exam
        studied = (
            f"{plan.new_per_day} new/day (exam plan), {limit}, {plural(plan.days, 'day')} to the exam "
            f"on {plan.exam.isoformat()}"
        )
    else:
        studied = f"{s.new_per_day} new/day, {limit}, {plural(fc.days, 'day')}"
    return (
        f"{p.deck.name}: {plural(fc.cards, 'card')}\nretention {s.desired_retention:g}, {studied}"
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


ROW_INCHES = 2.0  # the height of a row of panels
FIRST_DAYS = 60  # a longer forecast gets a panel of its first days, where the work is


def _draw(p: DeckPreview, title: str) -> Figure:
    """The panels: the first FIRST_DAYS days of a longer forecast; cards, minutes and
    cards memorized a day over the whole forecast; with a sweep, minutes and cards
    memorized at each desired retention, the current and optimal ones marked."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fc, sm = shown_forecast(p)
    rows: list[HashableList[str]] = [
        ["cards", "cards"],
        ["minutes", "minutes"],
        ["memorized", "memorized"],
    ]
    if fc.days > FIRST_DAYS:
        rows.insert(0, ["first", "first"])
    if p.sweep is not None:
        rows.append(["sweep minutes", "sweep memorized"])
    figure = Figure(
        figsize=(9, 0.6 + ROW_INCHES * len(rows)), dpi=100, layout="constrained", facecolor="white"
    )
    FigureCanvasAgg(figure)  # Agg draws the PNG; no window system is ever touched
    # The deck's name as written: matplotlib would read "$...$" in it as math (and fail
    # on "$x^$").
    figure.suptitle(title, x=0.01, ha="left", fontsize=12, parse_math=False)
    axes = figure.subplot_mosaic(rows)
    whole = sm.whole
    if "first" in axes:
        first = axes["first"]
        reviews, new = fc.reviews[:FIRST_DAYS], fc.new[:FIRST_DAYS]
        heading = f"the first {FIRST_DAYS} days: cards a day"
        _cards(first, reviews, new, peak(list(reviews)), heading, "first-")
    _cards(
        axes["cards"], fc.reviews, fc.new, whole.peak_reviews, "cards a day: reviews and new cards"
    )
    minutes = axes["minutes"]
    minutes.set_title("minutes a day", loc="left")
    minutes.plot(range(1, fc.days + 1), fc.minutes, color=LINE_COLOUR, linewidth=2, gid="minutes")
    _mark_peak(minutes, whole.peak_minutes, "minutes", fc.days)
    memorized = axes["memorized"]
    memorized.set_title(f"memorized: {MEMORIZED_MEANS} (of {fc.cards})", loc="left")
    memorized.plot(
        range(1, fc.days + 1), fc.memorized, color=LINE_COLOUR, linewidth=2, gid="memorized"
    )
    memorized.set_ylim(0, max(fc.cards, 1))
    memorized.set_xlabel("day" if p.exam is None else f"day (the exam on day {fc.days})")
    for name in ("cards", "minutes", "memorized"):
        _days_axis(axes[name], fc.days)
        if p.exam is not None and 1 <= p.exam.days - p.exam.lead < fc.days:
            _day_mark(axes[name], p.exam.days - p.exam.lead, name == "memorized", p.exam.lead)
    if p.sweep is not None:
        _sweep(axes["sweep minutes"], axes["sweep memorized"], p)
    for panel in axes.values():
        panel.set_ylim(bottom=0)
        panel.grid(axis="y", color=GRID_COLOUR)
        panel.set_axisbelow(True)
        panel.spines[["top", "right"]].set_visible(False)
    return figure


def _cards(
    axes: Axes, reviews: Sequence[float], new: Sequence[float], top: Peak, title: str, gid: str = ""
) -> None:
    """Reviews a day as bars, the new cards stacked on them, the peak marked; ``gid``
    prefixes the ids of the bars in an SVG."""
    days = len(reviews)
    edges = np.arange(days + 1) + 0.5  # day d's bar spans d - 0.5 .. d + 0.5
    low = np.asarray(reviews, dtype=float)
    high = low + np.asarray(new, dtype=float)
    axes.set_title(title, loc="left")
    axes.stairs(low, edges, fill=True, color=REVIEW_COLOUR, label="reviews", gid=f"{gid}reviews")
    axes.stairs(
        high, edges, baseline=low, fill=True, color=NEW_COLOUR, label="new cards", gid=f"{gid}new"
    )
    axes.legend(loc="upper right", frameon=False)
    _days_axis(axes, days)
    _mark_peak(axes, top, "reviews", days, gid)


def _days_axis(axes: Axes, days: int) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.set_xlim(0.5, days + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))


def _day_mark(axes: Axes, day: int, label: bool, lead: int) -> None:
    """A dashed line at the end of the day every card is to be introduced by, and with
    ``label``, what it stands for (at the foot of the panel, where memorized cards leave
    room)."""
    axes.axvline(day + 0.5, color=TEXT_COLOUR, linestyle="--", linewidth=1, gid="introduced")
    if label:
        axes.annotate(
            f"every card in by day {day} ({plural(lead, 'day')} before the exam)",
            (day + 0.5, 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(-4, 4),
            textcoords="offset points",
            ha="right",
            va="bottom",
        )


def _sweep(minutes: Axes, memorized: Axes, p: DeckPreview) -> None:
    """Minutes and cards memorized at each desired retention, the current retention
    (dashed) and the optimal one marked."""
    sw = p.sweep
    assert sw is not None
    retentions = [q.retention for q in sw.points]
    days = p.forecast.days
    minutes.set_title(f"study minutes in {plural(days, 'day')}, by desired retention", loc="left")
    memorized.set_title(f"memorized on day {days}", loc="left")
    curves = ((minutes, "minutes", REVIEW_COLOUR), (memorized, "memorized", LINE_COLOUR))
    for panel, series, colour in curves:
        values = [getattr(q, series) for q in sw.points]
        panel.plot(retentions, values, color=colour, linewidth=2, gid=f"sweep-{series}")
    memorized.set_ylim(0, max(p.deck.card_count, 1))
    for panel in (minutes, memorized):
        panel.set_xlabel("desired retention")
        panel.set_xlim(retentions[0] - 0.005, retentions[-1] + 0.005)
        marks = (("current", sw.current, "--", 0.98), ("optimal", sw.optimal_retention, "-", 0.86))
        for name, retention, style, height in marks:
            if retention is None:  # no optimum: no card is studied
                continue
            if not retentions[0] - 1e-9 <= retention <= retentions[-1] + 1e-9:
                continue  # a what-if retention outside the sweep has no point on it
            panel.axvline(
                retention, color=TEXT_COLOUR, linestyle=style, linewidth=1, gid=f"sweep-{name}"
            )
            if panel is minutes:
                right = retention > (retentions[0] + retentions[-1]) / 2
                panel.annotate(
                    f"{name} {retention:.2f}",
                    (retention, height),
                    xycoords=("data", "axes fraction"),
                    xytext=(-4 if right else 4, 0),
                    textcoords="offset points",
                    ha="right" if right else "left",
                    va="top",
                )


def peak_label(top: Peak, unit: str) -> str:
    """What a chart writes beside a peak: ``peak 9.9 reviews on day 3``."""
    return f"peak {figure(top.value)} {unit} on day {top.day}"


def _mark_peak(axes: Axes, top: Peak, unit: str, days: int, gid: str = "") -> None:
    """A dot on the peak day and the summary's figure beside it, on the side with room."""
    if not top.day:
        return
    axes.plot([top.day], [top.value], "o", color=TEXT_COLOUR, markersize=4, gid=f"{gid}peak-{unit}")
    left = top.day > days / 2
    axes.annotate(
        peak_label(top, unit),
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
