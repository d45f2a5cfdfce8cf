"""Image occlusion notes in the card format (issue 42, item 1): the issue's note loads with
its cards as numbered, and each mistake is one line with the file and the line of the
mask at fault, exit status 1, no traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.model import ImageOcclusionNote
from deckbuilder.occlusion import Label, MaskShape, OcclusionMode, card_numbers
from tests.cardfile.loading import load_deck
from tests.conftest import Run
from tests.occlusion_decks import HEART, heart_project

CliRun = Callable[..., Run]


def test_the_issue_s_note_loads(tmp_path: Path) -> None:
    cards = heart_project(tmp_path)
    deck = load_deck(cards / "heart.yaml")
    (note,) = deck.notes
    assert isinstance(note, ImageOcclusionNote)
    assert (note.image, note.header, note.mode) == (
        "heart.png",
        "Chambers of the heart",
        OcclusionMode.HIDE_ALL,
    )
    masks = note.masks
    assert [(m.shape, m.card) for m in masks] == [
        (MaskShape.RECT, 1),
        (MaskShape.ELLIPSE, 2),
        (MaskShape.POLYGON, 3),
        (MaskShape.RECT, 2),
    ]
    assert masks[2].points == ((10, 10), (60, 10), (35, 50))
    assert isinstance(note.shapes[-1], Label) and note.shapes[-1].text == "RA"
    assert note.card_ordinals == (0, 1, 2)
    assert deck.counts() == {"image-occlusion": (1, 3)}


@pytest.mark.parametrize(
    ("given", "cards"),
    [
        ([None, None, None, 2], (1, 2, 3, 2)),  # the issue's
        ([1, None, None], (1, 2, 3)),
        ([3, 1, 2, None], (3, 1, 2, 4)),  # reordered numbered masks, one added at the end
        ([None, 1, None], (1, 1, 2)),
    ],
)
def test_masks_without_a_number_take_the_next_card(
    given: list[int | None], cards: tuple[int, ...]
) -> None:
    assert card_numbers(given) == cards


def _run(tmp_path: Path, cli: CliRun, old: str, new: str) -> list[str]:
    """check on the issue's card file with ``old`` replaced by ``new``: the lines of its
    error output, after asserting one problem, exit 1 and no traceback."""
    text = HEART.format(mode="hide-all")
    assert old in text
    heart_project(tmp_path, text=text.replace(old, new, 1))
    result = cli("check", tmp_path / "cards", "--media", tmp_path / "media")
    assert result.code == 1, result
    assert "Traceback" not in result.err
    return [line for line in result.err.splitlines() if line.startswith(str(tmp_path))]


def _line(text: str, written: str) -> int:
    return text.splitlines().index(written) + 1


# (what is replaced, by what, the line the problem is on, words of the message)
MISTAKES = [
    ("rect: [120, 40, 80, 60]", "rect: [120, 40, 0, 60]", 11, "is 0 wide or high"),
    ("rect: [120, 40, 80, 60]", "rect: [380, 40, 80, 60]", 11, "reaches outside the picture"),
    ("ellipse: [300, 200, 40, 30]", "ellipse: [300, 290, 40, 30]", 12, "outside the picture"),
    (
        "polygon: [[10, 10], [60, 10], [35, 50]]",
        "polygon: [[10, 10], [60, 10], [35, 10]]",
        13,
        "no area",
    ),
    ("rect: [20, 220, 50, 20]", "rect: [-5, 220, 50, 20]", 14, "outside the picture"),
    ("card: 2  ", "card: 9  ", 14, "cards 4, 5, 6, 7, 8 have no mask"),
    ("card: 2  ", "card: 0  ", 15, "must be a card number from 1 to 500"),
    ("at: [200, 120]", "at: [500, 120]", 16, "outside the picture"),
    ("image: heart.png", "image: lung.png", 6, "media file 'lung.png' not found"),
    ("mode: hide-all", "mode: hide-some", 9, "'mode' must be hide-all or hide-one"),
    ("        at: [200, 120]\n", "        at: [200, 120]\n        card: 1\n", 18, "never a card"),
    # (a label is one text for every language: a map is no text, told once, not also empty)
    ("- text: RA  ", "- text: {ko: 우심방, en: RA}  ", 16, "'masks[4].text' must be text"),
    ("- text: RA  ", "- text:  ", 16, "'masks[4].text' must be text"),
]


@pytest.mark.parametrize(("old", "new", "line", "words"), MISTAKES)
def test_each_mistake_is_one_located_line(
    tmp_path: Path, cli: CliRun, old: str, new: str, line: int, words: str
) -> None:
    (problem,) = _run(tmp_path, cli, old, new)
    assert problem.startswith(f"{tmp_path / 'cards' / 'heart.yaml'}:{line}:"), problem
    assert words in problem


def test_an_unreadable_picture_is_refused(tmp_path: Path, cli: CliRun) -> None:
    heart_project(tmp_path)
    (tmp_path / "media" / "heart.png").write_bytes(b"not a picture at all")
    result = cli("check", tmp_path / "cards", "--media", tmp_path / "media")
    assert result.code == 1 and "Traceback" not in result.err
    (problem,) = [line for line in result.err.splitlines() if "heart.png" in line]
    assert (
        f"heart.yaml:{_line(HEART, '    image: heart.png                 # from media/, like any picture')}:"
        in problem
    )
    assert "cannot be read" in problem


def test_a_picture_anki_cannot_open_in_its_mask_editor_is_refused(
    tmp_path: Path, cli: CliRun
) -> None:
    heart_project(tmp_path, text=HEART.format(mode="hide-all").replace("heart.png", "heart.bmp"))
    (tmp_path / "media" / "heart.bmp").write_bytes(b"BM")
    result = cli("check", tmp_path / "cards", "--media", tmp_path / "media")
    assert result.code == 1 and "not one Anki's mask editor opens" in result.err


def test_a_picture_without_its_size_names_its_kind(tmp_path: Path, cli: CliRun) -> None:
    """ "Is it an SVG picture?", with the article the letters take."""
    heart_project(tmp_path, text=HEART.format(mode="hide-all").replace("heart.png", "heart.svg"))
    (tmp_path / "media" / "heart.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><circle r="2"/></svg>',
        encoding="utf-8",
    )
    result = cli("check", tmp_path / "cards", "--media", tmp_path / "media")
    assert result.code == 1
    assert "its size is not in its header; is it an SVG picture? (an SVG picture needs" in (
        result.err
    )
