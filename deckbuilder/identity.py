"""Stable identities: Anki deck ids and note GUIDs derived from the author's keys.

Anki matches notes by GUID on import. Deriving it from the deck id and the note id (never
from field text) means editing a card updates the note instead of duplicating it.
"""

from __future__ import annotations

import hashlib

__all__ = ["deck_anki_id", "note_guid"]

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
    value = _digest("deckbuilder", "note", deck_key, note_id)
    out = []
    while value:
        value, digit = divmod(value, len(_BASE91))
        out.append(_BASE91[digit])
    return "".join(reversed(out)) or _BASE91[0]
