"""Image occlusion: a picture with masks over its parts, one card per card number.

The masks and labels of a note (:class:`deckbuilder.model.ImageOcclusionNote`) in the
picture's own pixels, as the author writes them; turning them into the fractions Anki's
Occlusion field holds needs the picture's size, and is the package's business
(:mod:`deckbuilder.anki.occlusion`). Which card a mask is on follows one rule,
:func:`card_numbers`, that the loader, the counts and the package share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

# The font size, in the picture's pixels, Anki's mask editor gives a text label
# (TEXT_FONT_SIZE in ts/routes/image-occlusion/tools/lib.ts).
DEFAULT_TEXT_SIZE = 40.0


class MaskShape(str, Enum):
    """The shapes of Anki's mask editor that hide part of the picture."""

    RECT = "rect"  # left, top, width, height
    ELLIPSE = "ellipse"  # left, top, width, height of the box around it
    POLYGON = "polygon"  # its corners, [x, y] each

    def __str__(self) -> str:
        return self.value


class OcclusionMode(str, Enum):
    """What the front of a card hides: every mask (the card's own in the active colour,
    the others in the inactive one), or only the card's own."""

    HIDE_ALL = "hide-all"  # Anki's "Hide All, Guess One"
    HIDE_ONE = "hide-one"  # "Hide One, Guess One"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Mask:
    """One mask: a shape over part of the picture, on card ``card`` (1-based)."""

    shape: MaskShape
    # rect and ellipse: (left, top, width, height); polygon: x1, y1, x2, y2, ...
    values: tuple[float, ...]
    card: int
    line: int = field(default=0, compare=False)

    @property
    def points(self) -> tuple[tuple[float, float], ...]:
        """A polygon's corners (a rect's or an ellipse's box corners otherwise)."""
        if self.shape is MaskShape.POLYGON:
            return tuple(zip(self.values[::2], self.values[1::2], strict=True))
        left, top, width, height = self.values
        return (
            (left, top),
            (left + width, top),
            (left + width, top + height),
            (left, top + height),
        )

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the box around the mask."""
        xs = [x for x, _ in self.points]
        ys = [y for _, y in self.points]
        return min(xs), min(ys), max(xs), max(ys)

    @property
    def area(self) -> float:
        """The area it covers (the shoelace formula for a polygon)."""
        if self.shape is not MaskShape.POLYGON:
            return self.values[2] * self.values[3]
        corners = self.points
        twice = sum(
            x1 * y2 - x2 * y1
            for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1], strict=True)
        )
        return abs(twice) / 2


@dataclass(frozen=True)
class Label:
    """A text drawn on the picture on every card, never a card of its own."""

    text: str
    left: float
    top: float
    size: float = DEFAULT_TEXT_SIZE  # font size, in the picture's pixels
    line: int = field(default=0, compare=False)


def card_numbers(given: Sequence[int | None]) -> tuple[int, ...]:
    """The card of each mask, in order: the number it gives, or one more than the highest
    card of the masks before it (so the masks without one are cards 1, 2, 3... in order,
    and a mask added at the end is a new card)."""
    out: list[int] = []
    highest = 0
    for number in given:
        card = highest + 1 if number is None else number
        out.append(card)
        highest = max(highest, card)
    return tuple(out)


def missing_cards(cards: Sequence[int]) -> tuple[int, ...]:
    """The card numbers from 1 to the highest that no mask is on."""
    used = set(cards)
    return tuple(n for n in range(1, max(used, default=0) + 1) if n not in used)
