"""Image occlusion decks for the tests (issue 42): a project with a real picture and the
issue's card file, built through the application layer."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

from deckbuilder import app

# Anki stamps a note type it adds with its own clock, and updates it only from a package
# whose note type is newer: builds are dated after today.
T0 = int(time.time()) + 86_400
T1 = T0 + 86_400

WIDTH, HEIGHT = 400, 300
PICTURE_RGB = (40, 80, 160)  # one colour: what shows where no mask is

# The card file, exactly (its comments set apart by two spaces or more are
# comments; one space before ' #' after text would be refused).
HEART = """\
deck: Anatomy::Heart
id: heart
notes:
  - id: heart-chambers
    type: image-occlusion
    image: heart.png                 # from media/, like any picture
    header: Chambers of the heart    # Markdown, optional
    back_extra: Blood enters through the atria.   # optional
    mode: {mode}                   # hide-all (default) or hide-one
    masks:
      - rect: [120, 40, 80, 60]      # left, top, width, height in the image's pixels
      - ellipse: [300, 200, 40, 30]  # left, top, width, height of its box
      - polygon: [[10, 10], [60, 10], [35, 50]]
      - rect: [20, 220, 50, 20]
        card: 2                      # shares card 2 with the ellipse (masks are cards 1, 2, 3... in order unless given)
      - text: RA                     # a label drawn on the picture, never a card
        at: [200, 120]
"""
# Each card's masks, as (shape, pixels): rect/ellipse boxes, polygon corners.
CARDS = {
    1: [("rect", (120, 40, 80, 60))],
    2: [("ellipse", (300, 200, 40, 30)), ("rect", (20, 220, 50, 20))],
    3: [("polygon", ((10, 10), (60, 10), (35, 50)))],
}


def picture(path: Path, size: tuple[int, int] = (WIDTH, HEIGHT), fmt: str = "PNG") -> Path:
    """A picture of one colour (Pillow, which matplotlib brings), or an SVG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "SVG":
        width, height = size
        path.write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
            f'<rect width="{width}" height="{height}" fill="rgb{PICTURE_RGB}"/></svg>',
            encoding="utf-8",
        )
        return path
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, PICTURE_RGB).save(buffer, format=fmt)
    path.write_bytes(buffer.getvalue())
    return path


def heart_project(root: Path, mode: str = "hide-all", text: str | None = None) -> Path:
    """``root`` with cards/heart.yaml and media/heart.png; returns the cards folder."""
    cards = root / "cards"
    cards.mkdir(parents=True, exist_ok=True)
    picture(root / "media" / "heart.png")
    (cards / "heart.yaml").write_text(text or HEART.format(mode=mode), encoding="utf-8")
    return cards


def build(root: Path, timestamp: int = T0) -> Path:
    """Build the project at ``root``; the package's path."""
    request = app.BuildRequest(
        timestamp,
        app.Selection(sources=(root / "cards",), media_dir=root / "media"),
        out_dir=root / "output",
        preview=False,
        lint=False,
    )
    (package,) = app.build(request).packages
    return package.path


# -- what a card shows, read from a screenshot of its picture --------------------------------
ACTIVE = (0xFF, 0x8E, 0x8E)  # Anki's --active-shape-color
INACTIVE = (0xFF, 0xEB, 0xA2)  # --inactive-shape-color
# Where to look inside each mask (a point well inside it), in the picture's pixels.
INSIDE = {1: [(160, 70)], 2: [(320, 215), (45, 230)], 3: [(35, 25)]}
OUTSIDE = [(380, 20), (100, 150), (250, 280)]  # under no mask or label

# Waits until the picture's canvas has something drawn on it.
CANVAS_DRAWN = """() => {
  const c = document.getElementById("image-occlusion-canvas");
  const img = document.querySelector("#image-occlusion-container img");
  if (!c || !c.width || !img || !img.complete) { return false; }
  const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  for (let i = 3; i < d.length; i += 4) { if (d[i]) { return true; } }
  return false;
}"""


def near(colour: tuple[int, ...], wanted: tuple[int, int, int], tolerance: int = 6) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour[:3], wanted, strict=True))


def colours(shot: bytes) -> Callable[[tuple[float, float]], tuple[int, ...]]:
    """The colour at a point of the picture (in its own pixels) in ``shot``, a PNG of the
    picture's box as the card shows it, at whatever scale."""
    from PIL import Image

    image = Image.open(io.BytesIO(shot)).convert("RGB")
    scale_x, scale_y = image.width / WIDTH, image.height / HEIGHT

    def at(point: tuple[float, float]) -> tuple[int, ...]:
        x, y = point
        pixel = image.getpixel((int(x * scale_x), int(y * scale_y)))
        assert isinstance(pixel, tuple)
        return pixel

    return at


def expected_front(card: int, hide_all: bool) -> dict[tuple[float, float], tuple[int, int, int]]:
    """The colour each sampled point should have on card ``card``'s front."""
    out = {point: PICTURE_RGB for point in OUTSIDE}
    for number, points in INSIDE.items():
        colour = ACTIVE if number == card else INACTIVE if hide_all else PICTURE_RGB
        out.update((point, colour) for point in points)
    return out


def expected_back(card: int, hide_all: bool) -> dict[tuple[float, float], tuple[int, int, int]]:
    """The back reveals the card's own masks; in hide-all mode the others stay hidden."""
    out = expected_front(card, hide_all)
    out.update((point, PICTURE_RGB) for point in INSIDE[card])
    return out
