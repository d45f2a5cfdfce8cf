"""The forecast as an image file for ``preview --plot``.

``--plot FILE.png|FILE.svg`` is drawn by matplotlib (imported only then): three panels,
cards a day (reviews and new cards), minutes a day and cards memorized, titled with the
deck's name in whatever script it is written, using the installed fonts
(:func:`font_families`). The same forecast gives the same bytes.

The preview page draws its own charts as text (:mod:`deckbuilder.preview.page_chart`), in the
colours and with the peak labels defined here. Both draw every day (nothing is averaged
away) and mark the peak reviews and peak minutes with the summary's own figures, so chart
and summary name the same day and value.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from deckbuilder.errors import OutputError, RequestError
from deckbuilder.files.atomic import atomic_write
from deckbuilder.preview.report import MEMORIZED_MEANS, figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from deckbuilder.preview.report import DeckPreview
    from deckbuilder.schedule import Peak

__all__ = [
    "FORMATS",
    "chart_image",
    "font_families",
    "peak_label",
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
    ``replaced``: see :meth:`deckbuilder.files.atomic.Staging.commit`."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"unknown chart format {path.suffix!r}; use .svg or .png")
    data = chart_image(p, suffix[1:])
    try:
        atomic_write(path, lambda tmp: tmp.write_bytes(data), replaced=replaced)
    except OutputError as exc:
        raise RequestError.single("plot", str(exc)) from None
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


def peak_label(top: Peak, unit: str) -> str:
    """What a chart writes beside a peak: ``peak 9.9 reviews on day 3``."""
    return f"peak {figure(top.value)} {unit} on day {top.day}"


def _mark_peak(axes: Axes, top: Peak, unit: str, days: int) -> None:
    """A dot on the peak day and the summary's figure beside it, on the side with room."""
    if not top.day:
        return
    axes.plot([top.day], [top.value], "o", color=TEXT_COLOUR, markersize=4, gid=f"peak-{unit}")
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
