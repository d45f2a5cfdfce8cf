"""Image occlusion notes in the card format (``type: image-occlusion``).

    - id: heart-chambers
      type: image-occlusion
      image: heart.png                 # from media/, like any picture
      header: Chambers of the heart    # optional
      back_extra: Blood enters through the atria.
      mode: hide-all                   # or hide-one
      masks:
        - rect: [120, 40, 80, 60]      # left, top, width, height, in the picture's pixels
        - ellipse: [300, 200, 40, 30]  # the box around it
        - polygon: [[10, 10], [60, 10], [35, 50]]
        - rect: [20, 220, 50, 20]
          card: 2                      # on card 2 with the ellipse
        - text: RA                     # a label, on every card, never a card
          at: [200, 120]

What needs the picture (its size: a mask outside it) is checked where the picture is
found, by the renderer.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from deckbuilder.cardfile.fields import FieldReader, is_null, shown, trimmed
from deckbuilder.cardfile.keys import MASK, NUMBER_PATTERN, key_names, keyed
from deckbuilder.cardfile.keys import note_type as _note_type
from deckbuilder.cardfile.shapes import SHAPES
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, describe
from deckbuilder.cloze import HIGHEST_CARD_NUMBER
from deckbuilder.model import ImageOcclusionNote, NoteKind
from deckbuilder.occlusion import (
    DEFAULT_TEXT_SIZE,
    Label,
    Mask,
    MaskShape,
    OcclusionMode,
    card_numbers,
    missing_cards,
)

if TYPE_CHECKING:
    from deckbuilder.cardfile.notes import _CommonFields

MASK_KEYS = key_names(MASK)
_SHAPES = {shape.value: shape for shape in MaskShape}
_MODES = {mode.value: mode for mode in OcclusionMode}
_KEYS = keyed(_note_type(NoteKind.IMAGE_OCCLUSION).keys)
_MODE_KEY = _KEYS["mode"]
# A label's font size: its bounds, which the importer holds Anki's labels to as well.
LABEL_SIZE = next(k for k in MASK if k.name == "size")
_NUMBER = re.compile(f"(?:{NUMBER_PATTERN})\\Z")
# Against absurd input: Anki's editor makes a polygon point by point.
MAX_POLYGON_POINTS = 1000
# What a label may not hold: Anki's Occlusion field would end the label's deletion there.
_CLOZE_MARKS = ("{{", "}}")


def read_image_occlusion(
    fields: FieldReader, item: YMap, common: _CommonFields
) -> ImageOcclusionNote:
    image = trimmed(fields.read(item, _KEYS["image"]))
    shapes = _read_masks(fields, item)
    common["field_lines"].update((f"masks[{i}]", line) for i, line in shapes[1].items())
    return ImageOcclusionNote(
        **common,
        image=image,
        header=fields.read(item, _KEYS["header"]),
        back_extra=fields.read(item, _KEYS["back_extra"]),
        comments=fields.read(item, _KEYS["comments"]),
        mode=_read_mode(fields, item),
        shapes=tuple(shapes[0]),
    )


def _read_mode(fields: FieldReader, item: YMap) -> OcclusionMode:
    value = item.get("mode")
    if value is None or is_null(value):
        return OcclusionMode.HIDE_ALL
    written = trimmed(fields.as_text(value, "mode"))
    mode = _MODES.get(written)
    if mode is None and written:
        fields.problem(
            value.line,
            f"'mode' must be {SHAPES[_MODE_KEY.shape].phrase}, not '{shown(written)}'",
            "mode",
        )
    return mode or OcclusionMode.HIDE_ALL


def _read_masks(fields: FieldReader, item: YMap) -> tuple[list[Mask | Label], dict[int, int]]:
    """The masks and labels that could be read, in order, and the line of each entry."""
    value = item.get("masks")
    if value is None or is_null(value):
        fields.problem(item.key_line("masks"), f"'masks' is required: {MASK_PHRASE}", "masks")
        return [], {}
    if not isinstance(value, YSeq) or not value.items:
        shape = describe(value) if not isinstance(value, YSeq) else "an empty list"
        fields.problem(value.line, f"'masks' must be {MASK_PHRASE}, not {shape}", "masks")
        return [], {}
    read: list[tuple[MaskShape, tuple[float, ...], int | None, int] | Label] = []
    lines: dict[int, int] = {}
    for i, entry in enumerate(value.items):
        lines[i] = entry.line
        found = _read_entry(fields, entry, f"masks[{i}]")
        if found is not None:
            read.append(found)
    numbers = card_numbers([e[2] for e in read if not isinstance(e, Label)])
    cards = iter(numbers)
    shapes: list[Mask | Label] = [
        e if isinstance(e, Label) else Mask(e[0], e[1], next(cards), e[3]) for e in read
    ]
    if len(read) == len(value.items):
        mask_lines = [e[3] for e in read if not isinstance(e, Label)]
        _check_cards(fields, value, numbers, mask_lines)
    return shapes, lines


MASK_PHRASE = "a list of masks ({rect: [left, top, width, height]}, ...) and labels"


def _check_cards(
    fields: FieldReader, value: YSeq, numbers: tuple[int, ...], lines: list[int]
) -> None:
    """Every card from 1 to the highest has a mask; the problem is on the first mask whose
    number skips a card."""
    if not numbers:
        fields.problem(
            value.line,
            "'masks' has no mask, only labels: the note would make no card; add a rect, "
            "ellipse or polygon",
            "masks",
        )
        return
    missing = missing_cards(numbers)
    if missing:
        used = sorted(set(numbers))
        listed = ", ".join(str(n) for n in used[:-1]) + f" and {used[-1]}"
        gap = ", ".join(str(n) for n in missing[:5]) + (", ..." if len(missing) > 5 else "")
        line = next(at for card, at in zip(numbers, lines, strict=True) if card > missing[0])
        fields.problem(
            line,
            f"card{'s' if len(missing) > 1 else ''} {gap} ha{'ve' if len(missing) > 1 else 's'} "
            f"no mask: the masks are on cards {listed}; number the cards from 1 without a gap",
            "masks",
        )


def _read_entry(
    fields: FieldReader, entry: YValue, what: str
) -> tuple[MaskShape, tuple[float, ...], int | None, int] | Label | None:
    if not isinstance(entry, YMap):
        fields.problem(
            entry.line,
            f"'{what}' must be a mask ({{rect: [left, top, width, height]}}, {{ellipse: "
            f"...}}, {{polygon: [[x, y], ...]}}) or a label ({{text: ..., at: [x, y]}}), "
            f"not {describe(entry)}",
            what,
        )
        return None
    fields.unknown_keys(entry, MASK_KEYS, f"'{what}'")
    kinds = [key for key in (*_SHAPES, "text") if key in entry.entries]
    if len(kinds) != 1:
        said = "none of" if not kinds else "more than one of"
        fields.problem(
            entry.line,
            f"'{what}' has {said} rect, ellipse, polygon and text; give one",
            what,
        )
        return None
    if kinds[0] == "text":
        return _read_label(fields, entry, what)
    for key in ("at", "size"):
        if key in entry.entries:
            fields.problem(
                entry.key_line(key), f"'{what}.{key}' belongs to a label (text:), not a mask", what
            )
    shape = _SHAPES[kinds[0]]
    where = f"{what}.{shape.value}"
    raw = entry.entries[shape.value]
    values = (
        _read_points(fields, raw, where)
        if shape is MaskShape.POLYGON
        else _numbers(fields, raw, where, 4, "[left, top, width, height]")
    )
    card = _read_card(fields, entry, what)
    if values is None:
        return None
    mask = Mask(shape, values, 1)
    if mask.area <= 0:
        size = "is 0 wide or high" if shape is not MaskShape.POLYGON else "has no area"
        fields.problem(raw.line, f"'{where}' {size}: the mask would hide nothing", what)
        return None
    left, top, _, _ = mask.bounds()
    if left < 0 or top < 0:
        fields.problem(
            raw.line,
            f"'{where}' reaches outside the picture (left of or above its corner, 0, 0)",
            what,
        )
        return None
    return shape, values, card, entry.line


def _read_label(fields: FieldReader, entry: YMap, what: str) -> Label | None:
    if "card" in entry.entries:
        fields.problem(
            entry.key_line("card"),
            f"'{what}' is a label (text:), which is on every card and never a card of its "
            "own; 'card' belongs to a mask",
            what,
        )
    given = entry.entries["text"]
    text = fields.as_text(given, f"{what}.text")
    if not isinstance(given, YScalar) or given.is_null:
        return None  # as_text said it is no text
    if not text.strip():
        fields.problem(entry.key_line("text"), f"'{what}.text' is empty", what)
        return None
    for mark in _CLOZE_MARKS:
        if mark in text:
            fields.problem(
                entry.key_line("text"),
                f"'{what}.text' has '{mark}', which would end Anki's image occlusion field",
                what,
            )
            return None
    at = entry.get("at")
    if at is None:
        fields.problem(entry.line, f"'{what}' needs 'at: [x, y]', where the label goes", what)
        return None
    point = _numbers(fields, at, f"{what}.at", 2)
    if point is None:
        return None
    if min(point) < 0:
        fields.problem(at.line, f"'{what}.at' is outside the picture", what)
        return None
    size = DEFAULT_TEXT_SIZE
    written = entry.get("size")
    if written is not None:
        number = _number(fields, written, f"{what}.size")
        if number is None:
            return None
        if not LABEL_SIZE.low <= number <= LABEL_SIZE.high:  # type: ignore[operator]
            fields.problem(
                written.line,
                f"'{what}.size' must be from {LABEL_SIZE.low:g} to {LABEL_SIZE.high:g}",
                what,
            )
            return None
        size = number
    return Label(text, point[0], point[1], size, entry.line)


def _read_card(fields: FieldReader, entry: YMap, what: str) -> int | None:
    value = entry.get("card")
    if value is None:
        return None
    raw = value.raw.strip() if isinstance(value, YScalar) and not value.is_null else ""
    if not raw.isdigit() or not 1 <= int(raw) <= HIGHEST_CARD_NUMBER:
        fields.problem(
            value.line,
            f"'{what}.card' must be a card number from 1 to {HIGHEST_CARD_NUMBER}, not "
            f"{shown(raw) or describe(value)}",
            what,
        )
        return None
    return int(raw)


def _read_points(fields: FieldReader, value: YValue, what: str) -> tuple[float, ...] | None:
    if not isinstance(value, YSeq) or not 3 <= len(value.items) <= MAX_POLYGON_POINTS:
        count = f"{len(value.items)} points" if isinstance(value, YSeq) else describe(value)
        fields.problem(
            value.line,
            f"'{what}' must be a list of 3 to {MAX_POLYGON_POINTS:,} points, [x, y] each, "
            f"not {count}",
            what,
        )
        return None
    out: list[float] = []
    for i, point in enumerate(value.items):
        numbers = _numbers(fields, point, f"{what}[{i}]", 2)
        if numbers is None:
            return None
        out.extend(numbers)
    return tuple(out)


def _numbers(
    fields: FieldReader, value: YValue, what: str, count: int, form: str = "[x, y]"
) -> tuple[float, ...] | None:
    if not isinstance(value, YSeq) or len(value.items) != count:
        fields.problem(value.line, f"'{what}' must be {form}, not {describe(value)}", what)
        return None
    out = []
    for entry in value.items:
        number = _number(fields, entry, what)
        if number is None:
            return None
        out.append(number)
    return tuple(out)


def _number(fields: FieldReader, value: YValue, what: str) -> float | None:
    raw = value.raw.strip() if isinstance(value, YScalar) and not value.is_null else ""
    number = float(raw) if _NUMBER.match(raw) else math.nan
    if not math.isfinite(number) or len(raw) > 32:
        fields.problem(
            value.line, f"'{what}' must be numbers, not {shown(raw) or describe(value)}", what
        )
        return None
    return number
