"""The template language's own scanners take time linear in the text's length.

As tests/test_linear_time.py measures them (CPU time of a text and of one four times as
long): the template reader (``{{``, comments, sections), the reader of sound and
``[anki:...]`` tags (a name's closing searched once, options read once whichever
opening reaches them) and the ``furigana:``/``kanji:``/``kana:`` reader (Anki's lazy
regular expression, which a backtracking engine would rescan from every ``[``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.preview import anki_template
from deckbuilder.preview.anki_template import TemplateError, render_card
from tests.test_linear_time import assert_linear, nested, run_of


def _read_template(template: str) -> object:
    anki_template._parse.cache_clear()  # parsed templates are kept for the next card
    try:
        return render_card(template, "", {"Front": "x"}, 0)
    except TemplateError as error:
        return error


def _many_names(size: int) -> str:
    """Openings of different names, none closed."""
    return "".join(f"[anki:n{number}]x" for number in range(size // 8))[:size]


TEMPLATE_RUNS = {
    "handlebar openings": run_of("{{"),
    "unclosed handlebars": run_of("{{a}"),
    "comment openings": run_of("<!--"),
    "section openings": run_of("{{#Front}}"),
    "nested sections": nested("{{#Front}}", "{{/Front}}"),
    "fields": run_of("{{Front}}"),
    "filters": run_of("{{text:hint:kana:Front}}"),
    "braces": run_of("{ }}{"),
}


@pytest.mark.parametrize("make", TEMPLATE_RUNS.values(), ids=TEMPLATE_RUNS.keys())
def test_reading_a_template_takes_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(_read_template, make)


TAG_RUNS = {
    "sound openings": run_of("[sound:"),
    "empty sounds": run_of("[sound:]"),
    "tag openings": run_of("[anki:"),
    "nested tag openings": lambda size: run_of("[anki:")(size) + "]",
    "closings": lambda size: run_of("[/anki:")(size) + "]",
    "options": run_of("[anki:x a="),
    "options closed at the end": lambda size: run_of("[anki:x a=")(size) + "][/anki:x]",
    "quoted options": run_of('[anki:x a="'),
    "unclosed tts": run_of("[anki:tts lang=en_US]a"),
    "tts tags": run_of("[anki:tts lang=en_US]a[/anki:tts]"),
    "different names": _many_names,
}


@pytest.mark.parametrize("make", TAG_RUNS.values(), ids=TAG_RUNS.keys())
def test_reading_sound_and_tts_tags_takes_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(lambda text: anki_template._extract_av_tags(text, "q"), make)


RUBY_RUNS = {
    "brackets": run_of("["),
    "bases": run_of("a["),
    "readings across lines": run_of("a[b\n"),
    "empty readings": run_of("a[]"),
    "words": run_of(" a[b]"),
    "a long base": lambda size: "a" * size + "[b]",
    "nested": nested("a[", "]"),
    "tags": run_of(">[b]"),
}


@pytest.mark.parametrize("make", RUBY_RUNS.values(), ids=RUBY_RUNS.keys())
def test_ruby_filters_take_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(anki_template._furigana, make)


def test_a_card_with_every_filter_takes_linear_time() -> None:
    front = "{{furigana:Front}}{{hint:Front}}{{tts ja_JP:kana:Front}}{{cloze-only:Front}}"
    assert_linear(
        lambda text: render_card(front, "{{FrontSide}}", {"Front": text}, 0),
        run_of("{{c1::漢字[かんじ]}} [sound:a] "),
    )


# Anki's pattern (rslib template_filters.rs FURIGANA), for short texts: Rust's regex
# crate and Python's re report the same leftmost-first matches for it.
ANKI_FURIGANA = re.compile(r" ?([^ >]+?)\[(.+?)\]")
_RUBY_PIECES = ["a", " ", ">", "[", "]", "\n", "b", "sound:", "&nbsp;", "漢", "[sound:x]"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_RUBY_PIECES), max_size=12).map("".join))
def test_ruby_is_read_as_anki_reads_it(text: str) -> None:
    def ruby(m: re.Match[str]) -> str:
        if m.group(2).startswith("sound:"):
            return m.group(0)
        return f"<ruby><rb>{m.group(1)}</rb><rt>{m.group(2)}</rt></ruby>"

    assert anki_template._furigana(text) == ANKI_FURIGANA.sub(ruby, text.replace("&nbsp;", " "))
