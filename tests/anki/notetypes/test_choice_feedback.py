"""A choice's feedback (``{text: ..., feedback: ...}``, GIFT's ``~wrong#feedback``): loaded,
put into the Choices field, and shown on the back of the card under the picked choice and
the right ones, never on the front, in AnkiDroid's and Anki desktop's models (day and
night, 360 px wide) and on the preview page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from deckbuilder.cardfile.schema import card_schema
from deckbuilder.errors import DeckError
from deckbuilder.model import McqNote
from deckbuilder.render.deck import render_deck
from tests.browser import CardSides, Context, Player, player
from tests.cardfile.loading import load_deck

from .test_mcq_browser import CONTRAST_JS, anki_cards, assert_clean, attrs, click, contrast, verdict

NARROW = {"width": 360, "height": 740}

DECK = """\
deck: Feedback
id: feedback
notes:
  - id: planet
    question: Which planet is closest to the Sun?
    choices:
      - text: Venus
        feedback: Venus is **second**; it only looks close because it is so bright.
      - text: Mercury
        feedback: Right, at about 0.39 AU.
      - Mars
      - text: Jupiter
        feedback: |
          The fifth planet.

          A gas giant.
    answer: B
    explanation: Mercury has the smallest orbit.

  - id: primes
    question: Which of these are prime?
    choices:
      - {text: "2", feedback: The only even prime.}
      - {text: "4", feedback: "4 = 2 * 2."}
      - "5"
    answer: [A, C]

  - id: plain
    question: Which letter comes first?
    choices: [a, b]
    answer: A
"""

BILINGUAL = """\
deck: {ko: 피드백, en: Feedback}
id: capital
languages: [ko, en]
notes:
  - id: capital
    question: {ko: "대한민국의 수도는 어디입니까?", en: "What is the capital of South Korea?"}
    choices:
      - text: {ko: 부산, en: Busan}
        feedback: {ko: 부산은 항구 도시입니다., en: Busan is a port city.}
      - {ko: 서울, en: Seoul}
    answer: B
"""


def write(tmp_path: Path, text: str, name: str = "deck.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(DeckError) as info:
        render_deck(load_deck(path))
    return [str(p) for p in info.value.problems]


# -- the card file ------------------------------------------------------------------------------
def test_choice_with_feedback_loads_beside_plain_choices(tmp_path: Path) -> None:
    planet, primes, plain = load_deck(write(tmp_path, DECK)).notes
    assert isinstance(planet, McqNote) and isinstance(primes, McqNote)
    assert planet.choices == ("Venus", "Mercury", "Mars", "Jupiter")
    assert planet.feedback == (
        "Venus is **second**; it only looks close because it is so bright.",
        "Right, at about 0.39 AU.",
        "",
        "The fifth planet.\n\nA gas giant.\n",
    )
    assert primes.feedback == ("The only even prime.", "4 = 2 * 2.", "")
    assert isinstance(plain, McqNote) and plain.feedback == ()
    # Each text has its own line, for messages about it.
    lines = [planet.field_line(k) for k in ("choices[0]", "choices[0].feedback", "choices[2]")]
    assert lines == [7, 8, 11]
    assert list(primes.texts()) == [
        "question",
        "choices[0]",
        "choices[0].feedback",
        "choices[1]",
        "choices[1].feedback",
        "choices[2]",
        "explanation",
    ]


@pytest.mark.parametrize(
    ("lang", "feedback"), [("ko", "부산은 항구 도시입니다."), ("en", "Busan is a port city.")]
)
def test_feedback_in_each_language(tmp_path: Path, lang: str, feedback: str) -> None:
    (note,) = load_deck(write(tmp_path, BILINGUAL), lang=lang).notes
    assert isinstance(note, McqNote) and note.feedback == (feedback, "")


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("{text: a, feedbak: b}", "unknown key 'feedbak' in 'choices[1]'; did you mean 'feedback'?"),
        ("{feedback: b}", "'choices[1]' has 'feedback' but no 'text' (the choice itself)"),
        ("{text: a, feedback: [b]}", "'choices[1].feedback' must be text, not a list"),
        ("{text: a, feedback: {ko: b}}", "'choices[1].feedback' is a language map; declare the"),
        ("{text: ~, feedback: b}", "'choices[1]' must be text"),
        ("{text: B, feedback: c}", "choice B repeats choice A"),
    ],
)  # fmt: skip
def test_feedback_mistakes_are_located(tmp_path: Path, choice: str, expected: str) -> None:
    text = (
        "deck: D\nnotes:\n  - id: n\n    question: q\n    answer: A\n"
        f"    choices:\n      - b\n      - {choice}\n"
    )
    found = problems(write(tmp_path, text))
    assert f"{tmp_path / 'deck.yaml'}:8: note 'n': {expected}" in "\n".join(found), found


def test_missing_media_in_feedback_is_reported_at_its_line(tmp_path: Path) -> None:
    text = DECK.replace("Right, at about 0.39 AU.", "See ![orbit](orbit.png).")
    found = problems(write(tmp_path, text))
    assert found == [
        f"{tmp_path / 'deck.yaml'}:10: note 'planet': media file 'orbit.png' not found in "
        f"{tmp_path}/"
    ]


def test_feedback_goes_into_the_choices_field_after_its_choice(tmp_path: Path) -> None:
    rendered = render_deck(load_deck(write(tmp_path, DECK)))
    planet, primes, plain = (rn.fields[1] for rn in rendered.notes)
    assert planet.split("\n")[:2] == [
        '<div class="db-choice" data-choice="A" data-db-lang="en">Venus'
        '<div class="db-choice-feedback">Venus is <strong>second</strong>; it only looks '
        "close because it is so bright.</div></div>",
        '<div class="db-choice" data-choice="B" data-db-lang="en">Mercury'
        '<div class="db-choice-feedback">Right, at about 0.39 AU.</div></div>',
    ]
    assert '<div class="db-choice-feedback"><p>The fifth planet.</p>\n<p>A gas giant.</p>' in planet
    assert planet.count("db-choice-feedback") == 3 and primes.count("db-choice-feedback") == 2
    assert "db-choice-feedback" not in plain
    # The note type keeps its fields: feedback travels inside the Choices field.
    assert rendered.notes[0].spec.fields == (
        "Question",
        "Choices",
        "Answer",
        "Explanation",
        "Shuffle",
    )


def test_schema_takes_choices_with_feedback_and_refuses_other_keys() -> None:
    for text in (DECK, BILINGUAL):
        jsonschema.validate(yaml.safe_load(text), card_schema())
    wrong = yaml.safe_load(DECK)
    wrong["notes"][0]["choices"][0]["hint"] = "x"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, card_schema())


# -- on the clients -----------------------------------------------------------------------------
CLIENTS = ["ankidroid", "desktop"]
FEEDBACK_JS = """els => els.map((e) => [
  e.closest('[data-choice]').getAttribute('data-choice'),
  e.checkVisibility() ? e.innerText.trim() : null])"""


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, CardSides], Path]:
    tmp = tmp_path_factory.mktemp("feedback")
    sources = [write(tmp, DECK, "feedback.yaml"), write(tmp, BILINGUAL, "capital.yaml")]
    return anki_cards(tmp, sources)


def shown_feedback(p: Player) -> dict[str, str | None]:
    """Each choice's feedback element on the page: its text if visible, None if hidden."""
    found: list[list[str | None]] = p.page.eval_on_selector_all(".db-choice-feedback", FEEDBACK_JS)
    return {str(k): v for k, v in found}


PLANET = {
    "A": "Venus is second; it only looks close because it is so bright.",
    "B": "Right, at about 0.39 AU.",
    "D": "The fifth planet.\n\nA gas giant.",
}


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
def test_back_shows_the_feedback_of_the_picked_and_the_right_choices(
    client: str, night: bool, browser: Any, cards: tuple[dict[str, CardSides], Path]
) -> None:
    """One tab for all: on desktop, one long-lived page, so nothing may carry over."""
    sides, media = cards
    mode = "night" if night else "day"
    with player(client, browser, media_dir=media, night=night, viewport=NARROW) as p:
        # (card, picks, feedback shown on the back by choice)
        for name, picks, expected in [
            ("feedback/planet", ["A"], {"A": PLANET["A"], "B": PLANET["B"]}),
            ("feedback/planet", ["B"], {"B": PLANET["B"]}),
            ("feedback/planet", ["D"], {"B": PLANET["B"], "D": PLANET["D"]}),
            ("feedback/planet", [], {"B": PLANET["B"]}),
            ("feedback/primes", ["A", "B"], {"A": "The only even prime.", "B": "4 = 2 * 2."}),
            ("feedback/plain", ["B"], {}),
            ("capital.en/capital", ["A"], {"A": "Busan is a port city."}),
            ("capital.ko/capital", ["A"], {"A": "부산은 항구 도시입니다."}),
        ]:
            card = sides[name]
            p.show_question(card)
            # The front has no feedback at all, shown or hidden.
            assert p.page.locator(".db-choice-feedback").count() == 0, f"{client} {name} front"
            for choice in picks:
                click(p, choice)
            p.show_answer(card)
            assert verdict(p) in ("correct", "incorrect", "unanswered")
            assert {k: v for k, v in shown_feedback(p).items() if v} == expected, (
                client,
                name,
                picks,
            )
            # It sits in the choice's own box, under its text.
            for choice in expected:
                text = p.page.locator(f'[data-choice="{choice}"] .db-choice-text')
                assert text.locator(".db-choice-feedback").count() == 1
            if name == "feedback/planet" and picks == ["A"]:
                for item in p.page.eval_on_selector_all(".db-choice-feedback", CONTRAST_JS):
                    assert contrast(item["fg"], item["bg"]) >= 4.5, f"{client} {mode}: {item}"
                width = p.page.evaluate("document.scrollingElement.scrollWidth")
                assert width <= NARROW["width"], f"{client} scrolls sideways"
                p.screenshot(f"feedback/{client}-360-{mode}-planet-back")
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_without_storage_the_back_shows_the_right_choices_feedback(
    client: str, browser: Any, cards: tuple[dict[str, CardSides], Path]
) -> None:
    sides, media = cards
    with player(client, browser, media_dir=media, viewport=NARROW, storage=False) as p:
        p.show_question(sides["feedback/planet"])
        click(p, "A")
        p.show_answer(sides["feedback/planet"])
        assert verdict(p) == "unanswered"
        assert {k: v for k, v in shown_feedback(p).items() if v} == {"B": PLANET["B"]}
        assert attrs(p, "data-picked")["A"] == "false"
        assert_clean(p)


# -- on the preview page ------------------------------------------------------------------------
def test_preview_page_back_shows_the_picked_choices_feedback(tmp_path: Path, browser: Any) -> None:
    from deckbuilder.cli import main

    page = tmp_path / "page.html"
    source = write(tmp_path, DECK, "feedback.yaml")
    assert main(["--quiet", "preview", str(source), "--days", "30", "--html-out", str(page)]) == 0
    context = Context(browser, viewport={"width": 1000, "height": 900})
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(page.resolve().as_uri(), wait_until="load")
        tab.wait_for_selector("html[data-cards-loaded=true]", state="attached")
        card = '.pv-card[data-note="planet"]'
        front = tab.frame_locator(f"{card} .front iframe")
        back = tab.frame_locator(f"{card} .back iframe")
        assert front.locator(".db-choice-feedback").count() == 0
        # Shown alone, the back has the right choice's feedback only.
        assert back.locator('[data-choice="B"] .db-choice-feedback').is_visible()
        assert not back.locator('[data-choice="A"] .db-choice-feedback').is_visible()
        front.locator('[data-choice="A"]').click()
        tab.click(f"{card} button.flip")
        back.locator('[data-verdict="incorrect"]').wait_for()
        venus = back.locator('[data-choice="A"] .db-choice-feedback')
        assert venus.is_visible() and re.sub(r"\s+", " ", venus.inner_text()) == PLANET["A"]
        assert back.locator('[data-choice="B"] .db-choice-feedback').is_visible()
        assert not back.locator('[data-choice="D"] .db-choice-feedback').is_visible()
        tab.screenshot(path=str(tmp_path / "shot.png"))
    finally:
        context.close()
    assert errors == []


def test_a_sound_in_feedback_is_refused_since_anki_would_play_it_on_the_front(
    tmp_path: Path,
) -> None:
    (tmp_path / "tone.mp3").write_bytes(b"ID3")
    text = DECK.replace("Right, at about 0.39 AU.", "Listen to [sound:tone.mp3]")
    assert problems(write(tmp_path, text)) == [
        f"{tmp_path / 'deck.yaml'}:10: note 'planet': a sound in a choice's feedback would "
        "play on the front of the card; put it in the explanation"
    ]
    # In code it is text, not a sound.
    text = DECK.replace("Right, at about 0.39 AU.", "Write `[sound:tone.mp3]`.")
    assert (
        "[sound&#58;tone.mp3]" in render_deck(load_deck(write(tmp_path, text))).notes[0].fields[1]
    )
