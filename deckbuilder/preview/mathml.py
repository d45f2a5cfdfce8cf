"""Math for the preview page: the TeX formulas of card HTML as MathML.

The preview page is self-contained and offline, so it cannot run MathJax as Anki does;
Chromium and the Android WebView render MathML. Formulas are found where Anki's MathJax
finds them, converted by latex2mathml (imported only when a formula is converted), and
written out again element by element so that nothing in a formula can run or load.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape, unescape
from typing import TYPE_CHECKING

from deckbuilder.errors import Problem
from deckbuilder.model import Note

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element


# The backslash pairs of a text, read left to right as Anki's MathJax reads them: \( opens
# an inline formula, \[ a displayed one, and any other pair (\\, \$) is skipped whole.
_PAIR = re.compile(r"\\(.)", re.DOTALL)
_CLOSER = {"(": ")", "[": "]"}
# The markup between runs of text. As in MathJax, TeX inside pre, code, script, style and
# textarea is text, not math.
_MARKUP = re.compile(
    r"<!--.*?-->|<(script|style|textarea)\b.*?</\1\s*>|<(/?)(pre|code)\b[^>]*>|<[^>]*>",
    re.IGNORECASE | re.DOTALL,
)
# latex2mathml knows align*, not its twin for inside a formula, which lays out the same.
_ALIGNED = re.compile(r"\\(begin|end)\{aligned\}")
# Never carried over from the converter's output: its namespace (implied in HTML) and
# anything that could reach out or run (\href, event handlers).
_DROPPED_ATTRIBUTE = re.compile(r"xmlns|href|on.*", re.IGNORECASE)
_UNTYPESET_TITLE = "TeX this page cannot typeset; Anki typesets it with MathJax"


def typeset(html: str, untypeset: list[str]) -> str:
    """``html`` with its formulas as MathML. A formula the converter cannot typeset stays
    TeX, shown as code, and its source is added to ``untypeset``."""
    if "\\(" not in html and "\\[" not in html:
        return html

    def formula(source: str, display: bool) -> str:
        tex = source[2:-2]
        mathml = _mathml(unescape(tex), display)
        if mathml is None:
            untypeset.append(unescape(source))
            return f'<code class="pv-tex" title="{_UNTYPESET_TITLE}">{tex}</code>'
        return mathml

    def formulas(text: str) -> str:
        out: list[str] = []
        pos = 0
        for start, end, display in _formula_spans(text):
            out += [text[pos:start], formula(text[start:end], display)]
            pos = end
        out.append(text[pos:])
        return "".join(out)

    out: list[str] = []
    in_code = 0  # open <pre> and <code> elements
    pos = 0
    for m in (*_MARKUP.finditer(html), None):
        text = html[pos : m.start() if m else len(html)]
        out.append(text if in_code else formulas(text))
        if m:
            if m[3]:  # <pre>, <code>, or the end of one
                in_code = max(0, in_code - 1) if m[2] else in_code + 1
            out.append(m[0])
            pos = m.end()
    return "".join(out)


def _formula_spans(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, displayed) of each formula in ``text``, delimiters included: from an
    opening pair to the first closing pair of its kind after it. One pass: each kind's
    closings are visited in order, once, so a text of unclosed openings stays linear."""
    pairs = [(m.start(), m.group(1)) for m in _PAIR.finditer(text)]
    closings = {c: [i for i, (_, p) in enumerate(pairs) if p == c] for c in _CLOSER.values()}
    next_closing = dict.fromkeys(closings, 0)
    spans: list[tuple[int, int, bool]] = []
    i = 0
    while i < len(pairs):
        start, opening = pairs[i]
        closer = _CLOSER.get(opening)
        if closer is not None:
            found, k = closings[closer], next_closing[closer]
            while k < len(found) and found[k] <= i:
                k += 1
            next_closing[closer] = k
            if k < len(found):
                end = found[k]
                spans.append((start, pairs[end][0] + 2, opening == "["))
                i = end + 1
                continue
        i += 1
    return spans


@cache  # a back repeats its front, and decks repeat formulas: each is converted once
def _mathml(tex: str, display: bool) -> str | None:
    """One formula as MathML; None where latex2mathml cannot typeset it: it raises, or
    its output keeps a command it does not know (a backslash) or an alignment mark (a
    lone ``&``) outside an environment that aligns."""
    # Imported here: only a page with math needs it.
    from latex2mathml.converter import convert_to_element

    def markup(element: Element, out: list[str]) -> bool:
        # The converter writes symbols as entity text (``&#x02211;``) and leaves what the
        # author typed unescaped, so every text and value is decoded, then escaped.
        text = element.text or ""
        if "\\" in text or (text == "&" and element.tag in ("mi", "mo")):
            return False
        attributes = "".join(
            f' {name}="{escape(unescape(value))}"'
            for name, value in element.attrib.items()
            if not _DROPPED_ATTRIBUTE.fullmatch(name)
        )
        out.append(f"<{element.tag}{attributes}>{escape(unescape(text), quote=False)}")
        for child in element:
            if not markup(child, out):
                return False
            out.append(escape(unescape(child.tail or ""), quote=False))
        out.append(f"</{element.tag}>")
        return True

    try:
        root = convert_to_element(
            _ALIGNED.sub(r"\\\1{align*}", tex), display="block" if display else "inline"
        )
    except Exception:  # its errors share no base class, and odd input raises others too
        return None
    out: list[str] = []
    return "".join(out) if markup(root, out) else None


def untypeset_warnings(file: str, note: Note | None, untypeset: list[str]) -> list[Problem]:
    return [
        Problem.warning(
            file,
            note.line if note else None,
            f"the preview page shows {tex} as TeX: it cannot typeset it (Anki can, with MathJax)",
            note.id if note else None,
            code="untypeset-math",
        )
        for tex in dict.fromkeys(untypeset)
    ]
