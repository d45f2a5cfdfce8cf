"""Image occlusion decks for the tests (issue 42): a project with a real picture and the
issue's card file, built through the application layer."""

from __future__ import annotations

import io
import time
from pathlib import Path

from deckbuilder import app

# Anki stamps a note type it adds with its own clock, and updates it only from a package
# whose note type is newer: builds are dated after today.
T0 = int(time.time()) + 86_400
T1 = T0 + 86_400

WIDTH, HEIGHT = 400, 300
PICTURE_RGB = (40, 80, 160)  # one colour: what shows where no mask is

# The card file (its comments after text values left out: the card format
# refuses ' #' after text, which YAML would cut off).
HEART = """\
deck: Anatomy::Heart
id: heart
notes:
  - id: heart-chambers
    type: image-occlusion
    image: heart.png                 # from media/, like any picture
    header: Chambers of the heart
    back_extra: Blood enters through the atria.
    mode: {mode}                   # hide-all (default) or hide-one
    masks:
      - rect: [120, 40, 80, 60]      # left, top, width, height in the image's pixels
      - ellipse: [300, 200, 40, 30]  # left, top, width, height of its box
      - polygon: [[10, 10], [60, 10], [35, 50]]
      - rect: [20, 220, 50, 20]
        card: 2                      # shares card 2 with the ellipse
      - text: RA
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
