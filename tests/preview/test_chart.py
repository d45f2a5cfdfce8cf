"""`preview --plot`: the forecast chart as PNG and SVG (matplotlib), and the inline SVG of
the preview page. A deck titled in Korean is drawn with real Hangul glyphs from the
installed fonts (no boxes: matplotlib would warn "Glyph ... missing", which the test
settings turn into an error), and the same forecast writes the same bytes."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import pytest

from deckbuilder.errors import RequestError
from deckbuilder.model import ClozeNote, Deck
from deckbuilder.preview.chart import chart_image, font_families, write_chart
from deckbuilder.preview.page_chart import forecast_svg
from deckbuilder.preview.report import DeckPreview, preview_deck
from deckbuilder.preview.settings import settings_for
from tests.conftest import ROOT, Run

KOREAN_TITLE = "ML 시스템::그래디언트 체크포인팅"
DAYS = 90


def is_hangul(character: str) -> bool:
    return "\uac00" <= character <= "\ud7a3"


@pytest.fixture(scope="module")
def preview() -> DeckPreview:
    notes = tuple(
        ClozeNote(id=f"n{i}", line=i + 1, text=f"{{{{c1::답 {i}}}}} {{{{c2::x}}}}")
        for i in range(8)
    )
    deck = Deck("gc", KOREAN_TITLE, Path("cards/gc.yaml"), notes)
    chosen = settings_for(deck)
    return preview_deck(deck, chosen, DAYS, 0)


def test_the_fonts_chosen_have_every_hangul_character_of_the_title() -> None:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    families = font_families(KOREAN_TITLE)
    covered: set[str] = set()
    for family in families:
        path = font_manager.findfont(
            font_manager.FontProperties(family=family), fallback_to_default=False
        )
        covered.update(map(chr, FT2Font(path).get_charmap()))
    hangul = {c for c in KOREAN_TITLE if is_hangul(c)}
    assert hangul <= covered, f"no installed font has {hangul - covered} (install fonts-nanum)"
    assert families[0] == "DejaVu Sans"


def title_glyphs(svg: str, title: str) -> list[str]:
    """The glyph ids the SVG draws ``title`` with, one per character: matplotlib writes
    each line of a text as a comment followed by one ``<use>`` of a glyph outline per
    character, named after the font and the glyph's index in it."""
    start = svg.index(f"<!-- {title}")
    ends = [svg.find(mark, start + 4) for mark in ('<g id="text_', "<!--")]
    end = min((e for e in ends if e > 0), default=len(svg))
    return re.findall(r'xlink:href="#([^"]+)"', svg[start:end])


def test_svg_draws_hangul_with_real_glyphs(preview: DeckPreview) -> None:
    svg = chart_image(preview, "svg").decode("utf-8")
    title = re.search(rf"<!-- ({re.escape(KOREAN_TITLE)}[^>]*) -->", svg)
    assert title is not None
    glyphs = title_glyphs(svg, title.group(1))
    assert len(glyphs) == len(title.group(1))
    hangul = dict.fromkeys(
        (c, glyph) for c, glyph in zip(title.group(1), glyphs, strict=True) if is_hangul(c)
    )
    assert len(hangul) == len({c for c in KOREAN_TITLE if is_hangul(c)})
    for character, glyph in hangul:
        assert not glyph.startswith("DejaVuSans-"), (character, glyph)  # DejaVu has no Hangul
        assert not glyph.startswith("LastResort"), (character, glyph)  # a placeholder shape
        assert not glyph.endswith("-0"), (character, glyph)  # glyph 0: the "missing" box
    # Each distinct character its own outline (missing glyphs would share one).
    assert len({glyph for _, glyph in hangul}) == len(hangul)


def test_png_is_drawn_without_missing_glyphs(preview: DeckPreview) -> None:
    from PIL import Image

    data = chart_image(preview, "png")  # a missing glyph would raise here (warning)
    with Image.open(io.BytesIO(data)) as image:
        # Four rows: the first 60 of the 90 days, then cards, minutes and memorized.
        assert image.size == (900, 60 + 4 * 200)
        colours = {colour[:3] for _, colour in image.convert("RGBA").getcolors(1 << 20) or []}
    assert (59, 110, 165) in colours  # review bars
    assert (60, 140, 90) in colours  # minutes and memorized lines


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_the_same_forecast_writes_the_same_bytes(
    preview: DeckPreview, tmp_path: Path, suffix: str
) -> None:
    first = write_chart(preview, tmp_path / f"one{suffix}").read_bytes()
    second = write_chart(preview, tmp_path / f"two{suffix}").read_bytes()
    assert first == second
    assert b"<dc:date>" not in first
    if suffix == ".svg":
        root = ElementTree.fromstring(first)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        ids = {e.get("id") for e in root.iter()}
        assert {"reviews", "new", "minutes", "memorized"} <= ids


def test_writing_to_an_unwritable_place_is_a_one_line_error(
    preview: DeckPreview, tmp_path: Path
) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    target = tmp_path / "blocker" / "chart.svg"
    with pytest.raises(RequestError, match=rf"^plot: cannot write {re.escape(str(target))}: "):
        write_chart(preview, target)
    with pytest.raises(ValueError, match=r"use \.svg or \.png"):
        write_chart(preview, tmp_path / "chart.jpg")


def test_page_chart_has_one_point_per_day_for_each_series(preview: DeckPreview) -> None:
    root = ElementTree.fromstring(forecast_svg(preview)).find("{http://www.w3.org/2000/svg}svg")
    assert root is not None and root.get("data-days") == str(DAYS)
    lines = list(root.iter("{http://www.w3.org/2000/svg}polyline"))
    assert [line.get("data-series") for line in lines] == ["reviews", "minutes", "memorized"]
    for line in lines:
        assert len((line.get("points") or "").split()) == DAYS
    assert KOREAN_TITLE in (root.findtext("{http://www.w3.org/2000/svg}title") or "")


def test_matplotlib_loads_only_when_a_chart_is_drawn() -> None:
    code = (
        "import sys, deckbuilder.cli, deckbuilder.preview.chart, deckbuilder.preview.page; "
        "print('matplotlib' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["Costs $x^$", "From $5 to $10", r"Roots: $\sqrt$ and $}$"])
def test_plot_draws_dollars_in_a_deck_name_as_written(
    tmp_path: Path, name: str, cli: Callable[..., Run]
) -> None:
    """matplotlib reads ``$...$`` as math: a deck named so stopped ``preview --plot`` with
    an internal error (issue 45). The title shows the name as written, a glyph for each
    character."""
    source = tmp_path / "one.yaml"
    escaped = name.replace("'", "''")
    source.write_text(
        f"deck: '{escaped}'\nid: one\nnotes:\n"
        "  - id: q1\n    type: basic\n    front: One?\n    back: One.\n",
        encoding="utf-8",
    )
    out = tmp_path / "chart.svg"
    run = cli("preview", source, "--days", "30", "--plot", out)
    assert run.code == 0, run.err
    svg = out.read_text(encoding="utf-8")
    title = f"{name}: 1 card"
    assert f"<!-- {title} -->" in svg
    assert len(title_glyphs(svg, title)) == len(title)
