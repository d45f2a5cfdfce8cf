"""Stable identities: the same keys always give the same Anki ids."""

from __future__ import annotations

from deckbuilder.identity import deck_anki_id, note_guid
from deckbuilder.model import NoteKind
from deckbuilder.notetypes import note_type


def test_guid_depends_only_on_deck_and_note_id() -> None:
    guid = note_guid("gradient-checkpointing", "tradeoff")
    assert guid == note_guid("gradient-checkpointing", "tradeoff")
    assert guid != note_guid("gradient-checkpointing", "tradeoff2")
    assert guid != note_guid("other-deck", "tradeoff")
    # Fixed forever: changing this breaks every user's re-import.
    assert guid == "NA-@<C!dYh"


def test_deck_ids_are_fixed_and_in_range() -> None:
    did = deck_anki_id("gradient-checkpointing")
    assert did == deck_anki_id("gradient-checkpointing")
    assert 2**50 <= did < 2**51 < 2**53
    assert did != deck_anki_id("gradient-checkpointing-2")


def test_note_type_ids_are_fixed() -> None:
    assert note_type(NoteKind.MCQ).id == 1468248778730576
    assert note_type(NoteKind.CLOZE).id == 1649248644858304
    assert note_type(NoteKind.BASIC).id == 2152878658763882
