"""Typed-answer cards played in headless Chromium, in AnkiDroid's and Anki desktop's models.

The HTML comes from the real Anki backend (packages built from tests/data/typed, imported,
then card.question()/card.answer()). The learner types where each client takes a
``{{type:...}}`` answer, and each client hands it to the back as the real one does (see
tests/browser.py, which names the clients' source): Anki desktop's in-card box, AnkiDroid's
native box under the card (its default), and AnkiDroid's in-card box ("Type answer into
the card").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.notetypes import note_type
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.model import NoteKind, TypedNote
from tests.app_calls import build_packages
from tests.browser import (
    DESKTOP,
    PHONE,
    TYPE_ANSWER,
    AnkiDroidPlayer,
    CardSides,
    Context,
    Player,
    card_sides,
    contrast,
    luminance,
)
from tests.browser import player as make_player
from tests.conftest import DATA, copied, import_package

pytestmark = [pytest.mark.browser, pytest.mark.anki]

# AnkiDroid as installed (its native answer box), AnkiDroid with "Type answer into the
# card" on, and Anki desktop.
CLIENTS = ["ankidroid", "ankidroid-in-card", "desktop"]
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
    # Issue 44: a number with its unit (unit: mg) is right with it or without it.
    "typed-english/dose": [
        ("500 mg", "correct"),
        ("500mg", "correct"),
        ("500", "correct"),
        ("500 MG", "correct"),
        ("500 g", "incorrect"),
        ("50 mg", "incorrect"),
    ],
    "typed-english/dose-bare": [("500", "correct"), ("500 mg", "incorrect")],
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
        for result in build_packages(
            [copied(SOURCE, tmp / "copy")], tmp / "out", timestamp=1_700_000_000
        ):
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
    options.setdefault("viewport", DESKTOP if client == "desktop" else PHONE)
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


# What the front of a typed card may hold as an input: nothing of its own; the box a client
# makes for {{type:Answers}} (an in-card one, except on AnkiDroid with its native box).
FRONT_INPUTS = {"ankidroid": [], "ankidroid-in-card": ["typeans"], "desktop": ["typeans"]}


def front_inputs(p: Player) -> list[str]:
    found: list[str] = p.page.eval_on_selector_all(
        "input, textarea, [contenteditable]", "els => els.map((e) => e.id)"
    )
    return found


def play(p: Player, card: CardSides, typed: str) -> None:
    """The front, the learner's answer where this client takes it, the back."""
    p.show_question(card)
    if typed:
        p.type_answer(typed)
    p.show_answer(card)


# What the test reads of each side, in one round trip to the page (a locator call is one
# each). Visible as Playwright has it: a box of some size, and not visibility: hidden.
READ_SIDE = """() => {
    const visible = (e) => {
        const box = e.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    const verdicts = [...document.querySelectorAll('[data-verdict]')];
    const accept = document.querySelector('.db-accept');
    const box = document.getElementById('typeans');
    return {
        verdicts: verdicts.map((e) => [e.getAttribute('data-verdict'), e.innerText]),
        accepts: document.querySelectorAll('.db-accept').length,
        inputs: [...document.querySelectorAll('input, textarea, [contenteditable]')].map((e) => e.id),
        typed: [...document.querySelectorAll('[data-typed-text]')].map((e) => e.innerText),
        accept_visible: accept !== null && visible(accept),
        box_hidden: box === null || !visible(box),
    };
}"""


@pytest.mark.parametrize("client", CLIENTS)
def test_typed_answers_are_judged(client: str, browser: Any, cards: dict[str, CardSides]) -> None:
    """Every case in a row in one tab (on desktop that is one long-lived page), typed where
    each client takes it and handed to the back as each client hands it over."""
    with open_player(client, browser) as p:
        for name, cases in CASES.items():
            lang = "ko" if "korean" in name else "en"
            for typed, expected in cases:
                where = f"{client} {name} {typed!r}"
                p.show_question(cards[name])
                front = p.page.evaluate(READ_SIDE)
                assert front["verdicts"] == [], where
                assert front["accepts"] == 0, "front gives the answer away"
                assert front["inputs"] == FRONT_INPUTS[client], where
                if typed:
                    p.type_answer(typed)
                p.show_answer(cards[name])
                back = p.page.evaluate(READ_SIDE)
                assert back["verdicts"] == [[expected, VERDICT_WORDS[lang][expected]]], where
                if expected != "unanswered":
                    assert back["typed"] == [typed], where
                assert back["accept_visible"], where
                # Anki's own comparison is against every answer run together: hidden.
                assert back["box_hidden"], where
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_without_storage_the_back_judges_what_the_client_hands_over(
    client: str, browser: Any, cards: dict[str, CardSides]
) -> None:
    """With sessionStorage refused, what was typed comes from the client's comparison
    alone, and every play gives the same verdict. AnkiDroid's in-card box hands its text
    over URL-decoded, so a typed "+" arrives as a space (which judges the same here)."""
    with open_player(client, browser, storage=False) as p:
        for name, cases in CASES.items():
            for typed, expected in cases:
                where = f"{client} {name} {typed!r}"
                play(p, cards[name], typed)
                assert verdict(p) == expected, where
                if expected != "unanswered":
                    arrived = typed.replace("+", " ") if client == "ankidroid-in-card" else typed
                    assert p.page.locator("[data-typed-text]").inner_text() == arrived, where
        assert_clean(p)


def test_in_card_box_text_wins_over_the_url_decoded_hand_over(
    browser: Any, cards: dict[str, CardSides]
) -> None:
    """AnkiDroid's in-card box sends its text to the app in a URL that the app decodes
    with java.net.URLDecoder, so "3+1" reaches Anki's comparison as "3 1"; the card reads
    its own box and judges what the learner typed."""
    card = cards["typed-english/grant-born"]
    with open_player("ankidroid-in-card", browser) as p:
        play(p, card, "+1822")
        assert p.typed == " 1822"  # what AnkiDroid compared
        assert p.page.locator("[data-typed-text]").inner_text() == "+1822"
        assert verdict(p) == "correct"
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_number_typed_with_a_unit_it_does_not_take_says_only_the_number_counts(
    client: str, browser: Any, cards: dict[str, CardSides]
) -> None:
    """Issue 44: "500 mg" for {number: 500} was wrong, and nothing on the card said that
    only the number counts."""
    with open_player(client, browser) as p:
        for name, typed, hinted in (
            ("typed-english/dose-bare", "500 mg", True),
            ("typed-english/dose-bare", "400 mg", False),
            ("typed-english/dose", "500 g", False),
            ("typed-english/dose-bare", "500", False),
        ):
            play(p, cards[name], typed)
            hint = p.page.locator(".db-typed-hint")
            assert hint.count() == hinted, (client, name, typed)
            if hinted:
                assert hint.inner_text() == "Only the number counts here: type it without a unit"
        assert_clean(p)


def test_the_native_box_is_ankidroids_default(browser: Any, cards: dict[str, CardSides]) -> None:
    """AnkiDroid as installed takes a {{type:}} answer in its native box under the card,
    which gets the system keyboard: the card shows only AnkiDroid's prompt in its place."""
    card = cards["typed-english/capital"]
    with open_player("ankidroid", browser) as p:
        p.show_question(card)
        assert isinstance(p, AnkiDroidPlayer) and p.native_box
        assert p.page.locator("#typeans.typePrompt").is_visible()
        p.type_answer("Ottawa")
        p.show_answer(card)
        assert "<span class=typeGood>Ottawa</span>" in p.page.content()
        assert verdict(p) == "correct"
        assert_clean(p)


# How each client is asked to show the answer when Enter is pressed in its in-card box.
@pytest.mark.parametrize("client", ["ankidroid-in-card", "desktop"])
def test_enter_shows_the_answer(client: str, browser: Any, cards: dict[str, CardSides]) -> None:
    """The client's own box handles Enter: desktop's reviewer sends "ans" over its bridge
    (reviewer.js _typeAnsPress), AnkiDroid's card page sends the app "typeentertext:"."""
    card = cards["typed-english/capital"]
    with open_player(client, browser) as p:
        p.show_question(card)
        if client == "desktop":
            p.page.evaluate(
                "window.__asked = []; window.bridgeCommand = (c) => { window.__asked.push(c); };"
            )
        p.type_answer("ottawa")
        p.page.press("#typeans", "Enter")
        if client == "desktop":
            # Desktop's reviewer sends other commands of its own over the same bridge.
            assert [c for c in p.page.evaluate("window.__asked") if c == "ans"] == ["ans"]
        else:
            p.page.evaluate("() => window.__ankidroidUrl('')")  # every URL has arrived
            assert isinstance(p, AnkiDroidPlayer) and p.asked == ["show_answer"]
        p.show_answer(card)
        assert verdict(p) == "correct"
        assert_clean(p)


def _with_answer(card: CardSides, shown: str) -> CardSides:
    """The card as a client shows it that puts ``shown`` where the back's [[type:...]] is,
    and nothing where the front's is."""
    return dataclasses.replace(
        card,
        question=TYPE_ANSWER.sub("", card.question),
        question_text=TYPE_ANSWER.sub("", card.question_text),
        answer=TYPE_ANSWER.sub(lambda _: shown, card.answer),
        answer_text=TYPE_ANSWER.sub(lambda _: shown, card.answer_text),
        type_answer=None,
    )


# Backs as other clients and versions show them (answer "Ottawa"), and the verdict each
# must give: the typed text where the comparison is in a shape the card knows, else none.
OTHER_BACKS = [
    # Anki desktop's browser previewer removes [[type:...]] (aqt/browser/previewer.py,
    # type_ans_preview_filter): nothing was typed there that the card can know of.
    pytest.param("", "unjudged", id="previewer"),
    # AnkiDroid before 2.17 made its own comparison (cardviewer/TypeAnswer.kt and
    # utils/DiffEngine.kt at 4390dbfc4b^): typed equal, with a check mark...
    pytest.param(
        '<div><code id="typeans"><span class="typeGood">Ottawa</span>'
        '<span id="typecheckmark">\u2714</span></code></div>',
        "correct",
        id="old-ankidroid-equal",
    ),
    # ... typed otherwise, the typed line first...
    pytest.param(
        '<div><code id="typeans"><span class="typeGood">Ott</span><span class="typeBad">o</span>'
        '<br><span id="typearrow">&darr;</span><br><span class="typeGood">Ott</span>'
        '<span class="typeMissed">awa</span></code></div>',
        "incorrect",
        id="old-ankidroid-diff",
    ),
    # ... nothing typed, in its native box.
    pytest.param(
        '<div><code id="typeans"><span class="typeMissed">Ottawa</span></code></div>',
        "unanswered",
        id="old-ankidroid-empty",
    ),
    # A comparison in a shape the card does not know: no verdict rather than a guess.
    pytest.param(
        "<code id=typeans><b>Ottawa</b> vs <i>ottawa</i></code>", "unjudged", id="unknown-shape"
    ),
]


@pytest.mark.parametrize(("shown", "expected"), OTHER_BACKS)
def test_a_back_that_cannot_judge_shows_answers_and_what_was_typed(
    shown: str, expected: str, browser: Any, cards: dict[str, CardSides], request: Any
) -> None:
    """Where the card cannot read what was typed, it says so ("unjudged") and shows the
    client's own comparison (which holds what was typed) beside the accepted answers;
    it never gives a verdict it cannot know."""
    card = _with_answer(cards["typed-english/capital"], shown)
    with open_player("ankidroid", browser, storage=False) as p:
        p.show_question(card)
        p.show_answer(card)
        assert verdict(p) == expected
        assert p.page.locator(".db-accept").inner_text().endswith("Ottawa")
        if expected == "unjudged":
            assert p.page.locator("[data-verdict]").inner_text() == (
                "Compare your answer with the accepted answers"
            )
            assert p.page.locator(".db-typed-given").is_hidden()
            if shown:
                assert p.page.locator("#typeans").is_visible()
        else:
            assert p.page.locator("#typeans").is_hidden()
        p.screenshot(f"typed/other-back-{request.node.callspec.id}")
        assert_clean(p)


TEXT = (
    ".db-question, #typeans, .db-label, .db-typed-text, [data-verdict], .db-accept, .db-explanation"
)
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
    """Contrast at least 4.5:1 on both sides, no script errors; screenshots at phone width in
    test-artifacts/typed/."""
    mode = "night" if night else "day"
    with open_player(client, browser, night=night, viewport=PHONE) as p:
        for name, typed in (("typed-english/tomb", "Grant"), ("typed-korean/capital", "서울")):
            card = cards[name]
            p.show_question(card)
            p.type_answer(typed)
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
    """The learner types into Anki's own {{type:}} box: the front holds no input of its
    own (AnkiDroid gives one no keyboard while reviewing: AnkiDroid issue #18063)."""
    spec = note_type(NoteKind.TYPED)
    assert "{{type:Answers}}" in spec.front and "{{type:Answers}}" in spec.back
    markup = re.sub(r"<script>.*?</script>", "", spec.front + spec.back, flags=re.S)
    assert not re.search(r"<input|<textarea|contenteditable", markup, re.I)
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
    from deckbuilder.preview.report import preview_deck
    from deckbuilder.preview.settings import settings_for
    from deckbuilder.render.deck import render_deck
    from tests.preview.pages import page_data

    (deck,) = load_decks([SOURCE / "typed-korean.yaml"])
    rd = render_deck(deck)
    chosen = settings_for(deck)
    data = page_data(preview_page(rd, preview_deck(deck, chosen, 30, 0)))
    assert {note[1] for note in data["notes"]} == {"typed"}
    assert data["kinds"]["typed"] == "typed answer"
    assert "typed" in data["played"]  # the page gives its cards Flip and Again


def test_the_preview_page_judges_every_play(tmp_path: Path, browser: Any) -> None:
    """On the preview page (its own client: the in-card box that anki_template makes for
    {{type:}}, Enter asking the page for the answer), every play gives today's verdict."""
    from deckbuilder.preview.page import preview_page
    from deckbuilder.preview.report import preview_deck
    from deckbuilder.preview.settings import settings_for
    from deckbuilder.render.deck import render_deck

    page = tmp_path / "typed.html"
    for deck in load_decks([SOURCE / "typed-english.yaml"]):
        chosen = settings_for(deck)
        page.write_text(
            preview_page(render_deck(deck), preview_deck(deck, chosen, 30, 0)),
            encoding="utf-8",
        )
    context = Context(browser, viewport=DESKTOP)
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(page.resolve().as_uri(), wait_until="load")
        tab.wait_for_selector("html[data-cards-loaded=true]", state="attached")
        for name, cases in CASES.items():
            deck_key, note_id = name.split("/")
            if deck_key != "typed-english":
                continue
            card = f'.pv-card[data-note="{note_id}"]'
            front = tab.frame_locator(f"{card} .front iframe")
            back = tab.frame_locator(f"{card} .back iframe")
            assert front.locator("input").count() == 1, name
            for typed, expected in cases:
                # The back shown so far is marked, so that the wait is for the new one.
                back.locator("body").evaluate("(b) => b.setAttribute('data-seen', '')")
                box = front.locator("input#typeans")
                box.fill(typed)
                box.press("Enter")
                shown = back.locator(f'body:not([data-seen]) [data-verdict="{expected}"]')
                shown.wait_for(timeout=5000)
                if expected != "unanswered":
                    assert back.locator("[data-typed-text]").inner_text() == typed, name
        assert errors == []
    finally:
        context.close()
