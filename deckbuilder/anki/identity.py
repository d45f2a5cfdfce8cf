"""Stable identities: Anki deck ids and note GUIDs derived from the author's keys.

Anki matches notes by GUID on import. Deriving it from the deck id and the note id (never
from field text) means editing a card updates the note instead of duplicating it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache

from deckbuilder.errors import Problem
from deckbuilder.model import Deck, Note

# The digits of the base-91 GUIDs Anki and genanki give notes, the value of 0 first.
BASE91_DIGITS = (
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


# Cached: a build asks for each note's GUID several times (the package, the lock files,
# the notes of the package it replaces), about 9 µs each, 0.5 s over 50,000 notes.
@cache
def note_guid(deck_key: str, note_id: str) -> str:
    """The note's GUID: the first 8 bytes of the SHA-256 of "deckbuilder", "note", the
    deck key and the note id joined by U+001F, in the base-91 alphabet Anki itself uses
    for GUIDs."""
    return base91(_digest("deckbuilder", "note", deck_key, note_id))


def anki_guid(deck_key: str, note: Note) -> str:
    """The GUID Anki knows ``note`` of the deck ``deck_key`` by: its own ``guid:`` (a note
    that came from a collection, or that keeps another deck's GUID), else
    :func:`note_guid`."""
    return note.guid or note_guid(deck_key, note.id)


def base91(value: int) -> str:
    """``value`` in base 91, most significant digit first, without leading zero digits
    (zero is one digit, ``a``)."""
    digits: list[str] = []
    while True:
        value, digit = divmod(value, len(BASE91_DIGITS))
        digits.append(BASE91_DIGITS[digit])
        if value == 0:
            return "".join(reversed(digits))


# What a note with another note's GUID does in Anki, and what to do about a copied one.
_ONE_NOTE = (
    "Anki would take them for one note, and importing one deck would rewrite the other's. "
    "A copied note needs no guid: delete this line"
)


def guid_problems(decks: Sequence[Deck], alongside: Sequence[Deck] = ()) -> list[Problem]:
    """A problem for each ``guid:`` (written by ``deckbuilder import``) that gives a note
    of ``decks`` the GUID of another note of the project: a ``guid:`` written twice, or one
    equal to the GUID derived for another note. Anki matches an imported note by GUID, so
    the two would be one note, rewritten by whichever deck is imported last. A ``guid:`` in
    a card file with several languages gives each language's deck the same note.

    ``alongside``: the decks of the project's other card files, read apart (watch builds
    each alone); their notes are only named. Two ``guid:`` keys of one deck are the
    loader's to report (:mod:`deckbuilder.cardfile.checks`)."""
    problems = [_in_each_language(deck, note) for deck in decks for note in _imported(deck)]
    # Each deck with whether it is one of ``decks``, whose notes are the ones told about.
    everything = [(deck, False) for deck in alongside] + [(deck, True) for deck in decks]
    if not any(note.guid for deck, _ in everything for note in deck.notes):
        return problems  # every GUID is derived, from a deck id and note id of its own
    written: dict[str, tuple[Deck, Note, bool]] = {}
    for deck, ours in everything:
        if len(deck.languages) < 2:
            for note in deck.notes:
                if note.guid:
                    written.setdefault(note.guid, (deck, note, ours))
    for deck, ours in everything:
        several = len(deck.languages) > 1
        for note in deck.notes:
            if note.guid and several:
                continue  # told above
            first = written.get(anki_guid(deck.key, note))
            if first is None or first[1] is note:
                continue
            first_deck, first_note, first_ours = first
            if note.guid and ours and first_deck is not deck:
                problems.append(_taken(deck, note, first_deck, first_note, "is also the guid of"))
            elif not note.guid and (ours or first_ours):
                problems.append(
                    _taken(first_deck, first_note, deck, note, "is the GUID deckbuilder gives")
                )
    return problems


def _imported(deck: Deck) -> list[Note]:
    """The notes of a deck of several languages that carry a ``guid:``."""
    return [note for note in deck.notes if note.guid] if len(deck.languages) > 1 else []


def _in_each_language(deck: Deck, note: Note) -> Problem:
    keys = ", ".join(deck.key.rsplit(".", 1)[0] + f".{code}" for code in deck.languages)
    return Problem(
        str(deck.source),
        note.field_line("guid"),
        f"guid '{note.guid}' would be the GUID of this note in each language's deck ({keys}); "
        "Anki would take them for one note, and importing one language would rewrite the "
        "other's. A card file with 'languages' keeps no guids: delete this line",
        note.id,
    )


def _taken(deck: Deck, note: Note, other_deck: Deck, other: Note, what: str) -> Problem:
    """``note``'s ``guid:`` is ``other``'s GUID (written, or derived from its ids)."""
    where = f"{other_deck.source}:{other.field_line('guid')}"
    whose = f"note '{other.id}'" if other.guid else f"note '{other.id}' of deck '{other_deck.key}'"
    return Problem(
        str(deck.source),
        note.field_line("guid"),
        f"guid '{note.guid}' {what} {whose} ({where}); {_ONE_NOTE}",
        note.id,
    )
