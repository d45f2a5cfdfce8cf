"""render_markdown's fast paths give exactly what the full Markdown path gives (they exist
for speed only; see benchmarks/bench_build.py): plain text renders to itself, and a line
that is one paragraph skips the block parser. The reference is ``_render_block`` (the
block parser for everything)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.text import _one_paragraph, _render_block, fast_html, render_markdown

# An unknown code language makes Pygments load its plugin lexers once; here that imports
# jedi, which raises the recursion limit (Hypothesis would warn). Load them up front.
render_markdown("```no-such-language\nx\n```")

# Everything the fast path's pattern admits, plus a few characters it must refuse, so the
# generated text lands on both sides of the predicate's edge.
_ADMITTED = "aZ09éßж漢٣² ,.;:?!'\"()/%+=@#$-"
_NEAR = "_*`~[]\\<>&{}|\t\n\u00a0\u2003!"

plain_ish = st.text(alphabet=st.sampled_from(_ADMITTED + _NEAR), min_size=1, max_size=40)
admitted = st.text(alphabet=st.sampled_from(_ADMITTED), min_size=1, max_size=40)


@settings(max_examples=600, deadline=None)
@given(admitted)
@example("1. item")
@example("12) item")
@example("1234567890. not a list")
@example("1.5 kg")
@example("a  b   ")
@example("#hashtag")
@example('say "hi" & more')
@example("x:: y")
def test_fast_path_equals_full_path_on_its_domain(text: str) -> None:
    for cloze in (False, True):
        assert render_markdown(text, cloze=cloze) == _render_block(text, cloze=cloze)


@settings(max_examples=600, deadline=None)
@given(plain_ish)
def test_fast_path_equals_full_path_near_its_edge(text: str) -> None:
    assert render_markdown(text) == _render_block(text)


# Everything that means something to Markdown, HTML, math, media or clozes.
_MARKDOWN = "aZ09é漢 \t\n\r\u00a0\u2003\x0c#>-+*_=`~[]()!\\<>&;:{}|\"'/.c1sound"
markdownish = st.text(alphabet=st.sampled_from(_MARKDOWN), min_size=1, max_size=30)
_SNIPPETS = [
    "**b**",
    "*i*",
    "`c`",
    "[l](u)",
    "![i](x.png)",
    "<b>",
    "</b>",
    "<script>",
    "&amp;",
    "{{c1::",
    "::",
    "}}",
    "\\(x_1\\)",
    "\\[y\\]",
    "[sound:s.mp3]",
    "~~s~~",
    "| a |",
    "1. ",
    "- ",
    "# ",
    "> ",
    "    ",
    "```",
    "\n",
    "\n\n",
    "word",
    " ",
    "  ",
    "a_b_",
    "http://x",
]
snippets = st.lists(st.sampled_from(_SNIPPETS), min_size=1, max_size=8).map("".join)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(markdownish, snippets), st.booleans())
@example("a **b**", False)
@example("x {{c1::`a::b`}} y", True)
@example("see \\(a_1 * b_2\\) and `x`", True)
@example("trailing  ", False)
@example("a\u00a0*b*", False)
@example("=== not a heading", False)
@example("a | b | c", False)
@example("\ufdd0 noncharacter *x*", True)
def test_one_line_path_equals_the_block_parser(text: str, cloze: bool) -> None:
    assert render_markdown(text, cloze=cloze) == _render_block(text, cloze=cloze)


@pytest.mark.parametrize(
    ("text", "one"),
    [
        ("a **b** `c`", True),
        ("x {{c1::y}}", True),
        ("# heading", False),
        ("1. item", False),
        ("- item", False),
        ("> quote", False),
        ("    code", False),
        (" lead", False),
        ("```x```", False),
        ("\\[x\\]", False),
        ("[r]: /url", False),
        ("two\nlines", False),
    ],
)
def test_one_paragraph_predicate(text: str, one: bool) -> None:
    assert _one_paragraph(text) is one


@pytest.mark.parametrize(
    "text",
    [
        "Nothing at all",
        "An error",
        "Paris",
        "42",
        "It's 5 p.m. (UTC+1) on 2024-01-01 @ 50% off #sale $3",
        "Ünïcödé wörds 漢字",
    ],
)
def test_plain_text_takes_the_fast_path(text: str) -> None:
    assert fast_html(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "1. first",  # an ordered list
        "3) third",
        "# heading",
        "- item",
        "    code",
        "a *b*",
        "`x`",
        "a < b",
        "AT&T",
        "[sound:x.mp3]",
        "{{c1::x}}",
        "\\(x\\)",
        "a | b",
        "line\nbreak",
        "non\u00a0breaking",
        "~~gone~~",
    ],
)
def test_markdown_is_not_rendered_as_typed(text: str) -> None:
    assert fast_html(text) != text


# -- the fast inline path's edges ----------------------------------------------------------
# Each construct of the fast path beside the characters that change its meaning: emphasis
# runs of one to three next to letters, spaces and punctuation; code spans of one to four
# backticks with backticks, spaces and cloze syntax inside; escapes of every kind of
# character; links with and without '!'; '<', '&', '>', '~' before and after spaces.
_EDGE_PIECES = [
    *["*", "**", "***", "_", "__", "___", "a", "b2", "é", " ", ".", "(", ")", "-", ":"],
    *["`", "``", "```", "````", "` `", "`a`", "`` a`b ``", "` a `", "`  `", "`{{c1::x}}`"],
    *["`a::b`", "`[sound:x]`", "`<&>`", "```x```", "````x````", "`\\`", "`é`", "`\t`"],
    *["`{{`", "`}}`", "`a}`", "{{c1::", "}}", "::"],
    *["\\", "\\*", "\\_", "\\`", "\\\\", "\\(", "\\[", "\\]", "\\a", "\\ ", "\\~", "\\é"],
    *["[a](https://x.y/z)", "![a](https://x.y)", "[a b](http://x-y.z)", "[", "](", "]"],
    *["<", "&", ">", "~", "~~", "< ", "& ", " >", "<b>", "&amp;", "&#58;", "|", "^"],
]
edges = st.lists(st.sampled_from(_EDGE_PIECES), min_size=1, max_size=10).map("".join)


@settings(max_examples=2500, deadline=None)
@given(edges, st.booleans())
@example("a **b** c *d* e __f__ g _h_", False)
@example("a_b_c d__e", False)
@example("a* b*", False)
@example("a_ b_", False)
@example("*a *b", False)
@example("**a **b", False)
@example("**a*", False)
@example("*a**", False)
@example("*a* *b*", False)
@example("*a*b", False)
@example("_a_b", False)
@example("(*a*)", False)
@example("*a*_b_", False)
@example("a `` `x` `` b", False)
@example("a ```x``` b", False)
@example("a ````x```` b", False)
@example("a ` x ` b `  ` c", False)
@example("a `x`` b", False)
@example("a \\`x` b", False)
@example("\\*a*", False)
@example("a\\", False)
@example("a \\é b", False)
@example("[a](https://x.y/z)[b](https://x.y)", False)
@example("a![b](https://x.y)", False)
@example("a < b & c > d ~ e", False)
@example("a ~~b~~", False)
@example("a <b", False)
@example("a &b", False)
@example("x {{c1::`a`}} y", True)
@example("x {{c1::`a}`}} y", True)
@example("x {{c1::a `}}` b}}", True)
@example("x {{c1::a `b{{` c}}", True)
def test_fast_inline_path_at_its_edges(text: str, cloze: bool) -> None:
    full = _render_block(text, cloze=cloze)
    fast = fast_html(text)
    if fast is not None:
        assert fast == full.html
    assert render_markdown(text, cloze=cloze) == full


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("a **b** `c` _d_", "a <strong>b</strong> <code>c</code> <em>d</em>"),
        ("snake_case_name", "snake_case_name"),
        ("a `` x_y `` b", "a <code>x_y</code> b"),
        ("a ```x``` b", "a <code>x</code> b"),
        (
            "`<a href>` & `[sound:x]`",
            "<code>&lt;a href&gt;</code> &amp; <code>[sound&#58;x]</code>",
        ),
        ("x \\*not em\\* \\\\ \\a", "x *not em* \\ \\a"),
        (
            "see [the docs](https://x.y/a?b=1#c).",
            'see <a href="https://x.y/a?b=1#c" rel="noopener noreferrer">the docs</a>.',
        ),
        ("a < b > c ~ d", "a &lt; b &gt; c ~ d"),
    ],
)
def test_fast_inline_path_renders(text: str, html: str) -> None:
    """Expected HTML written by hand from CommonMark; the full path must agree."""
    assert fast_html(text) == html
    assert _render_block(text).html == html


def test_code_blocks_share_one_lexer_per_language_and_one_formatter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Looking a lexer up and building a formatter cost more than highlighting a short
    block (10,000 blocks: 7 s of 16): they are made once, and the output is unchanged."""
    import pygments.formatters
    import pygments.lexers

    from deckbuilder import text

    text._lexer.cache_clear()
    text._html_formatter.cache_clear()
    lookups: list[str] = []
    formatters: list[object] = []
    find, make = pygments.lexers.get_lexer_by_name, pygments.formatters.HtmlFormatter

    def counted_find(name: str, **options: object) -> object:
        lookups.append(name)
        return find(name, **options)

    def counted_make(**options: object) -> object:
        formatters.append(options)
        return make(**options)

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", counted_find)
    monkeypatch.setattr(pygments.formatters, "HtmlFormatter", counted_make)
    block = "```python\ndef f(x):\n    return x  # {}\n```"
    first = render_markdown(block.format(0))
    for i in range(1, 5):
        assert render_markdown(block.format(i)).html == first.html.replace("# 0", f"# {i}")
        unknown = render_markdown(f"```no-such-language\nx = {i}\n```")
        assert unknown.warnings == [
            "code block language 'no-such-language' is not known to Pygments; not highlighted"
        ]
    assert '<span class="k">def</span>' in first.html
    assert lookups == ["python", "no-such-language"] and len(formatters) == 1
