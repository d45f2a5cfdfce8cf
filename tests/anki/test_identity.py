"""Stable identities: the same keys always give the same Anki ids.

Every value pinned here is in users' collections: Anki matches a re-imported note to the
one it has by GUID, so a changed value would give every user a second copy of the note.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckbuilder.anki.identity import BASE91_DIGITS, base91, deck_anki_id, note_guid
from deckbuilder.anki.notetypes import note_type
from deckbuilder.model import NoteKind


def test_guid_depends_only_on_deck_and_note_id() -> None:
    guid = note_guid("gradient-checkpointing", "tradeoff")
    assert guid == note_guid("gradient-checkpointing", "tradeoff")
    assert guid != note_guid("gradient-checkpointing", "tradeoff2")
    assert guid != note_guid("other-deck", "tradeoff")
    assert guid == "NA-@<C!dYh"


@pytest.mark.parametrize(
    ("deck_key", "note_id", "guid"),
    [
        # The bundled deck, one package per language (its deck key names the language).
        ("gradient-checkpointing.ko", "tradeoff", "r0Vm77k+gJ"),
        ("gradient-checkpointing.ko", "why-store-activations", "Gsce|Y!vCY"),
        ("gradient-checkpointing.ko", "sqrt-schedule", "m^lv/5s*Z~"),
        ("gradient-checkpointing.ko", "cloze-combine", "iNCL=I[Zj2"),
        ("gradient-checkpointing.en", "tradeoff", "p59((CESMc"),
        ("gradient-checkpointing.en", "why-store-activations", "FgNm|L6I@G"),
        ("gradient-checkpointing.en", "sqrt-schedule", "NOQ?:F!]kI"),
        ("gradient-checkpointing.en", "cloze-combine", "k;-9`dt1[`"),
    ],
)
def test_bundled_note_guids_are_fixed(deck_key: str, note_id: str, guid: str) -> None:
    assert note_guid(deck_key, note_id) == guid


@pytest.mark.parametrize(
    ("value", "digits"),
    [
        (0, "a"),
        (1, "b"),
        (90, "~"),
        (91, "ba"),
        (92, "bb"),
        (91**2 - 1, "~~"),
        (91**2, "baa"),
        (91**5 - 1, "~~~~~"),
        (91**5, "baaaaa"),
        (91**9 - 1, "~~~~~~~~~"),
        (91**9, "baaaaaaaaa"),
        (2**63, "vYHz/gPN,i"),
        (2**64 - 1, "Rj&Z5m[>Zp"),  # the largest GUID value (8 bytes)
        (91**10 - 1, "~~~~~~~~~~"),
        (91**10, "baaaaaaaaaa"),
    ],
)
def test_base91_digits_are_fixed(value: int, digits: str) -> None:
    assert base91(value) == digits


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_base91_reads_back_as_the_value(value: int) -> None:
    """Most significant digit first, no leading zero digit: one string per value."""
    digits = base91(value)
    assert value == sum(BASE91_DIGITS.index(d) * 91**k for k, d in enumerate(reversed(digits)))
    assert 1 <= len(digits) <= 10
    assert digits == "a" or not digits.startswith("a")


def test_deck_ids_are_fixed_and_in_range() -> None:
    did = deck_anki_id("gradient-checkpointing")
    assert did == 1261299711715268
    assert deck_anki_id("gradient-checkpointing.ko") == 2129040314196873
    assert deck_anki_id("gradient-checkpointing.en") == 1511816863057611
    assert 2**50 <= did < 2**51 < 2**53
    assert did != deck_anki_id("gradient-checkpointing-2")


def test_note_type_ids_are_fixed() -> None:
    assert note_type(NoteKind.MCQ).id == 1468248778730576
    assert note_type(NoteKind.CLOZE).id == 1649248644858304
    assert note_type(NoteKind.BASIC).id == 2152878658763882
