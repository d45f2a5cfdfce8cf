"""Image occlusion notes of an Anki package, as card-file notes (issue 42, item 3).

Anki knows an image occlusion note type by its originalStockKind (6); its fields are, in
order, Occlusion, Image, Header, Back Extra and Comments. The Occlusion field's shapes
(:func:`deckbuilder.anki.occlusion.read_occlusion_field`) are fractions of the picture's
size: they come back as the picture's pixels, read from the picture the package holds,
exactly (a fraction of four decimals times a whole number of pixels has at most four
decimals), so that a build writes the field back as it was. The note type is kept as
the collection has it (its id above all), so that Anki updates the notes in place.

A note whose masks the card format cannot hold (a turned or coloured mask, a scaled
label, masks hiding all and one at once) is left out with the reason, as is one whose
picture the package lacks.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from html import unescape

import imagesize

from deckbuilder.anki.collection import AnkiNote, AnkiNoteType
from deckbuilder.anki.notetypes import NoteTypeSpec, note_type
from deckbuilder.anki.occlusion import ReadShape, occlusion_field, read_occlusion_field
from deckbuilder.cardfile.occlusion import LABEL_SIZE
from deckbuilder.cloze import HIGHEST_CARD_NUMBER
from deckbuilder.importers.html_markdown import field_markdown
from deckbuilder.model import ImageOcclusionNote, NoteKind
from deckbuilder.note_types import IO_FIELDS, IO_STOCK_KIND
from deckbuilder.occlusion import (
    DEFAULT_TEXT_SIZE,
    Label,
    Mask,
    MaskShape,
    OcclusionMode,
    missing_cards,
)

OWN_OCCLUSION_ID = note_type(NoteKind.IMAGE_OCCLUSION).id
_IMG = re.compile(r"""<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
# The properties the card format holds, by shape (besides 'oi', the mode).
_HELD = {
    "rect": ("left", "top", "width", "height"),
    "ellipse": ("left", "top", "rx", "ry"),
    "polygon": ("left", "top", "points"),
    "text": ("left", "top", "text", "scale", "fs"),
}


def is_occlusion_type(anki_type: AnkiNoteType) -> bool:
    """Whether Anki knows the note type as image occlusion, with the stock fields."""
    return (
        anki_type.stock_kind == IO_STOCK_KIND
        and anki_type.is_cloze
        and len(anki_type.fields) == len(IO_FIELDS)
        and len(anki_type.templates) == 1
    )


@dataclass
class Occlusions:
    """What the notes of one image occlusion note type became."""

    notes: list[tuple[AnkiNote, ImageOcclusionNote]]
    left_out: list[tuple[AnkiNote, str]]  # with the reason
    inexact: list[AnkiNote]  # notes whose Occlusion field a build writes otherwise
    spec: NoteTypeSpec | None  # the collection's note type (None: deckbuilder's own)


def occlusion_notes(
    anki_type: AnkiNoteType, notes: list[AnkiNote], media: dict[str, bytes]
) -> Occlusions:
    out = Occlusions([], [], [], None if anki_type.id == OWN_OCCLUSION_ID else _spec(anki_type))
    sizes: dict[str, tuple[float, float] | None] = {}
    for anki_note in notes:
        found = _note(anki_note, media, sizes)
        if isinstance(found, str):
            out.left_out.append((anki_note, found))
            continue
        note, exact = found
        out.notes.append((anki_note, note))
        if not exact:
            out.inexact.append(anki_note)
    return out


def in_collection(anki_type: AnkiNoteType) -> NoteTypeSpec:
    """The collection's image occlusion note type as the collection has it."""
    return replace(
        anki_type.spec(NoteKind.IMAGE_OCCLUSION),
        cloze=True,
        sort_field=anki_type.sort_field,
        stock_kind=IO_STOCK_KIND,
        field_tags=note_type(NoteKind.IMAGE_OCCLUSION).field_tags,
    )


def _spec(anki_type: AnkiNoteType) -> NoteTypeSpec:
    """The collection's image occlusion note type (its id, name and fields) with Anki's
    own templates and CSS: their script is what draws the masks, and the one a card file
    keeps is the copy deckbuilder ships of Anki's (a package's could carry any script
    under the same kind, issue 45). A collection whose templates differ gets Anki's in
    place on the next import (see :func:`restyled`)."""
    own = note_type(NoteKind.IMAGE_OCCLUSION)
    spec = in_collection(anki_type)
    return replace(
        spec,
        template_name=own.template_name,
        front=own.front,
        back=own.back,
        css=own.css,
        keep_scripts=True,
    )


def restyled(anki_type: AnkiNoteType) -> bool:
    """Whether the collection's image occlusion templates or CSS are not Anki's own."""
    own = note_type(NoteKind.IMAGE_OCCLUSION)
    ((_, front, back),) = anki_type.templates
    return (front, back, anki_type.css) != (own.front, own.back, own.css)


def _size(
    name: str, media: dict[str, bytes], sizes: dict[str, tuple[float, float] | None]
) -> tuple[float, float] | None:
    """The picture's width and height: whole pixels, but decimals for an SVG (imagesize
    reads its width and height attributes as floats)."""
    if name not in sizes:
        data = media.get(name)
        size = None
        if data is not None:
            try:
                width, height = imagesize.get(io.BytesIO(data))
            except (OSError, ValueError):
                width, height = -1, -1
            size = (width, height) if width > 0 and height > 0 else None
        sizes[name] = size
    return sizes[name]


def _note(
    anki_note: AnkiNote, media: dict[str, bytes], sizes: dict[str, tuple[float, float] | None]
) -> tuple[ImageOcclusionNote, bool] | str:
    """The note in the card format and whether a build writes its Occlusion field back
    as it is; or why it cannot come in."""
    occlusion, image, header, back_extra, comments = anki_note.fields
    src = _IMG.search(image)
    if src is None:
        return "its Image field shows no picture"
    name = unescape(src.group(1))
    if name not in media:
        return f"the package does not hold its picture '{name}'"
    size = _size(name, media, sizes)
    if size is None:
        return f"its picture '{name}' cannot be read (not a PNG, JPEG, GIF, WebP or SVG)"
    width, height = size
    read, rest = read_occlusion_field(occlusion)
    if rest.replace("<br>", "").strip():
        return "its Occlusion field holds more than masks"
    if not read:
        return "it has no masks"
    flags = {shape.get("oi") == "1" for shape in read}
    if len(flags) > 1:
        return "some of its masks hide all and others one"
    shapes: list[Mask | Label] = []
    for number, shape in enumerate(read):
        made = _shape(shape, width, height)
        if not isinstance(made, str):
            made = _unheld(made) or made
        if isinstance(made, str):
            return f"its shape {number + 1} {made}"
        shapes.append(made)
    cards = sorted({shape.card for shape in shapes if isinstance(shape, Mask)})
    skipped = missing_cards(cards)
    if skipped:
        on = ", ".join(str(card) for card in cards[:-1]) + f" and {cards[-1]}"
        return (
            f"its masks skip card {skipped[0]} (they are on cards {on}), which the card "
            "format does not hold"
        )
    hide_all = flags == {True}
    note = ImageOcclusionNote(
        id="",
        line=0,
        tags=anki_note.tags,
        guid=anki_note.guid,
        image=name,
        mode=OcclusionMode.HIDE_ALL if hide_all else OcclusionMode.HIDE_ONE,
        shapes=tuple(shapes),
        header=field_markdown(header).markdown,
        back_extra=field_markdown(back_extra).markdown,
        comments=field_markdown(comments).markdown,
    )
    exact = occlusion_field(shapes, width, height, hide_all=hide_all) == occlusion
    return note, exact


def _pixels(value: str | None, size: float, times: int = 1) -> float | None:
    """A fraction of ``size`` (times ``times``) as pixels, computed exactly, None when it
    is no number."""
    try:
        number = Decimal(value or "x") * Decimal(size) * times
    except InvalidOperation:
        return None
    return float(number) if number.is_finite() else None


def _unheld(shape: Mask | Label) -> str | None:
    """What the card format refuses in a shape Anki holds (the loader's rules: each mask
    on the picture, hiding something, on a card it can number; a label's size within
    bounds), None when nothing."""
    if isinstance(shape, Label):
        left, top = shape.left, shape.top
        if not LABEL_SIZE.low <= shape.size <= LABEL_SIZE.high:  # type: ignore[operator]
            return (
                f"is a label of font size {shape.size:g}; the card format holds "
                f"{LABEL_SIZE.low:g} to {LABEL_SIZE.high:g}"
            )
    else:
        left, top, _, _ = shape.bounds()
        if shape.area <= 0:
            empty = "has no area" if shape.shape is MaskShape.POLYGON else "is 0 wide or high"
            return f"{empty}: it hides nothing"
        if shape.card > HIGHEST_CARD_NUMBER:
            return (
                f"is on card {shape.card}; the card format holds cards 1 to {HIGHEST_CARD_NUMBER}"
            )
    if left < 0 or top < 0:
        return "reaches left of or above the picture"
    return None


def _shape(shape: ReadShape, width: float, height: float) -> Mask | Label | str:
    held = _HELD.get(shape.shape)
    if held is None:
        return f"is a '{shape.shape}', which Anki's editor does not make"
    other = [name for name, _ in shape.properties if name not in (*held, "oi")]
    if other:
        return f"has {', '.join(other)} ({shape.shape}), which the card format does not hold"
    left, top = _pixels(shape.get("left"), width), _pixels(shape.get("top"), height)
    if left is None or top is None:
        return "has no position"
    if shape.shape == "text":
        if shape.number != 0:
            return "is a label on a card of its own"
        scale = shape.get("scale")
        if scale is not None:
            times = _pixels(scale, 1)
            if times is None:
                return "is a label whose scale is no number"
            if times != 1:
                return (
                    "is a label drawn larger or smaller (scale), which the card format does "
                    "not hold"
                )
        size = _pixels(shape.get("fs"), height)
        return Label(shape.get("text") or "", left, top, size or DEFAULT_TEXT_SIZE)
    if shape.number < 1:
        return "is a mask on no card"
    if shape.shape == "polygon":
        points = []
        for pair in (shape.get("points") or "").split():
            x, _, y = pair.partition(",")
            px, py = _pixels(x, width), _pixels(y, height)
            if px is None or py is None:
                return "has a point that is no number"
            points += [px, py]
        if len(points) < 6:
            return "is a polygon of fewer than 3 points"
        return Mask(MaskShape.POLYGON, tuple(points), shape.number)
    # An ellipse is held by the box around it: twice its radii.
    first, second, times = ("width", "height", 1) if shape.shape == "rect" else ("rx", "ry", 2)
    across = _pixels(shape.get(first), width, times)
    down = _pixels(shape.get(second), height, times)
    if across is None or down is None:
        return "has no size"
    return Mask(MaskShape(shape.shape), (left, top, across, down), shape.number)
