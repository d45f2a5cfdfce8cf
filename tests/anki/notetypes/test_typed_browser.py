"""Typed-answer cards played in headless Chromium, in AnkiDroid's and Anki desktop's models.

The HTML comes from the real Anki backend (packages built from tests/data/typed, imported,
then card.question()/card.answer()).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.notetypes import note_type
from deckbuilder.app.packages import build
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.model import NoteKind, TypedNote
from tests.browser import DESKTOP, PHONE, CardSides, Player, card_sides, contrast, luminance
from tests.browser import player as make_player
from tests.conftest import DATA, copied, import_package

pytestmark = [pytest.mark.browser, pytest.mark.anki]

CLIENTS = ["ankidroid", "desktop"]
SOURCE = DATA / "typed"

# card -> (typed text, verdict)
CASES: dict[str, list[tuple[str, str]]] = {
    "typed-english/tomb": [
        ("no one", "correct"),
        ("  NOBODY ", "correct"),  # case and surrounding space ignored
        ("No   one", "correct"),  # runs of spaces are one
        ("Grant", "incorrect"),
        ("", "unanswered"),
        ("   ", "unanswered"),
    ],
    "typed-english/capital": [("ottawa", "correct"), ("Toronto", "incorrect")],
    "typed-english/case": [("Co", "correct"), ("CO", "incorrect"), ("co", "incorrect")],
    "typed-english/pi-tolerance": [
        ("3.1415", "correct"),
        ("3.141", "correct"),  # the bounds are in
        ("3.142", "correct"),
        ("3,1416", "correct"),  # a comma as the decimal mark
        ("\uff13.\uff11\uff14\uff11\uff15", "correct"),  # full-width digits
        ("3.1421", "incorrect"),
        ("3.14", "incorrect"),
        ("pi", "incorrect"),
        ("3.1.4", "incorrect"),
    ],
    "typed-english/pi-range": [
        ("3.141", "correct"),
        ("3.142", "correct"),
        ("3.1415", "correct"),
        ("3.1409", "incorrect"),
        ("3.1421", "incorrect"),
    ],
    "typed-english/grant-born": [
        ("1822", "correct"),
        ("1822.0", "correct"),
        ("+1822", "correct"),
        ("Twenty-Two", "correct"),  # a text answer beside the number
        ("1823", "incorrect"),
        ("1,822", "incorrect"),  # a comma is a decimal mark: 1.822
    ],
    "typed-english/symbols": [("< &", "correct"), ("&lt; &amp;", "incorrect")],
    "typed-korean/capital": [("서울", "correct"), ("서울특별시", "correct"), ("부산", "incorrect")],
}
VERDICT_WORDS = {
    "en": {"correct": "Correct", "incorrect": "Incorrect", "unanswered": "Not answered"},
    "ko": {"correct": "정답입니다", "incorrect": "오답입니다", "unanswered": "답하지 않음"},
}


# card -> its cells in Anki's browser, Question and Answer columns
BrowseRows = dict[str, tuple[str, str]]


@pytest.fixture(scope="module")
def imported(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, CardSides], BrowseRows]]:
    """The typed cards as the real Anki backend renders them, and as its browser lists them."""
    from anki.collection import Collection

    tmp = tmp_path_factory.mktemp("typed")
    names = {
        note_guid(deck.key, note.id): f"{deck.key}/{note.id}"
        for deck in load_decks([SOURCE], lang="all")
        for note in deck.notes
    }
    col = Collection(str(tmp / "collection.anki2"))
    try:
        for result in build([copied(SOURCE, tmp / "copy")], tmp / "out", timestamp=1_700_000_000):
            import_package(col, result.path)
        col.set_browser_card_columns(["question", "answer"])
        found: dict[str, CardSides] = {}
        rows: BrowseRows = {}
        for cid in col.find_cards('"note:deckbuilder Typed Answer"'):
            name = names[col.get_card(cid).note().guid]
            found[name] = card_sides(col, cid)
            cells = [cell[0] for cell in col.browser_row_for_id(cid)[0]]
            rows[name] = (cells[0], cells[1])
        assert sorted(found) == sorted(CASES)
        yield found, rows
    finally:
        col.close()


@pytest.fixture(scope="module")
def cards(imported: tuple[dict[str, CardSides], BrowseRows]) -> dict[str, CardSides]:
    return imported[0]


def test_only_the_back_holds_the_answers(
    imported: tuple[dict[str, CardSides], BrowseRows],
) -> None:
    """The front once held the accepted answers in a hidden element: Anki's browser listed
    "What is the capital of Canada? Ottawa" as the question, and the front's page source
    gave the answers away."""
    sides, rows = imported
    notes = {
        f"{deck.key}/{note.id}": note
        for deck in load_decks([SOURCE], lang="all")
        for note in deck.notes
        if isinstance(note, TypedNote)
    }
    for name, card in sides.items():
        note = notes[name]
        question, answer = rows[name]
        assert question == note.question, name
        assert 'class="db-accept"' not in card.question, name
        assert 'data-min="' not in card.question, name
        for accepted in note.answers:
            shown = accepted.shown if accepted.is_number else accepted.text
            assert shown in answer, name
            assert escape(shown, quote=False) in card.answer, name


def open_player(client: str, browser: Any, **options: Any) -> Player:
    options.setdefault("viewport", PHONE if client == "ankidroid" else DESKTOP)
    return make_player(client, browser, **options)


def verdict(p: Player) -> str | None:
    found: list[str | None] = p.page.eval_on_selector_all(
        "[data-verdict]", "els => els.map((e) => e.getAttribute('data-verdict'))"
    )
    assert len(found) == 1, f"expected one [data-verdict] element, found {found}"
    return found[0]


def assert_clean(p: Player) -> None:
    assert p.errors == [], f"page errors in {p.client}: {p.errors}"
    assert p.external == [] and p.missing == []


@pytest.mark.parametrize("client", CLIENTS)
def test_typed_answers_are_judged(client: str, browser: Any, cards: dict[str, CardSides]) -> None:
    """Every case in a row in one tab: on desktop that is one long-lived page."""
    with open_player(client, browser) as p:
        for name, cases in CASES.items():
            lang = "ko" if "korean" in name else "en"
            for typed, expected in cases:
                where = f"{client} {name} {typed!r}"
                p.show_question(cards[name])
                assert p.page.locator("[data-verdict]").count() == 0, where
                assert p.page.locator(".db-accept").count() == 0, "front gives the answer away"
                if typed:
                    p.page.fill("input[data-typed]", typed)
                p.show_answer(cards[name])
                assert verdict(p) == expected, where
                shown = p.page.locator("[data-verdict]").inner_text()
                assert shown == VERDICT_WORDS[lang][expected], where
                given = p.page.locator("[data-typed-text]").inner_text()
                if expected != "unanswered":
                    assert given == typed, where
                assert p.page.locator(".db-accept").first.is_visible(), where
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_without_storage_the_back_is_unanswered(
    client: str, browser: Any, cards: dict[str, CardSides]
) -> None:
    with open_player(client, browser, storage=False) as p:
        card = cards["typed-english/capital"]
        p.show_question(card)
        p.page.fill("input[data-typed]", "Ottawa")
        p.show_answer(card)
        assert verdict(p) == "unanswered"
        assert p.page.locator(".db-accept").inner_text().endswith("Ottawa")
        assert_clean(p)


# How each client is asked to show the answer: the call Enter must make.
SHOW_ANSWER_PROBE = {
    "desktop": "window.__asked = []; window.bridgeCommand = (c) => { window.__asked.push(c); };",
    "ankidroid": "window.__asked = []; window.showAnswer = () => { window.__asked.push('ans'); };",
}


@pytest.mark.parametrize("client", CLIENTS)
def test_enter_shows_the_answer(client: str, browser: Any, cards: dict[str, CardSides]) -> None:
    card = cards["typed-english/capital"]
    with open_player(client, browser) as p:
        if client == "ankidroid":  # AnkiDroid's card page defines showAnswer() itself
            p.context.add_init_script(SHOW_ANSWER_PROBE[client])
        p.show_question(card)
        if client == "desktop":
            p.page.evaluate(SHOW_ANSWER_PROBE[client])
        p.page.fill("input[data-typed]", "ottawa")
        p.page.press("input[data-typed]", "Enter")
        # Desktop's reviewer sends other commands of its own over the same bridge.
        assert [c for c in p.page.evaluate("window.__asked") if c == "ans"] == ["ans"]
        p.show_answer(card)
        assert verdict(p) == "correct"
        assert_clean(p)


TEXT = ".db-question, .db-typed-input, .db-label, .db-typed-text, [data-verdict], .db-accept, .db-explanation"
CONTRAST_JS = """
(els) => els.filter((el) => el.offsetParent !== null).map((el) => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  let node = el, bg = null;
  while (node && node.nodeType === 1) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) { bg = c.slice(0, 3); break; }
    node = node.parentElement;
  }
  return { what: el.className || el.tagName, fg: rgb(getComputedStyle(el).color).slice(0, 3),
           bg: bg || [255, 255, 255] };
})
"""


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
def test_readable_day_and_night(
    client: str, night: bool, browser: Any, cards: dict[str, CardSides]
) -> None:
    """Contrast at least 4.5:1 on both sides, no script errors; screenshots in test-artifacts/typed/."""
    mode = "night" if night else "day"
    with open_player(client, browser, night=night) as p:
        for name, typed in (("typed-english/tomb", "Grant"), ("typed-korean/capital", "서울")):
            card = cards[name]
            p.show_question(card)
            p.page.fill("input[data-typed]", typed)
            for side, show in (("front", None), ("back", p.show_answer)):
                if show is not None:
                    show(card)
                body = p.page.evaluate("getComputedStyle(document.body).backgroundColor")
                dark = luminance([float(v) for v in re.findall(r"[\d.]+", body)[:3]]) < 0.2
                assert dark == night, f"{mode} mode body background is {body}"
                items = p.page.eval_on_selector_all(TEXT, CONTRAST_JS)
                assert items
                for item in items:
                    ratio = contrast(item["fg"], item["bg"])
                    assert ratio >= 4.5, f"{client} {mode} {name} {side}: {item} {ratio:.2f}"
                stem = f"typed/{client}-{mode}-{name.replace('/', '-')}-{side}"
                assert p.screenshot(stem).stat().st_size > 1000
        assert_clean(p)


def test_templates_are_files_and_load_nothing_from_outside() -> None:
    spec = note_type(NoteKind.TYPED)
    assert "<input" in spec.front and "data-typed" in spec.front
    for text in (spec.front, spec.back, spec.css):
        assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]|@import|<link|src=", text, re.I)
    script = re.search(r"<script>(.*?)</script>", spec.front, re.S)
    assert script is not None
    body = script.group(1)
    assert body.strip().startswith("/*") and "(function () {" in body
    assert not re.search(r"^(let|const|class|function)\b", body, re.M)


def test_page_plays_typed_cards() -> None:
    """The preview page gives typed cards their Flip button and kind name."""
    from deckbuilder.preview.page import preview_page
    from deckbuilder.preview.report import deck_settings, preview_deck
    from deckbuilder.render.deck import render_deck

    (deck,) = load_decks([SOURCE / "typed-korean.yaml"])
    rd = render_deck(deck)
    settings, origin = deck_settings(deck)
    html = preview_page(rd, preview_deck(deck, settings, 30, 0, origin))
    assert 'data-kind="typed"' in html and "typed answer" in html
    assert re.search(r'data-kind="typed".*?<button type="button" class="flip"', html, re.S)
