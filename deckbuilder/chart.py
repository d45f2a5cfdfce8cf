"""The forecast as an image: SVG written as text, PNG rasterised with NumPy and zlib.

No plotting library: both formats draw the same three panels (reviews and new cards a
day as bars, minutes a day, cards memorized), with a small built-in pixel font for the
PNG's labels. Output is deterministic: same forecast, same bytes.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import struct
import zlib
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import UsageError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .preview import DeckPreview

__all__ = ["FORMATS", "forecast_svg", "write_chart"]

FORMATS = (".svg", ".png")

WIDTH, HEIGHT = 900, 620
LEFT, RIGHT, TOP = 70, 20, 50
PANEL_H, GAP = 150, 40

REVIEW_COLOUR = (59, 110, 165)
NEW_COLOUR = (230, 150, 60)
LINE_COLOUR = (60, 140, 90)
AXIS_COLOUR = (90, 90, 90)
GRID_COLOUR = (225, 225, 225)
TEXT_COLOUR = (30, 30, 30)


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
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


class _Panel:
    """One panel's geometry: maps (day, value) to pixels."""

    def __init__(self, index: int, days: int, top_value: float) -> None:
        self.x0, self.x1 = LEFT, WIDTH - RIGHT
        self.y0 = TOP + index * (PANEL_H + GAP)
        self.y1 = self.y0 + PANEL_H
        self.days = max(days, 1)
        self.top = top_value

    def x(self, day: float) -> float:
        return self.x0 + (self.x1 - self.x0) * day / self.days

    def y(self, value: float) -> float:
        return self.y1 - (self.y1 - self.y0) * min(value, self.top) / self.top


def _panels(p: DeckPreview) -> list[tuple[str, _Panel]]:
    fc = p.forecast
    per_day = [r + n for r, n in zip(fc.reviews, fc.new, strict=True)]
    return [
        (
            "cards a day: reviews (blue), new (orange)",
            _Panel(0, fc.days, _nice_max(max(per_day, default=0))),
        ),
        ("minutes a day", _Panel(1, fc.days, _nice_max(max(fc.minutes, default=0)))),
        (f"cards memorized (of {fc.cards})", _Panel(2, fc.days, float(max(fc.cards, 1)))),
    ]


def _title(p: DeckPreview) -> str:
    s = p.settings
    return (
        f"{p.deck.name}: {p.deck.card_count} cards, retention {s.desired_retention:g}, "
        f"{s.new_per_day} new/day, {p.forecast.days} days"
    )


# ---------------------------------------------------------------------------------------
# SVG


def _rgb(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _grid(panel: _Panel, classes: bool = False) -> list[str]:
    """The axis, the half and top grid lines and their value labels of one panel."""
    grid, label = (' class="grid"', ' class="label"') if classes else ("", "")
    out = []
    for frac in (0.0, 0.5, 1.0):
        y = panel.y(panel.top * frac)
        out.append(
            f'<line x1="{panel.x0}" y1="{y:.1f}" x2="{panel.x1}" y2="{y:.1f}" '
            f'stroke="{_rgb(GRID_COLOUR if frac else AXIS_COLOUR)}"{grid}/>'
        )
        out.append(
            f'<text x="{panel.x0 - 6}" y="{y + 4:.1f}" text-anchor="end" '
            f'fill="{_rgb(TEXT_COLOUR)}"{label}>{_label(panel.top * frac)}</text>'
        )
    return out


def _day_labels(panel: _Panel, days: int, classes: bool = False) -> list[str]:
    """ "day 1" and "day N" under a panel's time axis."""
    label = ' class="label"' if classes else ""
    fill = _rgb(TEXT_COLOUR)
    return [
        f'<text x="{panel.x0}" y="{panel.y1 + 16}" fill="{fill}"{label}>day 1</text>',
        f'<text x="{panel.x1}" y="{panel.y1 + 16}" text-anchor="end" '
        f'fill="{fill}"{label}>day {days}</text>',
    ]


def svg(p: DeckPreview) -> str:
    fc = p.forecast
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="24" font-size="15" fill="{_rgb(TEXT_COLOUR)}">{escape(_title(p))}</text>',
    ]
    for i, (title, panel) in enumerate(_panels(p)):
        out.append(
            f'<text x="{panel.x0}" y="{panel.y0 - 8}" fill="{_rgb(TEXT_COLOUR)}">{escape(title)}</text>'
        )
        out.extend(_grid(panel))
        if i == 0:
            bar_w = (panel.x1 - panel.x0) / panel.days
            for day, (r, n) in enumerate(zip(fc.reviews, fc.new, strict=True)):
                x = panel.x(day)
                if r > 0:
                    out.append(
                        f'<rect x="{x:.2f}" y="{panel.y(r):.2f}" width="{bar_w:.2f}" '
                        f'height="{panel.y1 - panel.y(r):.2f}" fill="{_rgb(REVIEW_COLOUR)}"/>'
                    )
                if n > 0:
                    out.append(
                        f'<rect x="{x:.2f}" y="{panel.y(r + n):.2f}" width="{bar_w:.2f}" '
                        f'height="{panel.y(r) - panel.y(r + n):.2f}" fill="{_rgb(NEW_COLOUR)}"/>'
                    )
        else:
            values = fc.minutes if i == 1 else fc.memorized
            points = " ".join(
                f"{panel.x(day + 0.5):.2f},{panel.y(v):.2f}" for day, v in enumerate(values)
            )
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{_rgb(LINE_COLOUR)}" stroke-width="2"/>'
            )
        out.extend(_day_labels(panel, fc.days))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def forecast_svg(p: DeckPreview) -> str:
    """The forecast for the preview page: reviews a day (new cards as bars beneath) and
    cards memorized, each a line with one point per simulated day. Sized by its viewBox,
    so it fits any width; ``data-series`` names each line for tools and tests."""
    fc = p.forecast
    height = TOP + 2 * PANEL_H + GAP + 54
    reviews = _Panel(0, fc.days, _nice_max(max([*fc.reviews, *fc.new], default=0)))
    memorized = _Panel(1, fc.days, float(max(fc.cards, 1)))
    memorized.y0 += 24  # room for the first panel's day labels
    memorized.y1 += 24
    text = _rgb(TEXT_COLOUR)
    title = f"Forecast of {p.deck.name}: reviews a day and cards memorized over {fc.days} days"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(title)}" font-family="sans-serif" font-size="13" '
        f'class="forecast" data-days="{fc.days}">',
        f"<title>{escape(title)}</title>",
    ]
    panels = (
        ("reviews a day (line), new cards a day (bars)", reviews, fc.reviews, "reviews"),
        (f"cards memorized (of {fc.cards})", memorized, fc.memorized, "memorized"),
    )
    for label, panel, values, series in panels:
        out.append(
            f'<text x="{panel.x0}" y="{panel.y0 - 10}" fill="{text}" class="label">{escape(label)}</text>'
        )
        out.extend(_grid(panel, classes=True))
        if series == "reviews":
            bar_w = (panel.x1 - panel.x0) / panel.days
            out.append(f'<g fill="{_rgb(NEW_COLOUR)}" data-series="new">')
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
            f'stroke="{_rgb(colour)}" stroke-width="2" stroke-linejoin="round"/>'
        )
        out.extend(_day_labels(panel, fc.days, classes=True))
    out.append("</svg>")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# PNG

# A 3x5 pixel font: each glyph is 5 rows of 3 bits, top row first.
_FONT = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001010010010",
    "8": "111101111101111",
    "9": "111101111001111",
    "a": "010101111101101",
    "b": "110101110101110",
    "c": "011100100100011",
    "d": "110101101101110",
    "e": "111100110100111",
    "f": "111100110100100",
    "g": "011100101101011",
    "h": "101101111101101",
    "i": "111010010010111",
    "j": "001001001101010",
    "k": "101101110101101",
    "l": "100100100100111",
    "m": "101111111101101",
    "n": "110101101101101",
    "o": "010101101101010",
    "p": "110101110100100",
    "q": "010101101110011",
    "r": "110101110101101",
    "s": "011100010001110",
    "t": "111010010010010",
    "u": "101101101101111",
    "v": "101101101101010",
    "w": "101101111111101",
    "x": "101101010101101",
    "y": "101101010010010",
    "z": "111001010100111",
    ".": "000000000000010",
    ",": "000000000010100",
    ":": "000010000010000",
    "/": "001001010100100",
    "-": "000000111000000",
    "(": "010100100100010",
    ")": "010001001001010",
    "+": "000010111010000",
    "%": "101001010100101",
    " ": "000000000000000",
}
_UNKNOWN = "111101101101111"


class _Canvas:
    def __init__(self) -> None:
        import numpy as np

        self.px: npt.NDArray[np.uint8] = np.full((HEIGHT, WIDTH, 3), 255, dtype=np.uint8)

    def rect(
        self, x0: float, y0: float, x1: float, y1: float, colour: tuple[int, int, int]
    ) -> None:
        xa, xb = sorted((round(x0), round(x1)))
        ya, yb = sorted((round(y0), round(y1)))
        xb = max(xb, xa + 1)
        yb = max(yb, ya + 1)
        self.px[max(ya, 0) : min(yb, HEIGHT), max(xa, 0) : min(xb, WIDTH)] = colour

    def polyline(self, points: Sequence[tuple[float, float]], colour: tuple[int, int, int]) -> None:
        for (xa, ya), (xb, yb) in itertools.pairwise(points):
            steps = int(max(abs(xb - xa), abs(yb - ya))) + 1
            for k in range(steps + 1):
                t = k / steps
                x, y = xa + (xb - xa) * t, ya + (yb - ya) * t
                self.rect(x - 1, y - 1, x + 1, y + 1, colour)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        colour: tuple[int, int, int],
        scale: int = 2,
        anchor_end: bool = False,
    ) -> None:
        """Draw ``text`` with its top-left corner at (x, y) (top-right with ``anchor_end``)."""
        advance = 4 * scale
        if anchor_end:
            x -= advance * len(text)
        for i, ch in enumerate(text.lower()):
            bits = _FONT.get(ch, _UNKNOWN)
            for row in range(5):
                for col in range(3):
                    if bits[row * 3 + col] == "1":
                        gx = x + i * advance + col * scale
                        gy = y + row * scale
                        self.rect(gx, gy, gx + scale, gy + scale, colour)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + self.px[row].tobytes() for row in range(HEIGHT))

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)  # 8-bit RGB
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def png(p: DeckPreview) -> bytes:
    fc = p.forecast
    c = _Canvas()
    c.text(LEFT, 16, _title(p), TEXT_COLOUR)
    for i, (title, panel) in enumerate(_panels(p)):
        c.text(panel.x0, panel.y0 - 16, title, TEXT_COLOUR)
        for frac in (0.0, 0.5, 1.0):
            y = panel.y(panel.top * frac)
            c.rect(panel.x0, y, panel.x1, y + 1, GRID_COLOUR if frac else AXIS_COLOUR)
            c.text(panel.x0 - 6, y - 5, _label(panel.top * frac), TEXT_COLOUR, anchor_end=True)
        if i == 0:
            for day, (r, n) in enumerate(zip(fc.reviews, fc.new, strict=True)):
                xa, xb = panel.x(day), panel.x(day + 1)
                if r > 0:
                    c.rect(xa, panel.y(r), xb, panel.y1, REVIEW_COLOUR)
                if n > 0:
                    c.rect(xa, panel.y(r + n), xb, panel.y(r), NEW_COLOUR)
        else:
            values = fc.minutes if i == 1 else fc.memorized
            c.polyline([(panel.x(d + 0.5), panel.y(v)) for d, v in enumerate(values)], LINE_COLOUR)
        c.text(panel.x0, panel.y1 + 6, "day 1", TEXT_COLOUR)
        c.text(panel.x1, panel.y1 + 6, f"day {fc.days}", TEXT_COLOUR, anchor_end=True)
    return c.png()


def write_chart(p: DeckPreview, path: Path) -> Path:
    """Write the forecast chart to ``path``; the suffix (.svg or .png) picks the format."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        data = svg(p).encode("utf-8")
    elif suffix == ".png":
        data = png(p)
    else:
        raise ValueError(f"unknown chart format {path.suffix!r}; use .svg or .png")
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise UsageError(f"--plot: cannot write {path}: {exc.strerror or exc}") from None
    return path
