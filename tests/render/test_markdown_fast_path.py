"""The Markdown fast path (deckbuilder.render.fast_path) gives exactly the HTML the full
path (markdown-it, math, media, clozes, nh3) gives, on every text it accepts, and refuses
whatever it cannot render the same way: generated texts land inside its subset, on both
sides of its edges, and anywhere in Markdown."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.render.fast_path import fast_html
from deckbuilder.render.markdown import render_markdown, render_markdown_fully

# An unknown code language makes Pygments load its plugin lexers once; here that imports
# jedi, which raises the recursion limit (Hypothesis would warn). Load them up front.
render_markdown("```no-such-language\nx\n```")


def same_as_full_path(text: str, cloze: bool) -> None:
    full = render_markdown_fully(text, cloze=cloze)
    fast = fast_html(text)
    if fast is not None:
        assert fast == full.html
        assert full.images == full.sounds == full.warnings == []
    assert render_markdown(text, cloze=cloze) == full


# -- plain words ---------------------------------------------------------------------------
# Everything the fast path's plain text admits, plus characters it must refuse, so the
# generated text lands on both sides of the predicate's edge.
_ADMITTED = "aZ09éßж漢٣² ,.;:?!'\"()/%+=@#-"
# (a dollar may open math: issue 44)
_NEAR = "_*`~[]\\<>&{}|\t\n\u00a0\u2003!$"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_ADMITTED), min_size=1, max_size=40), st.booleans())
@example("1. item", False)
@example("12) item", False)
@example("1234567890. not a list", False)
@example("1.5 kg", False)
@example("a  b   ", False)
@example("#hashtag", False)
@example('say "hi" & more', False)
@example("x:: y", True)
def test_plain_words_render_the_same(text: str, cloze: bool) -> None:
    same_as_full_path(text, cloze)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_ADMITTED + _NEAR), min_size=1, max_size=40))
def test_plain_words_near_markdown_render_the_same(text: str) -> None:
    same_as_full_path(text, cloze=False)


@pytest.mark.parametrize(
    "text",
    [
        "Nothing at all",
        "An error",
        "Paris",
        "42",
        "It's 5 p.m. (UTC+1) on 2024-01-01 @ 50% off #sale",
        "Ünïcödé wörds 漢字",
    ],
)
def test_plain_text_renders_as_typed(text: str) -> None:
    assert fast_html(text) == text == render_markdown_fully(text).html


@pytest.mark.parametrize("text", ["Prices $5 and $10", "math $x$", "A [$x$](https://a.b) link"])
def test_a_dollar_takes_the_full_path(text: str) -> None:
    """Issue 44: a dollar may open math, which only the full path reads."""
    assert fast_html(text) is None


# -- emphasis, code, links, escapes ----------------------------------------------------------
# Each construct beside the characters that change its meaning: emphasis runs of one to
# three next to letters, spaces and punctuation; code spans of one to four backticks with
# backticks, spaces and cloze syntax inside; escapes of every kind of character; links with
# and without '!'; '<', '&', '>', '~' before and after spaces.
_EDGE_PIECES = [
    *["*", "**", "***", "_", "__", "___", "a", "b2", "é", " ", ".", "(", ")", "-", ":"],
    *["`", "``", "```", "````", "` `", "`a`", "`` a`b ``", "` a `", "`  `", "`{{c1::x}}`"],
    *["`a::b`", "`[sound:x]`", "`<&>`", "```x```", "````x````", "`\\`", "`é`", "`\t`"],
    *["`{{`", "`}}`", "`a}`", "{{c1::", "}}", "::", "[sound:", "x.mp3", "\ufdd0", "\n"],
    *["\\", "\\*", "\\_", "\\`", "\\\\", "\\(", "\\)", "\\[", "\\]", "\\a", "\\ ", "\\~"],
    *["\\é", "\\<", "\\&", "[", "](", "]", "!", "1.", "#", "|", "^", "→", "\u00a0"],
    *["[a](https://x.y/z)", "![a](https://x.y)", "[a b](http://x-y.z)", "[t](HTTP://X.Y)"],
    *["[t](https://x..y)", "[t](javascript:alert)", "[t](https://example.com/p?q=1#f)"],
    *["<", "&", ">", "~", "~~", "< ", "& ", " >", "<b>", "&amp;", "&#58;"],
]
edges = st.lists(st.sampled_from(_EDGE_PIECES), min_size=1, max_size=12).map("".join)


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
@example("**a**b", False)
@example("a `` `x` `` b", False)
@example("a ```x``` b", False)
@example("a ````x```` b", False)
@example("a ` x ` b `  ` c", False)
@example("a `x`` b", False)
@example("a \\`x` b", False)
@example("\\*a*", False)
@example("a\\", False)
@example("a \\é b", False)
@example("a \\( b", False)
@example("[a](https://x.y/z)[b](https://x.y)", False)
@example("a![b](https://x.y)", False)
@example("a < b & c > d ~ e", False)
@example("a ~~b~~", False)
@example("a <b", False)
@example("a &b", False)
@example("*a*\u00a0", False)
@example("`[sound:x.mp3]` here", False)
@example("x {{c1::`a`}} y", True)
@example("x {{c1::`a:b`}} y", True)
@example("x {{c1::`a::b`}} y", True)
@example("x {{c1::`a}`}} y", True)
@example("x {{c1::a `}}` b}}", True)
@example("x {{c1::a `b{{` c}}", True)
def test_inline_markdown_at_the_edges_renders_the_same(text: str, cloze: bool) -> None:
    same_as_full_path(text, cloze)


_WORD = st.sampled_from(["a", "word", "x1", "Zé", "漢字", "snake_case", "42"])


@st.composite
def subset_texts(draw: st.DrawFn) -> str:
    """Texts built from the subset's own constructs, most of which it accepts."""
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["word", "em", "code", "link", "punct", "escape"]))
        word = draw(_WORD)
        if kind == "em":
            run = draw(st.sampled_from(["*", "_", "**", "__"]))
            parts.append(f"{run}{word}{draw(st.sampled_from(['', ' ', ' b ']))}{word}{run}")
        elif kind == "code":
            body = draw(st.text(st.sampled_from("ab _*[]<>&\"'\\{}:`"), min_size=1, max_size=6))
            ticks = draw(st.sampled_from(["`", "``"]))
            parts.append(f"{ticks}{body}{ticks}")
        elif kind == "link":
            parts.append(f"[{word}](https://example.com/{word})")
        elif kind == "escape":
            parts.append("\\" + draw(st.sampled_from("*_`[]()<>&\\!#:a ")))
        elif kind == "punct":
            parts.append(draw(st.sampled_from([" ", ", ", ". ", " (", ") ", " < ", " & ", ">"])))
        else:
            parts.append(word)
    return draw(st.sampled_from(["", " "])).join(parts)


@settings(max_examples=1500, deadline=None)
@given(subset_texts(), st.booleans())
def test_inline_markdown_inside_the_subset_renders_the_same(text: str, cloze: bool) -> None:
    same_as_full_path(text, cloze)


# -- anything else ---------------------------------------------------------------------------
# Everything that means something to Markdown, HTML, math, media or clozes.
_MARKDOWN = "aZ09é漢 \t\n\r\u00a0\u2003\x0c#>-+*_=`~[]()!\\<>&;:{}|\"'/.c1sound"
_SNIPPETS = [
    *["**b**", "*i*", "`c`", "[l](u)", "![i](x.png)", "<b>", "</b>", "<script>", "&amp;"],
    *["{{c1::", "::", "}}", "\\(x_1\\)", "\\[y\\]", "[sound:s.mp3]", "~~s~~", "| a |"],
    *["1. ", "- ", "# ", "> ", "    ", "```", "\n", "\n\n", "word", " ", "  ", "a_b_"],
    "http://x",
]


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.sampled_from(_MARKDOWN), min_size=1, max_size=30),
        st.lists(st.sampled_from(_SNIPPETS), min_size=1, max_size=8).map("".join),
    ),
    st.booleans(),
)
@example("=== not a heading", False)
@example("a | b | c", False)
@example("\ufdd0 noncharacter *x*", True)
def test_any_markdown_renders_the_same(text: str, cloze: bool) -> None:
    same_as_full_path(text, cloze)


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
        ("trailing spaces  ", "trailing spaces"),
    ],
)
def test_fast_path_output(text: str, html: str) -> None:
    """Expected HTML written by hand from CommonMark; the full path must agree."""
    assert fast_html(text) == html
    assert render_markdown_fully(text).html == html


@pytest.mark.parametrize(
    "text",
    [
        "What does **step 7** of `pipeline_7` return?",
        "The *cached* value 7",
        "Step 7 returns the cached value; see the _docs_ for details.",
        "Fact 7 says {{c1::answer 7}} is stored as {{c2::`value_7`}}.",
        "Term number 7 with a [link](https://example.com/7)",
        "Use `torch.utils.checkpoint` to save memory (at ~30% more compute).",
        "**Gradient checkpointing** trades compute for memory.",
        "`x` < `y` & more",
        "Escaped \\*stars\\* and a\\_b",
    ],
)
def test_everyday_card_text_is_in_the_subset(text: str) -> None:
    fast = fast_html(text)
    assert fast is not None
    for cloze in (False, True):
        assert fast == render_markdown_fully(text, cloze=cloze).html


@pytest.mark.parametrize(
    "text",
    [
        "***both***",  # nested emphasis
        "**a *b* c**",
        "*a",  # unclosed
        "a*b*c",  # intraword '*'
        "a_b c_",
        "`unclosed",
        "```fence```",
        "x {{c1::`a::b`}}",  # code that a cloze would rewrite
        "![image](https://x.y/i.png)",
        "[sound:x.mp3]",
        "[text](relative.html)",
        "[*em*](https://x.y)",
        "\\(x_1\\)",
        "a <b>bold</b>",
        "AT&T",
        "~~struck~~",
        "1. a list",
        "3) third",
        "# heading",
        "- item",
        "    code",
        "a | b",
        "two\nlines",
        "non\u00a0breaking",
        "arrow →",
        # Escaped cloze syntax: a cloze field writes it as character references.
        "a \\{ b",
        "a \\} b",
        "a \\: b",
    ],
)
def test_text_outside_the_subset_takes_the_full_path(text: str) -> None:
    assert fast_html(text) is None
