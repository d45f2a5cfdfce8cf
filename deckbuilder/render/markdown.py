"""Markdown -> sanitised HTML for Anki fields, collecting the media files a field refers to.

The pipeline for one field: CommonMark (markdown-it-py) with three additions, then nh3.

* Math: ``\\( ... \\)`` and ``\\[ ... \\]`` are taken out of the Markdown grammar whole, so
  backslashes, ``_`` and ``*`` inside reach Anki's MathJax as typed. So are ``$...$`` and
  ``$$...$$``, read by mdit-py-plugins' dollarmath with Pandoc's rules for prices (no
  space inside the dollars, no digit right after the closing one: ``$5 and $10`` stays
  text; ``\\$`` is a dollar sign), and written as ``\\(...\\)`` and ``\\[...\\]``: the only
  delimiters Anki's MathJax reads. A pair that looks like math but is not read as math
  is a warning (:func:`deckbuilder.render.fidelity.dollars_left_as_text`).
* Code: fenced blocks with a language are highlighted by Pygments
  (:mod:`deckbuilder.render.highlight`).
* Media: ``![alt](file.png)`` and Anki's ``[sound:file.mp3]`` are collected and their
  names rewritten to the names they get inside the package; ``[sound:x]`` written inside
  code is shown, not played.

Raw HTML is shown literally (``a < b``, ``<script>`` display as typed) unless it is one of
a few inline tags (:data:`RAW_TAGS`); the result is then cleaned by nh3 with an allow-list,
which removes event handlers, ``javascript:`` URLs and anything else not listed. A tag
shown as typed, or an attribute removed, is a warning; a picture or link that Markdown
leaves as text, and (in cloze fields) a deletion Anki would end early, are problems
(:mod:`deckbuilder.render.fidelity`).

Cloze fields (``cloze=True``): Anki finds ``{{c1::answer::hint}}`` in the final HTML by
plain text search, so a ``::`` or ``}}`` inside code or math that sits in a deletion would
cut it short, and ``\\{\\{c2::`` would become a deletion the author escaped. Those are
written as character references (``&#58;``, ``&#125;``, ``&#123;``: the same characters
on screen). A deletion Markdown hides from Anki (in a link address) is a problem.

One line of everyday text skips the parser (:mod:`deckbuilder.render.fast_path`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape as _html_escape
from typing import Any
from urllib.parse import unquote

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_inline_dollar

from deckbuilder.cloze import cloze_numbers
from deckbuilder.render.fast_path import fast_html
from deckbuilder.render.fidelity import (
    attributes_removed,
    deletions_ended_early,
    dollars_left_as_text,
    html_shown_as_text,
    links_left_as_text,
)
from deckbuilder.render.highlight import fenced_code, pygments_classes

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

# Stand-ins for characters of Anki's cloze syntax that must not pair up into it, written
# as character references after nh3 (which decodes references written before). Unicode
# noncharacters (never valid in interchange text): input has them replaced by U+FFFD
# first, so they cannot collide with anything an author wrote.
_STAND_INS = {ch: chr(0xFDD0 + i) for i, ch in enumerate(":}{c0123456789")}
_COLON = _STAND_INS[":"]
_BRACE = _STAND_INS["}"]
_STAND_IN_FOR = str.maketrans(_STAND_INS)
_WRITTEN_AS = {ord(stand_in): f"&#{ord(ch)};" for ch, stand_in in _STAND_INS.items()}
_NONCHARACTERS = re.compile("[\ufdd0-\ufdef]")
_CLOZE_MARK = re.compile(r"\{\{c\d+::|\}\}")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
# The attributes nh3 keeps on the raw tags an author may write (see _cleaner).
_KEPT_ATTRIBUTES = {"a": frozenset({"href", "title"})}
# Inline tokens that leave the text around them one run (a link's label in emphasis).
_TEXT_FORMATTING = frozenset(
    {"em_open", "em_close", "strong_open", "strong_close", "s_open", "s_close"}
)
SOUND_TAG = re.compile(r"\[sound:([^\]\[\n]+)\]")  # Anki's sound tag, the file name in group 1

# (source as written, "image" or "sound") -> name in the package, or None to keep it.
Resolver = Callable[[str, str], "str | None"]


@dataclass
class Rendered:
    html: str
    images: list[str] = field(default_factory=list)  # image sources as written (URL-decoded)
    sounds: list[str] = field(default_factory=list)  # [sound:...] names as written
    warnings: list[str] = field(default_factory=list)  # things worth telling the author
    problems: list[str] = field(default_factory=list)  # things the author must fix
    # A warning or problem -> the part of the text it is about, as written (which
    # locates it in the card file); the others are about the whole field.
    places: dict[str, str] = field(default_factory=dict)

    def at(self, message: str) -> str:
        """The part of the text ``message`` is about, as written ('' for the whole)."""
        return self.places.get(message, "")


def _escape(text: str) -> str:
    return _html_escape(text, quote=True).replace("&#x27;", "'")


def _escape_text(text: str) -> str:
    return _html_escape(text, quote=False)


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
# A closing delimiter as MathJax finds it: \) or \] after an even number of backslashes
# (it skips \x pairs whole, so \\) closes nothing).
MATH_CLOSER = re.compile(r"(?<!\\)(?:\\\\)*\\([)\]])")
# Closer (")" or "]") -> where each closing delimiter of a text starts, and where it ends.
_Closers = dict[str, tuple[list[int], list[int]]]


def _math_closers(src: str, env: MutableMapping[str, Any]) -> _Closers:
    """The closing delimiters in ``src``, found once per text and kept in ``env``:
    scanning ahead from every opening delimiter would take time quadratic in the
    number of unclosed ones."""
    cache: dict[int, tuple[str, _Closers]] = env.setdefault("db_math_closers", {})
    hit = cache.get(id(src))
    if hit is not None and hit[0] is src:
        return hit[1]
    table: _Closers = {")": ([], []), "]": ([], [])}
    for m in MATH_CLOSER.finditer(src):
        starts, ends = table[m.group(1)]
        starts.append(m.start())
        ends.append(m.end())
    cache[id(src)] = (src, table)  # src kept alive with its table, so its id stays unique
    return table


def _math_end(src: str, start: int, closer: str, stop: int, env: MutableMapping[str, Any]) -> int:
    """Index just past the ``\\)`` / ``\\]`` closing a span whose body starts at ``start``
    (just after an opening ``(`` or ``[``); -1 if there is none before ``stop``. The first
    closing delimiter at or after ``start`` is the one MathJax pairs with the opening."""
    starts, ends = _math_closers(src, env)[closer]
    i = bisect_left(starts, start)
    if i == len(starts) or ends[i] > stop:
        return -1
    return ends[i]


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "([":
        return False
    closer = ")" if src[pos + 1] == "(" else "]"
    end = _math_end(src, pos + 2, closer, state.posMax, state.env)
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
    end = _math_end(state.src, begin + 2, "]", len(state.src), state.env)
    if end < 0:
        return False
    line = bisect_left(state.eMarks, end, start_line, end_line)  # the closing line
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


# Dollar math as dollarmath reads it -> the token of the same formula written with the
# delimiters Anki's MathJax reads, and the opening and closing it gets.
_DOLLAR_MATH = {
    "math_inline": ("db_math", "\\(", "\\)"),
    "math_inline_double": ("db_math", "\\[", "\\]"),
    "math_block": ("db_math_block", "\\[", "\\]"),
}


# Pandoc's dollars: no space inside them, no digit after the closing one (a price).
_DOLLAR_INLINE = math_inline_dollar(allow_space=False, allow_digits=False, allow_double=True)
# The same without its digit checks: dollarmath looks for a digit before the opening
# dollar at src[pos - 1], which at the start of a text is its last character ("$x$ = 2"
# stayed text). At the start there is nothing before it, and the digit after the closing
# dollar is checked by _dollar_inline.
_DOLLAR_INLINE_AT_START = math_inline_dollar(
    allow_space=False, allow_digits=True, allow_double=True
)


def _dollar_inline(state: StateInline, silent: bool) -> bool:
    if state.pos > 0:
        return _DOLLAR_INLINE(state, silent)
    if not _DOLLAR_INLINE_AT_START(state, True):
        return False
    if state.src[state.pos : state.pos + 1].isdigit():  # "$5$6": prices
        state.pos = 0
        return False
    if not silent:
        state.pos = 0
        _DOLLAR_INLINE_AT_START(state, False)
    return True


def _dollar_math(state: Any) -> None:
    """Turn each formula dollarmath read into the math tokens of ``\\(...\\)`` and
    ``\\[...\\]``: from here on (cloze marks, rendering, the checks of the HTML) a formula is
    one thing, whichever way it was written."""
    for token in state.tokens:
        for each in [token, *(token.children or [])]:
            written = _DOLLAR_MATH.get(each.type)
            if written is not None:
                kind, opening, closing = written
                each.type = kind
                each.content = f"{opening}{each.content}{closing}"


# -- sound -----------------------------------------------------------------------------------
def _sound(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "[":
        return False
    m = SOUND_TAG.match(state.src, state.pos, state.posMax)
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


def _escaped_cloze_syntax(state: Any) -> None:
    """In a cloze field, keep a character the author escaped (``\\{``, ``&#123;``, also
    ``&#99;`` for ``c``) out of Anki's reading of the deletions: it is written as a
    character reference, which Anki's plain text search does not read as ``{``. Runs
    before markdown-it joins such characters into the text around them."""
    if not state.env.get("cloze"):
        return
    stack: list[Token] = list(state.tokens)
    while stack:
        token = stack.pop()
        if token.type == "text_special" and token.content != token.markup:  # decoded
            token.content = token.content.translate(_STAND_IN_FOR)
        elif token.children:
            stack.extend(token.children)


def _links_left_as_text(state: Any) -> None:
    """Name each picture or link written in Markdown that stayed text."""
    if "problems" not in state.env:  # reading a rewrite (_reads_as_link): nothing to name
        return
    for token in state.tokens:
        if token.type != "inline" or not token.children or "](" not in token.content:
            continue
        parts = []
        for child in token.children:
            if child.type == "text":
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append("\n")
            elif child.type not in _TEXT_FORMATTING:
                parts.append("\x00")  # not text: a link made, code, math, HTML
        state.env["problems"].extend(
            links_left_as_text("".join(parts), _reads_as_link, state.env["places"])
        )


def _dollars_left_as_text(state: Any) -> None:
    """Name each formula written between dollars that stayed text. Runs before markdown-it
    joins an escaped character (``\\$``, a dollar sign) into the text around it."""
    if "warnings" not in state.env:
        return
    for token in state.tokens:
        if token.type != "inline" or not token.children or token.content.count("$") < 2:
            continue
        parts = []
        for child in token.children:
            # (a backslash before a letter escapes nothing: it stays text)
            if child.type == "text" or (
                child.type == "text_special" and child.content == child.markup
            ):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append("\n")
            elif child.type not in _TEXT_FORMATTING:
                parts.append("\x00")  # not text: an escaped dollar, code, math, HTML
        state.env["warnings"].extend(dollars_left_as_text("".join(parts), state.env["places"]))


def _reads_as_link(markdown: str) -> bool:
    """Whether ``markdown`` is read as one picture or link."""
    tokens = _parser().parseInline(markdown, {"cloze": False})
    children = tokens[0].children or [] if tokens else []
    return any(child.type in ("image", "link_open") for child in children)


def _deletions_changed(text: str, html: str) -> list[str]:
    """Why the deletions Anki reads in ``html`` differ from those written in ``text``
    (which the card rule counts), if they do: Markdown rewrites link addresses, decodes
    escapes in link titles and keeps code and math whole, and nh3 drops attributes."""
    if "{{c" not in text and "{{c" not in html:
        return []
    written, read = cloze_numbers(text), cloze_numbers(html)
    lost = ", ".join(f"c{n}" for n in sorted(written - read))
    gained = ", ".join(f"c{n}" for n in sorted(read - written))
    problems = [
        lost
        and f"cloze deletion {lost} would not reach Anki: Markdown changes its braces (escaped "
        "braces beside them, a link address, code or math holding them); write them plainly",
        gained
        and f"Anki would read cloze deletion {gained}, which the text does not have: Markdown "
        "makes it from escaped braces (in a link title, or beside other braces)",
    ]
    return [problem for problem in problems if problem]


# -- the parser ------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
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
    dollarmath_plugin(
        md,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.inline.ruler.at("math_inline", _dollar_inline)
    md.core.ruler.after("inline", "db_dollar_math", _dollar_math)
    md.core.ruler.before("text_join", "db_escaped_cloze_syntax", _escaped_cloze_syntax)
    md.core.ruler.before("text_join", "db_dollars_left_as_text", _dollars_left_as_text)
    md.core.ruler.push("db_cloze", _cloze_core)
    md.core.ruler.push("db_links_left_as_text", _links_left_as_text)

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
            fenced_code(
                token.content,
                info[0] if info else "",
                env["cloze"] and not in_cloze,
                env,
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
        name = m.group(1).lower() if m else ""
        if name in RAW_TAGS:
            lost = attributes_removed(content, _KEPT_ATTRIBUTES.get(name, frozenset()))
            if lost:
                env["warnings"].append(lost)
            return content
        shown: set[str] = env.setdefault("tags_shown", set())
        if (name or content) not in shown:  # once per field: not again for its closing tag
            shown.add(name or content)
            env["warnings"].append(html_shown_as_text(content, RAW_TAGS))
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


def _keep_local_src(tag: str, attribute: str, value: str) -> str | None:
    # Cards must work offline and must not phone home: no remote or inline resources.
    if attribute == "src" and re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|//", value):
        return None
    return value


@lru_cache(maxsize=1)
def _cleaner() -> nh3.Cleaner:
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
        allowed_classes={"pre": {"highlight"}, "span": pygments_classes()},
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
        return Rendered(html, problems=deletions_ended_early(html) if cloze else [])
    return render_markdown_fully(text, rewrite, resolve=resolve, cloze=cloze)


def render_markdown_fully(
    text: str,
    rewrite: Mapping[str, str] | None = None,
    *,
    resolve: Resolver | None = None,
    cloze: bool = False,
) -> Rendered:
    """:func:`render_markdown` without its fast path: every text goes through markdown-it
    and nh3."""
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
        "problems": [],
        "places": {},
    }
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
    html = html.translate(_WRITTEN_AS)
    problems = env["problems"]
    if cloze:
        problems += _deletions_changed(text, html) + deletions_ended_early(html)
    return Rendered(html, env["images"], env["sounds"], env["warnings"], problems, env["places"])
