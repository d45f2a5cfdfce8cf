"""The plain-text fast path of render_markdown gives exactly what the full Markdown path
gives (it exists for speed only; see benchmarks/bench_build.py)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.text import _is_plain, _render_full, render_markdown

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
        assert render_markdown(text, cloze=cloze) == _render_full(text, cloze=cloze)


@settings(max_examples=600, deadline=None)
@given(plain_ish)
def test_fast_path_equals_full_path_near_its_edge(text: str) -> None:
    assert render_markdown(text) == _render_full(text)


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
    assert _is_plain(text)


@pytest.mark.parametrize(
    "text",
    [
        "1. first",  # an ordered list
        "3) third",
        "# heading",
        "- item",
        "    code",
        "a *b*",
        "a_b",
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
def test_markdown_takes_the_full_path(text: str) -> None:
    assert not _is_plain(text)
