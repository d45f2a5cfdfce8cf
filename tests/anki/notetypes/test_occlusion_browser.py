"""Image occlusion cards as the clients draw them (issue 42, items 2 and 4): the cards
Anki's backend renders from a built package, played in headless Chromium with Anki's own
reviewer JavaScript (tests/browser.py: Anki desktop's page, and AnkiDroid's card page
with the bundle it loads from Anki). The picture's colours are read from screenshots:
on the front, the card's masks in Anki's active colour over the right region, the
other cards' masks in the inactive colour in hide-all mode and not at all in hide-one;
the back reveals the card's own. Screenshots go to test-artifacts/occlusion/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser import DESKTOP, PHONE, CardSides, card_sides, player
from tests.conftest import import_package
from tests.occlusion_decks import (
    CANVAS_DRAWN,
    build,
    colours,
    expected_back,
    expected_front,
    heart_project,
    near,
)

pytestmark = [pytest.mark.browser, pytest.mark.anki]


def _cards(tmp_path: Path, col: Any, mode: str) -> list[CardSides]:
    heart_project(tmp_path, mode=mode)
    import_package(col, build(tmp_path))
    (nid,) = col.find_notes("")
    cards = sorted(col.get_note(nid).cards(), key=lambda card: card.ord)
    return [card_sides(col, card.id) for card in cards]


def _check(p: Any, wanted: dict[tuple[float, float], tuple[int, int, int]], name: str) -> None:
    p.page.wait_for_function(CANVAS_DRAWN, timeout=10_000)
    box = p.page.locator("#image-occlusion-container")
    at = colours(box.screenshot())
    wrong = {point: at(point) for point, colour in wanted.items() if not near(at(point), colour)}
    p.screenshot(f"occlusion/{name}")
    assert not wrong, f"{name}: {wrong} (wanted {[wanted[point] for point in wrong]})"


@pytest.mark.parametrize("client", ["desktop", "ankidroid"])
@pytest.mark.parametrize("mode", ["hide-all", "hide-one"])
@pytest.mark.parametrize(
    ("night", "viewport"),
    [(False, PHONE), (True, PHONE), (False, DESKTOP)],
    ids=["day-phone", "night-phone", "day-desktop"],
)
def test_each_card_hides_its_masks_and_the_back_reveals_them(
    tmp_path: Path,
    collection: Any,
    browser: Any,
    client: str,
    mode: str,
    night: bool,
    viewport: dict[str, int],
) -> None:
    cards = _cards(tmp_path, collection, mode)
    media = Path(collection.media.dir())
    options: dict[str, Any] = {"media_dir": media, "night": night, "viewport": viewport}
    if client == "ankidroid":
        options["extras"] = True
    hide_all = mode == "hide-all"
    look = f"{'night' if night else 'day'}-{viewport['width']}"
    with player(client, browser, **options) as p:
        for sides in cards:
            number = sides.ord + 1
            p.show_question(sides)
            _check(p, expected_front(number, hide_all), f"{client}-{mode}-{look}-c{number}-front")
            p.show_answer(sides)
            _check(p, expected_back(number, hide_all), f"{client}-{mode}-{look}-c{number}-back")
            assert not p.page.locator("#err").inner_text()
        assert p.errors == [] and p.external == [] and p.missing == []
