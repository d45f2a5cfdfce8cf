"""Text in another markup -> the Markdown card files hold.

GIFT text may be marked ``[html]`` or ``[plain]``. Card text is Markdown with raw HTML
shown as typed, so HTML is turned into the Markdown that shows the same thing, and
plain text has the characters Markdown would interpret escaped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import unquote

__all__ = ["escape_line_starts", "escape_markdown", "html_to_markdown"]

_INLINE_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&])")
# What opens a block at the start of a line (after up to three spaces, which are dropped
# anyway): an ATX heading, a list item, a quote, a code fence, or a line of marks only (a
# rule, a setext underline, a table's delimiter row).
_BLOCK_OPENER = re.compile(
    r"^([ \t]*)(#{1,6}(?=[ \t]|$)|[-+*](?=[ \t]|$)|>|```|~~~|[-*_=:|](?=[-*_=:| \t]*$))",
    re.MULTILINE,
)
# Indentation that makes a code block: four columns or more (a tab counts as four).
_CODE_INDENT = re.compile(r"^(?: {0,3}\t| {4})[ \t]*", re.MULTILINE)
# A number and '.' or ')' opening an ordered list: the delimiter is what gets escaped.
_LIST_NUMBER = re.compile(r"^([ \t]*\d{1,9})([.)])(?=[ \t]|$)", re.MULTILINE)


# Brackets become character references, not backslash escapes: in deckbuilder's Markdown
# "\\[" opens display math.
_ENTITY = {"[": "&#91;", "]": "&#93;"}


def _escape_inline(text: str) -> str:
    return _INLINE_SPECIALS.sub(lambda m: _ENTITY.get(m.group(1), "\\" + m.group(1)), text)


def escape_markdown(text: str) -> str:
    """Backslash-escape what CommonMark would turn into formatting, so ``text`` shows
    as typed."""
    return escape_line_starts(_escape_inline(text))


def escape_line_starts(text: str) -> str:
    """Backslash-escape what CommonMark would read as the start of a block (a heading,
    list item, quote, rule or code block), so that each line of ``text`` stays a line of
    text; the rest is left as written."""
    text = _BLOCK_OPENER.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    text = _LIST_NUMBER.sub(r"\1\\\2", text)
    return _CODE_INDENT.sub("", text)


_BLOCK = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "tr", "hr"}
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}
_DROP = {"script", "style", "head", "title"}


class _ToMarkdown(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.lists: list[list[int]] = []  # per open list: [next number] (0 for bullets)
        self.drop = 0
        self.pre = 0
        self.code = 0
        self.links: list[str | None] = []

    def newline(self, blank: bool) -> None:
        text = "".join(self.out).rstrip(" ")
        want = "\n\n" if blank else "\n"
        if text and not text.endswith(want):
            text = text.rstrip("\n") + want
        self.out = [text]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag in _DROP:
            self.drop += 1
        elif tag in _BLOCK:
            self.newline(blank=True)
        elif tag == "br":
            self.out.append("\\\n")
        elif tag in _EMPHASIS:
            self.out.append(_EMPHASIS[tag])
        elif tag in ("code", "tt", "kbd") and not self.pre:
            self.code += 1
            self.out.append("`")
        elif tag == "pre":
            self.newline(blank=True)
            self.pre += 1
            self.out.append("```\n")
        elif tag in ("ul", "ol"):
            self.newline(blank=not self.lists)
            self.lists.append([1 if tag == "ol" else 0])
        elif tag == "li":
            self.newline(blank=False)
            depth = max(len(self.lists) - 1, 0)
            counter = self.lists[-1] if self.lists else [0]
            marker = f"{counter[0]}." if counter[0] else "-"
            if counter[0]:
                counter[0] += 1
            self.out.append("   " * depth + marker + " ")
        elif tag == "a":
            href = attr.get("href")
            self.links.append(href)
            if href:
                self.out.append("[")
        elif tag == "img":
            src = attr.get("src") or ""
            if src.startswith("@@PLUGINFILE@@/"):  # a file of the Moodle question
                src = unquote(src.rsplit("/", 1)[-1])
            alt = escape_markdown(" ".join((attr.get("alt") or "").split()))
            self.out.append(f"![{alt}]({src.replace(' ', '%20')})")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP:
            self.drop = max(self.drop - 1, 0)
        elif tag in _BLOCK:
            self.newline(blank=True)
        elif tag in _EMPHASIS:
            self.out.append(_EMPHASIS[tag])
        elif tag in ("code", "tt", "kbd") and not self.pre and self.code:
            self.code -= 1
            self.out.append("`")
        elif tag == "pre" and self.pre:
            self.pre -= 1
            self.out.append("\n```")
            self.newline(blank=True)
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self.newline(blank=not self.lists)
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                self.out.append(f"]({href.replace(' ', '%20')})")

    def handle_data(self, data: str) -> None:
        if self.drop:
            return
        if self.pre:
            self.out.append(data)
        elif self.code:
            self.out.append(" ".join(data.split()).replace("`", "'"))
        else:
            text = re.sub(r"\s+", " ", data)
            before = "".join(self.out[-1:])
            if not before or before.endswith("\n"):
                self.out.append(escape_markdown(text.lstrip(" ")))
            else:
                self.out.append(_escape_inline(text))


def html_to_markdown(html: str) -> str:
    """HTML (as Moodle writes question text) -> Markdown that shows the same."""
    parser = _ToMarkdown()
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    lines = [line.rstrip(" ") for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
