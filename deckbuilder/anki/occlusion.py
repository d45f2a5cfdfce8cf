"""Anki's Occlusion field: an image occlusion note's masks as cloze deletions.

Anki's mask editor writes each shape as ``{{cN::image-occlusion:SHAPE:key=value:...}}``
followed by ``<br>``, in the order it draws them (ts/routes/image-occlusion/shapes/
to-cloze.ts); the backend reads them back (rslib/src/image_occlusion/imageocclusion.rs)
for the reviewer and for ``get_image_occlusion_note``. Positions and sizes are fractions
of the picture's own width (x) and height (y), written with at most four decimals; a
label is ``c0`` (drawn on every card, a card of none); ``oi=1`` on every shape is "hide
all, guess one". :func:`occlusion_field` writes the field the way the editor does, from
masks in the picture's pixels; :func:`read_occlusion_field` reads one back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from deckbuilder.occlusion import Label, Mask, MaskShape


def fraction(value: float) -> str:
    """``value`` as Anki's editor writes a fraction (floatToDisplay): four decimals
    without the zeros around them, ``.0000`` for 0 (0.25 -> ``.25``, 1 -> ``1.``)."""
    written = f"{value:.4f}"
    if float(written) == 0:
        # (also what rounds to 0, which stripped of its zeros would be '.', no number)
        return ".0000"
    sign = "-" if written.startswith("-") else ""
    return sign + written.lstrip("-").lstrip("0").rstrip("0")


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def _shape(shape: Mask | Label, width: float, height: float) -> tuple[str, list[tuple[str, str]]]:
    """A shape's name and properties as the editor writes them, in its order."""
    if isinstance(shape, Label):
        return "text", [
            ("left", fraction(shape.left / width)),
            ("top", fraction(shape.top / height)),
            ("text", shape.text),
            ("scale", fraction(1)),
            ("fs", fraction(shape.size / height)),
        ]
    if shape.shape is MaskShape.POLYGON:
        left, top, _, _ = shape.bounds()
        points = " ".join(f"{fraction(x / width)},{fraction(y / height)}" for x, y in shape.points)
        return "polygon", [
            ("left", fraction(left / width)),
            ("top", fraction(top / height)),
            ("points", points),
        ]
    left, top, w, h = shape.values
    place = [("left", fraction(left / width)), ("top", fraction(top / height))]
    if shape.shape is MaskShape.ELLIPSE:
        return "ellipse", [
            *place,
            ("rx", fraction(w / 2 / width)),
            ("ry", fraction(h / 2 / height)),
        ]
    return "rect", [*place, ("width", fraction(w / width)), ("height", fraction(h / height))]


def occlusion_field(
    shapes: Sequence[Mask | Label], width: float, height: float, *, hide_all: bool
) -> str:
    """The Occlusion field of a picture ``width`` by ``height`` pixels with these masks
    and labels, in their order."""
    out = []
    for item in shapes:
        name, properties = _shape(item, width, height)
        if hide_all:
            properties.append(("oi", "1"))
        written = "".join(f":{key}={_escaped(value)}" for key, value in properties)
        number = item.card if isinstance(item, Mask) else 0
        out.append(f"{{{{c{number}::image-occlusion:{name}{written}}}}}<br>")
    return "".join(out)


@dataclass(frozen=True)
class ReadShape:
    """One shape of an Occlusion field as Anki reads it: its card number (0: a label),
    its shape's name and its properties, in order."""

    number: int
    shape: str
    properties: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        return next((value for name, value in self.properties if name == key), None)


_DELETION = re.compile(r"\{\{c(\d+)::image-occlusion:(.*?)\}\}(<br>)?", re.DOTALL)
# ':name=value', a value's ':' and '\' escaped with '\' (parse_image_cloze in
# rslib/src/image_occlusion/imageocclusion.rs).
_PROPERTY = re.compile(r":([^=]+?)=((?:[^\\:]|\\[\\:])*)")
_UNESCAPE = re.compile(r"\\([\\:])")


def read_shape(text: str) -> tuple[str, tuple[tuple[str, str], ...], str]:
    """What follows ``image-occlusion:`` in a deletion: the shape's name, its properties
    in order (values unescaped), and what is left that does not read as properties."""
    name, _, tail = text.partition(":")
    tail = ":" + tail if tail else ""
    properties = []
    at = 0
    while (prop := _PROPERTY.match(tail, at)) is not None and prop.end() > at:
        properties.append((prop.group(1), _UNESCAPE.sub(r"\1", prop.group(2))))
        at = prop.end()
    return name, tuple(properties), tail[at:]


def read_occlusion_field(text: str) -> tuple[list[ReadShape], str]:
    """The shapes of an Occlusion field, in order, and whatever else the field holds
    (text between and around them, '' when it is only shapes each followed by
    ``<br>``, as the editor writes it)."""
    shapes: list[ReadShape] = []
    rest: list[str] = []
    pos = 0
    for found in _DELETION.finditer(text):
        rest.append(text[pos : found.start()])
        if found.group(3) is None:
            rest.append("(no <br>)")
        pos = found.end()
        name, properties, unread = read_shape(found.group(2))
        if unread:
            rest.append(unread)
        shapes.append(ReadShape(int(found.group(1)), name, properties))
    rest.append(text[pos:])
    return shapes, "".join(rest)
