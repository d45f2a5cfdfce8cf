"""One GUID, one note, across the project (issue 45): Anki matches an imported note by its
GUID, so two notes with one GUID are one note to it, and importing the second deck rewrote
the first deck's note. A ``guid:`` key (written by ``deckbuilder import``) used twice in
the project, or equal to the GUID deckbuilder derives for another note, is refused with
both places; so is a ``guid:`` in a card file with ``languages:``, which would give each
language's deck the same note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.anki.identity import note_guid
from tests.conftest import Run

CliRun = Callable[..., Run]


@pytest.fixture
def cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    return tmp_path / "cards"


def card_file(folder: Path, name: str, notes: str, header: str = "") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"deck: {path.stem}\n{header}notes:\n{notes}", encoding="utf-8")
    return path


def test_one_guid_in_two_card_files_is_refused_with_both_places(cards: Path, cli: CliRun) -> None:
    card_file(cards, "a.yaml", "  - id: x\n    guid: 'Ab1#x'\n    front: one\n    back: uno\n")
    card_file(cards, "sub/b.yaml", "  - id: y\n    front: two\n    back: dos\n    guid: 'Ab1#x'\n")
    result = cli("build", "--no-preview")
    assert result.code == 1
    assert result.err.splitlines() == [
        "cards/sub/b.yaml:6: note 'y': guid 'Ab1#x' is also the guid of note 'x' "
        "(cards/a.yaml:4); Anki would take them for one note, and importing one deck would "
        "rewrite the other's. A copied note needs no guid: delete this line",
        "1 problem found; nothing was written.",
    ]
    assert not (cards.parent / "output").exists()


def test_a_guid_equal_to_a_derived_one_is_refused_where_it_is_written(
    cards: Path, cli: CliRun
) -> None:
    """A deck imported from a package deckbuilder built keeps that package's GUIDs: the
    original deck's notes and the copy's would be one note in Anki."""
    card_file(cards, "topic.yaml", "  - id: x\n    front: one\n    back: uno\n")
    copied = note_guid("topic", "x")
    card_file(
        cards,
        "copy.yaml",
        f"  - id: imported\n    guid: '{copied}'\n    front: one\n    back: uno\n",
    )
    result = cli("check")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        f"cards/copy.yaml:4: note 'imported': guid '{copied}' is the GUID deckbuilder gives "
        "note 'x' of deck 'topic' (cards/topic.yaml:3); Anki would take them for one note, "
        "and importing one deck would rewrite the other's. A copied note needs no guid: "
        "delete this line"
    )


def test_a_guid_equal_to_another_notes_derived_guid_in_the_same_file(
    cards: Path, cli: CliRun
) -> None:
    taken = note_guid("deck", "x")
    card_file(
        cards,
        "deck.yaml",
        f"  - id: x\n    front: one\n    back: uno\n  - id: y\n    guid: '{taken}'\n"
        "    front: two\n    back: dos\n",
    )
    result = cli("check")
    assert result.code == 1
    assert result.err.splitlines()[0].startswith(
        f"cards/deck.yaml:7: note 'y': guid '{taken}' is the GUID deckbuilder gives note 'x' "
        "of deck 'deck' (cards/deck.yaml:3)"
    )


def test_a_note_may_keep_a_guid_equal_to_its_own_derived_one(cards: Path, cli: CliRun) -> None:
    own = note_guid("deck", "x")
    card_file(cards, "deck.yaml", f"  - id: x\n    guid: '{own}'\n    front: one\n    back: b\n")
    result = cli("check")
    assert result.code == 0, result.err


def test_a_guid_in_a_card_file_with_languages_is_refused(cards: Path, cli: CliRun) -> None:
    card_file(
        cards,
        "both.yaml",
        "  - id: x\n    guid: 'Ab1#x'\n    front: {en: one, ko: 하나}\n    back: {en: uno, ko: 일}\n",
        header="id: both\nlanguages: [en, ko]\n",
    )
    for args in ((), ("--lang", "ko")):
        result = cli("build", "--no-preview", *args)
        assert result.code == 1
        assert result.err.splitlines() == [
            "cards/both.yaml:6: note 'x': guid 'Ab1#x' would be the GUID of this note in each "
            "language's deck (both.en, both.ko); Anki would take them for one note, and "
            "importing one language would rewrite the other's. A card file with 'languages' "
            "keeps no guids: delete this line",
            "1 problem found; nothing was written.",
        ]
