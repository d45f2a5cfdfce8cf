"""The preview page shows notes of the author's own note types (issue 41, item 6): each
card rendered from its own template and CSS, labelled with the note type's name, counted
in the table, with a speak button where the template speaks."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser import Context
from tests.cardfile.test_declared_types import VOCAB
from tests.conftest import Run

DECK = VOCAB + (
    "  - id: thanks\n    type: vocab\n    fields:\n      English: thank you\n"
    "      Example: '**감사합니다**'\n"
)


@pytest.fixture
def page(tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "vocab.yaml").write_text(DECK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = cli("preview", "--html")
    assert result.code == 0, result.err
    return tmp_path / "output" / "ko-vocab.html"


def _data(page: Path) -> Any:
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="pv-data">(.*?)</script>', text, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_cards_counts_and_labels(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "<th scope='row'>Korean vocabulary</th><td>2</td><td>3</td>" in text
    data = _data(page)
    assert data["kinds"]["vocab"] == "Korean vocabulary"
    assert [(data["notes"][c[0]][0], c[1]) for c in data["cards"]] == [
        ("hello", 0),
        ("hello", 1),
        ("thanks", 1),  # no Korean: no Recognition card, as in Anki
    ]


def test_each_side_renders_from_its_own_template(browser: Any, page: Path) -> None:
    tab = browser.new_page()
    try:
        tab.goto(page.as_uri())
        tab.wait_for_selector("html[data-cards-loaded=true]")
        cards = tab.locator(".pv-card")
        assert cards.count() == 3
        first = tab.frame_locator("#card-hello-1 .front iframe")
        assert first.locator("body").inner_text().startswith("안녕하세요")
        button = first.locator("button.db-preview-tts")
        assert button.get_attribute("data-lang") == "ko_KR"
        back = tab.frame_locator("#card-thanks-2 .back iframe")
        assert "감사합니다" not in back.locator("body").inner_text()  # Production's back: Korean
        assert tab.locator("#card-hello-1 .kind").inner_text() == "Korean vocabulary"
        size = first.locator(".card").evaluate("e => getComputedStyle(e).fontSize")
        assert size == "24px"  # the note type's own CSS
    finally:
        tab.close()


@pytest.mark.browser
def test_night_mode_gives_a_declared_card_ankis_dark_canvas(browser: Any, page: Path) -> None:
    """A note type whose CSS says nothing of colours showed a white card on the dark
    page: Anki's reviewer gives body.nightMode its dark canvas and light text over any
    .card styling (ts/reviewer/reviewer.scss), and the page's frames now do too."""
    context = Context(browser, color_scheme="dark")
    tab = context.new_page()
    try:
        tab.goto(page.as_uri())
        tab.wait_for_selector("html[data-cards-loaded=true]")
        body = tab.frame_locator("#card-hello-1 .front iframe").locator("body")
        assert "nightMode" in (body.get_attribute("class") or "")
        colours = body.evaluate(
            "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]"
        )
        assert colours == ["rgb(44, 44, 44)", "rgb(252, 252, 252)"]
    finally:
        context.close()
