"""Stable identities: Anki deck ids and note GUIDs derived from the author's keys.

Anki matches notes by GUID on import. Deriving it from the deck id and the note id (never
from field text) means editing a card updates the note instead of duplicating it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

__all__ = ["deck_anki_id", "note_guid", "note_guids"]

_BASE91 = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~"
)


def _digest(*parts: str) -> int:
    data = "\x1f".join(parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def deck_anki_id(deck_key: str) -> int:
    """A fixed Anki deck id for a deck key, in [2**50, 2**51): clear of Anki's own
    millisecond-timestamp ids and below 2**53, so JavaScript clients hold it exactly."""
    return (1 << 50) + _digest("deckbuilder", "deck", deck_key) % (1 << 50)


def note_guid(deck_key: str, note_id: str) -> str:
    """The note's GUID, in the base-91 alphabet Anki itself uses for GUIDs."""
    return note_guids(deck_key, [note_id])[0]


def note_guids(deck_key: str, note_ids: Iterable[str]) -> list[str]:
    """The GUIDs of a deck's notes: each is the first 8 bytes of the SHA-256 of
    "deckbuilder", "note", the deck key and the note id joined by U+001F (the prefix
    encoded once), in base 91."""
    prefix = "\x1f".join(("deckbuilder", "note", deck_key, "")).encode("utf-8")
    sha256 = hashlib.sha256
    from_bytes = int.from_bytes
    return [
        _base91(from_bytes(sha256(prefix + i.encode("utf-8")).digest()[:8], "big"))
        for i in note_ids
    ]


# Every two-digit string, so that one divmod gives two digits: the same digits, in half
# the loop turns, as dividing by 91 one digit at a time.
_PAIRS = tuple(high + low for high in _BASE91 for low in _BASE91)
_PAIR = len(_PAIRS)
# A GUID is 64 bits, under 91**10: ten digits, five pairs.
_FIVE_PAIRS = _PAIR**5
_ZERO = _BASE91[0]


def _base91(value: int) -> str:
    """``value`` in base 91, most significant digit first, without leading zero digits
    (zero is one digit, ``a``)."""
    if value < _FIVE_PAIRS:
        # Every GUID: five pairs without a loop, then the leading zero digits dropped.
        value, e = divmod(value, _PAIR)
        value, d = divmod(value, _PAIR)
        value, c = divmod(value, _PAIR)
        a, b = divmod(value, _PAIR)
        return (_PAIRS[a] + _PAIRS[b] + _PAIRS[c] + _PAIRS[d] + _PAIRS[e]).lstrip(_ZERO) or _ZERO
    out = []
    while value >= _PAIR:
        value, pair = divmod(value, _PAIR)
        out.append(_PAIRS[pair])
    out.append(_PAIRS[value] if value >= len(_BASE91) else _BASE91[value])
    out.reverse()
    return "".join(out)
