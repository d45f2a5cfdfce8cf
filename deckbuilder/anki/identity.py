"""Stable identities: Anki deck ids and note GUIDs derived from the author's keys.

Anki matches notes by GUID on import. Deriving it from the deck id and the note id (never
from field text) means editing a card updates the note instead of duplicating it.
"""

from __future__ import annotations

import hashlib

__all__ = ["deck_anki_id", "note_guid", "note_type_anki_id"]

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


def note_type_anki_id(scope: str, key: str) -> int:
    """A fixed Anki note type id for a declared note type: from its key, and for one a
    card file declares for itself, from that deck's id (``scope``), so that two card
    files may each declare a 'vocab' of their own. In [2**50, 2**51) like deck ids."""
    return (1 << 50) + _digest("deckbuilder", "note type", scope, key) % (1 << 50)


def note_guid(deck_key: str, note_id: str) -> str:
    """The note's GUID: the first 8 bytes of the SHA-256 of "deckbuilder", "note", the
    deck key and the note id joined by U+001F, in the base-91 alphabet Anki itself uses
    for GUIDs."""
    return _base91(_digest("deckbuilder", "note", deck_key, note_id))


def _base91(value: int) -> str:
    """``value`` in base 91, most significant digit first, without leading zero digits
    (zero is one digit, ``a``)."""
    digits: list[str] = []
    while True:
        value, digit = divmod(value, len(_BASE91))
        digits.append(_BASE91[digit])
        if value == 0:
            return "".join(reversed(digits))
