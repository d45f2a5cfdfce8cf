"""Markdown -> sanitised HTML for Anki fields, collecting the media files a field refers to.

The pipeline for one field: CommonMark (markdown-it-py) with three additions, then nh3.

* Math: ``\\( ... \\)`` and ``\\[ ... \\]`` are taken out of the Markdown grammar whole, so
  backslashes, ``_`` and ``*`` inside reach Anki's MathJax as typed.
* Code: fenced blocks with a language are highlighted by Pygments (class names only;
  the colours live in the note types' CSS, see :func:`pygments_css`).
* Media: ``![alt](file.png)`` and Anki's ``[sound:file.mp3]`` are collected and their
  names rewritten to the names they get inside the package; ``[sound:x]`` written inside
  code is shown, not played.

Raw HTML is shown literally (``a < b``, ``<script>`` display as typed) unless it is one of
a few inline tags (:data:`RAW_TAGS`); the result is then cleaned by nh3 with an allow-list,
which removes event handlers, ``javascript:`` URLs and anything else not listed.

Cloze fields (``cloze=True``): Anki finds ``{{c1::answer::hint}}`` in the final HTML by
plain text search, so a ``::`` or ``}}`` inside code or math that sits in a deletion would
cut it short. Those are written as ``&#58;`` / ``&#125;`` (the same characters on screen).
Deletions inside a highlighted code block keep working: the block is highlighted without
the markers, which are then put back between Pygments' spans.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape as _html_escape
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    import nh3
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

__all__ = ["RAW_TAGS", "Rendered", "pygments_css", "render_markdown", "with_pygments_css"]

# Inline HTML an author may write; any other tag is shown as typed.
RAW_TAGS = frozenset(
    {"b", "i", "u", "s", "em", "strong", "sub", "sup", "br", "kbd", "mark", "span", "small"}
    | {"del", "ins", "a"}
)
# Tags the Markdown renderer itself produces.
_MARKDOWN_TAGS = frozenset(
    {"p", "em", "strong", "s", "code", "pre", "ul", "ol", "li", "blockquote", "hr", "br"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"}
    | {"a", "img", "span"}
)
DAY_STYLE = "default"
NIGHT_STYLE = "github-dark"

# Stand-ins for ':' and '}' that must not pair up with a neighbour into Anki's cloze
# syntax. Unicode noncharacters (never valid in interchange text): input containing them
# has them replaced by U+FFFD first, so they cannot collide with anything an author wrote.
_COLON = "\ufdd0"
_BRACE = "\ufdd1"
_NONCHARACTERS = re.compile("[\ufdd0-\ufdef]")
_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_SOUND = re.compile(r"\[sound:([^\]\[\n]+)\]")

# (source as written, "image" or "sound") -> name in the package, or None to keep it.
Resolver = Callable[[str, str], "str | None"]


@dataclass
class Rendered:
    html: str
    images: list[str] = field(default_factory=list)  # image sources as written (URL-decoded)
    sounds: list[str] = field(default_factory=list)  # [sound:...] names as written
    warnings: list[str] = field(default_factory=list)  # things worth telling the author


def _escape(text: str) -> str:
    return _html_escape(text, quote=True).replace("&#x27;", "'")


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_CLOZE_SYNTAX = re.compile(r"\{\{c\d+::|::|\}\}")


def _unclozable(html: str) -> str:
    """Keep Anki from reading ``::`` / ``}}`` in this HTML (code or math inside a deletion)
    as the enclosing deletion's hint or end. A whole deletion nested inside stays one."""
    depth = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal depth
        mark = m.group()
        if mark.startswith("{{"):
            depth += 1
            return mark
        if depth:
            if mark == "}}":
                depth -= 1
            return mark
        return ":" + _COLON if mark == "::" else "}" + _BRACE

    return _CLOZE_SYNTAX.sub(swap, html)


def _silent(html: str) -> str:
    """Keep Anki from playing ``[sound:x]`` written in code (it is shown, not played)."""
    return html.replace("[sound:", "[sound" + _COLON)


# -- math ----------------------------------------------------------------------------------
def _math_end(src: str, start: int, closer: str, stop: int) -> int:
    """Index just past the ``\\)`` / ``\\]`` closing a span whose body starts at ``start``;
    -1 if there is none before ``stop``. ``\\x`` pairs are skipped whole, as MathJax does."""
    if src.find("\\" + closer, start, stop) < 0:  # fast exit for an unclosed delimiter
        return -1
    pos = start
    while pos < stop - 1:
        if src[pos] == "\\":
            if src[pos + 1] == closer:
                return pos + 2
            pos += 2
        else:
            pos += 1
    return -1


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "([":
        return False
    closer = ")" if src[pos + 1] == "(" else "]"
    end = _math_end(src, pos + 2, closer, state.posMax)
    if end < 0:
        return False
    if not silent:
        token = state.push("db_math", "", 0)
        token.content = src[pos:end]
    state.pos = end
    return True


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """``\\[`` opening a block, up to the line ending in ``\\]``; blank lines and lines that
    look like Markdown blocks (``- x``, ``# x``) inside stay part of the formula."""
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith("\\[", begin):
        return False
    end = _math_end(state.src, begin + 2, "]", len(state.src))
    if end < 0:
        return False
    line = start_line
    while line < end_line and state.eMarks[line] < end:
        line += 1
    if line >= end_line or state.src[end : state.eMarks[line]].strip():
        return False  # text after the closing delimiter: an inline formula in a paragraph
    if line > start_line and state.parentType == "blockquote":
        return False  # the raw lines carry '>' markers; the paragraph's inline rule copes
    if silent:
        return True
    token = state.push("db_math_block", "", 0)
    token.content = state.src[begin:end]
    token.map = [start_line, line + 1]
    state.line = line + 1
    return True


# -- sound -----------------------------------------------------------------------------------
def _sound(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "[":
        return False
    m = _SOUND.match(state.src, state.pos, state.posMax)
    if not m:
        return False
    if not silent:
        token = state.push("db_sound", "", 0)
        token.content = m.group(1).strip()
    state.pos = m.end()
    return True


# -- clozes ----------------------------------------------------------------------------------
def _mark_cloze_contents(tokens: list[Token]) -> None:
    """Flag code and math that sit inside a ``{{cN::...}}`` deletion (``meta['in_cloze']``),
    following Anki's reading of the text: every ``{{cN::`` opens, ``}}`` closes the
    innermost open deletion."""
    depth = 0
    stream: list[Token] = []
    for token in tokens:
        stream.append(token)
        stream.extend(token.children or [])
    for token in stream:
        if token.type in ("text", "text_special"):
            for m in _CLOZE_MARK.finditer(token.content):
                if m.group() != "}}":
                    depth += 1
                elif depth:
                    depth -= 1
        elif token.type in ("code_inline", "db_math", "db_math_block", "fence", "code_block"):
            token.meta["in_cloze"] = depth > 0


def _cloze_core(state: Any) -> None:
    if state.env.get("cloze"):
        _mark_cloze_contents(state.tokens)


def _split_cloze_markers(code: str) -> tuple[str, list[tuple[int, str]]] | None:
    """``x = {{c1::42::answer?}}`` -> (``x = 42``, [(4, '{{c1::'), (6, '::answer?}}')]).
    None when the markers do not pair up (then the block is shown unhighlighted)."""
    plain: list[str] = []
    inserts: list[tuple[int, str]] = []
    size = 0
    pos = 0
    opener = re.compile(r"\{\{c\d+::")
    while True:
        m = opener.search(code, pos)
        if not m:
            break
        close = code.find("}}", m.end())
        if close < 0:
            return None
        body = code[m.end() : close]
        if opener.search(body):
            return None  # nested deletions in a code block: leave the text alone
        answer, sep, hint = body.partition("::")
        plain.append(code[pos : m.start()])
        size += m.start() - pos
        inserts.append((size, m.group()))
        plain.append(answer)
        size += len(answer)
        inserts.append((size, f"{sep}{hint}}}}}"))
        pos = close + 2
    plain.append(code[pos:])
    return "".join(plain), inserts


# -- code ------------------------------------------------------------------------------------
def _highlight(code: str, lang: str, cloze: bool, warnings: list[str]) -> str:
    """A fenced block as ``<pre class="highlight"><code>`` with Pygments' class names."""
    if not lang:
        return f"<pre><code>{_escape_text(code)}</code></pre>"
    lexer = _lexer(lang)
    if lexer is None:
        warnings.append(f"code block language '{lang}' is not known to Pygments; not highlighted")
        return f"<pre><code>{_escape_text(code)}</code></pre>"
    inserts: list[tuple[int, str]] = []
    if cloze and _CLOZE_MARK.search(code):
        split = _split_cloze_markers(code)
        if split is None:
            return f"<pre><code>{_escape_text(code)}</code></pre>"
        code, inserts = split
    from pygments import format as pyg_format
    from pygments.token import Token as PToken

    tokens = list(lexer.get_tokens(code))
    if inserts:
        tokens = _insert_markers(tokens, inserts, PToken.Text)
    body = pyg_format(tokens, _html_formatter())
    return f'<pre class="highlight"><code>{body}</code></pre>'


# Finding a lexer by name and building a formatter (its style table) cost far more than
# highlighting a short block, and neither keeps anything from one block to the next.
@lru_cache(maxsize=64)
def _lexer(lang: str) -> Any:
    """Pygments' lexer for a fence's language name, or None for a name it does not know."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _html_formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def _insert_markers(
    tokens: list[tuple[Any, str]], inserts: list[tuple[int, str]], text_type: Any
) -> list[tuple[Any, str]]:
    """Split Pygments tokens at the given offsets and put plain-text markers there, so each
    marker lands between complete ``<span>`` elements."""
    out: list[tuple[Any, str]] = []
    offset = 0
    pending = list(inserts)
    for ttype, value in tokens:
        while pending and pending[0][0] <= offset + len(value):
            at, marker = pending.pop(0)
            cut = at - offset
            if cut:
                out.append((ttype, value[:cut]))
            out.append((text_type, marker))
            value = value[cut:]
            offset = at
        if value:
            out.append((ttype, value))
            offset += len(value)
    out.extend((text_type, marker) for _, marker in pending)
    return out


# -- the parser ------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt(
        "commonmark", {"html": True, "linkify": False, "typographer": False, "xhtmlOut": False}
    )
    md.enable(["table", "strikethrough"])
    # Raw HTML only ever appears inline, tag by tag, so each tag can be let through or
    # shown as typed on its own (a block-level '<script>' line included).
    md.disable("html_block")
    md.inline.ruler.before("escape", "db_math", _math_inline)
    md.inline.ruler.before("link", "db_sound", _sound)
    md.block.ruler.before("fence", "db_math_block", _math_block)
    md.core.ruler.push("db_cloze", _cloze_core)

    def image(_self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        src = unquote(str(token.attrGet("src") or ""))
        env["images"].append(src)
        name = env["resolve"](src, "image") or src
        alt = "".join(child.content for child in (token.children or []))
        title = token.attrGet("title")
        title_attr = f' title="{_escape(str(title))}"' if title else ""
        return f'<img src="{_escape(name)}" alt="{_escape(alt)}"{title_attr}>'

    def sound(_self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
        src = tokens[idx].content
        env["sounds"].append(src)
        return f"[sound:{_escape_text(env['resolve'](src, 'sound') or src)}]"

    def math(_self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        html = _escape_text(token.content)
        html = _unclozable(html) if token.meta.get("in_cloze") else html
        return html + ("\n" if token.type == "db_math_block" else "")

    def code_inline(
        _self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        token = tokens[idx]
        html = _silent(f"<code>{_escape_text(token.content)}</code>")
        return _unclozable(html) if token.meta.get("in_cloze") else html

    def fence(_self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]) -> str:
        token = tokens[idx]
        info = token.info.strip().split()
        in_cloze = bool(token.meta.get("in_cloze"))
        html = _silent(
            _highlight(
                token.content,
                info[0] if info else "",
                env["cloze"] and not in_cloze,
                env["warnings"],
            )
        )
        return (_unclozable(html) if in_cloze else html) + "\n"

    def code_block(
        _self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        token = tokens[idx]
        html = _silent(f"<pre><code>{_escape_text(token.content)}</code></pre>")
        return (_unclozable(html) if token.meta.get("in_cloze") else html) + "\n"

    def html_inline(
        _self: Any, tokens: list[Token], idx: int, options: Any, env: dict[str, Any]
    ) -> str:
        content = tokens[idx].content
        m = _TAG_NAME.match(content)
        if m and m.group(1).lower() in RAW_TAGS:
            return content
        return _escape_text(content)

    md.add_render_rule("image", image)
    md.add_render_rule("db_sound", sound)
    md.add_render_rule("db_math", math)
    md.add_render_rule("db_math_block", math)
    md.add_render_rule("code_inline", code_inline)
    md.add_render_rule("fence", fence)
    md.add_render_rule("code_block", code_block)
    md.add_render_rule("html_inline", html_inline)
    return md


def _pygments_classes() -> set[str]:
    from pygments.token import STANDARD_TYPES

    return {name for name in STANDARD_TYPES.values() if name}


def _keep_local_src(tag: str, attribute: str, value: str) -> str | None:
    # Cards must work offline and must not phone home: no remote or inline resources.
    if attribute == "src" and re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|//", value):
        return None
    return value


@lru_cache(maxsize=1)
def _cleaner() -> nh3.Cleaner:
    import nh3

    return nh3.Cleaner(
        tags=set(_MARKDOWN_TAGS | RAW_TAGS),
        clean_content_tags={"script", "style"},
        attributes={
            "a": {"href", "title"},
            "img": {"src", "alt", "title"},
            "ol": {"start"},
            "th": {"style"},
            "td": {"style"},
        },
        attribute_filter=_keep_local_src,
        url_schemes={"http", "https", "mailto"},
        allowed_classes={"pre": {"highlight"}, "span": _pygments_classes()},
        filter_style_properties={"text-align"},
        strip_comments=True,
        link_rel="noopener noreferrer",
    )


def render_markdown(
    text: str,
    rewrite: Mapping[str, str] | None = None,
    *,
    resolve: Resolver | None = None,
    cloze: bool = False,
) -> Rendered:
    """Render ``text`` as CommonMark and sanitise it. A lone paragraph is returned without
    its ``<p>`` so short answers sit inline in the templates, as Anki users expect of a
    field. ``resolve`` (or the mapping ``rewrite``) gives the name an image or sound gets in
    the package (None: keep the name as written). ``cloze``: the field holds ``{{cN::}}``
    deletions (Anki's Cloze ``Text`` field)."""
    html = fast_html(text)
    if html is not None:
        return Rendered(html)
    return _render_block(text, rewrite, resolve=resolve, cloze=cloze, one_line=True)


# Fast path: one line in a small, unambiguous subset of inline Markdown, rendered from one
# regex split instead of markdown-it + nh3. Anything outside the subset (or in doubt)
# returns None and takes the full path. The subset:
# * words and harmless punctuation (_GAP: letters, digits, ' ,.;:?!\'"()/%+=@#${}-'),
#   which render as typed; '_' between two letters or digits is a literal underscore;
# * a lone '~', '>' and '<' or '&' before a space (escaped);
# * code spans of one to three backticks (any printable ASCII or alphanumeric content,
#   without '::', '{{' or '}}' so that cloze handling cannot change them);
# * '*x*', '_x_', '**x**', '__x__' whose opening run follows a non-alphanumeric character
#   (or the start) and precedes an alphanumeric one, and whose closing run follows an
#   alphanumeric and precedes a non-alphanumeric (or the end); no nesting;
# * links '[words](http(s)://host/path)' with plain words and a plain lower-case host;
# * backslash escapes of ASCII punctuation other than '(' and '[' (math), and a backslash
#   before a letter, digit or space (kept).
# The line must begin with a letter or digit that does not start an ordered list item
# ("1. x", "2) x") or with '*', '_', '[' or a code span, so no block rule applies.
# Trailing spaces are dropped, as a paragraph drops them.
# tests/test_performance_text.py and test_performance_inline.py check that this equals
# the full path on its domain.
#
# _TOKEN splits the line into text (between tokens) and tokens. Every alternative starts
# with a literal character, so the regex engine skips text between tokens quickly; no
# token starts or ends with a letter or digit, so a '_' in the text is between two letters
# or digits exactly when it is so in the text around it (see _BAD_UNDERSCORE).
_CODE = r"[\w -_a-~]+"  # printable ASCII less '`', and letters and digits
_TOKEN = re.compile(
    "("
    + "|".join(
        [
            rf"`{_CODE}`(?!`)",
            rf"``{_CODE}``(?!`)",
            rf"```{_CODE}```(?!`)",
            # An opening run: after a non-alphanumeric (or the start), before an alphanumeric.
            r"\*(?<![^\W_]\*)\*?(?!\*)(?=[^\W_])",
            r"_(?<![^\W_]_)_?(?!_)(?=[^\W_])",
            # A closing run: after an alphanumeric, before a non-alphanumeric (or the end).
            r"\*(?<=[^\W_]\*)\*?(?!\*)(?![^\W_])",
            r"_(?<=[^\W_]_)_?(?!_)(?![^\W_])",
            r"\[(?<!!\[)(?:[^\W_]|[ ,.;?!'\"/%+=@#$-])+\]"
            r"\(https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*(?:/[A-Za-z0-9/._~=?#-]*)?\)",
            r"\\[!-')-/:-@\\-`{-~]",  # an escape: ASCII punctuation less '(' and '['
            r"\\(?=[^\W_]| )",
            r">",
            r"~(?!~)",  # '~~' would strike through
            r"<(?= )",
            r"&(?= )",
        ]
    )
    + ")"
)
_GAP = re.compile(r"[\w ,.;:?!'\"()/%+=@#${}-]*")
_BAD_UNDERSCORE = re.compile(r"_(?<![^\W_]_)|_(?![^\W_])")
_LIST_START = re.compile(r"\d{1,9}[.)]")
_SIMPLE_FIRST = frozenset("*_`[")
_ASCII_PUNCT = "!\"#$%&')*+,-./:;<=>?@\\]^_`{|}~"  # less '(' and '[': math
# Tokens that always render the same.
_FIXED = {">": "&gt;", "~": "~", "<": "&lt;", "&": "&amp;", "\\": "\\"}
_FIXED.update({"\\" + c: _escape_text(c) for c in _ASCII_PUNCT})
_OPEN = {"*": "<em>", "_": "<em>", "**": "<strong>", "__": "<strong>"}
_CLOSE = {"*": "</em>", "_": "</em>", "**": "</strong>", "__": "</strong>"}


def fast_html(text: str) -> str | None:
    """The HTML :func:`render_markdown` gives ``text`` when it is one line in the simple
    subset above (which uses no media, warns about nothing and is the same in a cloze
    field); None otherwise."""
    s = text.rstrip(" ")
    first = s[:1]
    if not (first.isalnum() or first in _SIMPLE_FIRST):
        return None
    # A fence ("```") can only start with a backtick: no startswith() call for the rest.
    if (first.isdecimal() and _LIST_START.match(s)) or (first == "`" and s.startswith("```")):
        return None
    parts = _TOKEN.split(s)  # text, token, text, ..., text
    gaps = " ".join(parts[::2]) if len(parts) > 1 else s
    if _GAP.fullmatch(gaps) is None or ("_" in gaps and _BAD_UNDERSCORE.search(gaps)):
        return None
    open_run = ""  # the emphasis run waiting for its closing run
    for j in range(1, len(parts), 2):
        token = parts[j]
        c = token[0]
        if c == "*" or c == "_":  # an emphasis run
            if parts[j + 1][:1].isalnum():  # an opening run
                if open_run:
                    return None
                open_run = token
                parts[j] = _OPEN[token]
            elif token == open_run:
                parts[j] = _CLOSE[token]
                open_run = ""
            else:
                return None
        elif c == "`":
            if "::" in token or "{{" in token or "}}" in token:
                return None
            code = token.strip("`")
            if code[0] == " " == code[-1] and code.strip(" "):
                code = code[1:-1]
            code = _escape_text(code).replace("[sound:", "[sound&#58;")
            parts[j] = f"<code>{code}</code>"
        elif c == "[":
            label, _, url = token[1:-1].partition("](")
            parts[j] = f'<a href="{url}" rel="noopener noreferrer">{label}</a>'
        else:  # an escape, or a character that always renders the same
            parts[j] = _FIXED[token]
    if open_run:
        return None
    return "".join(parts)


# A line that starts none of the block rules (heading, list, quote, fence, indented code,
# thematic break, math block, link reference) and has no line after it is one paragraph.
_BLOCK_START = frozenset("#>-+*_=`~[\\0123456789")
_LINE_BREAKS = frozenset("\n\r\0")


def _one_paragraph(text: str) -> bool:
    first = text[0]
    return not (first.isspace() or first in _BLOCK_START or _LINE_BREAKS.intersection(text))


def _render_block(
    text: str,
    rewrite: Mapping[str, str] | None = None,
    *,
    resolve: Resolver | None = None,
    cloze: bool = False,
    one_line: bool = False,
) -> Rendered:
    """:func:`render_markdown` without the fast path for plain text. ``one_line``: parse a
    single-line paragraph (:func:`_one_paragraph`) with the inline parser alone, which
    gives the same tokens as the block parser's paragraph (its text stripped) for less
    work; tests/test_performance_text.py checks the two agree."""
    if not text.strip():
        return Rendered("")
    if resolve is None:
        table = dict(rewrite or {})

        def resolve(src: str, _kind: str) -> str | None:
            return table.get(src)

    text = _NONCHARACTERS.sub("\ufffd", text)
    md = _parser()
    env: dict[str, Any] = {
        "resolve": resolve,
        "cloze": cloze,
        "images": [],
        "sounds": [],
        "warnings": [],
    }
    if one_line and _one_paragraph(text):
        (inline,) = md.parseInline(text.strip(), env)
        html = md.renderer.render(inline.children or [], md.options, env)
    else:
        tokens = md.parse(text, env)
        if (
            len(tokens) == 3
            and tokens[0].type == "paragraph_open"
            and tokens[1].type == "inline"
            and tokens[2].type == "paragraph_close"
        ):
            html = md.renderer.render(tokens[1].children or [], md.options, env)
        else:
            html = md.renderer.render(tokens, md.options, env)
    html = _cleaner().clean(html.rstrip("\n"))
    html = html.replace(_COLON, "&#58;").replace(_BRACE, "&#125;")
    return Rendered(html, env["images"], env["sounds"], env["warnings"])


# -- note type CSS ---------------------------------------------------------------------------
def pygments_css() -> str:
    """Token colours for highlighted code, day and night, as written into ``base.css``
    between the ``pygments`` markers (``scripts/update-pygments-css.py`` regenerates it;
    a test checks it is current). Night mode restates every class the day style colours,
    so no day colour leaks onto the dark background."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> dict[str, str]:
        fmt = HtmlFormatter(style=style)
        out: dict[str, str] = {}
        styles: dict[str, tuple[str, Any, int]] = fmt.class2style  # type: ignore[attr-defined]
        for cls, (css, _ttype, _level) in styles.items():
            css = "; ".join(
                part.strip() for part in css.split(";") if part.strip() and "background" not in part
            )
            if cls and css:
                out[cls] = css
        return out

    day, night = rules(DAY_STYLE), rules(NIGHT_STYLE)
    reset = "color: inherit; font-weight: inherit; font-style: inherit; border: none"
    night_selector = ".nightMode .highlight .{0}, .night_mode .highlight .{0}"
    lines = [f"/* Pygments '{DAY_STYLE}' (day) and '{NIGHT_STYLE}' (night). */"]
    lines += [f".highlight .{cls} {{ {day[cls]} }}" for cls in sorted(day)]
    lines += [
        f"{night_selector.format(cls)} {{ {night.get(cls, reset)} }}"
        for cls in sorted(day.keys() | night.keys())
    ]
    return "\n".join(lines) + "\n"


PYGMENTS_BEGIN = (
    "/* pygments: begin (generated by scripts/update-pygments-css.py; do not edit) */\n"
)
PYGMENTS_END = "/* pygments: end */\n"


def with_pygments_css(css: str, block: str) -> str:
    """``css`` with the text between the pygments markers replaced by ``block``."""
    head, begin, rest = css.partition(PYGMENTS_BEGIN)
    _, end, tail = rest.partition(PYGMENTS_END)
    if not begin or not end:
        raise ValueError("the pygments markers are missing from the CSS")
    return head + begin + block + end + tail
