"""Multiple-choice cards played in headless Chromium, in AnkiDroid's and Anki desktop's models.

The HTML comes from the real Anki backend (packages built, imported, then
card.question()/card.answer()); the expected answers come from the YAML sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.notetypes import note_type
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.model import McqNote, NoteKind
from tests.app_calls import build_packages
from tests.browser import (
    DESKTOP,
    PHONE,
    CardSides,
    Player,
    card_sides,
    contrast,
    luminance,
    player,
)
from tests.conftest import DATA, ROOT, copied, import_package

pytestmark = [pytest.mark.browser, pytest.mark.anki]

CLIENTS = ["ankidroid", "desktop"]
SOURCES = [ROOT / "cards", DATA / "mcq", DATA / "bilingual"]


@dataclass(frozen=True)
class Mcq:
    name: str  # "<deck id>/<note id>"
    sides: CardSides
    letters: tuple[str, ...]  # A, B, ... in YAML order
    answer: frozenset[str]
    shuffle: bool
    korean: bool

    @property
    def multi(self) -> bool:
        return len(self.answer) > 1

    @property
    def wrong(self) -> list[str]:
        return [x for x in self.letters if x not in self.answer]


@dataclass(frozen=True)
class Built:
    cards: tuple[Mcq, ...]
    media: Path
    cloze: CardSides  # a card of another note type from the bundled deck

    def named(self, name: str) -> Mcq:
        (card,) = (c for c in self.cards if c.name == name)
        return card


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """Every multiple-choice card of the bundled deck and the test decks, as Anki renders them."""
    from anki.collection import Collection

    tmp = tmp_path_factory.mktemp("mcq")
    expected: dict[str, tuple[str, McqNote, bool]] = {}
    for deck in load_decks(SOURCES, media_dir=ROOT / "media", lang="all"):
        for note in deck.notes:
            if isinstance(note, McqNote):
                # The deck's language decides the labels; without one, its label language.
                korean = (deck.lang or deck.label_language) == "ko"
                expected[note_guid(deck.key, note.id)] = (f"{deck.key}/{note.id}", note, korean)
    col = Collection(str(tmp / "collection.anki2"))
    try:
        sources = [copied(src, tmp / f"copy{i}") for i, src in enumerate(SOURCES)]
        for result in build_packages(
            sources, tmp / "out", timestamp=1_700_000_000, media_dir=ROOT / "media", lang="all"
        ):
            import_package(col, result.path)
        cards = []
        for cid in col.find_cards('"note:deckbuilder Multiple Choice"'):
            guid = col.get_card(cid).note().guid
            name, note, korean = expected.pop(guid)
            letters = tuple(chr(ord("A") + i) for i in range(len(note.choices)))
            cards.append(
                Mcq(
                    name=name,
                    sides=card_sides(col, cid),
                    letters=letters,
                    answer=frozenset(letters[i] for i in note.answer),
                    shuffle=note.shuffle,
                    korean=korean,
                )
            )
        assert expected == {}, f"notes without a card: {sorted(expected)}"
        assert len(cards) >= 12
        cloze = card_sides(col, col.find_cards('"note:deckbuilder Cloze"')[0])
        yield Built(tuple(sorted(cards, key=lambda c: c.name)), Path(col.media.dir()), cloze)
    finally:
        col.close()


def anki_cards(tmp: Path, sources: list[Path]) -> tuple[dict[str, CardSides], Path]:
    """Build ``sources`` (from copies, in every language), import the packages into a fresh
    collection, and give each multiple-choice card's sides by "<deck key>/<note id>",
    and the collection's media folder."""
    from anki.collection import Collection

    names = {
        note_guid(deck.key, note.id): f"{deck.key}/{note.id}"
        for deck in load_decks(sources, lang="all")
        for note in deck.notes
    }
    col = Collection(str(tmp / "collection.anki2"))
    try:
        copies = [copied(src, tmp / f"copy{i}") for i, src in enumerate(sources)]
        for result in build_packages(copies, tmp / "out", timestamp=1_700_000_000, lang="all"):
            import_package(col, result.path)
        sides = {
            names[col.get_card(cid).note().guid]: card_sides(col, cid)
            for cid in col.find_cards('"note:deckbuilder Multiple Choice"')
        }
        return sides, Path(col.media.dir())
    finally:
        col.close()


def open_player(client: str, browser: Any, built: Built, **options: Any) -> Player:
    options.setdefault("viewport", PHONE if client == "ankidroid" else DESKTOP)
    return player(client, browser, media_dir=built.media, **options)


def shown_order(p: Player) -> list[str]:
    order: list[str] = p.page.eval_on_selector_all(
        "[data-choice]", "els => els.map((e) => e.getAttribute('data-choice'))"
    )
    return order


def attrs(p: Player, name: str) -> dict[str, str | None]:
    pairs: list[list[str | None]] = p.page.eval_on_selector_all(
        "[data-choice]",
        "(els, name) => els.map((e) => [e.getAttribute('data-choice'), e.getAttribute(name)])",
        name,
    )
    return {str(k): v for k, v in pairs}


@dataclass(frozen=True)
class Shown:
    """What a side shows, read in one round trip to the page: the choices' letters in
    shown order, each choice's data-correct and data-picked, and every data-verdict."""

    order: list[str]
    correct: dict[str, str | None]
    picked: dict[str, str | None]
    verdicts: list[str | None]


def shown(p: Player) -> Shown:
    got: dict[str, Any] = p.page.evaluate(
        """() => {
            const choices = [...document.querySelectorAll('[data-choice]')];
            const read = (name) => choices.map((e) => [e.getAttribute('data-choice'), e.getAttribute(name)]);
            return {
                order: choices.map((e) => e.getAttribute('data-choice')),
                correct: read('data-correct'),
                picked: read('data-picked'),
                verdicts: [...document.querySelectorAll('[data-verdict]')].map((e) => e.getAttribute('data-verdict')),
            };
        }"""
    )
    return Shown(
        got["order"],
        {str(k): v for k, v in got["correct"]},
        {str(k): v for k, v in got["picked"]},
        got["verdicts"],
    )


def verdict(p: Player) -> str | None:
    found: list[str | None] = p.page.eval_on_selector_all(
        "[data-verdict]", "els => els.map((e) => e.getAttribute('data-verdict'))"
    )
    assert len(found) == 1, f"expected one [data-verdict] element, found {found}"
    return found[0]


def click(p: Player, choice: str) -> None:
    p.tap(f'[data-choice="{choice}"]')


def assert_clean(p: Player) -> None:
    assert p.errors == [], f"page errors in {p.client}: {p.errors}"
    assert p.external == [], f"requests that left the card: {p.external}"
    assert p.missing == [], f"missing files: {p.missing}"


def scenarios(card: Mcq) -> list[tuple[str, list[str], frozenset[str]]]:
    """(expected verdict, clicks in order, picks those clicks leave)."""
    right = sorted(card.answer)
    wrong = card.wrong[0]
    out = [
        # a wrong pick first, then the right one(s): a radio replaces, a checkbox un-picks
        ("correct", [wrong, *right] if not card.multi else [wrong, wrong, *right], card.answer),
        ("incorrect", [wrong], frozenset({wrong})),
        ("unanswered", [], frozenset()),
        ("unanswered", [right[0], right[0]], frozenset()),  # picked, then un-picked
    ]
    if card.multi:
        out.append(("incorrect", right[:-1], frozenset(right[:-1])))  # one missing
        out.append(("incorrect", [*right, wrong], card.answer | {wrong}))  # one too many
    return out


@pytest.mark.parametrize("client", CLIENTS)
def test_every_card_gives_the_right_verdict(client: str, browser: Any, built: Built) -> None:
    """All cards in a row in one tab: on desktop that is one long-lived page."""
    with open_player(client, browser, built) as p:
        for card in built.cards:
            for expected, clicks, picks in scenarios(card):
                where = f"{client} {card.name} {clicks}"
                p.show_question(card.sides)
                front = shown(p)
                assert sorted(front.order) == list(card.letters), where
                if not card.shuffle:
                    assert front.order == list(card.letters), where
                assert set(front.correct.values()) == {None}, "front gives away the answer"
                assert front.verdicts == [], where
                for choice in clicks:
                    click(p, choice)
                picked_front = {k for k, v in shown(p).picked.items() if v == "true"}
                assert picked_front == picks, where

                p.show_answer(card.sides)
                back = shown(p)
                assert back.order == front.order, where
                assert back.correct == {x: str(x in card.answer).lower() for x in card.letters}, (
                    where
                )
                assert back.picked == {x: str(x in picks).lower() for x in card.letters}, where
                assert back.verdicts == [expected], where
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_number_keys_pick_by_shown_position(client: str, browser: Any, built: Built) -> None:
    names = [
        "mcq-english/many-choices",
        "mcq-english/multi",
        "mcq-korean/multi",
        "mcq-english/single",
    ]
    with open_player(client, browser, built) as p:
        for name in names * 2:  # twice: the key listener must not pile up on a long-lived page
            card = built.named(name)
            p.show_question(card.sides)
            order = shown_order(p)
            for choice in sorted(card.answer):
                position = order.index(choice) + 1
                if position <= 9:
                    p.page.keyboard.press(str(position))
                else:  # keys stop at 9: the tenth choice and later are tapped
                    click(p, choice)
            if len(order) > 9:
                p.page.keyboard.press("0")  # no choice has key 0: nothing happens
            picked = {k for k, v in attrs(p, "data-picked").items() if v == "true"}
            assert picked == card.answer, f"{client} {name} order {order}"
            p.show_answer(card.sides)
            assert verdict(p) == "correct"
            p.page.keyboard.press("1")  # keys do nothing on the back
            assert verdict(p) == "correct"
            p.show_question(built.cloze)  # a mixed deck: other cards come in between
            p.page.keyboard.press("1")
            assert p.page.locator("[data-choice]").count() == 0
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_choices_are_shuffled_unless_shuffle_is_false(
    client: str, browser: Any, built: Built
) -> None:
    shuffled = built.named("gradient-checkpointing.ko/tradeoff")
    fixed = built.named("mcq-english/multi-fixed")
    assert shuffled.shuffle and not fixed.shuffle
    with open_player(client, browser, built) as p:
        orders = set()
        for _ in range(8):  # 8 shows of 4 choices: all alike with probability 24**-7
            p.show_question(shuffled.sides)
            orders.add(tuple(shown_order(p)))
            p.show_question(fixed.sides)
            assert shown_order(p) == list(fixed.letters)
        assert len(orders) > 1
        assert all(sorted(o) == list(shuffled.letters) for o in orders)
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_without_storage_the_back_shows_the_answer_and_not_answered(
    client: str, browser: Any, built: Built
) -> None:
    with open_player(client, browser, built, storage=False) as p:
        for card in built.cards:
            p.show_question(card.sides)
            for choice in sorted(card.answer):
                click(p, choice)
            assert {k for k, v in attrs(p, "data-picked").items() if v == "true"} == card.answer
            p.show_answer(card.sides)
            assert attrs(p, "data-correct") == {
                x: str(x in card.answer).lower() for x in card.letters
            }
            assert set(attrs(p, "data-picked").values()) == {"false"}
            assert verdict(p) == "unanswered"
        assert_clean(p)


@pytest.mark.parametrize("client", CLIENTS)
def test_back_shown_alone_is_unanswered_in_source_order(
    client: str, browser: Any, built: Built
) -> None:
    """A preview of the back with no front before it (fresh storage)."""
    card = built.named("mcq-english/single")
    with open_player(client, browser, built) as p:
        p.show_answer(card.sides)
        assert shown_order(p) == list(card.letters)
        assert verdict(p) == "unanswered"
        assert attrs(p, "data-correct")["B"] == "true"
        assert_clean(p)


LABELS = {
    # card -> (hint on a multi-answer front, verdict text when right)
    "mcq-english/multi": ("choose all that apply", "correct"),
    "mcq-korean/multi": ("해당하는 것을 모두 고르세요", "정답"),
    "mcq-english/single": (None, "correct"),
    "gradient-checkpointing.ko/tradeoff": (None, "정답"),
    "gradient-checkpointing.en/tradeoff": (None, "correct"),
    # English card whose question holds Hangul: the deck's language wins over detection.
    "words.en/meaning": ("choose all that apply", "correct"),
    "words.ko/meaning": ("해당하는 것을 모두 고르세요", "정답"),
    # A language without labels of its own gets English ones, Hangul or not.
    "words.fr/meaning": ("choose all that apply", "correct"),
}


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("name", sorted(LABELS))
def test_labels_follow_the_card_language(
    client: str, name: str, browser: Any, built: Built
) -> None:
    hint, right = LABELS[name]
    card = built.named(name)
    with open_player(client, browser, built) as p:
        p.show_question(card.sides)
        shown_hint = p.page.locator(".db-hint")
        if hint is None:
            assert not shown_hint.is_visible()
        else:
            assert shown_hint.is_visible()
            assert hint in shown_hint.inner_text().lower()
        for choice in sorted(card.answer):
            click(p, choice)
        p.show_answer(card.sides)
        text = p.page.locator("[data-verdict]").inner_text().lower()
        assert right in text and "incorrect" not in text
        label = p.page.locator("[data-db-label=explanation]").inner_text()
        assert label == ("해설" if card.korean else "Explanation")
        assert_clean(p)


def test_tap_targets_at_phone_width(browser: Any, built: Built) -> None:
    with open_player("ankidroid", browser, built, viewport=PHONE) as p:
        for card in built.cards:
            for show in (p.show_question, p.show_answer):
                show(card.sides)
                boxes = [
                    p.page.locator(f'[data-choice="{x}"]').bounding_box() for x in card.letters
                ]
                for x, box in zip(card.letters, boxes, strict=True):
                    assert box is not None and box["height"] >= 44, f"{card.name} {x}: {box}"
                    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
                width = p.page.evaluate("document.scrollingElement.scrollWidth")
                assert width <= PHONE["width"], f"{card.name} scrolls sideways"
        assert_clean(p)


CONTRAST_JS = """
(els) => els.map((el) => {
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
TEXT = ".db-question, .db-hint:not([hidden]), .db-choice-text, .db-choice-note, .db-choice-mark, [data-verdict], .db-explanation, .db-label"


SHOTS = ["gradient-checkpointing.ko/tradeoff", "mcq-english/multi"]


@pytest.mark.parametrize(("client", "width"), [("ankidroid", "phone"), ("desktop", "desktop")])
@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
def test_readable_day_and_night_with_screenshots(
    client: str, width: str, night: bool, browser: Any, built: Built
) -> None:
    """Text contrast at least 4.5:1 on both sides; screenshots go to test-artifacts/mcq/."""
    mode = "night" if night else "day"
    viewport = PHONE if width == "phone" else DESKTOP
    with open_player(client, browser, built, night=night, viewport=viewport) as p:
        for name in SHOTS:
            card = built.named(name)
            stem = f"mcq/{client}-{width}-{mode}-{name.replace('/', '-')}"
            p.show_question(card.sides)
            click(p, card.wrong[0])
            if card.multi:
                click(p, sorted(card.answer)[0])
            for side, show in (("front", None), ("back", p.show_answer)):
                if show is not None:
                    show(card.sides)
                body = p.page.evaluate("getComputedStyle(document.body).backgroundColor")
                dark = luminance([float(v) for v in re.findall(r"[\d.]+", body)[:3]]) < 0.2
                assert dark == night, f"{mode} mode body background is {body}"
                for item in p.page.eval_on_selector_all(TEXT, CONTRAST_JS):
                    ratio = contrast(item["fg"], item["bg"])
                    assert ratio >= 4.5, f"{stem} {side}: {item} contrast {ratio:.2f}"
                path = p.screenshot(f"{stem}-{side}")
                assert path.stat().st_size > 1000
        assert_clean(p)


def test_templates_are_files_and_load_nothing_from_outside() -> None:
    spec = note_type(NoteKind.MCQ)
    for text in (spec.front, spec.back, spec.css):
        assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]|@import|<link|src=", text, re.I)
    script = re.search(r"<script>(.*?)</script>", spec.front, re.S)
    assert script is not None
    # desktop re-runs each side's scripts on one page: nothing may be declared at top level
    body = script.group(1)
    assert body.strip().startswith("/*") and "(function () {" in body
    assert not re.search(r"^(let|const|class|function)\b", body, re.M)


PROBE_JS = """() => ({
  global: window.__dbProbe === 1,
  stored: (() => { try { return sessionStorage.getItem('db-probe'); } catch (e) { return 'refused'; } })(),
  qa: !!document.getElementById('qa'),
  content: !!document.getElementById('content'),
  bodyClass: document.body.className,
})"""


@pytest.mark.parametrize(
    ("client", "global_survives", "container"),
    # AnkiDroid's card page holds the side in #content > #qa (card_template.html and
    # AndroidCardRenderContext.enrichWithQADiv); desktop's reviewer page in #qa alone.
    [("ankidroid", False, "content #qa"), ("desktop", True, "qa")],
)
def test_client_models_keep_what_the_real_clients_keep(
    client: str, global_survives: bool, container: str, browser: Any, built: Built
) -> None:
    """The harness itself: globals die between sides on AnkiDroid only; storage survives."""
    card = built.named("mcq-english/single")
    with open_player(client, browser, built, night=True) as p:
        p.show_question(card.sides)
        p.page.evaluate(
            "() => { window.__dbProbe = 1; sessionStorage.setItem('db-probe', 'kept'); }"
        )
        p.show_answer(card.sides)
        seen = p.page.evaluate(PROBE_JS)
        assert seen["global"] is global_survives
        assert seen["stored"] == "kept"
        assert seen["qa"] and seen["content"] is (client == "ankidroid")
        assert {"card", "card1", "nightMode", "night_mode"} <= set(seen["bodyClass"].split())
        assert p.page.locator(f"#{container} > .db-mcq[data-db-side=back]").count() == 1
        assert_clean(p)
    with open_player(client, browser, built, storage=False) as p:
        p.show_question(card.sides)
        assert p.page.evaluate(PROBE_JS)["stored"] == "refused"
        assert_clean(p)
