"""`deckbuilder preview --html`: the preview page, opened in headless Chromium.

What the page shows is checked against the real Anki backend (the same build imported
into a fresh collection) and the YAML sources; the template rendering itself is checked
card by card in tests/test_anki_template.py.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.cardfile.reader import load_decks
from deckbuilder.model import McqNote
from deckbuilder.preview.mathml import typeset
from tests.app_calls import build_packages
from tests.browser import ARTIFACTS, Context
from tests.conftest import DATA, ROOT, Run, copied, import_package
from tests.preview.pages import every_card_shown, night_everywhere, page_data

CliRun = Callable[..., Run]
DAYS = 90
SHOTS = ARTIFACTS / "preview-page"
DESKTOP = {"width": 1280, "height": 900}
PHONE_WIDTH = 412


@dataclass(frozen=True)
class Built:
    page: Path
    anki_cards: set[tuple[str, int]]  # (note guid, ord) of every card Anki made
    anki_sides: dict[tuple[str, int], tuple[str, str, str]]  # question, answer, css
    media: dict[str, str]  # data: URL -> media file name
    card_count: int  # col.card_count()
    deck_key: str
    mcq: tuple[McqNote, ...]


def _project(tmp: Path, source: Path, media: Path) -> Path:
    project = tmp / "project"
    shutil.copytree(source.parent if source.is_file() else source, project / "cards")
    shutil.copytree(media, project / "media")
    return project


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The bundled deck's page (preview --html-out, --days 90) and the cards Anki makes
    from the same sources."""
    from anki.collection import Collection

    from deckbuilder.cli import main

    tmp = tmp_path_factory.mktemp("page")
    page = tmp / "page" / "deck.html"
    code = main(
        ["--quiet", "preview", str(copied(ROOT / "cards", tmp)), "--media", str(ROOT / "media"),
         "--days", str(DAYS), "--html-out", str(page)]
    )  # fmt: skip
    assert code == 0 and page.is_file()
    (deck,) = load_decks([ROOT / "cards"], media_dir=ROOT / "media")
    col = Collection(str(tmp / "collection.anki2"))
    try:
        sources = [copied(ROOT / "cards", tmp / "anki")]
        for result in build_packages(
            sources, tmp / "out", timestamp=1_700_000_000, media_dir=ROOT / "media"
        ):
            import_package(col, result.path)
        cards = set()
        sides = {}
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            cards.add((card.note().guid, card.ord))
            css = card.note_type()["css"]
            style = f"<style>{css}</style>"
            assert card.question().startswith(style) and card.answer().startswith(style)
            key = (card.note().guid, card.ord)
            sides[key] = (card.question()[len(style) :], card.answer()[len(style) :], css)
        count = col.card_count()
    finally:
        col.close()
    media = {
        f"data:{mimetypes.guess_type(f.name)[0]};base64,{base64.b64encode(f.read_bytes()).decode()}": (
            f.name
        )
        for f in (ROOT / "media").iterdir()
    }
    mcq = tuple(n for n in deck.notes if isinstance(n, McqNote))
    yield Built(page, cards, sides, media, count, deck.key, mcq)


class Opened:
    """The page in a fresh tab, with every request and error recorded."""

    def __init__(self, browser: Any, page: Path, viewport: dict[str, int]) -> None:
        self.context = Context(browser, viewport=viewport)
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.url = page.resolve().as_uri()
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"{m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        self.page.goto(self.url, wait_until="load")
        self.page.wait_for_selector("html[data-cards-loaded=true]", state="attached")

    def frame(self, card: str, side: str) -> Any:
        return self.page.frame_locator(f"{card} .{side} iframe")

    def left_the_page(self) -> list[str]:
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def opened(browser: Any, built: Built) -> Iterator[Opened]:
    o = Opened(browser, built.page, DESKTOP)
    yield o
    o.close()


pytestmark = [pytest.mark.browser, pytest.mark.anki]

# Whether a side's script can read the page around it (never: its frame is sandboxed),
# and whether its sessionStorage is the browser's (never: the page's stand-in).
REACHES_THE_PAGE = """() => {
  try { return Boolean(parent.document.body) || sessionStorage instanceof Storage; }
  catch (e) { return sessionStorage instanceof Storage; }
}"""


def test_page_shows_every_card_anki_makes_without_errors_or_network(
    opened: Opened, built: Built
) -> None:
    shown = every_card_shown(opened.page)
    assert len(shown) == built.card_count == len(built.anki_cards)
    assert {(note_guid(built.deck_key, n), o) for n, o in shown} == built.anki_cards
    assert opened.page.inner_text("#card-count") == str(built.card_count)
    opened.page.wait_for_selector("html[data-cards-loaded=true]", state="attached")
    # Every side really rendered its card: a multiple-choice front has its choices,
    # a cloze front its [...] gap.
    sections = opened.page.locator(".pv-card")
    fronts = [
        (
            sections.nth(i).get_attribute("data-kind"),
            sections.nth(i).locator(".front iframe").content_frame.locator("body").inner_text(),
        )
        for i in range(sections.count())
    ]
    for kind, text in fronts:
        assert text.strip(), kind
        if kind == "cloze":
            assert re.search(r"\[[^\]]+\]", text)
    assert opened.errors == []
    assert opened.left_the_page() == []


def test_each_side_is_what_anki_renders(browser: Any, built: Built) -> None:
    """The document in every frame holds the card's question or answer exactly as
    card.question()/card.answer() give it (media turned back from data: URLs into file
    names; formulas typeset, which tests/test_preview_page_phone.py checks in the
    browser), after the note type's CSS."""
    o = Opened(browser, built.page, DESKTOP)
    try:
        shown = o.page.eval_on_selector_all(
            ".pv-card",
            "els => els.map(e => [e.dataset.note, Number(e.dataset.ord),"
            " e.querySelector('.front iframe').srcdoc, e.querySelector('.back iframe').srcdoc])",
        )
    finally:
        o.close()
    assert len(shown) == len(built.anki_sides)
    typeset_sides = 0
    for note, ordinal, front, back in shown:
        question, answer, css = built.anki_sides[(note_guid(built.deck_key, note), ordinal)]
        for url, name in built.media.items():
            front, back = front.replace(url, name), back.replace(url, name)
        for document, side in ((front, question), (back, answer)):
            assert f"<style>\n{css}\n</style>" in document
            content = typeset(side, [])
            assert f'<body class="card card{ordinal + 1}">\n<div id="qa">\n{content}\n</div>' in (
                document
            )
            typeset_sides += content != side
    assert typeset_sides > 0  # the bundled deck has math


def test_page_is_self_contained(built: Built) -> None:
    text = built.page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert not re.search(
        r"<(?:script|img|audio|link|iframe)\b[^>]*\s(?:src|href)=\"(?!data:)", text
    )
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in text
    # The bundled deck's math is in the page as MathML, drawn with no script at all.
    assert '\\u003cmath display=\\"inline\\">' in text


@pytest.mark.parametrize("pick_right", [True, False], ids=["right", "wrong"])
def test_multiple_choice_card_can_be_answered_and_flipped(
    opened: Opened, built: Built, pick_right: bool
) -> None:
    note = next(n for n in built.mcq if not n.multi)
    letters = [chr(ord("A") + i) for i in range(len(note.choices))]
    right = letters[note.answer[0]]
    pick = right if pick_right else next(x for x in letters if x != right)
    card = f'.pv-card[data-note="{note.id}"]'
    back = opened.frame(card, "back")
    assert back.locator("[data-verdict]").get_attribute("data-verdict") == "unanswered"
    front = opened.frame(card, "front")
    front.locator(f'[data-choice="{pick}"]').click()
    assert front.locator(f'[data-choice="{pick}"]').get_attribute("data-picked") == "true"
    opened.page.click(f"{card} button.flip")
    verdict = "correct" if pick_right else "incorrect"
    back.locator(f'[data-verdict="{verdict}"]').wait_for()
    assert back.locator(f'[data-choice="{pick}"]').get_attribute("data-picked") == "true"
    assert back.locator('[data-correct="true"]').get_attribute("data-choice") == right
    # Again: a fresh front with nothing picked, and the pick forgotten.
    opened.page.click(f"{card} button.again")
    front.locator('.db-mcq[data-db-ready="true"]').wait_for()
    assert front.locator('[data-picked="true"]').count() == 0
    opened.page.click(f"{card} button.flip")
    back.locator('[data-verdict="unanswered"]').wait_for()
    # The pick went from front to back through the page (the sides' stand-in for
    # sessionStorage), not through a storage they share: neither can reach the page.
    for side in (front, back):
        assert side.locator("body").evaluate(REACHES_THE_PAGE) is False
    assert opened.errors == []


def test_chart_has_one_point_per_simulated_day(opened: Opened, built: Built) -> None:
    for series in ("reviews", "memorized"):
        n = opened.page.eval_on_selector(
            f'svg.forecast polyline[data-series="{series}"]', "e => e.points.numberOfItems"
        )
        assert n == DAYS, series
    assert opened.page.get_attribute("svg.forecast", "data-days") == str(DAYS)


def test_ladder_table_matches_the_preview(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--json", "--html")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    page = (project / data["page"]).read_text(encoding="utf-8")
    table = re.search(r'<table class="ladder">.*?</table>', page, re.S)
    assert table is not None
    good = re.search(r"<th scope='row'>Good every time</th>(.*?)</tr>", table.group(0))
    assert good is not None
    assert re.findall(r"<td>(\d+)</td>", good.group(1)) == [str(d) for d in data["ladder"]["good"]]


def _card_body(opened: Opened, side: str = "front") -> Any:
    frame = opened.page.locator(f".pv-card .{side} iframe").first.content_frame
    return frame.locator("body").evaluate(
        "b => ({cls: b.className, root: document.documentElement.className,"
        " bg: getComputedStyle(b).backgroundColor})"
    )


def test_day_and_night_switch(opened: Opened) -> None:
    day = _card_body(opened)
    assert "nightMode" not in day["cls"]
    opened.page.click("#night")
    night_everywhere(opened.page)
    night = _card_body(opened, "back")
    assert {"nightMode", "night_mode"} <= set(night["cls"].split())
    assert night["root"] == "night-mode"
    assert night["bg"] != day["bg"]
    assert opened.page.get_attribute("#night", "aria-pressed") == "true"
    opened.page.click("#night")
    night_everywhere(opened.page, False)
    assert "nightMode" not in _card_body(opened)["cls"]


def test_phone_width_switch(opened: Opened) -> None:
    def width() -> float:
        box = opened.page.locator(".pv-card .front iframe").first.bounding_box()
        assert box is not None
        return float(box["width"])

    assert width() > PHONE_WIDTH + 100
    opened.page.click("#phone")
    assert width() == PHONE_WIDTH + 2  # the frame's borders
    front = opened.page.locator(".pv-card .front iframe").first.content_frame
    inner = front.locator("body").evaluate("() => innerWidth")
    assert inner == PHONE_WIDTH
    opened.page.click("#phone")
    assert width() > PHONE_WIDTH + 100


@pytest.mark.parametrize(
    ("name", "viewport", "night"),
    [
        ("desktop", DESKTOP, False),
        ("desktop-night", DESKTOP, True),
        ("phone-412", {"width": PHONE_WIDTH, "height": 900}, False),
    ],
)
def test_screenshots(
    browser: Any, built: Built, name: str, viewport: dict[str, int], night: bool
) -> None:
    """Screenshots for people to look at (test-artifacts/preview-page/); on a phone-wide
    screen nothing may stick out sideways."""
    o = Opened(browser, built.page, viewport)
    try:
        if night:
            o.page.click("#night")
        SHOTS.mkdir(parents=True, exist_ok=True)
        o.page.screenshot(path=str(SHOTS / f"{name}-top.png"))
        o.page.locator("#cards").scroll_into_view_if_needed()
        o.page.evaluate("document.getElementById('cards').scrollIntoView()")
        o.page.screenshot(path=str(SHOTS / f"{name}-cards.png"))
        overflow = o.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        assert o.errors == [] and o.left_the_page() == []
    finally:
        o.close()


def test_html_flag_writes_output_deck_id_html(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--html", "--days", "30")
    assert result.code == 0, result.err
    # The bundled deck is bilingual: preview shows its first language, Korean.
    page = project / "output" / "gradient-checkpointing.ko.html"
    assert f"wrote {Path('output') / 'gradient-checkpointing.ko.html'}" in result.out
    text = page.read_text(encoding="utf-8")
    assert len(page_data(text)["cards"]) == 21
    assert "<title>ML 시스템::그래디언트 체크포인팅: preview</title>" in text
    # Same input, same bytes.
    assert cli("preview", "--html", "--days", "30").code == 0
    assert page.read_text(encoding="utf-8") == text


def test_several_decks_get_one_page_each(tmp_path: Path, cli: CliRun) -> None:
    sources = [copied(DATA / "mixed.yaml", tmp_path / "a"), copied(DATA / "mcq", tmp_path / "b")]
    out = tmp_path / "pages" / "preview.html"
    result = cli("preview", *sources, "--media", DATA / "media", "--html-out", out, "--json")
    assert result.code == 0, result.err
    pages = json.loads(result.out)["pages"]
    assert [Path(p).name for p in pages] == [
        "preview-mixed.html",
        "preview-mcq-english.html",
        "preview-mcq-korean.html",
    ]
    mixed = Path(pages[0]).read_text(encoding="utf-8")
    assert len(page_data(mixed)["cards"]) == 5  # 2 mcq, a cloze with 2 gaps, 1 basic
    assert "data:image/png;base64," in mixed  # the square, inlined
    assert "서울은 대한민국의 수도입니다." in mixed


def test_html_out_must_be_an_html_file(project: Path, cli: CliRun) -> None:
    result = cli("preview", "--html-out", "page.txt")
    assert result.code == 1
    assert "--html-out" in result.err and "page.txt" in result.err
    assert not Path("page.txt").exists()


def test_media_are_inlined_and_sounds_get_play_buttons(
    tmp_path: Path, cli: CliRun, browser: Any
) -> None:
    source = copied(DATA / "rich", tmp_path)
    out = tmp_path / "rich.html"
    result = cli("preview", source, "--media", DATA / "rich" / "media", "--html-out", out)
    assert result.code == 0, result.err
    o = Opened(browser, out, DESKTOP)
    try:
        card = '.pv-card[data-note="display-math"]'
        for side in ("front", "back"):
            frame = o.frame(card, side)
            assert frame.locator("button.db-preview-play").count() == 1
            audio = frame.locator("audio").get_attribute("src") or ""
            assert audio.startswith("data:audio/mpeg;base64,")
            image = frame.locator('img[alt="the diagram"]')
            assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
            assert image.evaluate("img => img.complete && img.naturalWidth > 0")
            assert "[anki:play" not in frame.locator("body").inner_text()
        # Written inside code, the sound tag is text, not a player.
        assert "[sound:beep.mp3] in code" in o.frame(card, "back").locator("body").inner_text()
        assert o.errors == [] and o.left_the_page() == []
    finally:
        o.close()


@pytest.mark.parametrize(("typed", "verdict"), [("ottawa", "correct"), ("Toronto", "incorrect")])
def test_enter_in_a_typed_card_flips_it(
    tmp_path: Path, cli: CliRun, browser: Any, typed: str, verdict: str
) -> None:
    """Enter in a typed-answer card's box shows the answer, as on AnkiDroid and Anki
    desktop: the page is the client here, and gives each front the showAnswer() that
    AnkiDroid's card page has."""
    source = copied(DATA / "typed" / "typed-english.yaml", tmp_path)
    out = tmp_path / "typed.html"
    result = cli("preview", source, "--html-out", out)
    assert result.code == 0, result.err
    o = Opened(browser, out, DESKTOP)
    try:
        card = '.pv-card[data-note="capital"]'
        back = o.frame(card, "back")
        assert back.locator("[data-verdict]").get_attribute("data-verdict") == "unanswered"
        box = o.frame(card, "front").locator("input#typeans")
        box.fill(typed)
        box.press("Enter")
        back.locator(f'[data-verdict="{verdict}"]').wait_for(timeout=5000)
        assert back.locator("[data-typed-text]").inner_text() == typed
        # Only this card turned over: its neighbour's back still waits for an answer.
        other = o.frame('.pv-card[data-note="tomb"]', "back")
        assert other.locator("[data-verdict]").get_attribute("data-verdict") == "unanswered"
        # Asked for through the page's messages, from a front that cannot reach the page.
        assert o.frame(card, "front").locator("body").evaluate(REACHES_THE_PAGE) is False
        assert o.errors == [] and o.left_the_page() == []
    finally:
        o.close()
