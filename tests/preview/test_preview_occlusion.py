"""Image occlusion cards on the preview page (issue 42, item 4): each card's frames draw
its masks as Anki's clients do (the page's own script, not Anki's), checked from
screenshots of the picture like the clients' (tests/anki/notetypes/
test_occlusion_browser.py), day and night, at desktop and phone width; the page's
counts and its card list have every card. Screenshots go to test-artifacts/occlusion/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.preview.page import preview_page
from deckbuilder.preview.report import preview_deck
from deckbuilder.preview.settings import settings_for
from tests.app_calls import check_decks
from tests.browser import ARTIFACTS, Context
from tests.occlusion_decks import (
    CANVAS_DRAWN,
    colours,
    expected_back,
    expected_front,
    heart_project,
    near,
)
from tests.preview.pages import page_data

pytestmark = pytest.mark.browser


def _page(root: Path, mode: str) -> Path:
    cards = heart_project(root, mode=mode)
    (rd,) = check_decks([cards / "heart.yaml"], media_dir=root / "media")
    chosen = settings_for(rd.deck)
    text = preview_page(rd, preview_deck(rd.deck, chosen, 365, 42))
    data = page_data(text)
    assert [card[1] for card in data["cards"]] == [0, 1, 2]
    assert "<td>3</td>" in text  # the counts: 1 note, 3 cards
    out = root / "heart.html"
    out.write_text(text, encoding="utf-8")
    return out


@pytest.fixture(params=["hide-all", "hide-one"])
def page(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    return _page(tmp_path, request.param), request.param


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    context = Context(browser, viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    opened = context.new_page()
    opened.on("pageerror", lambda e: errors.append(str(e)))
    yield opened
    assert errors == []
    assert [u for u in requests if not u.startswith(("file:", "data:", "about:"))] == []
    context.close()


def _side(tab: Any, ordinal: int, side: str) -> Any:
    handle = tab.wait_for_selector(f'.pv-card[data-ord="{ordinal}"] .{side} iframe')
    handle.scroll_into_view_if_needed()  # a frame out of sight is laid out only in view
    frame = handle.content_frame()
    frame.wait_for_function(CANVAS_DRAWN, timeout=10_000, polling=100)
    return frame


@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_each_card_s_frames_draw_its_masks(
    tab: Any, page: tuple[Path, str], night: bool, phone: bool
) -> None:
    path, mode = page
    tab.goto(path.resolve().as_uri(), wait_until="load")
    tab.wait_for_selector("html[data-cards-loaded=true]", state="attached")
    if night:
        tab.click("#night")
    if phone:
        tab.click("#phone")
    hide_all = mode == "hide-all"
    look = f"{'night' if night else 'day'}-{'phone' if phone else 'desktop'}"
    for ordinal in range(3):
        for side, expected in (("front", expected_front), ("back", expected_back)):
            frame = _side(tab, ordinal, side)
            at = colours(frame.locator("#image-occlusion-container").screenshot())
            wanted = expected(ordinal + 1, hide_all)
            wrong = {p: at(p) for p, colour in wanted.items() if not near(at(p), colour)}
            assert not wrong, f"card {ordinal + 1} {side} ({look}, {mode}): {wrong}"
            assert frame.locator("#err").inner_text() == ""
            if side == "back":  # Toggle Masks shows only when other masks hide
                assert frame.locator("#toggle").is_visible() == hide_all
    shot = ARTIFACTS / "occlusion" / f"preview-{mode}-{look}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    tab.locator(".pv-card").first.screenshot(path=str(shot))


def test_toggle_masks_hides_the_other_cards_masks(tab: Any, tmp_path: Path) -> None:
    path = _page(tmp_path, "hide-all")
    tab.goto(path.resolve().as_uri(), wait_until="load")
    frame = _side(tab, 0, "back")
    frame.click("#toggle")
    at = colours(frame.locator("#image-occlusion-container").screenshot())
    wanted = expected_back(1, hide_all=False)  # the other masks gone too
    assert all(near(at(p), colour) for p, colour in wanted.items())
