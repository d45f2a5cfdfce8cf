"""Anki field HTML -> the card file's Markdown, kept only where it renders back the same.

A field becomes readable Markdown when :func:`deckbuilder.render.markdown.render_markdown` gives back
the field exactly; otherwise it stays as the inline HTML the sanitiser lets through (bold,
italics, line breaks...) when that renders back exactly. What neither gives exactly is
still accepted when it shows the same (the same tags, attributes and text, ignoring the
order of attributes, an empty ``alt`` and the ``rel`` the sanitiser adds to links), and
otherwise reported: ``<div>`` lines become line breaks, and tags the sanitiser removes
keep only their text. Paragraphs, inline code and (highlighted) code blocks, as
deckbuilder's own notes hold them, become Markdown paragraphs, backticks and fences, and
math stays as written, when that renders back exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape, unescape
from html.parser import HTMLParser
from typing import TypeVar
from urllib.parse import unquote

from deckbuilder.render.markdown import RAW_TAGS, render_markdown

_SOUND = re.compile(r"(\[sound:[^\]\[\n]+\])")
# Sounds, and math as MathJax reads it (\(...\), \[...\]): kept as written.
_SOUND_OR_MATH = re.compile(r"(\[sound:[^\]\[\n]+\]|\\\(.*?\\\)|\\\[.*?\\\])", re.DOTALL)
_CLOZE_OPENING = re.compile(r"(?<!\\)\{\{c\d+::")
_ENTITY_LIKE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# A backslash before a bracket or parenthesis is math in a card file (\[ \( ), so the
# escapes leave those out: a bracket that would start a link, and the parenthesis of a
# list's "1)", are written as character references instead. A dollar sign opens math in
# a card file too ($x$), and is escaped so that Anki's text keeps its "$5" and "[$]".
_MINIMAL = re.compile(r"([\\`*_<>$])")
_ALL_PUNCTUATION = re.compile(r"([\\`*_<>#!|~+\-.\"'=$])")
_ALT = re.compile(r"([\\`*_\[\]<>$])")
_LINK_LIKE = re.compile(r"\][ \t]*[(\[:]")
_NUMBERED_PAREN = re.compile(r"(?m)^([ \t]*\d+)\)")
# The marks that begin a list, heading or quote, at the start of a folded field (its
# only line start).
_FOLDED_START = re.compile(r"\A(\d+)([.)])(?= )|\A([-+#>])")
# White space shows as written inside these; elsewhere a run of it shows as one space.
_KEEPS_WHITE_SPACE = re.compile(r"<(?:pre|code|textarea)\b|white-space", re.IGNORECASE)
_BLOCKS = frozenset({"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"})
_MARKS = {"strong": "**", "em": "*"}


@dataclass(frozen=True)
class Converted:
    markdown: str
    exact: bool  # renders back to the same HTML, or HTML that shows the same


_Parser = TypeVar("_Parser", bound=HTMLParser)


def read_html(parser: _Parser, html: str) -> _Parser:
    """``parser`` when it has read the whole of ``html``."""
    parser.feed(html)
    parser.close()
    return parser


def _escape_text(text: str, pattern: re.Pattern[str], kept: re.Pattern[str] = _SOUND) -> str:
    parts = kept.split(text)  # [sound:...] is Anki's syntax: kept as written
    for i in range(0, len(parts), 2):
        escaped = _ENTITY_LIKE.sub(r"\\&", pattern.sub(r"\\\1", parts[i]))
        if _LINK_LIKE.search(escaped):
            escaped = escaped.replace("[", "&#91;")
        parts[i] = _NUMBERED_PAREN.sub(r"\1&#41;", escaped)
    return "".join(parts)


class _ToMarkdown(HTMLParser):
    def __init__(self, escaping: re.Pattern[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.escaping = escaping
        self.out: list[str] = []

    def _break(self) -> None:
        if self.out and not self.out[-1].endswith(("<br>", "\n")):
            self.out.append("<br>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in RAW_TAGS:
            self.out.append(_kept_starttag(tag, attrs, self.get_starttag_text() or ""))
        elif tag in _MARKS:
            self.out.append(_MARKS[tag])
        elif tag == "img":
            values = dict(attrs)
            # Anki writes the file name percent-encoded (caf%C3%A9%20(1).png); the card
            # file names the file as it is, which builds back to the same picture.
            src = unquote(values.get("src") or "")
            alt = _ALT.sub(r"\\\1", values.get("alt") or "")
            target = f"<{src}>" if re.search(r"[\s()<>]", src) else src
            self.out.append(f"![{alt}]({target})")
        elif tag in _BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in RAW_TAGS and tag != "br":
            self.out.append(f"</{tag}>")
        elif tag in _MARKS:
            self.out.append(_MARKS[tag])
        elif tag in _BLOCKS:
            self._break()

    def handle_data(self, data: str) -> None:
        self.out.append(_escape_text(data, self.escaping))

    def markdown(self) -> str:
        text = "".join(self.out)
        while text.endswith("<br>"):
            text = text[: -len("<br>")]
        return text


class _ToBlocks(_ToMarkdown):
    """As :class:`_ToMarkdown`, and paragraphs, inline code and code blocks as the
    Markdown that renders them (what deckbuilder's own notes hold); math kept as written.
    ``lang``: the language a highlighted code block is fenced with."""

    def __init__(self, escaping: re.Pattern[str], lang: str) -> None:
        super().__init__(escaping)
        self.lang = lang
        self.code: list[str] | None = None  # text of the code element being read
        self.pre = False
        self.highlighted = False
        self.depth = 0  # open paragraph or other block elements
        self.lists: list[str] = []  # open ul/ol elements
        self.items = 0  # items so far of the innermost list

    def _block(self) -> None:
        if self.out and not self.out[-1].endswith("\n\n"):
            self.out.append("\n\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.code is not None:
            return  # highlighting spans inside code
        if tag == "p":
            self._block()
            self.depth += 1
        elif tag in ("ul", "ol"):
            self._block()
            self.lists.append(tag)
            self.items = 0
        elif tag == "li" and self.lists:
            if self.items:
                self.out.append("\n")
            self.items += 1
            # A nested list has no Markdown here: the candidate then fails to match.
            self.out.append("- " if self.lists[-1] == "ul" else f"{self.items}. ")
            self.depth += 1
        elif tag == "pre":
            self._block()
            self.pre, self.highlighted = True, ("class", "highlight") in attrs
        elif tag == "code":
            self.code = []
        elif tag in _MARKS and not attrs:
            self.out.append(_MARKS[tag])
        else:
            super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self.code is not None:
            code, self.code = "".join(self.code), None
            if self.pre:
                fence = "`" * max(3, _longest_run(code, "`") + 1)
                info = self.lang if self.highlighted else ""
                self.out.append(f"{fence}{info}\n{code}{fence}")
            else:
                fence = "`" * (_longest_run(code, "`") + 1)
                pad = " " if code.startswith("`") or code.endswith("`") else ""
                self.out.append(f"{fence}{pad}{code}{pad}{fence}")
        elif self.code is not None:
            return
        elif tag == "p" or (tag == "li" and self.lists):
            self.depth -= 1
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        elif tag == "pre":
            self.pre = False
        elif tag in _MARKS:
            self.out.append(_MARKS[tag])
        else:
            super().handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if self.code is not None:
            self.code.append(data)
        elif self.depth or data.strip() or not self.out:
            self.out.append(_escape_text(data, self.escaping, _SOUND_OR_MATH))


def _longest_run(text: str, char: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def _blocks(html: str, escaping: re.Pattern[str], lang: str) -> str:
    return read_html(_ToBlocks(escaping, lang), html).markdown().strip("\n")


def _code_languages(html: str) -> list[str]:
    """Languages to try for the highlighted code blocks of ``html``: the HTML does not
    say which the author fenced them with, so those whose highlighting comes back the
    same are tried (Python first, then Pygments' guess)."""
    if '<pre class="highlight">' not in html:
        return [""]
    from pygments.lexers import guess_lexer
    from pygments.util import ClassNotFound

    code = unescape(re.sub(r"<[^>]*>", "", html))
    try:
        guessed = guess_lexer(code).aliases[:1]
    except ClassNotFound:
        guessed = []
    return list(dict.fromkeys(["python", *guessed]))


def _converted(html: str, escaping: re.Pattern[str]) -> str:
    return read_html(_ToMarkdown(escaping), html).markdown()


class _Shape(HTMLParser):
    """What an HTML fragment shows: its tags with their meaningful attributes, and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[tuple[str, ...]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kept = sorted(
            (name, unquote(value or "") if name == "src" else value or "")
            for name, value in attrs
            if not (name == "rel" or (name == "alt" and not value))
        )
        self.items.append(("<", tag, *(f"{n}={v}" for n, v in kept)))

    def handle_endtag(self, tag: str) -> None:
        if tag != "br":
            self.items.append(("/", tag))

    def handle_data(self, data: str) -> None:
        if self.items and self.items[-1][0] == "#":
            data = self.items.pop()[1] + data
        self.items.append(("#", data))


_LAYOUT_TAGS = frozenset({"ul", "ol", "li", "p", "div", "blockquote", "table", "tr", "td", "th"})


def _shape(html: str) -> list[tuple[str, ...]]:
    items = read_html(_Shape(), html).items

    def layout(i: int) -> bool:
        return 0 <= i < len(items) and items[i][0] in "</" and items[i][1] in _LAYOUT_TAGS

    # White space between block elements (a list's line breaks) shows nothing.
    return [
        item
        for i, item in enumerate(items)
        if not (item[0] == "#" and not item[1].strip() and (layout(i - 1) or layout(i + 1)))
    ]


# The attributes the sanitiser keeps on the inline tags a card file may hold.
_KEPT_ATTRIBUTES = {"a": ("href", "title")}


def _kept_starttag(tag: str, attrs: list[tuple[str, str | None]], written: str) -> str:
    names = _KEPT_ATTRIBUTES.get(tag, ())
    if all(name in names for name, _ in attrs):
        return written
    kept = "".join(f' {name}="{escape(value or "")}"' for name, value in attrs if name in names)
    return f"<{tag}{kept}>"


class _Losses(HTMLParser):
    """What building the card file's text drops from a field: attributes the sanitiser
    removes, and tags the card format has no form for, each with the text it applies to."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.waiting: list[str] = []  # losses that name the text that follows

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kept = {"img": ("src", "alt", "title"), **_KEPT_ATTRIBUTES}.get(tag, ())
        dropped = [f'{n}="{v}"' if v is not None else n for n, v in attrs if n not in kept]
        if tag == "img":
            if dropped:
                src = unquote(dict(attrs).get("src") or "")
                self.found.append(f"{' '.join(dropped)} of the picture {src}")
            return
        if tag in _BLOCKS or tag in ("ul", "ol"):
            self.waiting.append(f"the <{tag}> element (a line break instead)")
        elif tag not in RAW_TAGS and tag not in _MARKS:
            self.waiting.append(f"the <{tag}> element (its text stays)")
        elif dropped:
            self.waiting.append(f"{' '.join(dropped)} of <{tag}>")

    def handle_data(self, data: str) -> None:
        if self.waiting and data.strip():
            shown = " ".join(data.split())
            self.found += [f'{what} around "{shown[:40]}"' for what in self.waiting]
            self.waiting = []

    def close(self) -> None:
        super().close()
        self.found += self.waiting


def markup_losses(html: str) -> list[str]:
    """What of Anki field ``html`` the card file cannot hold (for a warning), in words."""
    return list(dict.fromkeys(read_html(_Losses(), html).found))


def rendered_field(markdown: str, cloze: bool) -> str:
    """The HTML a build writes for a field's ``markdown`` (media names as written)."""
    return render_markdown(markdown, resolve=lambda src, _kind: src, cloze=cloze).html


def field_markdown(html: str, *, cloze: bool = False) -> Converted:
    """The Markdown for Anki field ``html`` (``cloze``: a field of a Cloze note)."""
    if not html:
        return Converted("", True)
    structured = [
        _blocks(html, pattern, lang)
        for lang in _code_languages(html)
        for pattern in (_MINIMAL, _ALL_PUNCTUATION)
    ]
    candidates = [
        *structured,
        _converted(html, _MINIMAL),
        _converted(html, _ALL_PUNCTUATION),
        html,  # as inline HTML
    ]
    if not cloze and "{{c" in html:
        # Outside a cloze field Anki shows a deletion as typed, braces and all; a card
        # file says so with a backslash (\{{c1::), as a bare one there is refused.
        escaped = [_CLOZE_OPENING.sub(r"\\\g<0>", text) for text in candidates]
        candidates = [*escaped, *candidates]
    candidates = list(dict.fromkeys(candidates))
    rendered = [rendered_field(markdown, cloze) for markdown in candidates]
    for markdown, back in zip(candidates, rendered, strict=True):
        if back == html:
            return Converted(markdown, True)
    shape = _shape(html)
    for markdown, back in zip(candidates, rendered, strict=True):
        if _shape(back) == shape:
            return Converted(markdown, True)
    folded = _folded(html)
    if folded != html:
        # Text written by a script, with line breaks and indents the card never shows
        # (Markdown would read them as a code block or a list): its shown text, on one line.
        markdown = _FOLDED_START.sub(
            lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}",
            _converted(folded, _MINIMAL),
        )
        # Markup it cannot hold aside, it shows the text as Anki does.
        exact = _shape(_folded(rendered_field(markdown, cloze))) == _shape(folded)
        return Converted(markdown, exact)
    return Converted(_converted(html, _MINIMAL), False)


def _folded(html: str) -> str:
    """``html`` with each run of white space one space, none at the ends: what shows the
    same, outside preformatted text."""
    if _KEEPS_WHITE_SPACE.search(html):
        return html
    return " ".join(html.split())


def shown_text(html: str) -> str:
    """The text of ``html`` on one line, for messages."""
    return " ".join(unescape(re.sub(r"<[^>]*>", " ", html)).split())


def plain_html(text: str) -> str:
    """``text`` (no markup) as the HTML Anki stores: a line break becomes ``<br>``, as
    Anki's own import of a text file without HTML makes it."""
    return escape(text, quote=False).replace("\n", "<br>")


# Breaks tried one by one (each try renders the text) in texts of at most this many lines.
_LINES_TRIED_ALONE = 100


def hard_breaks(markdown: str) -> str:
    """``markdown`` (a spreadsheet cell, a Moodle text) with each line break that would
    render as a space made a hard break (a backslash at the line's end), so that the card
    shows the lines as written. Line breaks that already mean something (between list
    items, paragraphs, in a code block) stay as they are.

    Every break between two lines of text is tried at once: most texts take that, for two
    renderings. Otherwise each break is tried alone, in texts of up to
    :data:`_LINES_TRIED_ALONE` lines (each try renders the text again); a longer one
    keeps its line breaks as written."""
    if "\n" not in markdown:
        return markdown
    lines = markdown.split("\n")
    soft = rendered_field(markdown, False)
    between_text = {i for i in range(1, len(lines)) if lines[i - 1].strip() and lines[i].strip()}
    every = "".join(
        line if not i else ("\\\n" if i in between_text else "\n") + line
        for i, line in enumerate(lines)
    )
    if _only_breaks_added(soft, rendered_field(every, False), len(between_text)):
        return every
    if len(lines) > _LINES_TRIED_ALONE:
        return markdown
    done = lines[0]
    for i in range(1, len(lines)):
        rest = "\n".join(lines[i:])
        before = rendered_field(f"{done}\n{rest}", False)
        after = rendered_field(f"{done}\\\n{rest}", False)
        done += ("\\\n" if _only_breaks_added(before, after, 1) else "\n") + lines[i]
    return done


def _only_breaks_added(before: str, after: str, added: int) -> bool:
    """Whether rendering ``after`` gives ``before`` with ``added`` more line breaks and
    nothing else changed."""
    return after.count("<br>") == before.count("<br>") + added and after.replace(
        "<br>\n", "\n"
    ) == before.replace("<br>\n", "\n")
