"""The template language's own scanners take time linear in the text's length.

As tests/test_linear_time.py measures them (CPU time of a text and of one four times as
long): the template reader (``{{``, comments, sections), the reader of sound and
``[anki:...]`` tags (a name's closing searched once, options read once whichever
opening reaches them) and the ``furigana:``/``kanji:``/``kana:`` reader (Anki's lazy
regular expression, which a backtracking engine would rescan from every ``[``).
Anki's HTML and sound filters (tags removed, tags in math removed, sounds found) read each
character a few times, counted, and give what Anki's regular expressions give.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

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


# -- Anki's HTML and sound filters -------------------------------------------------------
class _CountingText(str):
    """A text that counts the characters its ``find`` and the patterns searching it read."""

    read = 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:
        found = super().find(sub, start, end)
        _CountingText.read += (len(self) if found < 0 else found + len(sub)) - (start or 0)
        return found


class _SearchCounted:
    """A compiled pattern whose searches add the characters they read to the count."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def search(self, string: str, pos: int = 0) -> re.Match[str] | None:
        found = self.pattern.search(string, pos)
        _CountingText.read += (found.end() if found else len(string)) - pos
        return found

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.pattern.match(string, pos)


_SCANNING_PATTERNS = ["_GT", "_COMMENT_CLOSE", "_STYLE_CLOSE", "_SCRIPT_CLOSE", "_STYLE_OPEN"]
_SCANNING_PATTERNS += ["_SCRIPT_OPEN", "_MATH_OPEN", "_MATH_CLOSE"]
_TAG_SYNTAX = ["<", ">", "<!--", "-->", "<style", "</style>", "<script", "</script>", "a"]
_TAG_SYNTAX += ["\\(", "\\)", "\\[", "\\]", "[sound:", "]"]


@settings(max_examples=60, deadline=None)
@given(unit=st.lists(st.sampled_from(_TAG_SYNTAX), min_size=1, max_size=4).map("".join))
def test_anki_filters_read_each_character_a_few_times(unit: str) -> None:
    """Tags, math and sounds: each search starts where the last one ended or reuses its
    answer, so the characters read stay within a few times the text's length."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in _SCANNING_PATTERNS:
            pattern = getattr(anki_template, name)
            monkeypatch.setattr(anki_template, name, _SearchCounted(pattern))
        field = _CountingText(run_of(unit)(4096))
        for read in (
            anki_template._remove_tags,
            anki_template._strip_html_in_math,
            lambda t: anki_template._extract_av_tags(t, "q"),
        ):
            _CountingText.read = 0
            read(field)
            assert _CountingText.read <= 4 * len(field) + 64, read


# -- the one-pass readers read as Anki's regular expressions do ---------------------------
# Anki's (rslib/src/text.rs and template_filters.rs), for short texts.
ANKI_HTML = re.compile(
    r"(<!--.*?-->)|(<style.*?>.*?</style>)|(<script.*?>.*?</script>)|(<.*?>)",
    re.IGNORECASE | re.DOTALL,
)
# The sound tag of Anki's play-tag reader (rslib card_rendering/parser.rs): a name of at
# least one character that is not ']' (measured: "[sound:]]" is text).
ANKI_SOUND = re.compile(r"\[sound:([^\]]+)\]")
ANKI_MATHJAX = re.compile(r"(\\[(\[])(.*?)(\\[\])])", re.IGNORECASE | re.DOTALL)
# U+017F (long s) matches 's' when case is ignored.
_SHORT = st.lists(st.sampled_from([*_TAG_SYNTAX, "STYLE", "\u017f", "\n", "b>", "&amp;"])).map(
    "".join
)


@settings(max_examples=500, deadline=None)
@given(_SHORT)
def test_tags_are_removed_as_anki_removes_them(html: str) -> None:
    assert anki_template._remove_tags(html) == ANKI_HTML.sub("", html)


@settings(max_examples=500, deadline=None)
@given(_SHORT)
def test_sounds_are_found_as_anki_finds_them(html: str) -> None:
    names: list[str] = []

    def ref(m: re.Match[str]) -> str:
        names.append(anki_template._decode_entities(m.group(1)))
        return f"[anki:play:q:{len(names) - 1}]"

    expected = ANKI_SOUND.sub(ref, html)
    # pylib hands a client the file's base name (anki.template.av_tag_to_native).
    sounds = tuple(anki_template.SoundTag(name.rsplit("/", 1)[-1]) for name in names)
    assert anki_template._extract_av_tags(html, "q") == (expected, sounds)


@settings(max_examples=500, deadline=None)
@given(_SHORT)
def test_tags_in_math_are_removed_as_anki_removes_them(html: str) -> None:
    expected = ANKI_MATHJAX.sub(
        lambda m: m.group(1) + ANKI_HTML.sub("", m.group(2)) + m.group(3), html
    )
    assert anki_template._strip_html_in_math(html) == expected
