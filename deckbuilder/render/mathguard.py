"""TeX that MathJax would turn into markup: links, styles, classes, ids.

Anki desktop and AnkiDroid typeset card math with MathJax's full TeX input and without
its safe filter, so ``\\href{javascript:...}`` becomes a link that runs a script when
tapped, ``\\style`` and ``\\bbox[...]`` place any CSS (a transparent box over the whole
card), and ``\\class{cloze}`` or ``\\cssId{qa}`` impersonate the card's own elements.
A card file may not carry any of them.

What MathJax reads is the text of the card's HTML outside ``<code>`` and ``<pre>`` (its
default ``skipHtmlTags``, which neither client changes), with character references
decoded. The check reads the same text, and refuses a command wherever it stands in it,
not only between ``\\(`` and ``\\)``: MathJax pairs delimiters across braces and a
command outside math means nothing to it, so writing it in code costs nothing.
"""

from __future__ import annotations

import re
from html import unescape

# Commands of MathJax's html, unicode and require extensions, and the base package's
# \mmlToken, whose attributes may be href, style, class and id (tests/test_mathguard.py
# lists them from Anki's own MathJax).
MARKUP_COMMANDS = frozenset(
    {"href", "style", "class", "cssId", "data", "unicode", "require", "mmlToken"}
)
_COMMAND = re.compile(r"\\(html[A-Za-z]*|[A-Za-z]+)")
_SKIPPED = re.compile(r"<(pre|code)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
# \bbox[red,5px,border:1px solid blue]{x}: a part with a colon is CSS, put on the box as
# it is. Only one border declaration is let through.
_BBOX_OPTIONS = re.compile(r"\s*\[([^\]]*)\]?")
_BORDER = re.compile(
    r"\s*border(?:-(?:top|right|bottom|left))?(?:-(?:width|style|color))?\s*:"
    r"[\sA-Za-z0-9#.%(),-]*\Z"
)
_WHY = {
    "href": "it makes a link, which can run a script when tapped",
    "mmlToken": "its attributes can make a link or place any style",
    "style": "it places any CSS on the card (a box over the whole card, for one)",
    "class": "it gives math the class of the card's own elements",
    "cssId": "it gives math the id of the card's own elements",
    "unicode": "it reaches outside the math fonts",
    "require": "it loads more of MathJax",
}


def _math_text(html: str) -> str:
    """The text MathJax reads in ``html``."""
    if "<" in html:
        html = _TAG.sub("", _SKIPPED.sub("", html))
    return unescape(html) if "&" in html else html


def math_markup_problems(html: str) -> list[str]:
    """Why the math of ``html`` (a field as Anki receives it) would make markup in Anki,
    one message per command; [] when it would not."""
    if "\\" not in html:
        return []
    text = _math_text(html)
    found: dict[str, None] = {}
    for m in _COMMAND.finditer(text):
        name = m.group(1)
        if name in MARKUP_COMMANDS or name.startswith("html"):
            why = _WHY.get(name, "it makes markup, not math")
            found[
                f"math may not use \\{name}: in Anki's MathJax {why}; write it in code "
                f"(`\\{name}`) to show it as text"
            ] = None
        elif name == "bbox":
            problem = _bbox_problem(text, m.end())
            if problem:
                found[problem] = None
    return list(found)


def _bbox_problem(text: str, end: int) -> str | None:
    """What is wrong with the options of the ``\\bbox`` ending at ``end``, if anything."""
    options = _BBOX_OPTIONS.match(text, end)
    if options is None:
        if text[end:].lstrip()[:1] == "{":
            return None  # \bbox{x}: no options
        # A \bbox whose options come from elsewhere (a macro argument, \let) cannot be read.
        return "math may use \\bbox only as \\bbox[options]{...} or \\bbox{...}"
    parts = options.group(1).split(",")
    if any(ch in options.group(1) for ch in "#\\{};") or not options.group(0).endswith("]"):
        return "\\bbox options may hold only colours, sizes and one border"
    for part in parts:
        if ":" in part and not _BORDER.match(part):
            return (
                f"\\bbox option '{part.strip()}' is CSS placed on the card as it is; "
                "\\bbox may set a colour, a padding and a border (border: 1px solid red)"
            )
    return None
