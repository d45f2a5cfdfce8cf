"""What Anki will show, against what the author wrote: nothing may be lost silently.

After a field is rendered, three kinds of loss are looked for, each with the fix that
works in Anki:

* a cloze deletion Anki ends early. Anki closes a deletion at the first ``}}``, in math,
  code or text alike: ``{{c1::x^{2}}}`` hides ``x^{2`` and shows a stray ``}``. A
  deletion whose braces are not all closed where Anki ends it, and whose text goes on to
  close them and then the deletion, was meant to end there
  (:func:`deletions_ended_early`);
* a picture or link written in Markdown that stayed text: CommonMark ends a link's
  address at a space, so ``![그림](내 그림.png)`` reaches the card as typed
  (:func:`links_left_as_text`);
* a formula between dollars that stays text (``$ x^2 $``: a space inside its dollars)
  (:func:`dollars_left_as_text`);
* raw HTML that is shown as typed, or loses attributes, instead of being kept
  (:func:`html_shown_as_text`, :func:`attributes_removed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape

from deckbuilder.cloze import deletion_number

# -- cloze deletions -------------------------------------------------------------------------
# What Anki and MathJax read of a cloze field's HTML: deletion marks (Anki), braces,
# backslash runs (an odd one escapes the character after it: a brace to show, or a math
# delimiter), and code (MathJax reads no math in it).
_CLOZE_READ = re.compile(r"\{\{c(\d+)::|\}\}|&#12[35];|[{}]|\\+|<(/?)(?:code|pre)\b[^>]*>")
_BRACES = re.compile(r"\\+|&#12[35];|\}+|\{")
_TAG = re.compile(r"<[^>]*>")
# As Anki reads deletions (rslib/src/cloze.rs): they nest this deep at most (and numbers
# above 16 bits are text: deletion_number).
_MAX_NESTING = 10
_SHOWN = 40  # characters of hidden text shown in a message
_SHOWN_FIX = 100  # characters of a rewrite shown in a message
# How far, in all, the ends authors meant are looked for ahead of the deletions of a
# field, in times its length: each look stops where the deletion's braces close, but a
# hostile field could make every one read to its end.
_LOOK_AHEAD = 4


def deletions_ended_early(html: str) -> list[str]:
    """Why Anki would end a deletion of a cloze field's ``html`` before its author did,
    one message each, with the rewrite that works; [] when it would not."""
    if "}}" not in html or (html.count("{") <= 2 * html.count("{{c") and "\\}}" not in html):
        return []  # no brace but the deletions' own
    problems: list[str] = []
    opened: list[tuple[int, int, int]] = []  # open deletions: number, brace depth, content start
    depth = 0  # braces opened and not closed, the deletion marks aside
    code = 0  # <code> and <pre> elements open (MathJax reads no math in them)
    math = ""  # the closing delimiter of the open formula, ")" or "]"
    escaped = -1  # where a character escaped by a backslash run stands
    ahead = [_LOOK_AHEAD * len(html)]  # characters left to look ahead
    for m in _CLOZE_READ.finditer(html):
        token = m.group()
        if m.group(1) is not None:  # an opening, as Anki reads it
            number = deletion_number(m.group(1))
            if number is not None and len(opened) < _MAX_NESTING:
                opened.append((number, depth, m.end()))
        elif token == "}}" and opened:  # Anki's end of the innermost deletion
            number, depth_then, start = opened.pop()
            # Braces of the deletion still open, or its end taking a brace written
            # escaped (\{x\}}}): the author's text goes on.
            if depth > depth_then or m.start() == escaped:
                where = "code" if code else "math" if math else "text"
                problem = _ended_early(html, number, start, m.start(), where, ahead)
                problems += [problem] if problem else []
            depth = depth_then
        elif token[0] == "\\":
            after = html[m.end() : m.end() + 1]
            if len(token) % 2 == 0 or not after or code:  # in code a backslash is text
                continue
            escaped = m.end()
            if after in "([" and not code and not math:
                math = ")" if after == "(" else "]"
            elif after == math and not code:
                math = ""
        elif token[0] == "<":
            code = max(code - 1, 0) if m.group(2) else code + 1
        elif m.start() == escaped:
            continue  # \{ in TeX: a brace to show, not to pair
        elif token[0] == "&":
            if code or math:  # a brace the renderer kept from Anki's reading
                depth += 1 if token == "&#123;" else -1
        else:
            depth += token.count("{") - token.count("}")
    return problems


def _ended_early(
    html: str, number: int, start: int, anki_end: int, where: str, ahead: list[int]
) -> str | None:
    """The message for deletion ``c{number}``, whose content starts at ``start`` and which
    Anki ends at ``anki_end`` (in code, math or text) with a brace of it still open; None
    when the author's text does not go on to close that brace and then the deletion
    (``{{c1::{}}`` hides a brace, as written). ``ahead[0]``: characters left to look
    ahead for where the author ended it; past them, the end is taken as Anki's."""
    stop = min(len(html), start + max(ahead[0], 0))
    end = _meant_end(html, start, stop, kept_braces=where != "text", escapes=where != "code")
    ahead[0] -= (end if end >= 0 else stop) - start
    if end < 0:
        return None
    hidden = _shown(unescape(_TAG.sub("", html[start:anki_end])))
    message = (
        f"Anki ends cloze deletion c{number} at its first '}}}}', so it would hide only "
        f"'{hidden}' and show the rest as text"
    )
    content = html[start:end]
    if "<" in content:  # markup in it: no rewrite to show
        return f"{message}; write a space between its closing braces and before its '}}}}'"
    spaced = f"{{{{c{number}::{_spaced(unescape(content))}}}}}"
    spaced = f", {spaced}" if len(spaced) <= _SHOWN_FIX else " and before its '}}'"
    if where == "math":
        return (
            f"{message}; write a space between its closing braces{spaced} (the spaces "
            "change nothing in the formula), or put the deletion around the whole formula"
        )
    if where == "code":
        around = _around_code(html, number, start, end)
        instead = f" ({around})" if around and len(around) <= _SHOWN_FIX else ""
        return (
            f"{message}; put the deletion around the whole code{instead}, where its braces "
            f"are kept, or write a space between its closing braces{spaced}"
        )
    if spaced.startswith(","):
        return f"{message}; write a space before its closing '}}}}'{spaced}"
    return f"{message}; write a space between its closing braces{spaced}"


def _meant_end(html: str, start: int, stop: int, *, kept_braces: bool, escapes: bool) -> int:
    """Where the deletion whose content starts at ``start`` was meant to end: at the first
    ``}}`` after all braces opened in it are closed; -1 if there is none before ``stop``.
    ``kept_braces``: the braces written as character references count
    (in code and math, the renderer writes them); ``escapes``: a backslash escapes the
    brace after it (not in code)."""
    depth = 0
    escaped = -1
    for m in _BRACES.finditer(html, start, stop):
        token, at = m.group(), m.start()
        if token[0] == "\\":
            escaped = m.end() if len(token) % 2 and escapes else -1
        elif token[0] == "&":
            if kept_braces:
                depth += 1 if token == "&#123;" else -1
        elif token == "{":
            depth += 0 if at == escaped else 1
        else:  # a run of closing braces: the first close what is open, two more end it
            run = len(token) - (at == escaped)  # a brace written escaped pairs nothing
            at += len(token) - run
            closing = min(depth, run)
            if run - closing >= 2:
                return at + closing
            depth -= run
        if depth < 0:
            return -1
    return -1


def _spaced(content: str) -> str:
    """``content`` with no ``}}`` in it: a space between closing braces, and before the
    deletion's own closing ``}}``."""
    spaced = re.sub(r"\}(?=\})", "} ", content)
    return spaced + " " if spaced.endswith("}") else spaced


def _around_code(html: str, number: int, start: int, end: int) -> str:
    """``{{cN::`code`}}`` for a deletion that is the whole of an inline code span."""
    before = html[: start - len(f"{{{{c{number}::")]
    if not before.endswith("<code>") or not html.startswith("}}</code>", end):
        return ""
    code = unescape(html[start:end])
    fence = "`" * (max((len(run) for run in re.findall("`+", code)), default=0) + 1)
    padded = f" {code} " if code.startswith("`") or code.endswith("`") else code
    return f"{{{{c{number}::{fence}{padded}{fence}}}}}"


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


# -- pictures and links ----------------------------------------------------------------------
# Link syntax that CommonMark left as text: [label](address), the address up to its ")"
# (one level of parentheses inside). \x00 stands for anything that is not text.
_LINK_AS_TEXT = re.compile(
    r"(!?)\[([^\[\]\x00\n]*)\]\(([^()\x00\n]*(?:\([^()\x00\n]*\)[^()\x00\n]*)*)\)"
)
# An address that names a file or a place (a dot, a slash or a colon in it): text like
# f[x](a, b) is not taken for a link.
_FILE_OR_PLACE = re.compile(r"[./:]")


# Addresses CommonMark refuses to link to (markdown-it's validateLink): a script, a
# file of the learner's device, or content carried in the address itself (a picture in a
# data: address is a picture, refused elsewhere as not a file of the deck).
_UNSAFE_ADDRESS = re.compile(r"\s*<?\s*(vbscript|javascript|file|data):", re.IGNORECASE)
_UNSAFE_WHY = {
    "javascript": "it would run a script when tapped",
    "vbscript": "it would run a script when tapped",
    "file": "it names a file of the device the card is studied on, which the deck does not carry",
    "data": "it carries a page or file in the address itself, which can run a script",
}


def links_left_as_text(
    text: str, is_link: Callable[[str], bool], places: dict[str, str] | None = None
) -> list[str]:
    """Why a picture or link written in ``text`` (the text Markdown left as text, with
    ``\\x00`` for what it made of the rest) reaches the card as typed; [] when none does.
    ``is_link``: whether Markdown reads a rewrite as the picture or link it means.
    ``places`` gets each message with the picture or link as written, which locates it."""
    if "](" not in text:
        return []
    problems = []
    for m in _LINK_AS_TEXT.finditer(text):
        message = _link_as_text(m, is_link)
        if message:
            problems.append(message)
            if places is not None:
                places[message] = m.group()
    return problems


def _link_as_text(m: re.Match[str], is_link: Callable[[str], bool]) -> str | None:
    bang, label, address = m.groups()
    picture = bool(bang)
    if not picture and not _FILE_OR_PLACE.search(address):
        return None
    what = "a picture" if picture else "a link"
    message = f"'{_shown(m.group())}' is shown as text, not as {what}"
    unsafe = _UNSAFE_ADDRESS.match(address)
    if unsafe:
        scheme = unsafe.group(1).lower()
        return (
            f"{message}: an address starting '{scheme}:' is refused because it is unsafe "
            f"({_UNSAFE_WHY[scheme]}); link to an https: address instead, or write it in "
            "backticks to show it as text"
        )
    target, title = _split_title(address)
    if " " in target or "\t" in target:
        bracketed = f"{bang}[{label}](<{target}>{title})"
        encoded = re.sub(r"[ \t]", "%20", target)
        escaped = f"{bang}[{label}]({encoded}{title})"
        message += ": CommonMark ends a link's address at a space, so write"
        if len(escaped) > _SHOWN_FIX:  # too long to read as a fix
            return f"{message} the address in <...>, or %20 for each space"
        if is_link(bracketed) and is_link(escaped):
            return f"{message} {bracketed} or {escaped}"
        message = message.rsplit(": CommonMark", 1)[0]
    return (
        f"{message}: CommonMark does not read its address ({_shown(address)}); write "
        "the address in <...> if it has spaces, or %20 for each space, and check its "
        "parentheses"
    )


def _split_title(address: str) -> tuple[str, str]:
    """A link's address and its title (``"Title"`` after a space, with that space), as
    CommonMark reads them; the title is '' when there is none."""
    written = address.strip(" \t")
    quote = written[-1:]
    if len(written) > 1 and quote in "\"'":
        opening = written.rfind(quote, 0, len(written) - 1)
        if opening > 0 and written[opening - 1] in " \t":
            return written[:opening].rstrip(" \t"), " " + written[opening:]
    return written, ""


# -- math between dollars -----------------------------------------------------------------
# A dollar as the Markdown text holds it: \x00 stands for an escaped one, and for
# anything else that is not text (code, math read as math, HTML).
_DOLLAR = re.compile(r"\$\$?")
# What tells TeX from a price or a shell variable: a command (\frac), or a sub- or
# superscript of one character or in braces (x^2, a_{ij}; not HOME_DIR).
_TEX = re.compile(r"\\[A-Za-z]+|[\^_](?:\{|[A-Za-z0-9](?![A-Za-z0-9]))")
_LONGEST_FORMULA = 300  # characters between a pair of dollars looked at


def dollars_left_as_text(text: str, places: dict[str, str] | None = None) -> list[str]:
    """Why a formula written between dollars in ``text`` (the text Markdown left as text,
    ``\\x00`` for the rest) reaches the card as typed, when it looks like TeX; [] when
    none does. The dollars pair up as mdit-py-plugins' dollarmath pairs them: a pair
    with a space just inside, or a digit just outside (a price: ``$5 and $10``), is
    text. ``places`` gets each message with the pair as written, which locates it."""
    if text.count("$") < 2:
        return []
    problems = []
    dollars = list(_DOLLAR.finditer(text))
    i = 0
    while i + 1 < len(dollars):
        opening, closing = dollars[i], dollars[i + 1]
        body = text[opening.end() : closing.start()]
        pair = text[opening.start() : closing.end()]
        if (
            opening.group() != closing.group()
            or not body.strip()
            or "\n" in body
            or "\x00" in body
            or len(body) > _LONGEST_FORMULA
            or not _TEX.search(body)
        ):
            i += 1  # the closing dollar may open the next pair
            continue
        why = _dollar_why(text, opening, closing, body)
        message = f"'{_shown(pair)}' is shown as text, not as math: {why}"
        problems.append(message)
        if places is not None:
            places[message] = pair
        i += 2
    return problems


def _dollar_why(text: str, opening: re.Match[str], closing: re.Match[str], body: str) -> str:
    """Why the dollars ``opening`` and ``closing`` around ``body``, left as text, do not
    make a formula, with the way to write it."""
    mark = opening.group()
    formula = f"{mark}{body.strip()}{mark}"
    if mark == "$" and body != body.strip():
        return (
            "a formula between single dollars has no space just inside them (so that "
            f"prices stay text); write {_shown(formula)}"
        )
    before = text[opening.start() - 1 : opening.start()]
    after = text[closing.end() : closing.end() + 1]
    if before.isdigit() or after.isdigit():
        return (
            "a digit right beside its dollars reads as a price; put a space between them, "
            f"or write \\({_shown(body.strip())}\\)"
        )
    return f"write it as \\({_shown(body.strip())}\\)"


# -- raw HTML --------------------------------------------------------------------------------
# An attribute's name, its value (if any) read past whole: a '/' or space inside a quoted
# or bare value ("http://x.org") starts no name.
_ATTRIBUTE = re.compile(
    r"""([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?"""
)
_HTML_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
# What to write instead of a tag that is not kept, where Markdown has it.
_MARKDOWN_FOR = {
    "img": "a picture is written ![alt](file.png)",
    "a": "a link is written [text](address)",
    "p": "a paragraph is a blank line",
    "div": "a paragraph is a blank line",
    "code": "code is written in backticks, `code`",
    "pre": "a block of code is written between lines of three backticks",
    "h1": "a heading is written # Heading",
    "h2": "a heading is written ## Heading",
    "h3": "a heading is written ### Heading",
    "ul": "a list is written with a '- ' before each entry",
    "ol": "a numbered list is written with '1. ' before each entry",
    "li": "a list is written with a '- ' before each entry",
    "table": "a table is written with | between cells",
}


def html_shown_as_text(tag: str, kept: frozenset[str]) -> str:
    """The warning for raw HTML ``tag`` (as written) that a card shows as typed."""
    shown = _shown(tag)
    if tag.startswith("<!--"):
        return (
            f"'{shown}' is shown as text: cards keep no HTML comments; delete it, or write it "
            "in backticks to show it on purpose"
        )
    name = _HTML_NAME.match(tag)
    tag_name = name[1].lower() if name else ""
    instead = _MARKDOWN_FOR.get(tag_name)
    markdown = f"; {instead}" if instead else ""
    return (
        f"'{shown}' is shown as text, not as HTML: cards keep only the tags "
        f"{', '.join(sorted(kept))}{markdown}; write it in backticks (`{shown}`) to show it "
        "on purpose"
    )


def attributes_removed(tag: str, allowed: frozenset[str]) -> str | None:
    """The warning for raw HTML ``tag`` whose attributes outside ``allowed`` a card
    loses; None when it keeps them all."""
    if tag.startswith("</"):
        return None
    body = tag[1:-1]
    name = _HTML_NAME.match(tag)
    names = [a.lower() for a in _ATTRIBUTE.findall(body[len(name[1]) if name else 0 :])]
    lost = [a for a in dict.fromkeys(names) if a not in allowed]
    if not lost:
        return None
    which = ", ".join(lost)
    keeps = ", ".join(sorted(allowed)) or "none"
    return f"'{_shown(tag)}' loses its {which} (attributes a card keeps on this tag: {keeps})"
