"""Fenced code blocks highlighted by Pygments (deckbuilder.render.highlight): class names only,
cloze deletions kept working inside a block, a limited amount of code per field and no
lexer that hangs, one lexer per language and one formatter for every block, and token
colours in the note types' CSS readable day and night."""

from __future__ import annotations

import re

import pytest

from deckbuilder.anki.notetypes import OWN_KINDS, note_type
from deckbuilder.render import highlight
from deckbuilder.render.highlight import HIGHLIGHT_LIMIT
from deckbuilder.render.markdown import render_markdown
from tests.conftest import ROOT
from tests.render.pygments_css import PYGMENTS_BEGIN, PYGMENTS_END, pygments_css, with_pygments_css


def html(text: str, *, cloze: bool = False) -> str:
    return render_markdown(text, cloze=cloze).html


def test_fenced_code_is_highlighted_with_class_names_only() -> None:
    out = html("```python\nx = checkpoint(block, x)  # save memory\n```")
    assert out.startswith('<pre class="highlight"><code><span class="n">x</span>')
    assert '<span class="c1"># save memory</span>' in out
    assert "style=" not in out


def test_code_without_or_with_unknown_language() -> None:
    assert html("```\na < b\n```") == "<pre><code>a &lt; b\n</code></pre>"
    out = render_markdown("```pyhton\nx\n```")
    assert out.html == "<pre><code>x\n</code></pre>"
    assert out.warnings == [
        "code block language 'pyhton' is not known to Pygments; not highlighted"
    ]


def test_cloze_markers_are_put_back_between_highlighted_spans() -> None:
    out = html("```python\ny = {{c1::checkpoint::fn}}(block, x)\n```", cloze=True)
    assert (
        '<span class="o">=</span> {{c1::<span class="n">checkpoint</span>::fn}}'
        '<span class="p">(</span>' in out
    )
    # Markers that do not pair up: shown as plain text, unhighlighted, for Anki to read.
    broken = html("```python\ny = {{c1::checkpoint(x)\n```", cloze=True)
    assert broken == "<pre><code>y = {{c1::checkpoint(x)\n</code></pre>"


def test_a_field_highlights_a_limited_amount_of_code() -> None:
    """Pygments takes time quadratic in the length of some code: past the limit, a
    field's blocks are shown plain, with a warning."""
    block = "```python\n{}```"
    first = "x = 1\n" * ((HIGHLIGHT_LIMIT - 100) // 6)
    second = "y = 2\n" * 30
    out = render_markdown(block.format(first) + "\n\n" + block.format(second))
    assert out.html.count('<pre class="highlight">') == 1
    assert out.html.endswith("<pre><code>" + second + "</code></pre>")
    assert out.warnings == [
        f"code block not highlighted: a field highlights at most {HIGHLIGHT_LIMIT:,} "
        "characters of code"
    ]
    # Each field has its own allowance.
    assert render_markdown(block.format(second)).html.startswith('<pre class="highlight">')


def test_many_small_blocks_count_towards_the_limit() -> None:
    """Finding and loading a lexer costs as much as a block of code."""
    out = render_markdown("\n\n".join(["```python\nx\n```"] * 100))
    assert 0 < out.html.count('<pre class="highlight">') < 100
    assert out.warnings


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("```tnt\na", "<pre><code>a</code></pre>"),  # TNTLexer hangs
        ("```lilypond\neeeeeeee\n```", "<pre><code>eeeeeeee\n</code></pre>"),
    ],
)
def test_languages_whose_lexers_hang_are_shown_plain(text: str, plain: str) -> None:
    out = render_markdown(text)
    assert out.html == plain
    assert out.warnings == [
        f"code block language '{text[3:].split()[0]}' is not highlighted: Pygments' "
        "lexer for it can take minutes or hang on some code"
    ]


def test_a_lexer_that_gets_stuck_is_given_up() -> None:
    """MCSchemaLexer matches nothing, over and over, at an unclosed comment."""
    assert render_markdown("```mcschema\n<!--\n```").html == "<pre><code>&lt;!--\n</code></pre>"
    assert render_markdown("```mcschema\n{}\n```").html.startswith('<pre class="highlight">')


def test_code_blocks_share_one_lexer_per_language_and_one_formatter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Looking a lexer up and building a formatter cost more than highlighting a short
    block, so they are made once; the output and the warning for an unknown language stay
    the same block after block."""
    import pygments.formatters
    import pygments.lexers

    highlight._lexer.cache_clear()
    highlight._html_formatter.cache_clear()
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


def test_note_type_css_has_current_pygments_colours() -> None:
    """Regenerate with scripts/update-pygments-css.py when this fails."""
    css = (ROOT / "deckbuilder" / "anki" / "notetypes" / "base.css").read_text(encoding="utf-8")
    block = css.split(PYGMENTS_BEGIN)[1].split(PYGMENTS_END)[0]
    assert block == pygments_css()
    for kind in OWN_KINDS:
        # A note type as Anki makes it (Image Occlusion) has Anki's CSS alone.
        assert (block in note_type(kind).css) != bool(note_type(kind).stock_kind)


def test_with_pygments_css_needs_the_markers() -> None:
    assert with_pygments_css(f"a\n{PYGMENTS_BEGIN}old\n{PYGMENTS_END}b\n", "new\n") == (
        f"a\n{PYGMENTS_BEGIN}new\n{PYGMENTS_END}b\n"
    )
    with pytest.raises(ValueError, match="markers"):
        with_pygments_css("no markers", "x")


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("night", [False, True])
def test_code_colours_are_readable_day_and_night(night: bool) -> None:
    """WCAG AA (4.5:1) for every token colour on the code background of that mode."""
    css = (ROOT / "deckbuilder" / "anki" / "notetypes" / "base.css").read_text(encoding="utf-8")
    backgrounds = re.findall(r"--db-code-bg: (#[0-9a-fA-F]+)", css)
    assert len(backgrounds) == 2
    background = backgrounds[1] if night else backgrounds[0]
    checked = 0
    for line in pygments_css().splitlines():
        m = re.match(r"(.*?) \{ .*?color: (#[0-9A-Fa-f]+)", line)
        if not m or ("nightMode" in m.group(1)) != night or m.group(1).endswith(" .w"):
            continue  # .w is whitespace: nothing to read
        checked += 1
        assert _contrast(m.group(2), background) >= 4.5, line
    assert checked > 30
