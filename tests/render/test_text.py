"""Markdown -> sanitised HTML: math, clozes, media, literal HTML-looking text, sanitising."""

from __future__ import annotations

import html as html_module
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from deckbuilder.cloze import cloze_numbers
from deckbuilder.render import markdown
from deckbuilder.render.markdown import render_markdown


def html(text: str, *, cloze: bool = False) -> str:
    return render_markdown(text, cloze=cloze).html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Backslashes, '_' and '*' inside math are not Markdown.
        (r"\(a_1 * b_2\)", r"\(a_1 * b_2\)"),
        (r"\[\sum_{i=1}^n x_i\]", r"\[\sum_{i=1}^n x_i\]"),
        (
            r"*x* and \(a_1 * b_2 * c_3\) and _y_",
            r"<em>x</em> and \(a_1 * b_2 * c_3\) and <em>y</em>",
        ),
        (r"\(\{a\} \\ b\)", r"\(\{a\} \\ b\)"),
        # '<' and '&' in math are escaped as HTML; MathJax reads the text, so sees them as typed.
        (r"\(a<b \& c\)", r"\(a&lt;b \&amp; c\)"),
        # A display formula whose lines look like Markdown blocks stays one formula.
        ("\\[\n- a\n\n# b\n\\]", "\\[\n- a\n\n# b\n\\]"),
        ("> \\[\n> a_1\n> \\]", "<blockquote>\n<p>\\[\na_1\n\\]</p>\n</blockquote>"),
        ("- \\[x_1 * y_1\\]\n- b", "<ul>\n<li>\n\\[x_1 * y_1\\]\n</li>\n<li>b</li>\n</ul>"),
        # Escaped backslash: not math; unclosed: ordinary Markdown.
        (r"\\(x\)", r"\(x)"),
        (r"\(x", "(x"),
        # Math in a code span is code.
        (r"`\(x_1\)`", r"<code>\(x_1\)</code>"),
    ],
)
def test_math_reaches_anki_as_typed(text: str, expected: str) -> None:
    assert html(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Issue 44: dollar math is written with the delimiters Anki's MathJax reads.
        (r"$t_{1/2} = \frac{0.693 V_d}{CL}$", r"\(t_{1/2} = \frac{0.693 V_d}{CL}\)"),
        (r"$a_1 * b_2$ and *x*", r"\(a_1 * b_2\) and <em>x</em>"),
        ("a $$x^2$$ b", "a \\[x^2\\] b"),
        ("$$\nx_1 * y_1\n$$", "\\[\nx_1 * y_1\n\\]"),
        (r"{{c1::$x^{2}$}}", r"{{c1::\(x^{2}\)}}"),
        # Prices, and a dollar sign escaped, stay text.
        ("$5 and $10", "$5 and $10"),
        ("from $10 to $x$", r"from $10 to \(x\)"),
        (r"\$x$ costs", "$x$ costs"),
        ("$ x $", "$ x $"),
        ("`$x$`", "<code>$x$</code>"),
        # \( \) and \[ \] keep working beside them.
        (r"\(x\) and $y$", r"\(x\) and \(y\)"),
        # A formula that opens a text ending in a digit (dollarmath took the last
        # character for the one before the opening dollar, and left it as text).
        ("$x$ = 2", r"\(x\) = 2"),
        ("$$x^2$$ is 4", "\\[x^2\\] is 4"),
        (
            "| a |\n|---|\n| $x$ = 2 |",
            "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>\\(x\\) = 2</td>\n</tr>\n</tbody>\n</table>",
        ),
        ("$x$5 and 3", "$x$5 and 3"),
    ],
)
def test_dollar_math_reaches_anki_as_its_delimiters(text: str, expected: str) -> None:
    assert html(text, cloze="{{" in text) == expected


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        (
            "$ x^2 $ here",
            "'$ x^2 $' is shown as text, not as math: a formula between single dollars has no space just inside them (so that prices stay text); write $x^2$",
        ),
        (r"it is $\frac{a}{b} $", "no space just inside them"),
        ("$x_1$2", "a digit right beside its dollars reads as a price"),
    ],
)
def test_dollars_that_look_like_math_but_stay_text_are_warned(text: str, warned: str) -> None:
    rendered = render_markdown(text)
    assert rendered.html == text
    (warning,) = rendered.warnings
    assert warned in warning
    assert rendered.at(warning) in text


@pytest.mark.parametrize(
    "text",
    [
        "$5 and $10",
        "costs $5, $6 or $7",
        "env $HOME_DIR and $PATH_X",
        r"\$x^2\$",
        "`$ x^2 $`",
        "$x^2$",
    ],
)
def test_prices_and_math_are_not_warned(text: str) -> None:
    assert render_markdown(text).warnings == []


def test_inline_display_math_inside_a_paragraph() -> None:
    assert html("What is\n\\[\\sum_i x_i\\]\nhere?") == "What is\n\\[\\sum_i x_i\\]\nhere?"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{c1::\\(x^2\\)}}", "{{c1::\\(x^2\\)}}"),
        ("{{c1::`torch.utils.checkpoint`}}", "{{c1::<code>torch.utils.checkpoint</code>}}"),
        # Inside a deletion, '::' and '}}' in code or math would end the answer early in Anki.
        ("{{c1::`std::vector`}}", "{{c1::<code>std:&#58;vector</code>}}"),
        ("{{c1::\\(\\frac{1}{x^{2}}\\)}}", "{{c1::\\(\\frac{1}{x^{2}&#125;\\)}}"),
        ("{{c1::`a:::b}}}`}}", "{{c1::<code>a:&#58;:b}&#125;}</code>}}"),
        # A whole deletion nested in code inside a deletion is left for Anki.
        ("{{c1::`x = {{c2::42::n}}; y::z`}}", "{{c1::<code>x = {{c2::42::n}}; y:&#58;z</code>}}"),
        # A hint may contain '::' (Anki takes everything after the first '::').
        ("{{c1::answer::hint :: more}}", "{{c1::answer::hint :: more}}"),
        ("{{c1::**bold**::hint}}", "{{c1::<strong>bold</strong>::hint}}"),
        # Outside a deletion code is left alone; '{{' in code is harmless to Anki.
        ("`std::vector` {{c1::x}} `}}`", "<code>std::vector</code> {{c1::x}} <code>}}</code>"),
        # A deletion inside a code span is Anki's business (it shows as a gap in the code).
        ("`x = {{c1::42}}`", "<code>x = {{c1::42}}</code>"),
    ],
)
def test_cloze_syntax_survives_markdown(text: str, expected: str) -> None:
    assert html(text, cloze=True) == expected


def test_only_cloze_fields_protect_deletions() -> None:
    assert html("{{c1::`std::vector`}}") == "{{c1::<code>std::vector</code>}}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Markdown decodes escapes and character references; in a cloze field, a character
        # of Anki's cloze syntax decoded from one stays a character reference, so Anki does
        # not read a deletion the author escaped.
        ("{{c1::x}} \\{\\{c2::y}}", "{{c1::x}} &#123;&#123;c2::y}}"),
        ("{{c1::x}} &#123;&#123;c3::y}}", "{{c1::x}} &#123;&#123;c3::y}}"),
        ("{{c1::x}} &lbrace;&lbrace;c3::y}}", "{{c1::x}} &#123;&#123;c3::y}}"),
        ("{{c1::x}} {{&#99;2::y}} {{c&#50;::z}}", "{{c1::x}} {{&#99;2::y}} {{c&#50;::z}}"),
        ("{{c1::x}} {{c2\\:\\:y}}", "{{c1::x}} {{c2&#58;&#58;y}}"),
        ("{{c1::a \\}\\} b}}", "{{c1::a &#125;&#125; b}}"),
        ("![{{c1::a \\{}}](x.png)", '<img src="x.png" alt="{{c1::a &#123;}}">'),
        # A backslash before a letter or digit is no escape: the text stays as typed.
        ("{{c1::\\c \\2}}", "{{c1::\\c \\2}}"),
    ],
)
def test_escaped_cloze_syntax_stays_escaped(text: str, expected: str) -> None:
    out = render_markdown(text, cloze=True)
    assert out.html == expected and out.problems == []


def test_other_fields_decode_escaped_braces() -> None:
    assert html("\\{\\{c2::y}} &#123;") == "{{c2::y}} {"


LOST = (
    "cloze deletion {} would not reach Anki: Markdown changes its braces (escaped braces "
    "beside them, a link address, code or math holding them); write them plainly"
)
GAINED = (
    "Anki would read cloze deletion {}, which the text does not have: Markdown makes it "
    "from escaped braces (in a link title, or beside other braces)"
)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[{{c1::x}}](https://example.com/{{c2::y}}) {{c3::z}}", LOST.format("c2")),
        ("{{c1::`x}}`", LOST.format("c1")),  # the code is shown whole, braces and all
        ("{{c1::x\\}}", LOST.format("c1")),  # the escaped brace is no closing one
        ('[a](x "\\{\\{c2::t}}") {{c1::b}}', GAINED.format("c2")),
        ("{\\{{c1::x {{c2::y}}", GAINED.format("c2")),  # the escaped brace opens nothing
    ],
)
def test_deletions_markdown_would_change_are_problems(text: str, problem: str) -> None:
    """The card rule counts the deletions written in the text; Anki, those in the field."""
    assert render_markdown(text, cloze=True).problems == [problem]
    assert render_markdown(text).problems == []


SYNTAX = ["{{c1::", "{{c2::", "}}", "::", "{", "}", ":", "c", "2", "x", "\n"]
ESCAPED = ["\\{", "\\}", "\\:", "&#123;", "&#125;", "&#58;", "&#99;", "&#50;", "&lbrace;"]
MARKDOWN = ["\\", "*", "_", "<b>", "</b>", "&", "&amp;", "- ", "> ", "# ", "`", "\\(", "\\)"]
MARKDOWN += ["```\n", "    ", "[a](", "[", "](", ")", '"']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SYNTAX + ESCAPED + MARKDOWN[:10]), max_size=25))
# Braces written inside a deletion, balanced by its closing '}}': Anki ends the deletion at
# the first '}}', which the renderer rightly tells (ended early), with the same numbers.
@example(fragments=["{{c1::", "{", "{", "}}", "}}"])
def test_escaped_cloze_syntax_changes_no_deletion(fragments: list[str]) -> None:
    """Escapes and character references apart from the cloze syntax the author wrote:
    Anki reads in a cloze field exactly the deletions the text has."""
    text = " ".join(fragments)
    out = render_markdown(text, cloze=True)
    assert _numbers_changed(out.problems) == []
    assert cloze_numbers(out.html) == cloze_numbers(text)


def _numbers_changed(problems: list[str]) -> list[str]:
    """The problems that say Anki would read other deletion numbers than the text has
    (others: a deletion ended early, a link left as text; tests/render/test_fidelity.py)."""
    return [p for p in problems if p.startswith((LOST[:15], GAINED[:15]))]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SYNTAX + ESCAPED + MARKDOWN), max_size=25).map("".join))
def test_deletions_anki_would_read_differently_are_problems(text: str) -> None:
    out = render_markdown(text, cloze=True)
    changed = _numbers_changed(out.problems)
    assert (cloze_numbers(out.html) == cloze_numbers(text)) == (changed == [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<SCRIPT src=x.js></SCRIPT>", "&lt;SCRIPT src=x.js&gt;&lt;/SCRIPT&gt;"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("<div>block</div>", "&lt;div&gt;block&lt;/div&gt;"),
        ("<style>body{}</style>", "&lt;style&gt;body{}&lt;/style&gt;"),
        ("<!-- note -->", "&lt;!-- note --&gt;"),
        ("<iframe src=//x.org>", "&lt;iframe src=//x.org&gt;"),
        # Allowed tags pass, stripped of anything not on the allow-list.
        ('<b onclick="steal()">bold</b>', "<b>bold</b>"),
        ('<span style="color:red" class="evil k">x</span>', '<span class="k">x</span>'),
        ('<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
        (
            '<a href="https://pytorch.org">x</a>',
            '<a href="https://pytorch.org" rel="noopener noreferrer">x</a>',
        ),
        (
            "H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <mark>m</mark>, <u>u</u>, a<br>b",
            "H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <mark>m</mark>, <u>u</u>, a<br>b",
        ),
        # An unclosed allowed tag cannot leak into the template around the field.
        ("<b>open", "<b>open</b>"),
        ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
    ],
)
def test_html_looking_text(text: str, expected: str) -> None:
    assert html(text) == expected


def test_markdown_blocks() -> None:
    out = html(
        "# T\n\n- *a*\n- **b**\n\n1. one\n\n> q\n\n| x | y |\n|:-|-:|\n| 1 | 2 |\n\n~~gone~~"
    )
    for part in (
        "<h1>T</h1>",
        "<li><em>a</em></li>",
        "<li><strong>b</strong></li>",
        "<ol>\n<li>one</li>",
        "<blockquote>\n<p>q</p>",
        '<th style="text-align:left">x</th>',
        '<td style="text-align:right">2</td>',
        "<s>gone</s>",
    ):
        assert part in out


def test_lone_paragraph_is_unwrapped_but_two_are_not() -> None:
    assert html("just *this*") == "just <em>this</em>"
    assert html("one\n\ntwo") == "<p>one</p>\n<p>two</p>"
    assert html("  \n") == ""


def test_media_references_are_collected_and_renamed() -> None:
    out = render_markdown(
        "![a](<my pic.png>) ![b](sub/%ED%95%9C.png) [sound:beep.mp3]",
        {"my pic.png": "my pic.png", "sub/한.png": "한.png", "beep.mp3": "beep.mp3"},
    )
    assert out.images == ["my pic.png", "sub/한.png"] and out.sounds == ["beep.mp3"]
    assert out.html == '<img src="my pic.png" alt="a"> <img src="한.png" alt="b"> [sound:beep.mp3]'


def test_sound_tags_in_code_are_shown_not_played() -> None:
    out = render_markdown("`[sound:x.mp3]`\n\n```\n[sound:y.mp3]\n```\n\n    [sound:z.mp3]")
    assert out.sounds == []
    assert out.html == (
        "<p><code>[sound&#58;x.mp3]</code></p>\n<pre><code>[sound&#58;y.mp3]\n</code></pre>\n"
        "<pre><code>[sound&#58;z.mp3]\n</code></pre>"
    )


def test_remote_image_source_is_dropped_even_if_not_caught_earlier() -> None:
    assert html("![r](https://x.org/a.png)") == '<img alt="r">'


def test_noncharacters_in_input_cannot_forge_cloze_escapes() -> None:
    assert html("{{c1::a\ufdd0b\ufdd1}}", cloze=True) == "{{c1::a\ufffdb\ufffd}}"


FRAGMENTS = [
    "<script>",
    "</script>",
    "<img src=x onerror=alert(1)>",
    "<b ",
    "<a href=",
    "<span ",
    "onclick=",
    "javascript:",
    '"',
    "'",
    ">",
    "<",
    "</b>",
    "&",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "{{c1::",
    "}}",
    "::",
    "`",
    "```",
    "\n",
    " ",
    "x",
    "*",
    "_",
    "-",
    "|",
    "<!--",
    "-->",
]


# An unknown code language makes Pygments load its plugin lexers; where IPython is
# installed that import raises the recursion limit, which Hypothesis reports as an error
# when it happens mid-test. Load them once up front.
render_markdown("```no-such-language\nx\n```")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
@example("<a href=&javascript:>")  # href="&amp;javascript:": a relative link, harmless
def test_no_markup_from_card_text_can_run(text: str) -> None:
    for cloze in (False, True):
        out = html(text, cloze=cloze).lower()
        tags = re.findall(r"<[^>]*>", out)
        assert not [t for t in tags if re.match(r"</?(script|img|iframe|style)", t)], out
        assert not [t for t in tags if re.search(r"\son[a-z]+\s*=", t)], out
        assert not [url for t in tags for url in _urls(t) if _runs_script(url)], out


def _urls(tag: str) -> list[str]:
    """The values of a tag's URL attributes, as a browser reads them (entities decoded)."""
    quoted = r"""("[^"]*"|'[^']*'|[^\s>]+)"""
    found = re.findall(r"\s(?:href|src|action|formaction|xlink:href)\s*=\s*" + quoted, tag)
    return [html_module.unescape(v[1:-1] if v[:1] in "\"'" else v) for v in found]


_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def _runs_script(url: str) -> bool:
    """Whether a browser would run this URL: its scheme, read as URL parsing reads it
    (tabs and line breaks removed, leading control characters and spaces stripped), is
    a script's."""
    cleaned = re.sub(r"[\t\n\r]", "", url).lstrip(_C0_AND_SPACE).lower()
    return cleaned.startswith(("javascript:", "vbscript:", "data:text/html"))


@pytest.mark.parametrize(
    ("tag", "runs"),
    [
        ('<a href="&amp;javascript:">', False),  # a relative link
        ('<a href="https://example.com/javascript:">', False),
        ('<a href="java&#9;script:alert(1)">', True),
        ("<a href=' JavaScript:x'>", True),
        ('<img src="&#x6A;avascript:x">', True),
        ('<a title="javascript:" href="x">', False),
    ],
)
def test_script_url_check(tag: str, runs: bool) -> None:
    assert any(_runs_script(url) for url in _urls(tag)) is runs


def _mathjax_end(src: str, start: int, closer: str) -> int:
    """How MathJax finds the end of a formula: ``\\x`` pairs skipped whole."""
    pos = start
    while pos < len(src) - 1:
        if src[pos] == "\\":
            if src[pos + 1] == closer:
                return pos + 2
            pos += 2
        else:
            pos += 1
    return -1


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["\\", "(", ")", "[", "]", "a", "\\\\", "\\("])).map("".join))
def test_math_ends_where_mathjax_ends_it(src: str) -> None:
    env: dict[str, Any] = {}
    for start in range(1, len(src) + 1):
        if src[start - 1] in "([":
            for closer in ")]":
                found = markdown._math_end(src, start, closer, len(src), env)
                assert found == _mathjax_end(src, start, closer), (src, start, closer)
