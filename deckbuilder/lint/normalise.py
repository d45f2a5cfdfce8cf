"""A field's text as a learner reads it, and as two questions are compared.

The rules judge what the card shows, not the Markdown written: ``**NOT**`` is the word
NOT, a link is its text, ``{{c1::Paris}}`` is Paris (the cloze parser reveals
deletions: :func:`deckbuilder.cloze.read_deletions`). No rendering happens here (lint
runs without media); a light pass over the source is close enough to judge lengths and
words.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.M)
# No part of a link or image crosses a '[': each match attempt then stops at the next
# one, so a field of 40,000 unclosed '[' or '![' is read in linear time, not quadratic.
_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\(\s*<?([^)\s>\[]*)>?[^)\n\[]*\)")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^)\n\[]*\)")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_MATH_DELIMITER = re.compile(r"\\[()\[\]]")
# The marks that start a heading, quote or list item; emphasis and code markers are
# dropped, but an underscore inside a word (use_reentrant) is text.
_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")
_LINE_MARKS = re.compile(r"^[ \t]*(?:#{1,6}|>|[-+] )[ \t]*", re.M)
_WORD = re.compile(r"[^\W_]+")  # letters and digits: an underscore parts words
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
        text = _LINK.sub(lambda m: m.group(1), text)
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "\\" in text:
        text = _MATH_DELIMITER.sub(" ", text)
    text = text.replace("*", "").replace("`", "").replace("~", "")
    if "#" in text or ">" in text or "- " in text or "+ " in text:
        text = _LINE_MARKS.sub("", text)
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
    return " ".join(_WORD.findall(folded))
