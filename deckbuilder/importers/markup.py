"""Text in another markup -> the Markdown card files hold.

GIFT text may be marked ``[html]`` or ``[plain]``. Card text is Markdown with raw HTML
shown as typed, so HTML is turned into the Markdown that shows the same thing, and
plain text has the characters Markdown would interpret escaped.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from html.parser import HTMLParser
from urllib.parse import unquote

from deckbuilder.importers.html_markdown import hard_breaks, read_html
from deckbuilder.render.markdown import MATH_CLOSER

# A dollar sign opens math in a card file ($x$): escaped, it stays a dollar sign.
_INLINE_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&$])")
# What opens a block at the start of a line (after up to three spaces, which are dropped
# anyway): an ATX heading, a list item, a quote, a code fence, or a line of marks only (a
# rule, a setext underline, a table's delimiter row).
_BLOCK_OPENER = re.compile(
    r"^([ \t]*)(#{1,6}(?=[ \t]|$)|[-+*](?=[ \t]|$)|>|```|~~~|[-*_=:|](?=[-*_=:| \t]*$))",
    re.MULTILINE,
)
# An opening formula delimiter as the renderer finds it (not after an escaped backslash).
_MATH_OPENER = re.compile(r"(?<!\\)(?:\\\\)*\\([(\[])")
_BACKTICKS = re.compile(r"`+")
# A line opening a code fence (its info string may follow), and a line of fence marks.
_FENCE_OPENING = re.compile(r"[ \t]{0,3}(`{3,}(?=[^`]*$)|~{3,})")
_FENCE_LINE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})(.*)")
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


def moodle_to_markdown(text: str) -> str:
    """Moodle's own text format (GIFT's default) -> Markdown that shows it as Moodle
    does: line by line, each line break a break, no line opening a heading, list or
    quote; formulas and code as written (a formula over several lines on one line, as TeX
    reads it anyway; code between two fence lines a code block)."""
    lines = [line.rstrip() for line in text.split("\n")]
    parts = []
    for start, end, fenced in _fenced_blocks(lines):
        block = "\n".join(lines[start:end])
        if not fenced:
            block = hard_breaks(escape_line_starts(_verbatim_on_one_line(block)))
        parts.append(block)
    return "\n".join(parts)


def _fenced_blocks(lines: list[str]) -> list[tuple[int, int, bool]]:
    """``lines`` cut into runs ``(start, end, fenced)``: a fenced run goes from a line
    opening a code fence (three or more backticks or tildes) to the first line below that
    closes it (the same mark, at least as long, alone); the rest are text. A fence never
    closed is text. Linear: the longest fence below each line is known beforehand."""
    fences = [_FENCE_LINE.fullmatch(line) for line in lines]
    longest_below: list[dict[str, int]] = [{} for _ in range(len(lines) + 1)]
    for i in range(len(lines) - 1, -1, -1):
        below = dict(longest_below[i + 1])
        fence = fences[i]
        if fence is not None and not fence.group(2).strip():
            mark = fence.group(1)
            below[mark[0]] = max(below.get(mark[0], 0), len(mark))
        longest_below[i] = below
    runs: list[tuple[int, int, bool]] = []
    text_from, i = 0, 0
    while i < len(lines):
        opening = _FENCE_OPENING.match(lines[i])
        mark = opening.group(1) if opening else ""
        if not mark or longest_below[i + 1].get(mark[0], 0) < len(mark):
            i += 1
            continue
        close = next(
            j
            for j in range(i + 1, len(lines))
            if (fence := fences[j]) is not None
            and not fence.group(2).strip()
            and fence.group(1)[0] == mark[0]
            and len(fence.group(1)) >= len(mark)
        )
        if text_from < i:
            runs.append((text_from, i, False))
        runs.append((i, close + 1, True))
        text_from = i = close + 1
    if text_from < len(lines) or not runs:
        runs.append((text_from, len(lines), False))
    return runs


def _verbatim_on_one_line(text: str) -> str:
    """``text`` with the line breaks inside formulas and code spans made spaces: a line
    inside one is not a line of Markdown, and must be neither escaped nor broken."""
    parts, start = [], 0
    for begin, end in _verbatim_spans(text):
        parts += [text[start:begin], text[begin:end].replace("\n", " ")]
        start = end
    return "".join([*parts, text[start:]])


def _verbatim_spans(text: str) -> list[tuple[int, int]]:
    """Where the renderer finds formulas (``\\(..\\)``, ``\\[..\\]``: the first closing
    delimiter after the opening one) and code spans (a run of backticks up to the next
    run as long), left to right; closing delimiters are listed once, so this stays linear."""
    closers: dict[str, list[tuple[int, int]]] = {")": [], "]": []}
    for m in MATH_CLOSER.finditer(text):
        closers[m.group(1)].append((m.start(), m.end()))
    runs: dict[int, list[int]] = {}  # backtick run length -> where such runs start
    for m in _BACKTICKS.finditer(text):
        runs.setdefault(len(m.group()), []).append(m.start())
    openings = sorted(
        [(m.end() - 2, m.group(1)) for m in _MATH_OPENER.finditer(text)]
        + [(at, "`" * n) for n, starts in runs.items() for at in starts]
    )
    spans: list[tuple[int, int]] = []
    done = 0
    for at, opening in openings:
        if at < done:
            continue  # inside the span before
        if opening in "([":
            ends = closers[")" if opening == "(" else "]"]
            i = bisect_left(ends, (at + 2, -1))
            if i < len(ends):
                spans.append((at, ends[i][1]))
                done = ends[i][1]
            continue
        same = runs[len(opening)]
        i = bisect_right(same, at)
        if i < len(same):
            spans.append((at, same[i] + len(opening)))
            done = same[i] + len(opening)
    return spans


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
    text = "".join(read_html(_ToMarkdown(), html).out)
    lines = [line.rstrip(" ") for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(_no_break_at_block_ends(lines))).strip()


def _no_break_at_block_ends(lines: list[str]) -> list[str]:
    """``lines`` without the hard breaks that end a paragraph: a ``<br>`` before ``</p>``
    (Moodle's editor leaves one) is a break with nothing after it, which Markdown shows
    as a backslash. A line ending in code (a fence's line) is left as it is."""
    fenced = [False] * len(lines)
    inside = False
    for number, line in enumerate(lines):
        if line.startswith("```"):
            inside = not inside
        else:
            fenced[number] = inside
    for number in reversed(range(len(lines))):
        line = lines[number]
        backslashes = len(line) - len(line.rstrip("\\"))
        last = number + 1 == len(lines) or not lines[number + 1].strip()
        if backslashes % 2 and last and not fenced[number]:
            lines[number] = line[:-1].rstrip(" ")
    return lines
