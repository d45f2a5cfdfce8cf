"""What a learner sees on a phone-wide card, day and night, in Anki desktop's reviewer, in
AnkiDroid's card page and on the preview page: a revealed cloze is marked on every token,
also inside highlighted code; no Hangul word is split across lines, while text tagged
Chinese still fills its lines; long URLs and identifiers still wrap instead of sticking out.

The cards are built from the deck below, imported with the real Anki backend, and played
in headless Chromium (tests/browser.py); the preview page is the CLI's own output.
Screenshots go to test-artifacts/card-display/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from tests.app_calls import build_packages
from tests.browser import ARTIFACTS, CardSides, Context, Player, card_sides, contrast, player
from tests.conftest import import_package
from tests.preview.pages import night_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.anki]

CLIENTS = ["ankidroid", "desktop"]
NIGHT = [pytest.param(False, id="day"), pytest.param(True, id="night")]
PHONE_360 = {"width": 360, "height": 780}
SHOTS = "card-display"

URL = "https://example.com/gradient-checkpointing/activation-memory/recomputation/index.html"
IDENTIFIER = "checkpoint_sequential_with_preserved_rng_state_and_reentrant_backward"
KOREAN = (
    "그래디언트 체크포인팅은 순전파 때 모든 활성화를 저장하지 않고 일부 층의 출력만 남겨 두었다가"
    " 역전파 때 필요한 활성화를 다시 계산하는 기법으로, 메모리 사용량을 크게 줄이는 대신"
    " 순전파 한 번 정도의 추가 계산을 치른다."
)
KOREAN_CLOZE = KOREAN.replace("활성화를 다시 계산", "{{c1::활성화를 다시 계산}}")
CHINESE = (
    "\uff0c".join(  # joined by the full-width comma Chinese text uses
        (
            "梯度检查点在前向传播时",
            "不保存全部激活值",
            "只保留部分层的输出",
            "反向传播时重新计算所需激活值",
        )
    )
    + "\uff0c用少量额外计算换取大量内存。"
)
DECK_KEY = "display"
DECK = f"""\
deck: "Test::Display"
id: {DECK_KEY}
notes:
  - id: binary-search
    type: cloze
    text: |-
      Binary search in Python:

      ```python
      def search(a, x):
          lo, hi = 0, len(a) - 1
          while lo {{{{c1::<=}}}} hi:
              mid = (lo + hi) {{{{c2::// 2}}}}
              if a[mid] < x:
                  lo = {{{{c3::mid + 1}}}}
              elif a[mid] > x:
                  hi = mid - 1
              else:
                  return {{{{c4::True}}}}
          return {{{{c5::"not found"  # nothing left}}}}
      ```
  - id: javascript
    type: cloze
    text: |-
      ```javascript
      for (let i = 0; i {{{{c1::< items.length}}}}; i++) {{
        {{{{c2::total += items[i].price;
        count++;}}}}
      }}
      ```

      Inline code: {{{{c3::`torch.utils.checkpoint`}}}} and `x = {{{{c4::None}}}}`.
  - id: prose
    type: cloze
    text: A revealed deletion in prose is {{{{c1::marked}}}}.
  - id: korean-cloze
    type: cloze
    text: "{KOREAN_CLOZE}"
    extra: "{KOREAN}"
  - id: korean-basic
    type: basic
    front: "{KOREAN}"
    back: |-
      {KOREAN}

      {URL}

      `{IDENTIFIER}`
  - id: korean-mcq
    type: mcq
    question: "{KOREAN}"
    choices:
      - 순전파 때 모든 활성화를 저장해 두고 역전파 때 그대로 다시 읽어 들여 계산 시간을 아낀다
      - 역전파 때 필요한 활성화를 다시 계산하는 대신 메모리를 아낀다
    answer: B
    explanation: "{KOREAN}"
"""
# A deck in Chinese: its fields are tagged lang="zh".
CHINESE_DECK = f"""\
deck: "Test::Display zh"
id: display-zh
languages: [zh]
notes:
  - id: chinese
    type: basic
    front: {CHINESE}
    back: {CHINESE}
"""


ARABIC = "يُعيد التخزين المؤقت للتدرج حساب 2 من 3 طبقات (checkpoint) أثناء الانتشار العكسي."
ARABIC_DECK = f"""\
deck: "Test::Display ar"
id: display-ar
languages: [ar]
notes:
  - id: arabic
    question: "{ARABIC}"
    choices: ["ذاكرة", "حساب"]
    answer: A
"""


@dataclass(frozen=True)
class Built:
    sides: dict[tuple[str, int], CardSides]  # (note id, card ordinal) -> both sides
    media: Path
    page: Path  # the preview page of the same deck

    def card(self, note: str, ordinal: int = 0) -> CardSides:
        return self.sides[(note, ordinal)]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    from anki.collection import Collection

    from deckbuilder.cli import main

    tmp = tmp_path_factory.mktemp("display")
    source = tmp / "src" / "display.yaml"
    source.parent.mkdir()
    source.write_text(DECK, encoding="utf-8")
    (tmp / "src" / "display-zh.yaml").write_text(CHINESE_DECK, encoding="utf-8")
    (tmp / "src" / "display-ar.yaml").write_text(ARABIC_DECK, encoding="utf-8")
    col = Collection(str(tmp / "collection.anki2"))
    try:
        for result in build_packages([source.parent], tmp / "out", timestamp=1_700_000_000):
            import_package(col, result.path)
        ids = {
            note_guid(DECK_KEY, n): n
            for n in re.findall(r"^  - id: (\S+)$", DECK, flags=re.MULTILINE)
        }
        ids[note_guid("display-zh.zh", "chinese")] = "chinese"
        ids[note_guid("display-ar.ar", "arabic")] = "arabic"
        sides = {}
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            sides[(ids[card.note().guid], card.ord)] = card_sides(col, cid)
        page = tmp / "page" / "display.html"
        assert main(["--quiet", "preview", str(source), "--html-out", str(page)]) == 0
        yield Built(sides, Path(col.media.dir()), page)
    finally:
        col.close()


def open_player(client: str, browser: Any, built: Built, night: bool) -> Player:
    return player(client, browser, media_dir=built.media, night=night, viewport=PHONE_360)


# -- measurements, run inside a card's document -----------------------------------------------
# Every text node inside each .cloze that is in code or holds code: the colour it is drawn
# in, the opaque background behind it, and the background right behind the deletion.
CLOZE_TOKENS_JS = """
() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgb(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const cloze of document.querySelectorAll('.cloze')) {
    const pre = cloze.closest('pre');
    if (!pre && !cloze.closest('code') && !cloze.querySelector('code')) continue;
    const walker = document.createTreeWalker(cloze, NodeFilter.SHOW_TEXT);
    const tokens = [];
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.data.trim()) continue;
      const el = t.parentElement;
      tokens.push({ text: t.data, cls: el.className, color: rgb(getComputedStyle(el).color),
                    bg: background(el) });
    }
    out.push({ text: cloze.textContent, inBlock: !!pre, tokens,
               clozeBg: background(cloze), codeBg: pre ? background(pre) : null });
  }
  return out;
}
"""
PROSE_CLOZE_COLOUR_JS = """
() => (getComputedStyle(document.querySelector('.cloze')).color.match(/[\\d.]+/g) || [])
  .map(Number).slice(0, 3)
"""
# Every word (a run of non-space characters, also across inline elements) that holds a
# Hangul syllable, with the line boxes of its characters, found by Range.getClientRects.
HANGUL_WORDS_JS = """
() => {
  const HANGUL = /[\\uac00-\\ud7a3]/;
  const root = document.querySelector('.db');
  const blockOf = (node) => {
    let el = node.parentElement;
    while (el && el !== root && getComputedStyle(el).display.startsWith('inline')) {
      el = el.parentElement;
    }
    return el;
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  const range = document.createRange();
  const words = [];
  let word = null, block = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === 1) {
      if (node.tagName === 'BR') word = null;
      continue;
    }
    if (node.parentElement.closest('script, style, .db-sr')) continue;
    const b = blockOf(node);
    if (b !== block) { word = null; block = b; }
    for (let i = 0; i < node.data.length; i++) {
      if (/\\s/.test(node.data[i])) { word = null; continue; }
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const r = Array.from(range.getClientRects()).find((x) => x.height > 0);
      if (!r) continue;
      if (!word) { word = { text: '', lines: [] }; words.push(word); }
      word.text += node.data[i];
      word.lines.push([r.top, r.bottom]);
    }
  }
  return words.filter((w) => HANGUL.test(w.text));
}
"""
# The line boxes and right edges of the first text node holding `needle`.
TEXT_LINES_JS = """
(needle) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const at = t.data.indexOf(needle);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(t, at);
    range.setEnd(t, at + needle.length);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
    const box = t.parentElement.closest('p, li, div').getBoundingClientRect();
    return { tops: rects.map((r) => Math.round(r.top)), right: Math.max(...rects.map((r) => r.right)),
             boxRight: box.right, viewport: document.documentElement.clientWidth,
             scrollWidth: document.scrollingElement.scrollWidth };
  }
  return null;
}
"""


# The lines of an element's text: for each, how far its last character stops short of
# the element's right edge, and a character's width.
LINE_ENDS_JS = """
(selector) => {
  const el = document.querySelector(selector);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const lines = new Map();
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    for (let i = 0; i < t.data.length; i++) {
      range.setStart(t, i);
      range.setEnd(t, i + 1);
      const r = Array.from(range.getClientRects()).find((x) => x.width > 0 && x.height > 0);
      if (!r) continue;
      const line = lines.get(Math.round(r.top)) || { right: -Infinity, width: r.width };
      line.right = Math.max(line.right, r.right);
      lines.set(Math.round(r.top), line);
    }
  }
  const right = el.getBoundingClientRect().right;
  return [...lines.keys()].sort((a, b) => a - b)
    .map((top) => ({ gap: right - lines.get(top).right, width: lines.get(top).width }));
}
"""


def split_words(words: list[dict[str, Any]]) -> list[str]:
    """Words whose characters sit on more than one line (vertical centres further apart
    than half a character's height)."""
    split = []
    for w in words:
        centres = [(top + bottom) / 2 for top, bottom in w["lines"]]
        height = min(bottom - top for top, bottom in w["lines"])
        if max(centres) - min(centres) > height / 2:
            split.append(w["text"])
    return split


def line_count(words: list[dict[str, Any]]) -> int:
    return len({round((top + bottom) / 2) // 10 for w in words for top, bottom in w["lines"]})


def cloze_problems(clozes: list[dict[str, Any]], marked: list[float], where: str) -> list[str]:
    """Tokens of a deletion in code not drawn in the cloze colour ``marked`` or hard to
    read, and deletions in a code block without a tint of their own."""
    problems = []
    for cloze in clozes:
        for token in cloze["tokens"]:
            if token["color"][:3] != marked:
                problems.append(f"{where}: {token['text']!r} ({token['cls']}) is {token['color']}")
            elif contrast(token["color"], token["bg"]) < 4.5:
                problems.append(f"{where}: {token['text']!r} has low contrast on {token['bg']}")
        if cloze["inBlock"] and cloze["clozeBg"] == cloze["codeBg"]:
            # Some token colours are close to the cloze colour: a tint tells them apart.
            problems.append(f"{where}: {cloze['text']!r} has no background of its own")
    return problems


CODE_CLOZES = [("binary-search", o) for o in range(5)] + [("javascript", o) for o in range(4)]
SHOWN = {("binary-search", 2), ("binary-search", 4), ("javascript", 1), ("javascript", 2)}


@pytest.mark.parametrize("night", NIGHT)
@pytest.mark.parametrize("client", CLIENTS)
def test_revealed_cloze_in_code_is_marked_on_every_token(
    client: str, night: bool, browser: Any, built: Built
) -> None:
    mode = "night" if night else "day"
    with open_player(client, browser, built, night) as p:
        p.show_question(built.card("prose"))
        p.show_answer(built.card("prose"))
        marked = p.page.evaluate(PROSE_CLOZE_COLOUR_JS)
        problems: list[str] = []
        for note, ordinal in CODE_CLOZES:
            card = built.card(note, ordinal)
            p.show_question(card)
            # The gap on the front: a deletion of a whole code span leaves no code around it.
            front = p.page.evaluate(CLOZE_TOKENS_JS)
            assert [c["text"] for c in front] in ([], ["[...]"]), front
            problems += cloze_problems(
                front, marked, f"{client} {mode} {note} c{ordinal + 1} front"
            )
            p.show_answer(card)
            (back,) = p.page.evaluate(CLOZE_TOKENS_JS)
            assert "..." not in back["text"] and back["tokens"], back
            problems += cloze_problems(
                [back], marked, f"{client} {mode} {note} c{ordinal + 1} back"
            )
            if (note, ordinal) in SHOWN:
                p.screenshot(f"{SHOTS}/{client}-{mode}-{note}-c{ordinal + 1}-back")
        assert problems == []
        assert p.errors == [] and p.external == [] and p.missing == []


HANGUL_CARDS = [("korean-cloze", 0), ("korean-basic", 0), ("korean-mcq", 0)]


@pytest.mark.parametrize("night", NIGHT)
@pytest.mark.parametrize("client", CLIENTS)
def test_no_hangul_word_is_split_across_lines(
    client: str, night: bool, browser: Any, built: Built
) -> None:
    mode = "night" if night else "day"
    with open_player(client, browser, built, night) as p:
        for note, ordinal in HANGUL_CARDS:
            card = built.card(note, ordinal)
            for side, show in (("front", p.show_question), ("back", p.show_answer)):
                show(card)
                words = p.page.evaluate(HANGUL_WORDS_JS)
                assert line_count(words) >= 4, f"{note} {side}: too short to test wrapping"
                assert split_words(words) == [], f"{client} {mode} {note} {side}"
                width = p.page.evaluate("document.scrollingElement.scrollWidth")
                assert width <= PHONE_360["width"], f"{note} {side} scrolls sideways"
                p.screenshot(f"{SHOTS}/{client}-{mode}-{note}-{side}")
        assert p.errors == [] and p.external == [] and p.missing == []


@pytest.mark.parametrize("night", NIGHT)
@pytest.mark.parametrize("client", CLIENTS)
def test_long_url_and_identifier_still_wrap(
    client: str, night: bool, browser: Any, built: Built
) -> None:
    with open_player(client, browser, built, night) as p:
        card = built.card("korean-basic")
        p.show_question(card)
        p.show_answer(card)
        for needle in (URL, IDENTIFIER):
            lines = p.page.evaluate(TEXT_LINES_JS, needle)
            assert lines is not None, needle
            assert len(set(lines["tops"])) >= 2, f"{needle} is not wrapped: {lines}"
            assert lines["right"] <= lines["boxRight"] + 1, f"{needle} sticks out: {lines}"
            assert lines["scrollWidth"] <= lines["viewport"], lines


PREVIEW_CARDS = [*CODE_CLOZES, *HANGUL_CARDS]


@pytest.mark.parametrize("night", NIGHT)
def test_preview_page_shows_the_same_at_phone_width(
    night: bool, browser: Any, built: Built
) -> None:
    """The preview page's frames hold the same card HTML and CSS: the same checks there."""
    mode = "night" if night else "day"
    context = Context(browser, viewport=PHONE_360)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(built.page.resolve().as_uri(), wait_until="load")
        page.wait_for_selector("html[data-cards-loaded=true]", state="attached")
        if night:
            page.click("#night")
            night_everywhere(page)

        def side(note: str, ordinal: int, which: str) -> Any:
            card = page.locator(f'.pv-card[data-note="{note}"][data-ord="{ordinal}"]')
            frame = card.locator(f".{which} iframe").element_handle().content_frame()
            assert frame is not None
            return card, frame

        _, prose = side("prose", 0, "back")
        marked = prose.evaluate(PROSE_CLOZE_COLOUR_JS)
        problems: list[str] = []
        for note, ordinal in PREVIEW_CARDS:
            for which in ("front", "back"):
                card, frame = side(note, ordinal, which)
                where = f"preview {mode} {note} c{ordinal + 1} {which}"
                problems += cloze_problems(frame.evaluate(CLOZE_TOKENS_JS), marked, where)
                words = frame.evaluate(HANGUL_WORDS_JS)
                problems += [f"{where}: {w!r} is split" for w in split_words(words)]
                if which == "back" and (note, ordinal) in (("binary-search", 2), *HANGUL_CARDS):
                    path = ARTIFACTS / SHOTS / f"preview-{mode}-{note}-c{ordinal + 1}.png"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    card.screenshot(path=str(path))
        assert problems == []
        _, frame = side("korean-basic", 0, "back")
        lines = frame.evaluate(TEXT_LINES_JS, URL)
        assert len(set(lines["tops"])) >= 2 and lines["scrollWidth"] <= lines["viewport"]
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE_360["width"]
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("client", CLIENTS)
def test_chinese_breaks_between_characters(client: str, browser: Any, built: Built) -> None:
    """Keeping words whole is for Korean: text tagged Chinese (or Japanese) has no spaces
    and fills each line, instead of breaking only at its commas."""
    with open_player(client, browser, built, night=False) as p:
        card = built.card("chinese")
        p.show_question(card)
        p.show_answer(card)
        lines = p.page.evaluate(LINE_ENDS_JS, ".db-back [lang=zh]")
        assert len(lines) >= 3
        short = [line for line in lines[:-1] if line["gap"] > 1.5 * line["width"]]
        assert short == [], f"{client}: lines end early: {lines}"
        p.screenshot(f"{SHOTS}/{client}-day-chinese-back")


# The direction each element tagged with a language is laid out in, by its language.
DIRECTIONS_JS = """
() => [...document.querySelectorAll("[lang]")].map(
  (el) => [el.getAttribute("lang"), getComputedStyle(el).direction])
"""


@pytest.mark.parametrize("client", CLIENTS)
def test_arabic_reads_from_the_right_and_other_languages_from_the_left(
    client: str, browser: Any, built: Built
) -> None:
    """A field or choice tagged with a right-to-left language is laid out right to left
    (Anki shows the build's <div lang="ar"> as it is: before, Arabic cards read from the
    left, their numbers and Latin words out of order); Chinese stays left to right."""
    with open_player(client, browser, built, night=False) as p:
        card = built.card("arabic")
        p.show_question(card)
        p.show_answer(card)
        directions = p.page.evaluate(DIRECTIONS_JS)
        # The card's own words (Correct, Incorrect) are English here, left to right.
        assert set(map(tuple, directions)) == {("ar", "rtl"), ("en", "ltr")}, directions
        p.screenshot(f"{SHOTS}/{client}-day-arabic-back")
        p.show_question(built.card("chinese"))
        assert {d for _, d in p.page.evaluate(DIRECTIONS_JS)} == {"ltr"}
        assert_clean_page(p)


def assert_clean_page(p: Player) -> None:
    assert p.errors == [] and p.external == [] and p.missing == []
