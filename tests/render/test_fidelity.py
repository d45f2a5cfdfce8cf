"""Nothing is lost silently between the card file and Anki (issue 32, item 1).

Each case of the issue, tried as a teacher wrote it, fails ``check`` with its line and a
fix, or builds into what the author wrote. The oracles are Anki itself: the real backend's
``card.question()``/``card.answer()`` (an ephemeral card of Anki's stock Cloze note type
for HTML the checks refuse, an imported package for the fixes), Anki's own MathJax in
Anki desktop's reviewer page, and the preview page's rendering, which must equal Anki's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.anki.identity import note_guid
from deckbuilder.cloze import parse_clozes
from deckbuilder.errors import DeckError
from deckbuilder.preview.anki_template import render_card
from deckbuilder.render.markdown import render_markdown
from tests.app_calls import build_packages, check_decks
from tests.conftest import DATA, Run, import_package

CliRun = Callable[..., Run]
PNG = (DATA / "media" / "square.png").read_bytes()

# -- deletions Anki ends early -----------------------------------------------------------
# (as written, the rewrite the message gives, what Anki showed of the question as
# written: the stray braces after the hidden part)
ENDED_EARLY = [
    (
        r"\(\sigma(z)_i = {{c1::\frac{e^{z_i}}{\sum_j e^{z_j}}}}\)",
        r"\(\sigma(z)_i = {{c1::\frac{e^{z_i} }{\sum_j e^{z_j} } }}\)",
        r"[...]{\sum_j e^{z_j}}}}",
    ),
    (
        '`{{c1::d = {"a": {"b": 1}}}}`',
        '{{c1::`d = {"a": {"b": 1}}`}}',
        "[...]}}",
    ),
    (r"\[ {{c1::E = mc^{2}}} \]", r"\[ {{c1::E = mc^{2} }} \]", "[...]}"),
    ("집합 {{c1::{1, 2}}}은 원소가 둘이다", "집합 {{c1::{1, 2} }}은 원소가 둘이다", "[...]}"),
    (r"\( {{c1::\{x\}}} \)", r"\( {{c1::\{x\} }} \)", "[...]}"),
]
# Braces that Anki reads as written: nothing to fix.
READ_AS_WRITTEN = [
    "{x: {{c1::1}}}",  # the deletion is inside the braces
    "{{c1::{}}",  # it hides a brace
    r"{{c1::\{1, 2\}}}",  # escaped braces are shown, not paired
    '{{c1::`d = {"a": {"b": 1}}`}}',  # code inside a deletion keeps its braces
    r"{{c1::\(\frac{a}{b^{2}}\)}}",  # so does math
    r"\[ {{c1::E = mc^{2} }} \]",
    "```python\nd = {{c1::x}}\n```",
]


def _rewrite(problem: str) -> str | None:
    """The rewrite a message gives (after 'write a space ..., ' or in 'around the whole
    code (...)'); None for a message too long to give one."""
    around = re.search(r"around the whole code \((\{\{c1::`.*?`\}\})\)", problem)
    if around:
        return around[1]
    spaced = re.search(r"closing (?:braces|'\}\}'), (\{\{c1::.*?\}\})(?: \(|$)", problem)
    return spaced[1] if spaced else None


@pytest.mark.parametrize(("written", "fixed", "stray"), ENDED_EARLY)
def test_a_deletion_anki_would_end_early_is_a_problem_with_its_rewrite(
    written: str, fixed: str, stray: str
) -> None:
    (problem,) = render_markdown(written, cloze=True).problems
    assert problem.startswith("Anki ends cloze deletion c1 at its first '}}', so it would hide")
    deletion = re.search(r"\{\{c1::.*\}\}", fixed, re.S)[0]  # type: ignore[index]
    assert _rewrite(problem) == deletion
    if "`" in written:  # the other way: spaces, which change the code
        assert (
            'or write a space between its closing braces, {{c1::d = {"a": {"b": 1} } }}' in problem
        )
    if "\\(" in written or "\\[" in written:
        assert "or put the deletion around the whole formula" in problem
    assert render_markdown(fixed, cloze=True).problems == []
    # Not in a basic field: Anki reads no deletions there.
    assert render_markdown(written).problems == []


@pytest.mark.parametrize("text", READ_AS_WRITTEN)
def test_braces_anki_reads_as_written_are_no_problem(text: str) -> None:
    assert render_markdown(text, cloze=True).problems == []


def test_the_fast_path_is_checked_too(tmp_path: Path) -> None:
    """One line of everyday text skips markdown-it; its deletions are read all the same."""
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir()
    source.write_text(
        "deck: D\nnotes:\n  - id: a\n    text: Sets like {{c1::{1, 2}}} have two\n"
        "  - id: b\n    text: Sets like {{c1::{1, 2}}} have two\n",
        encoding="utf-8",
    )
    with pytest.raises(DeckError) as info:
        check_decks([source])
    # Both notes, though the text is rendered once.
    assert [(p.line, p.note) for p in info.value.problems] == [(4, "a"), (6, "b")]


# Text of a deletion, as teachers write it in math, code and text: braces and the rest.
_CONTENT = st.lists(
    st.sampled_from(["{", "}", "x", "^", "_", " ", "\\{", "\\}", "a{b}", "{{x}}", "\\frac{1}{2}"]),
    min_size=1,
    max_size=8,
).map("".join)


def _balanced(text: str) -> bool:
    depth = 0
    for part in re.findall(r"\\[{}]|[{}]", text):
        if len(part) == 2:
            continue
        depth += 1 if part == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _hidden(html: str) -> list[str]:
    """What Anki's reading of ``html`` hides, deletion by deletion (top level)."""

    def text(nodes: list[Any]) -> str:
        return "".join(n if isinstance(n, str) else text(n.nodes) for n in nodes)

    return [text(node.nodes) for node in parse_clozes(html) if not isinstance(node, str)]


@settings(max_examples=300, deadline=None)
@given(_CONTENT, st.sampled_from(["\\( {} \\)", "`{}`", "x {} y"]))
def test_a_deletion_is_refused_exactly_when_anki_would_not_hide_all_of_it(
    content: str, where: str
) -> None:
    """For deletions whose braces pair up: refused exactly when Anki's first '}}' comes
    before the author's end; the rewrite a refusal gives then reads whole in Anki."""
    if not _balanced(content) or ("\\" in content and "\\(" not in where):
        return  # a backslash escapes a brace in math only (text: a reference; code: none)
    meant = "{{c1::" + content + "}}"
    written = where.replace("{}", meant)
    out = render_markdown(written, cloze=True)
    # In math and code the deletion reaches Anki as typed, in text with its braces.
    ends_early = "}}" in content or content.endswith("}")
    early = [p for p in out.problems if p.startswith("Anki ends cloze deletion")]
    assert bool(early) == ends_early, (written, out.html, out.problems)
    if not early:
        return
    rewrite = _rewrite(early[0])
    if rewrite is None:  # too long to show: the message says what to do
        assert "write a space between its closing braces and before its '}}'" in early[0]
        return
    # Around the whole code: the rewrite takes the code span's place.
    fixed = rewrite if rewrite.startswith("{{c1::`") else written.replace(meant, rewrite)
    again = render_markdown(fixed, cloze=True)
    assert again.problems == []
    (hidden,) = _hidden(again.html)
    assert re.sub(r"\s", "", unescape(re.sub("<[^>]*>", "", hidden))) == re.sub(r"\s", "", content)


# -- what Anki shows -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def anki_col(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from anki.collection import Collection

    col = Collection(str(tmp_path_factory.mktemp("anki") / "collection.anki2"))
    yield col
    col.close()


def _anki_cloze(col: Any, html: str) -> tuple[str, str]:
    """Anki's question and answer (style aside) of a stock Cloze card of ``html``."""
    note = col.new_note(col.models.by_name("Cloze"))
    note["Text"] = html
    card = note.ephemeral_card(0)
    style = f"<style>{card.note_type()['css']}</style>"
    return card.question().removeprefix(style), card.answer().removeprefix(style)


def _visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]*>", "", html))


@pytest.mark.anki
@pytest.mark.parametrize(("written", "fixed", "stray"), ENDED_EARLY)
def test_what_is_refused_breaks_in_anki(
    anki_col: Any, written: str, fixed: str, stray: str
) -> None:
    """Without the refusal, Anki would hide only part of the deletion and show the rest
    of it as stray braces, as the issue found."""
    question, _ = _anki_cloze(anki_col, render_markdown(written, cloze=True).html)
    assert stray in _visible(question)


def _project(tmp_path: Path, notes: str, files: dict[str, bytes] | None = None) -> Path:
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "media").mkdir(exist_ok=True)
    for name, data in (files or {}).items():
        (tmp_path / "media" / name).write_bytes(data)
    source.write_text(f"deck: 충실\nnotes:\n{notes}", encoding="utf-8")
    return source


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _built_cards(
    tmp_path: Path, collection: Any, notes: str, files: dict[str, bytes] | None = None
) -> list[tuple[Any, Any]]:
    """Build ``notes``, import the package into ``collection``: each card with ours."""
    source = _project(tmp_path, notes, files)
    (result,) = build_packages(
        [source], tmp_path / "out", timestamp=1_700_000_000, media_dir=tmp_path / "media"
    )
    import_package(collection, result.path)
    ours = {}
    rd = result.rendered
    for rn in rd.notes:
        fields = dict(zip(rn.spec.fields, rn.fields, strict=True))
        for ordinal in rn.note.card_ordinals:
            key = (note_guid(rd.deck.key, rn.note.id), ordinal)
            ours[key] = render_card(rn.spec.front, rn.spec.back, fields, ordinal)
    cards = [collection.get_card(cid) for cid in collection.find_cards("")]
    return [(card, ours[(card.note().guid, card.ord)]) for card in cards]


@pytest.mark.anki
def test_the_rewrites_show_in_anki_and_the_preview_as_the_author_wrote_them(
    tmp_path: Path, collection: Any
) -> None:
    """Each rewrite builds; Anki hides the whole deletion and shows it whole on the back;
    the preview page shows exactly what Anki shows."""
    notes = "".join(
        f"  - id: c{i}\n    text: {_quoted(fixed)}\n" for i, (_, fixed, _) in enumerate(ENDED_EARLY)
    )
    cards = _built_cards(tmp_path, collection, notes)
    assert len(cards) == len(ENDED_EARLY)
    shown = {}
    for card, ours in cards:
        style = f"<style>{card.note_type()['css']}</style>"
        assert card.question() == style + ours.question
        assert card.answer() == style + ours.answer
        question, answer = card.question().removeprefix(style), card.answer().removeprefix(style)
        shown[_visible(question).strip()] = _visible(answer).strip()
    assert shown == {
        r"\(\sigma(z)_i = [...]\)": r"\(\sigma(z)_i = \frac{e^{z_i} }{\sum_j e^{z_j} } \)",
        "[...]": 'd = {"a": {"b": 1}}',
        r"\[ [...] \]": r"\[ E = mc^{2}  \]",
        "집합 [...]은 원소가 둘이다": "집합 {1, 2} 은 원소가 둘이다",
        r"\( [...] \)": r"\( \{x\}  \)",
    }


@pytest.fixture(scope="module")
def reviewer(browser: Any) -> Iterator[Any]:
    """Anki desktop's reviewer page, with Anki's own MathJax."""
    from tests.browser import DesktopPlayer

    with DesktopPlayer(browser) as player:
        yield player


def _typeset(reviewer: Any, side: str) -> dict[str, Any]:
    """Show ``side`` (a card side from the backend) in Anki's reviewer: its formulas,
    MathJax's errors and the text left outside the formulas."""
    from tests.browser import CardSides

    card = CardSides(1, 0, side, side, side, side, "")
    reviewer.show_question(card)
    reviewer.page.wait_for_function("() => window.MathJax && MathJax.startup")
    reviewer.page.evaluate("() => MathJax.startup.promise")
    return dict(
        reviewer.page.evaluate(
            """() => ({
              formulas: document.querySelectorAll('#qa mjx-container').length,
              errors: [...document.querySelectorAll('#qa mjx-merror')].map(e => e.textContent),
            })"""
        )
    )


@pytest.mark.anki
@pytest.mark.browser
@pytest.mark.parametrize(
    ("written", "fixed"), [(w, f) for w, f, _ in ENDED_EARLY if "\\(" in w or "\\[" in w]
)
def test_anki_typesets_the_rewrites_and_not_what_they_replace(
    reviewer: Any, anki_col: Any, written: str, fixed: str
) -> None:
    """In Anki's MathJax the formula as written fails on the front (a stray brace); its
    rewrite typesets on both sides."""
    broken_question, _ = _anki_cloze(anki_col, render_markdown(written, cloze=True).html)
    assert _typeset(reviewer, broken_question)["errors"]
    for side in _anki_cloze(anki_col, render_markdown(fixed, cloze=True).html):
        found = _typeset(reviewer, side)
        assert found == {"formulas": 1, "errors": []}, (side, found)


# -- pictures and links left as text -------------------------------------------------------
PICTURES = [
    ("![그림](내 그림.png)", "내 그림.png", "![그림](<내 그림.png>)", "![그림](내%20그림.png)"),
    (
        "![](Screenshot 2026-12-03 at 10.15.png)",
        "Screenshot 2026-12-03 at 10.15.png",
        "![](<Screenshot 2026-12-03 at 10.15.png>)",
        "![](Screenshot%202026-12-03%20at%2010.15.png)",
    ),
]


@pytest.mark.parametrize(("written", "name", "bracketed", "encoded"), PICTURES)
def test_a_picture_left_as_text_is_a_problem_naming_both_ways_to_write_it(
    tmp_path: Path, cli: CliRun, written: str, name: str, bracketed: str, encoded: str
) -> None:
    """Issue 32: it reached Anki as literal Markdown; the only hint was "no card uses
    this file" for the picture."""
    source = _project(
        tmp_path, f"  - id: p\n    front: 그림\n    back: {_quoted(written)}\n", {name: PNG}
    )
    result = cli("check", source, "--media", tmp_path / "media")
    assert result.code == 1, result.err
    (line,) = [ln for ln in result.err.splitlines() if "shown as text" in ln]
    assert line == (
        f"{source}:5: note 'p': '{written}' is shown as text, not as a picture: CommonMark "
        f"ends a link's address at a space, so write {bracketed} or {encoded}"
    )


@pytest.mark.anki
def test_both_ways_to_write_a_file_name_with_spaces_show_the_picture_in_anki(
    tmp_path: Path, collection: Any, browser: Any
) -> None:
    from tests.browser import DesktopPlayer, card_sides

    name = "내 그림.png"
    notes = (
        f"  - id: angle\n    front: 꺾쇠\n    back: {_quoted('![그림](<' + name + '>)')}\n"
        f"  - id: percent\n    front: 퍼센트\n    back: {_quoted('![그림](내%20그림.png)')}\n"
    )
    cards = _built_cards(tmp_path, collection, notes, {name: PNG})
    for card, ours in cards:
        assert f'<img src="{name}" alt="그림">' in card.answer()
        style = f"<style>{card.note_type()['css']}</style>"
        assert card.answer() == style + ours.answer
    check_media = collection.media.check()
    assert list(check_media.missing) == [] and list(check_media.unused) == []
    assert sorted(Path(collection.media.dir()).iterdir()) == [Path(collection.media.dir()) / name]
    with DesktopPlayer(browser, media_dir=Path(collection.media.dir())) as player:
        for card, _ in cards:
            sides = card_sides(collection, card.id)
            player.show_question(sides)
            player.show_answer(sides)
            loaded = player.page.evaluate(
                "() => [...document.querySelectorAll('#qa img')].map(i => i.naturalWidth)"
            )
            assert loaded and all(width > 0 for width in loaded), loaded
        assert player.missing == []


@pytest.mark.parametrize(
    ("written", "message"),
    [
        (
            "[문서](내 문서.pdf) 참고",
            "'[문서](내 문서.pdf)' is shown as text, not as a link: CommonMark ends a "
            "link's address at a space, so write [문서](<내 문서.pdf>) or [문서](내%20문서.pdf)",
        ),
        (
            '![a](my pic.png "title")',
            "'![a](my pic.png \"title\")' is shown as text, not as a picture: CommonMark ends "
            'a link\'s address at a space, so write ![a](<my pic.png> "title") or '
            '![a](my%20pic.png "title")',
        ),
    ],
)
def test_links_and_titled_pictures_left_as_text_get_both_rewrites(
    written: str, message: str
) -> None:
    assert render_markdown(written).problems == [message]
    assert render_markdown(written, cloze=True).problems == [message]


@pytest.mark.parametrize(
    "text",
    [
        "f[x](a, b) is a call",  # an address naming no file or place: not a link
        "![그림](<내 그림.png>)",
        "[a](https://example.com/a%20b)",
        "`![그림](내 그림.png)` is how not to write it",
        "```\n![그림](내 그림.png)\n```",
    ],
)
def test_text_that_is_no_broken_link_is_no_problem(text: str) -> None:
    assert render_markdown(text, resolve=lambda src, kind: src).problems == []


# -- raw HTML ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("<div>x</div>", "'<div>' is shown as text, not as HTML: cards keep only the tags"),
        ("List<String>", "'<String>' is shown as text, not as HTML"),
        ("<img src=x.png>", "a picture is written ![alt](file.png)"),
        ("<!-- note -->", "'<!-- note -->' is shown as text: cards keep no HTML comments"),
        (
            '<span style="color:red">x</span>',
            "'<span style=\"color:red\">' loses its style (attributes a card keeps on this "
            "tag: none)",
        ),
        (
            '<a href="x.html" target="_blank">x</a>',
            '\'<a href="x.html" target="_blank">\' loses its target (attributes a card '
            "keeps on this tag: href, title)",
        ),
    ],
)
def test_raw_html_shown_as_text_or_losing_attributes_is_named(text: str, warning: str) -> None:
    out = render_markdown(text)
    assert len(out.warnings) == 1  # a closing tag is not named again
    assert out.warnings[0].startswith(warning) or warning in out.warnings[0]


@pytest.mark.parametrize(
    "text",
    [
        "<b>bold</b> and <sub>2</sub>",
        "`<div>` in code",
        "a < b > c",
        '<a href="x">y</a>',
        # A '/' inside an attribute's value starts no attribute: "loses its x.org" was told.
        "<a href='http://x.org'>y</a>",
        '<a href="http://x.org/a b" title="a/b">y</a>',
        "<a href=http://x.org>y</a>",
    ],
)
def test_html_kept_as_written_is_not_named(text: str) -> None:
    assert render_markdown(text).warnings == []


def test_check_names_escaped_html_as_a_warning_at_its_line(tmp_path: Path, cli: CliRun) -> None:
    source = _project(tmp_path, "  - id: h\n    front: <div>상자</div>\n    back: b\n")
    result = cli("check", source)
    assert result.code == 0
    assert f"{source}:4: note 'h': warning [fidelity]: '<div>' is shown as text" in result.err


# -- text a comment would end --------------------------------------------------------------
@pytest.mark.anki
def test_text_with_a_hash_shows_whole_in_anki_once_quoted(
    tmp_path: Path, cli: CliRun, collection: Any
) -> None:
    """Issue 32: 'back: 줄 앞에 # 을 붙입니다' was packaged as '줄 앞에'."""
    written = "  - id: h\n    front: 주석은?\n    back: 줄 앞에 # 을 붙입니다\n"
    source = _project(tmp_path, written)
    result = cli("check", source)
    assert result.code == 1
    assert result.err.startswith(
        f"{source}:5: text after ' #' would be left out: YAML reads ' #' as the start of a "
        "comment, so the card would show only '줄 앞에'; to keep it, put the text in quotes: "
        'write back: "줄 앞에 # 을 붙입니다" (a comment of your own goes on a line of its own)'
    )
    fixed = written.replace("back: 줄 앞에 # 을 붙입니다", 'back: "줄 앞에 # 을 붙입니다"')
    ((card, ours),) = _built_cards(tmp_path / "fixed", collection, fixed)
    assert '<div class="db-back">줄 앞에 # 을 붙입니다</div>' in card.answer()
    assert card.answer().endswith(ours.answer)


def test_the_preview_page_shows_a_picture_whose_name_has_spaces(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As Anki does: the page carries the picture, not the Markdown that names it."""
    import base64

    monkeypatch.chdir(tmp_path)
    _project(
        tmp_path,
        "  - id: p\n    front: 그림\n    back: '![그림](<내 그림.png>)'\n",
        {"내 그림.png": PNG},
    )
    result = cli("preview", "--html", "--days", "10")
    assert result.code == 0, result.err
    (page,) = (tmp_path / "output").glob("*.html")
    html = page.read_text(encoding="utf-8")
    assert base64.b64encode(PNG).decode("ascii") in html
    assert "![그림]" not in html


@pytest.mark.anki
def test_what_the_html_warnings_name_is_what_anki_shows(tmp_path: Path, collection: Any) -> None:
    """A tag named 'shown as text' reaches Anki's card as text; an attribute named as
    lost is not on Anki's card."""
    notes = (
        "  - id: h\n    front: <div>상자</div>\n    back: '<span style=\"color:red\">빨강</span>'\n"
    )
    source = _project(tmp_path, notes)
    (rendered,) = check_decks([source], media_dir=tmp_path / "media")
    warnings = [w.message for w in rendered.warnings]
    assert any(w.startswith("'<div>' is shown as text") for w in warnings), warnings
    assert any("loses its style" in w for w in warnings), warnings
    ((card, _),) = _built_cards(tmp_path, collection, notes)
    assert "&lt;div&gt;상자&lt;/div&gt;" in card.question()
    assert "<span>빨강</span>" in card.answer() and "color:red" not in card.answer()


# -- issue 44 ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("address", "why"),
    [
        (
            "javascript:alert(1)",
            "'javascript:' is refused because it is unsafe (it would run a script when tapped)",
        ),
        (
            "data:text/html;base64,PHNjcmlwdD4=",
            "'data:' is refused because it is unsafe (it carries a page",
        ),
        ("JavaScript:void(0)", "'javascript:' is refused because it is unsafe"),
    ],
)
def test_an_unsafe_link_is_refused_saying_why(
    tmp_path: Path, cli: CliRun, address: str, why: str
) -> None:
    """Issue 44: the message advised <...> and %20, which cannot help: the address is
    refused because it is unsafe."""
    source = _project(
        tmp_path, f"  - id: l\n    front: x\n    back: {_quoted(f'[click]({address})')}\n"
    )
    result = cli("check", source, "--media", tmp_path / "media")
    assert result.code == 1
    (line, _) = result.err.splitlines()
    assert line.startswith(f"{source}:5: note 'l': '[click](") and why in line, line
    assert "%20" not in line and "<...>" not in line


def test_a_dollar_pair_that_stays_text_is_warned_on_its_own_line(
    tmp_path: Path, cli: CliRun
) -> None:
    """Issue 44: check warns where a pair of dollars looks like math but is not read as
    math, on the line where the pair is written."""
    source = _project(
        tmp_path,
        "  - id: m\n    front: |\n      Half-life:\n\n      $ t_{1/2} = 0.693 / k $\n    back: $5 and $10\n",
    )
    result = cli("check", source, "--media", tmp_path / "media")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        f"{source}:7: note 'm': warning [fidelity]: '$ t_{{1/2}} = 0.693 / k $' is shown as text, not as "
        "math: a formula between single dollars has no space just inside them (so that "
        "prices stay text); write $t_{1/2} = 0.693 / k$"
    ]
