"""A field's text as a learner reads it, and as two questions are compared.

The rules judge what the card shows, not the Markdown written: ``**NOT**`` is the word
NOT, a link is its text, ``{{c1::Paris}}`` is Paris. No rendering happens here (lint
runs without media); a light pass over the source is close enough to judge lengths and
words.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

from ..cloze import Cloze, parse_clozes

__all__ = ["cloze_parts", "normalised", "plain"]

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.M)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?[^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_MATH_DELIMITER = re.compile(r"\\[()\[\]]")
# Emphasis and code markers, and the marks that start a heading, quote or list item; an
# underscore inside a word (use_reentrant) is text.
_MARKS = str.maketrans("", "", "*`~")
_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")
_LINE_MARKS = re.compile(r"^[ \t]*(?:#{1,6}|>|[-+] )[ \t]*", re.M)
_NOT_WORD = re.compile(r"[^\w]+")
# A character (or line start) that one of the patterns above, or an HTML entity, needs: a
# text with none of them is only re-spaced.
_MARKUP = re.compile(r"[`~*_\[<\\&]|^[ \t]*(?:#|>|[-+] )", re.M)
# The rules of one note read the same texts (each choice three times): the last few are kept.
_RECENT = 1024


@lru_cache(maxsize=_RECENT)
def plain(markdown: str) -> str:
    """The visible text of a Markdown field, on one line: markup, link addresses and
    tags removed, an image as its description and file name."""
    if _MARKUP.search(markdown) is None:
        return " ".join(markdown.split())
    return _visible(markdown)


def _visible(markdown: str) -> str:
    """:func:`plain` of a text that may hold markup. Each pattern needs a character of its
    own: a text without it is left as it is."""
    text = markdown
    if "```" in text or "~~~" in text:
        text = _FENCE.sub(" ", text)
    if "[" in text:
        text = _IMAGE.sub(lambda m: f" {m.group(1)} {m.group(2).rsplit('/', 1)[-1]} ", text)
        text = _LINK.sub(r"\1", text)
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "\\" in text:
        text = _MATH_DELIMITER.sub(" ", text)
    text = _LINE_MARKS.sub("", text.translate(_MARKS))
    if "_" in text:
        text = _UNDERSCORES.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    return " ".join(text.split())


@lru_cache(maxsize=_RECENT)  # a note's rules and its duplicate check both ask
def normalised(markdown: str) -> str:
    """What two questions must share to be the same question: the visible text in NFKC,
    case-folded, punctuation and symbols dropped, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", plain(markdown)).casefold()
    return " ".join(_NOT_WORD.sub(" ", folded.replace("_", " ")).split())


@lru_cache(maxsize=_RECENT)  # a note's rule and its duplicate check both ask
def cloze_parts(text: str) -> tuple[str, Mapping[int, str]]:
    """A cloze text with every deletion revealed (hints left out, as on the back of the
    card), and the text each deletion number hides."""
    hidden: dict[int, list[str]] = {}

    def walk(nodes: Sequence[str | Cloze], into: list[str]) -> None:
        for node in nodes:
            if isinstance(node, str):
                into.append(node)
                continue
            inner: list[str] = []
            walk(node.nodes, inner)
            hidden.setdefault(node.ordinal, []).append("".join(inner))
            into.extend(inner)

    revealed: list[str] = []
    walk(parse_clozes(text), revealed)
    return "".join(revealed), {n: " ".join(parts) for n, parts in hidden.items()}
