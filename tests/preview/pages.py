"""Helpers for the preview page tests: the page's card data, and its cards as a reader
reaches them in Chromium, page by page. Each side is in a sandboxed frame of an opaque
origin, which the page's own script cannot reach into; Playwright can, through its
frames."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["every_card_shown", "night_everywhere", "page_data", "side_contents", "side_text"]

_DATA = re.compile(r'<script type="application/json" id="pv-data">(.*?)</script>', re.DOTALL)


def page_data(text: str) -> dict[str, Any]:
    """The card data a preview page carries (see deckbuilder/preview/page.py)."""
    match = _DATA.search(text)
    assert match is not None, "no card data in the page"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def side_contents(text: str) -> list[tuple[str, int, str, str]]:
    """(note id, ordinal, front, back) of every card in a page's data: the content of
    each side, joined from its parts as the page script joins them."""
    data = page_data(text)

    def content(card: list[Any], side: int) -> str:
        return "".join(
            content(card, 3)
            if part == -1
            else (data["shared"][part] if isinstance(part, int) else part)
            for part in card[side]
        )

    return [
        (data["notes"][card[0]][0], card[1], content(card, 3), content(card, 4))
        for card in data["cards"]
    ]


# Every card a reader reaches with the Next button, from the first page on, as
# (note id, ordinal); the cards of each page are read as soon as it is shown.
EVERY_CARD = """() => {
  const first = document.querySelector('nav.pager button[aria-label="First page"]');
  if (!first.disabled) { first.click(); }
  const seen = [];
  for (;;) {
    document.querySelectorAll('#card-list .pv-card').forEach(
      c => seen.push([c.dataset.note, Number(c.dataset.ord)]));
    const next = document.querySelector('nav.pager button[aria-label="Next page"]');
    if (next.disabled) { return seen; }
    next.click();
  }
}"""


def every_card_shown(page: Any) -> list[tuple[str, int]]:
    """The cards of every page of the card list, in order, through the pager."""
    return [(note, ordinal) for note, ordinal in page.evaluate(EVERY_CARD)]


def side_text(page: Any, selector: str) -> str:
    """The text of the side whose frame ``selector`` finds ("" while there is none)."""
    frames = page.locator(selector)
    if not frames.count():
        return ""
    frame = frames.first.element_handle(timeout=2000).content_frame()
    if frame is None:
        return ""
    return str(frame.evaluate("() => document.body ? document.body.textContent : ''"))


def night_everywhere(page: Any, on: bool = True) -> None:
    """Wait until every side shown is in night mode (``on``) or in day mode: the page tells
    each frame by a message, which takes a moment."""
    wanted = "body.nightMode.night_mode" if on else "body:not(.nightMode)"
    frames = page.locator("#card-list iframe")
    for i in range(frames.count()):
        frames.nth(i).content_frame.locator(wanted).wait_for(state="attached")
