"""The words multiple-choice cards add (Correct, Explanation, Choose all that apply) are in
one language per deck: a deck without ``languages:`` chooses it once from its text, or
from ``label_language:``, and every card says it, in AnkiDroid's and Anki desktop's
models (day and night, 360 px wide). Before, each card guessed from its own Hangul, and a
mixed deck said 정답입니다 on one card and Correct on the next."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckbuilder.anki.notetypes import note_type
from deckbuilder.cardfile.deck import LABEL_LANGUAGES, detected_label_language
from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.cardfile.schema import card_schema
from deckbuilder.errors import DeckError
from deckbuilder.model import BasicNote, ClozeNote, McqNote, Note, NoteKind
from deckbuilder.render.deck import render_deck
from tests.browser import CardSides, player
from tests.cardfile.loading import load_deck
from tests.conftest import DATA

from .test_mcq_browser import anki_cards, assert_clean, click, verdict

NARROW = {"width": 360, "height": 740}

# Three notes in Korean, two in English: Korean labels, on the English cards too.
MIXED = """\
deck: Mixed
id: mixed-labels
notes:
  - id: capital
    question: 대한민국의 수도는 어디입니까?
    choices: [부산, 서울, 인천]
    answer: B
    explanation: 서울은 1394년부터 수도였습니다.

  - id: mammals
    question: 다음 중 포유류를 모두 고르세요.
    choices: [고래, 상어, 박쥐]
    answer: [A, C]
    explanation: 고래와 박쥐는 포유류입니다.

  - id: checkpoint
    question: "`torch.utils.checkpoint`는 무엇을 아낍니까?"
    choices: [메모리, 계산]
    answer: A
    explanation: 활성화를 다시 계산해 메모리를 아낍니다.

  - id: planet
    question: Which planet is closest to the Sun?
    choices: [Venus, Mercury, Mars]
    answer: B
    explanation: Mercury orbits at about 0.39 AU.

  - id: primes
    question: Which of these are prime?
    choices: ["2", "4", "5"]
    answer: [A, C]
    explanation: 4 is 2 times 2.
"""


def mcq(question: str, *choices: str) -> McqNote:
    return McqNote(id="n", line=1, question=question, choices=choices or ("a", "b"), answer=(0,))


KO = mcq("대한민국의 수도는 어디입니까?", "부산", "서울")
EN = mcq("Which planet is closest to the Sun?", "Venus", "Mercury")


@pytest.mark.parametrize(
    ("notes", "expected"),
    [
        ([EN, EN], "en"),
        ([KO, KO], "ko"),
        ([KO, KO, EN], "ko"),
        ([KO, EN, EN], "en"),
        ([KO, EN], "en"),  # a tie: English
        ([], "en"),
        # An English deck about Korean words: mostly English words.
        ([mcq('What does "사랑" mean?', "love", "hate")] * 2, "en"),
        # Korean text about code: code, cloze markers, links and tags are not words.
        ([mcq("`torch.utils.checkpoint.checkpoint`는 무엇을 합니까?", "메모리 절약", "속도")], "ko"),
        ([ClozeNote(id="c", line=1, text="{{c1::PyTorch}}에서 checkpoint를 씁니다.")], "ko"),
        ([BasicNote(id="b", line=1, front="[문서](https://pytorch.org/docs/stable)", back="<b>답</b>")], "ko"),
        ([BasicNote(id="b", line=1, front="\\(\\frac{a}{b}\\)", back="분수")], "ko"),
        ([BasicNote(id="b", line=1, front="```python\nx = compute()\n```", back="무엇을 합니까?")], "ko"),
    ],
)  # fmt: skip
def test_label_language_is_the_language_of_most_notes(notes: list[Note], expected: str) -> None:
    assert detected_label_language(notes) == expected


@given(st.lists(st.sampled_from([KO, EN]), max_size=12), st.randoms())
def test_the_choice_is_the_majority_whatever_the_order(notes: list[Note], random: Any) -> None:
    korean = sum(n is KO for n in notes)
    expected = "ko" if korean > len(notes) - korean else "en"
    random.shuffle(notes)
    assert detected_label_language(notes) == expected
    # One more Korean note never turns Korean labels English.
    if expected == "ko":
        assert detected_label_language([*notes, KO]) == "ko"


@pytest.mark.parametrize(
    ("english", "korean", "expected"), [(2_400, 2_600, "ko"), (2_600, 2_400, "en")]
)
def test_a_large_deck_takes_its_majority_language(english: int, korean: int, expected: str) -> None:
    # Written in two blocks, as a deck that changed language halfway: reading only the
    # first notes would get the wrong answer.
    assert detected_label_language([EN] * english + [KO] * korean) == expected


def write(tmp_path: Path, text: str, name: str = "deck.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_mixed_deck_gets_one_label_language_on_every_choice(tmp_path: Path) -> None:
    deck = load_deck(write(tmp_path, MIXED))
    assert deck.label_language == "ko"
    rendered = render_deck(deck)
    openings = [
        m.group(1)
        for rn in rendered.notes
        for m in re.finditer(r'(<div class="db-choice" [^>]*>)', rn.fields[1])
    ]
    assert len(openings) == 14
    assert all(o.endswith(' data-db-lang="ko">') and " lang=" not in o for o in openings)
    # The text is left in its own language: no lang attribute on any field.
    assert not any(" lang=" in field for rn in rendered.notes for field in rn.fields)


@pytest.mark.parametrize("written", ["en", "ko"])
def test_label_language_key_overrides_the_text(tmp_path: Path, written: str) -> None:
    text = MIXED.replace("id: mixed-labels\n", f"id: mixed-labels\nlabel_language: {written}\n")
    assert load_deck(write(tmp_path, text)).label_language == written


def test_decks_with_languages_keep_each_languages_labels() -> None:
    decks = load_deck_languages(DATA / "bilingual" / "words.yaml", lang="all")
    assert [(d.lang, d.label_language) for d in decks] == [("en", ""), ("ko", ""), ("fr", "")]
    for deck in decks:
        choices = render_deck(deck).notes[0].fields[1]
        assert f' lang="{deck.lang}">' in choices and "data-db-lang" not in choices


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("label_language: fr", ":3: 'label_language' is 'fr'; the cards have labels in en (English) and ko (Korean)"),
        ("label_language: KO", ":3: 'label_language' is 'KO'; the cards have labels in en (English) and ko (Korean) (write 'ko')"),
        ("label_language: [ko]", ":3: 'label_language' must be text, not a list"),
        ("label_language: {ko: en}", ":3: 'label_language' must be text, not a mapping"),
        ("languages: [ko, en]\nlabel_language: ko", ":4: 'label_language' is for a deck without 'languages'"),
        ("label_langauge: ko", ":3: unknown key 'label_langauge' in the deck; did you mean 'label_language'?"),
    ],
)  # fmt: skip
def test_label_language_mistakes(tmp_path: Path, line: str, expected: str) -> None:
    path = write(tmp_path, f"deck: D\nid: d\n{line}\nnotes:\n  - {{id: a, front: f, back: b}}\n")
    with pytest.raises(DeckError) as info:
        load_deck_languages(path, lang="all")
    found = [str(p) for p in info.value.problems]
    assert any(p.startswith(f"{path}{expected}") for p in found), found
    assert len(found) == 1, found


def test_the_loader_schema_and_template_know_the_same_label_languages() -> None:
    named, _nothing = card_schema()["properties"]["label_language"]["oneOf"]
    assert named["enum"] == list(LABEL_LANGUAGES)
    script = note_type(NoteKind.MCQ).front
    block = script[script.index("var LABELS = {") : script.index("};", script.index("var LABELS"))]
    assert re.findall(r"^\s+([a-z]{2}): \{", block, re.M) == list(LABEL_LANGUAGES)


# -- on the clients -----------------------------------------------------------------------------
CLIENTS = ["ankidroid", "desktop"]
WORDS = {
    "ko": {"correct": "정답입니다", "explanation": "해설", "multi": "해당하는 것을 모두 고르세요"},
    "en": {"correct": "Correct", "explanation": "Explanation", "multi": "Choose all that apply"},
}
NOTES = {"capital": False, "mammals": True, "checkpoint": False, "planet": False, "primes": True}
RIGHT = {"capital": ["B"], "mammals": ["A", "C"], "checkpoint": ["A"], "planet": ["B"], "primes": ["A", "C"]}  # fmt: skip
LABELS_JS = """() => Array.from(document.querySelectorAll(
  '.db-hint:not([hidden]), [data-verdict], [data-db-label], .db-choice-note, .db-sr'))
  .map((e) => e.getAttribute('lang'))"""


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, CardSides], Path]:
    tmp = tmp_path_factory.mktemp("labels")
    english = MIXED.replace("id: mixed-labels\n", "id: mixed-english\nlabel_language: en\n")
    return anki_cards(tmp, [write(tmp, MIXED, "mixed.yaml"), write(tmp, english, "english.yaml")])


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
@pytest.mark.parametrize(("deck", "lang"), [("mixed-labels", "ko"), ("mixed-english", "en")])
def test_every_card_of_a_deck_says_its_words_in_one_language(
    client: str, night: bool, deck: str, lang: str, browser: Any, cards: Any
) -> None:
    """All cards in a row in one tab (on desktop, one long-lived page), Korean and English
    questions alike."""
    sides, media = cards
    words = WORDS[lang]
    mode = "night" if night else "day"
    with player(client, browser, media_dir=media, night=night, viewport=NARROW) as p:
        for note, multi in NOTES.items():
            card = sides[f"{deck}/{note}"]
            p.show_question(card)
            hint = p.page.locator(".db-hint")
            assert hint.is_visible() is multi
            if multi:
                assert hint.inner_text() == words["multi"]
            for choice in RIGHT[note]:
                click(p, choice)
            p.show_answer(card)
            assert verdict(p) == "correct"
            assert p.page.locator("[data-verdict]").inner_text() == words["correct"], note
            assert (
                p.page.locator("[data-db-label=explanation]").inner_text() == words["explanation"]
            )
            # The words carry their language; the card's own text keeps none it was not given.
            assert set(p.page.evaluate(LABELS_JS)) == {lang}
            assert (
                p.page.evaluate("document.querySelector('.db-question').closest('[lang]')") is None
            )
            if note == "planet":
                p.screenshot(f"labels/{client}-360-{mode}-{deck}-english-card-back")
            if note == "capital":
                p.screenshot(f"labels/{client}-360-{mode}-{deck}-korean-card-back")
        assert_clean(p)


def test_what_anki_stores_names_the_label_language_on_every_choice(cards: Any) -> None:
    sides, _media = cards
    assert len(sides) == 10
    for name, card in sides.items():
        deck, note = name.split("/")
        lang = "ko" if deck == "mixed-labels" else "en"
        for text in (card.question_text, card.answer_text):
            found = re.findall(r'<div class="db-choice" [^>]*data-db-lang="([a-z]+)"', text)
            assert found == [lang] * CHOICES[note], name


CHOICES = {"capital": 3, "mammals": 3, "checkpoint": 2, "planet": 3, "primes": 3}
