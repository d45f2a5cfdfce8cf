"""Characters that show nothing, and text that shows nothing.

A front of only U+200B, or two choices that differ by a zero-width space, look empty and
the same on the card; the checks of emptiness and sameness must see them so. Invisible
here: zero-width spaces and joiners, direction marks and isolates, the soft hyphen, the
word joiner and invisible operators, the byte order mark, variation selectors and tag
characters, and the Hangul and Braille fillers that show as blanks.
"""

from __future__ import annotations

import html
import re

_INVISIBLE_CHARS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")
# What a field may hold and still show nothing: white space, invisible characters, and the
# line-break and div tags Anki itself counts as nothing (rslib's field_is_empty).
_BLANK_PART = rf"(?:\s|[{_INVISIBLE_CHARS}]|</?(?:br|div) ?/?>)"
_BLANK_START = re.compile(f"{_BLANK_PART}*", re.IGNORECASE)
_BLANK_TAGS = re.compile(r"</?(?:br|div) ?/?>", re.IGNORECASE)
_SHOWS_NOTHING = re.compile(rf"(?:\s|[{_INVISIBLE_CHARS}])*\Z")


def without_invisible(text: str) -> str:
    """``text`` without its invisible characters (for comparing texts as they look)."""
    return INVISIBLE.sub("", text) if INVISIBLE.search(text) else text


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: only white space, invisible characters, line-break
    tags, or character references to them (``&nbsp;``, ``&#8203;``)."""
    # The blank part at the start, as long as it goes (each character has one way to be
    # read in it): all of the text, or where it ends, a character reference that can still
    # make it blank.
    start = _BLANK_START.match(text)
    end = start.end() if start else 0
    if end == len(text):
        return True
    if not text.startswith("&", end):
        return False
    return _SHOWS_NOTHING.match(html.unescape(_BLANK_TAGS.sub("", text))) is not None
