"""The fast inline renderer (``fast_html``) gives exactly what the full Markdown path
gives on every text it accepts (it exists for speed only; see benchmarks/bench_build.py).
The reference is ``_render_block``: markdown-it's block parser, math, media, clozes, nh3."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.text import _render_block, fast_html, render_markdown

# Load Pygments' plugin lexers up front (see test_performance_text.py).
render_markdown("```no-such-language\nx\n```")

# Pieces of the subset and pieces just outside it, so generated texts land on both sides
# of the predicate's edge: delimiters in every position, code spans of one and two
# backticks, links with odd URLs, escapes, HTML and entity characters, cloze markers.
_PIECES = [
    "a",
    "Zé",
    "漢",
    "٣",
    "²",
    "9",
    "1.",
    " ",
    "  ",
    "*",
    "**",
    "***",
    "_",
    "__",
    "`",
    "``",
    "```",
    "[",
    "]",
    "(",
    ")",
    "!",
    "\\",
    "<",
    ">",
    "&",
    "&amp;",
    "<b>",
    '"',
    "'",
    ":",
    "::",
    "{{c1::",
    "}}",
    "{",
    "}",
    "~",
    "|",
    "#",
    "-",
    ".",
    ",",
    "=",
    "\t",
    "\n",
    "\u00a0",
    "→",
    "[sound:",
    "sound:",
    "x.mp3",
    "[t](https://example.com/p?q=1#f)",
    "[t](http://a-b.c/)",
    "[t](HTTP://X.Y)",
    "[t](https://x..y)",
    "[t](javascript:alert)",
    "](",
    "https://example.com",
    "\\(",
    "\\)",
    "\\[",
    "\\*",
    "\\_",
    "\\`",
    "\\<",
    "\\&",
    "\\\\",
    "\\a",
    "\\ ",
    "\ufdd0",
]
texts = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12).map("".join)
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


def _same(text: str, cloze: bool) -> None:
    fast = fast_html(text)
    if fast is not None:
        assert fast == _render_block(text, cloze=cloze).html
    assert render_markdown(text, cloze=cloze) == _render_block(text, cloze=cloze)


@settings(max_examples=2500, deadline=None)
@given(texts, st.booleans())
@example("a *b* c", False)
@example("a_b_c *d*", False)
@example("**a**b", False)
@example("`a` `` b`c `` ` d `", False)
@example("x {{c1::`a:b`}} y", True)
@example("x {{c1::`a::b`}} y", True)
@example("`[sound:x.mp3]` here", False)
@example("see ![t](https://x.y) now", False)
@example("a \\( b", False)
@example("ends with \\", False)
@example("*a*\u00a0", False)
@example("a < b & c > d", False)
def test_fast_inline_equals_the_full_path_near_its_edge(text: str, cloze: bool) -> None:
    _same(text, cloze)


@settings(max_examples=2500, deadline=None)
@given(subset_texts(), st.booleans())
def test_fast_inline_equals_the_full_path_inside_its_subset(text: str, cloze: bool) -> None:
    _same(text, cloze)


@pytest.mark.parametrize(
    "text",
    [
        # The benchmark's generated fields (benchmarks/bench_build.py generate_deck).
        "What does **step 7** of `pipeline_7` return?",
        "The *cached* value 7",
        "A fresh `tensor` of size 7",
        "Step 7 returns the cached value; see the _docs_ for details.",
        "Fact 7 says {{c1::answer 7}} is stored as {{c2::`value_7`}}.",
        "Remember the **second** part.",
        "Term number 7 with a [link](https://example.com/7)",
        "Definition 7 is a *short* explanation.",
        # Other everyday card text.
        "Use `torch.utils.checkpoint` to save memory (at ~30% more compute).",
        "**Gradient checkpointing** trades compute for memory.",
        "`x` < `y` & more",
        "Escaped \\*stars\\* and a\\_b",
    ],
)
def test_common_card_text_takes_the_fast_path(text: str) -> None:
    fast = fast_html(text)
    assert fast is not None
    for cloze in (False, True):
        assert fast == _render_block(text, cloze=cloze).html


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
        "two\nlines",
        "non\u00a0breaking",
        "arrow →",
    ],
)
def test_text_outside_the_subset_is_refused(text: str) -> None:
    assert fast_html(text) is None
    assert render_markdown(text) == _render_block(text)
