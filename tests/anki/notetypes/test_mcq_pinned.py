"""A pinned choice (``{text: None of the above, pin: true}``) keeps its place while the other
choices shuffle: loaded, marked in the Choices field only where used, and honoured by the
template in AnkiDroid's and Anki desktop's models (cards from the real Anki backend) and on
the preview page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from deckbuilder.cardfile.schema import card_schema
from deckbuilder.errors import DeckError
from deckbuilder.model import McqNote
from deckbuilder.render.deck import render_deck
from tests.browser import CardSides, Context, player
from tests.cardfile.loading import load_deck
from tests.conftest import ROOT

from .test_mcq_browser import anki_cards, assert_clean, click, shown_order, verdict

DECK = """\
deck: Pinned
id: pinned
notes:
  - id: planets
    question: Which of these is a gas giant?
    choices:
      - Mercury
      - Venus
      - Earth
      - Mars
      - Saturn
      - {text: None of the above, pin: true}
    answer: E
  - id: middle
    question: Which number is even?
    choices:
      - "1"
      - {text: "2", pin: true, feedback: Two is the only even prime.}
      - "3"
      - "5"
      - "7"
    answer: B
  - id: plain
    question: Which letter comes first?
    choices: [a, b, c]
    answer: A
"""
SHOWS = 12  # shuffled shows per card: 4 or 5 free choices all alike 12 times: < 24**-11


def write(folder: Path, text: str, name: str = "pinned.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def notes(tmp_path: Path) -> dict[str, McqNote]:
    deck = load_deck(write(tmp_path, DECK))
    return {n.id: n for n in deck.notes if isinstance(n, McqNote)}


def test_pins_load_per_choice(tmp_path: Path) -> None:
    got = notes(tmp_path)
    assert got["planets"].pinned == (5,)
    assert got["planets"].choices[5] == "None of the above"
    assert got["middle"].pinned == (1,)
    assert got["middle"].choice_feedback(1) == "Two is the only even prime."
    assert got["plain"].pinned == ()


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("{text: x, pin: maybe}", "'choices[1].pin' must be true or false, not text"),
        ("{pin: true}", "'choices[1]' has 'pin' but no 'text' (the choice itself)"),
        ("{text: x, pinned: true}", "unknown key 'pinned' in 'choices[1]'; did you mean 'pin'?"),
    ],
)
def test_pin_mistakes_are_located(tmp_path: Path, choice: str, message: str) -> None:
    text = f"deck: D\nid: d\nnotes:\n  - id: n\n    question: Q\n    choices:\n      - a\n      - {choice}\n    answer: A\n"  # fmt: skip
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, text))
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path / 'pinned.yaml'}:8: note 'n': {message}"
    ]


def test_only_pinned_choices_carry_the_mark(tmp_path: Path) -> None:
    rendered = {
        rn.note.id: rn.fields[1] for rn in render_deck(load_deck(write(tmp_path, DECK))).notes
    }
    assert rendered["plain"] == (
        '<div class="db-choice" data-choice="A" data-db-lang="en">a</div>\n'
        '<div class="db-choice" data-choice="B" data-db-lang="en">b</div>\n'
        '<div class="db-choice" data-choice="C" data-db-lang="en">c</div>'
    )
    assert rendered["planets"].count("data-db-pin") == 1
    assert (
        '<div class="db-choice" data-choice="F" data-db-lang="en" data-db-pin="true">None of the above</div>'
        in (rendered["planets"])
    )
    assert (
        '<div class="db-choice" data-choice="B" data-db-lang="en" data-db-pin="true">2<div class="db-choice-feedback">'
        in (rendered["middle"])
    )


def test_the_bundled_deck_has_no_pin_mark(tmp_path: Path) -> None:
    for lang in ("ko", "en"):
        deck = load_deck(ROOT / "cards" / "gradient-checkpointing.yaml", ROOT / "media", lang=lang)
        assert all("data-db-pin" not in f for rn in render_deck(deck).notes for f in rn.fields)


def test_schema_takes_a_pin_and_refuses_a_pin_that_is_not_true_or_false() -> None:
    tree = yaml.safe_load(DECK)
    jsonschema.validate(tree, card_schema())
    tree["notes"][0]["choices"][5]["pin"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(tree, card_schema())


# -- on the clients -----------------------------------------------------------------------------
CLIENTS = ["ankidroid", "desktop"]


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, CardSides], Path]:
    tmp = tmp_path_factory.mktemp("pinned")
    return anki_cards(tmp, [write(tmp / "cards", DECK)])


@pytest.mark.browser
@pytest.mark.anki
@pytest.mark.parametrize("client", CLIENTS)
def test_pinned_choice_stays_while_the_others_shuffle(
    client: str, browser: Any, cards: tuple[dict[str, CardSides], Path]
) -> None:
    """All shows in one tab: on desktop, one long-lived page."""
    sides, media = cards
    with player(client, browser, media_dir=media) as p:
        for name, pinned, right in [("pinned/planets", 5, "E"), ("pinned/middle", 1, "B")]:
            card = sides[name]
            orders = set()
            for show in range(SHOWS):
                p.show_question(card)
                order = shown_order(p)
                letters = sorted(order)
                assert order[pinned] == letters[pinned], f"{client} {name}: {order}"
                orders.add(tuple(order))
                pick = right if show % 2 else letters[pinned]
                click(p, pick)
                p.show_answer(card)
                assert shown_order(p) == order, f"{client} {name}: the back keeps the front's order"
                assert verdict(p) == ("correct" if pick == right else "incorrect")
            assert len(orders) > 1, f"{client} {name}: the other choices never moved"
        assert_clean(p)


@pytest.mark.browser
@pytest.mark.anki
def test_preview_page_keeps_the_pinned_choice_in_place(tmp_path: Path, browser: Any) -> None:
    from deckbuilder.cli import main

    page = tmp_path / "page.html"
    source = write(tmp_path / "cards", DECK)
    assert main(["--quiet", "preview", str(source), "--days", "30", "--html-out", str(page)]) == 0
    context = Context(browser, viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(page.resolve().as_uri(), wait_until="load")
        tab.wait_for_selector("html[data-cards-loaded=true]", state="attached")
        card = '.pv-card[data-note="planets"]'
        front = tab.frame_locator(f"{card} .front iframe")
        orders = set()
        for _ in range(SHOWS):
            front.locator('.db-mcq[data-db-ready="true"]').wait_for()
            order = front.locator("[data-choice]").evaluate_all(
                "els => els.map((e) => e.getAttribute('data-choice'))"
            )
            assert order[5] == "F", order
            orders.add(tuple(order))
            tab.click(f"{card} button.again")
        assert len(orders) > 1
        front.locator('.db-mcq[data-db-ready="true"]').wait_for()
        front.locator('[data-choice="E"]').click()
        tab.click(f"{card} button.flip")
        back = tab.frame_locator(f"{card} .back iframe")
        back.locator('[data-verdict="correct"]').wait_for()
        shown = back.locator("[data-choice]").evaluate_all(
            "els => els.map((e) => e.getAttribute('data-choice'))"
        )
        assert shown[5] == "F"
    finally:
        context.close()
    assert errors == []
