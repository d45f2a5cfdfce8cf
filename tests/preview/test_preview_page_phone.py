"""The preview page on a phone: math typeset as MathML (offline, no script), nothing cut
off at 390 px, day and night, checked in headless Chromium on tests/data/phone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import Problem, Severity
from deckbuilder.preview.mathml import typeset
from deckbuilder.preview.page import preview_page
from deckbuilder.preview.report import preview_deck
from deckbuilder.preview.settings import settings_for
from tests.app_calls import check_decks
from tests.browser import ARTIFACTS, Context
from tests.conftest import DATA, ROOT, copied
from tests.preview.pages import night_everywhere
from tests.test_linear_time import cpu_seconds

PHONE = {"width": 390, "height": 844}
SHOTS = ARTIFACTS / "preview-page-phone"
# Every element whose right edge is past its viewport (page or card frame) and that no
# scrolling box holds: what a reader cannot reach, cut off at the screen's edge.
CUT_OFF = """doc => {
  const view = doc.defaultView;
  const width = doc.documentElement.clientWidth;
  function scrolls(el) {
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (p === doc.body || p === doc.documentElement) { return false; }
      const o = view.getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") { return true; }
    }
    return false;
  }
  return Array.from(doc.body.querySelectorAll("*"))
    .filter(el => { const r = el.getBoundingClientRect();
                    return r.width > 0 && r.right > width + 0.5 && !scrolls(el); })
    .map(el => el.tagName.toLowerCase() + "." + el.getAttribute("class"));
}"""


def _page(source: Path, out: Path, warnings: list[Problem] | None = None) -> str:
    (rd,) = check_decks([source], media_dir=DATA / "media")
    chosen = settings_for(rd.deck)
    text = preview_page(rd, preview_deck(rd.deck, chosen, 365, 42), warnings)
    out.write_text(text, encoding="utf-8")
    return text


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("phone")
    out = tmp / "phone.html"
    _page(copied(DATA / "phone", tmp), out)
    return out


@pytest.fixture(params=[False, True], ids=["day", "night"])
def phone(request: pytest.FixtureRequest, browser: Any, page: Path) -> Iterator[Any]:
    """The page in a 390 px wide tab, in day or night mode, every card loaded."""
    context = Context(browser, viewport=PHONE)
    requests: list[str] = []
    errors: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    tab = context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    tab.goto(page.resolve().as_uri(), wait_until="load")
    tab.wait_for_selector("html[data-cards-loaded=true]", state="attached")
    if request.param:
        tab.click("#night")
        night_everywhere(tab)
    yield tab
    assert errors == []
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    context.close()


def _frames(tab: Any) -> list[Any]:
    return [f for f in tab.frames if f != tab.main_frame]


def _frame(tab: Any, note: str, side: str, ordinal: int = 0) -> Any:
    handle = tab.query_selector(
        f'.pv-card[data-note="{note}"][data-ord="{ordinal}"] .{side} iframe'
    )
    return handle.content_frame()


@pytest.mark.browser
def test_nothing_is_cut_off_at_390_px(phone: Any) -> None:
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert phone.evaluate(f"({CUT_OFF})(document)") == []
    for frame in _frames(phone):
        side = frame.frame_element().get_attribute("title")
        assert frame.evaluate("document.documentElement.scrollWidth") <= frame.evaluate(
            "document.documentElement.clientWidth"
        ), side
        assert frame.evaluate(f"({CUT_OFF})(document)") == [], side


def _scrolls_sideways(handle: Any) -> bool:
    """Wider than its box, and scrolled by the reader, it shows its far end."""
    return bool(
        handle.evaluate(
            "el => { if (el.scrollWidth <= el.clientWidth) { return false; }"
            " el.scrollLeft = el.scrollWidth; const moved = el.scrollLeft > 0;"
            " el.scrollLeft = 0; return moved; }"
        )
    )


@pytest.mark.browser
def test_wide_content_scrolls_inside_its_own_box(phone: Any) -> None:
    """The ladder, a card's table, code line and displayed formula are wider than the
    phone (so this checks something), and each scrolls in its own box."""
    ladder = phone.query_selector(".ladder-wrap")
    assert _scrolls_sideways(ladder)
    # The caption wraps to the screen instead of scrolling away with the table.
    caption = phone.query_selector("#ladder-caption").bounding_box()
    assert caption["x"] + caption["width"] <= PHONE["width"]
    back = _frame(phone, "math-and-table", "back")
    for selector in ("table", "pre", 'math[display="block"] >> nth=-1'):
        assert _scrolls_sideways(back.query_selector(selector)), selector


@pytest.mark.browser
def test_math_is_typeset_and_no_tex_shows(phone: Any) -> None:
    texts = [phone.inner_text("body")] + [f.inner_text("body") for f in _frames(phone)]
    for text in texts:
        assert "\\(" not in text and "\\[" not in text
    assert phone.locator(".description math").count() == 1
    front = _frame(phone, "math-and-table", "front")
    assert front.locator('math[display="inline"]').count() == 1
    assert front.locator('math[display="block"]').count() == 1
    # Laid out as math: the fraction's numerator above its denominator, the formula
    # centred on its own line.
    numerator, denominator = (
        front.locator("math[display=block] mfrac > *").nth(i).bounding_box() for i in (0, 1)
    )
    assert numerator["y"] + numerator["height"] <= denominator["y"] + 1
    block = front.locator("math[display=block]").bounding_box()
    formula = front.locator("math[display=block] > mrow").bounding_box()
    assert block["width"] > 2 * formula["width"]
    assert abs(formula["x"] + formula["width"] / 2 - (block["x"] + block["width"] / 2)) < 2
    # In a cloze: on the front the gap, on the back the formula marked as the answer.
    assert _frame(phone, "cloze-math", "front").locator(".cloze math").count() == 0
    assert _frame(phone, "cloze-math", "back").locator(".cloze math").count() == 1
    assert _frame(phone, "choice-math", "front").locator(".db-choice math").count() == 3


@pytest.mark.browser
def test_tex_the_page_cannot_typeset_reads_as_tex(phone: Any) -> None:
    front = _frame(phone, "untypeset", "front")
    source = front.locator("code.pv-tex")
    assert source.inner_text() == "\\arg\\max_x f(x)"
    box = source.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
    assert front.locator("math").count() == 0


@pytest.mark.browser
def test_screenshots(phone: Any, request: pytest.FixtureRequest) -> None:
    """For people to look at: test-artifacts/preview-page-phone/."""
    mode = request.node.callspec.id
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / f"{mode}-page.png"), full_page=True)
    phone.locator("#cards").scroll_into_view_if_needed()
    phone.evaluate("document.getElementById('cards').scrollIntoView()")
    phone.screenshot(path=str(SHOTS / f"{mode}-cards.png"))
    assert phone.evaluate("window.scrollX") == 0


# -- without a browser ---------------------------------------------------------------------


def _deck(tmp_path: Path, notes: str) -> Path:
    source = tmp_path / "math.yaml"
    source.write_text(f'deck: "Test::Math"\nid: math\nnotes:\n{notes}', encoding="utf-8")
    return source


def test_formulas_the_page_cannot_typeset_are_warnings(tmp_path: Path) -> None:
    source = _deck(
        tmp_path,
        "  - id: a\n    front: '\\(\\arg\\max_x f\\) and \\(x^2\\)'\n    back: '\\(\\arg\\max_x f\\)'\n"
        "  - id: b\n    front: '\\[\\begin{foo}\\unknown\\end{foo}\\]'\n    back: fine\n",
    )
    warnings: list[Problem] = []
    text = _page(source, tmp_path / "page.html", warnings)
    assert all(w.severity is Severity.WARNING for w in warnings)
    assert [(w.line, w.note, w.message) for w in warnings] == [
        (
            4,
            "a",
            "the preview page shows \\(\\arg\\max_x f\\) as TeX: it cannot typeset "
            "it (Anki can, with MathJax)",
        ),
        (
            7,
            "b",
            "the preview page shows \\[\\begin{foo}\\unknown\\end{foo}\\] as TeX: it "
            "cannot typeset it (Anki can, with MathJax)",
        ),
    ]
    assert {w.file for w in warnings} == {str(source)}
    assert "\\\\arg\\\\max_x f\\u003c/code>" in text  # shown, inside the JSON of the sides


def test_tex_in_code_stays_code(tmp_path: Path) -> None:
    source = _deck(
        tmp_path,
        "  - id: a\n    front: 'Write `\\(x\\)` for \\(x\\)'\n"
        "    back: |-\n      ```\n      \\[y\\]\n      ```\n",
    )
    text = _page(source, tmp_path / "page.html")
    assert "\\u003ccode>\\\\(x\\\\)\\u003c/code> for \\u003cmath" in text
    assert "\\u003cpre>\\u003ccode>\\\\[y\\\\]\\n\\u003c/code>\\u003c/pre>" in text


def _run_cli(tmp_path: Path, *args: str, seed: str = "0") -> bool:
    """Run the CLI in a fresh interpreter; whether it imported latex2mathml."""
    probe = (
        "import sys, deckbuilder.cli\n"
        "deckbuilder.cli.main(sys.argv[1:])\n"
        "print('latex2mathml' in sys.modules, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "--quiet", "preview", *args, "--days", "5"],
        env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stderr.strip().splitlines()[-1] == "True"


def test_converter_is_imported_only_when_a_page_is_written(tmp_path: Path) -> None:
    source = str(copied(DATA / "phone", tmp_path))
    media = str(DATA / "media")
    assert not _run_cli(tmp_path, source, "--media", media)
    assert _run_cli(tmp_path, source, "--media", media, "--html-out", "page.html")


def test_page_bytes_are_the_same_each_time(tmp_path: Path) -> None:
    """Same input, same bytes, in another interpreter with other string hashes too."""
    source = str(copied(DATA / "phone", tmp_path))
    for seed, name in (("1", "a.html"), ("2", "b.html")):
        _run_cli(tmp_path, source, "--media", str(DATA / "media"), "--html-out", name, seed=seed)
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
    assert b"\\u003cmath" in (tmp_path / "a.html").read_bytes()


# MathML Core's elements, and code for TeX shown as typed.
_ALLOWED_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "mmultiscripts", "mprescripts",
    "none", "semantics", "annotation", "code",
}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


_TEX_PIECES = [
    *'\\()[]{}^_&<>"\' ax1=+#%$~',
    *(f"\\{name}" for name in ("frac", "sqrt", "text", "color", "left", "right", "mathbf")),
    "\\begin{matrix}", "\\end{matrix}", "\\begin{aligned}", "\\end{aligned}", "\\\\",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TEX_PIECES), max_size=30).map("".join))
@example('\\text{<img src=x onerror="alert(1)">}')
@example('\\color{red" onclick="alert(1)}{x}')
@example("\\href{https://example.com}{x}")
@example("\\style{color:red}{x}")
def test_any_tex_gives_safe_markup_and_never_raises(tex: str) -> None:
    """Whatever the author typed: no exception, and the only markup added is MathML or
    code, with no attribute that could run a script or reach out."""
    from html import escape

    untypeset: list[str] = []
    parser = _Tags()
    text = escape(f"a \\({tex}\\) b \\[{tex}\\] c {tex}", quote=False)
    parser.feed(typeset(text, untypeset))
    for tag, attrs in parser.tags:
        assert tag in _ALLOWED_TAGS
        for name, value in attrs:
            assert not re.match(r"on|href|src|xmlns", name), (tag, name)
            assert "://" not in (value or "")


def test_finding_formulas_takes_linear_time() -> None:
    """Unclosed openings (a hostile or broken field) are scanned once, not once per
    opening: four times the text takes about four times as long (compared in one run)."""

    def seconds(text: str) -> float:
        # CPU time, best of five: a machine busy with other work skews wall time.
        return cpu_seconds(lambda: typeset(text, []))

    for unit in ("\\(", "\\[", "\\(x\\[", "a\\\\("):
        small, large = unit * 5_000, unit * 20_000
        seconds(small)  # warm up
        ratio = min(seconds(large) for _ in range(5)) / min(seconds(small) for _ in range(5))
        assert ratio < 10, (unit, ratio)  # quadratic would be about 16
