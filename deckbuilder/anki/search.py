"""Searches for Anki's browser: the text a learner pastes to find a deck's notes.

A package cannot delete notes, so ``build`` tells the learner how to find the notes a card
file no longer has. Note ids alone are not enough: Anki keeps a package's note id only
when the learner's collection has no note with that id yet, so in a collection holding
several decks the same id can belong to another deck's note. The search therefore names
the deck too, written as Anki itself writes a deck search (rslib ``search/writer.rs``:
``\\``, ``*`` and ``_`` escaped, the whole term quoted), and leaves out its subdecks.
"""

from __future__ import annotations

from collections.abc import Iterable


def _deck_term(name: str) -> str:
    """``"deck:NAME"`` matching the deck called ``name`` exactly (and, as Anki's deck
    search does, its subdecks)."""
    literal = "".join("\\" + ch if ch in "\\*_" else ch for ch in name)
    return '"deck:' + literal.replace('"', '\\"') + '"'


def deck_notes_search(deck_name: str, anki_ids: Iterable[int]) -> str:
    """The search that finds the notes with ``anki_ids`` in the deck ``deck_name`` and in
    no other deck, its subdecks included: it can never find another deck's note."""
    ids = ",".join(str(anki_id) for anki_id in anki_ids)
    return f"{deck_cards_search(deck_name)} nid:{ids}"


def deck_cards_search(deck_name: str) -> str:
    """The search that finds the cards in the deck ``deck_name`` itself, not in its
    subdecks: those a renamed deck left behind in its old name."""
    subdecks = _deck_term(deck_name + "::")[:-1] + '*"'
    return f"{_deck_term(deck_name)} -{subdecks}"
