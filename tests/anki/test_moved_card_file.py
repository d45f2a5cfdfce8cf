"""A card file named by its folder, moved to another folder (issue 44, item 4): its notes
keep their identities (the deck id is its file name), its lock file goes with it, and the
build says that Anki keeps the cards it has in the deck's old name, with the search that
finds them. Checked by importing both builds into one collection with the real Anki
backend."""

from __future__ import annotations

import os
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest

from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.search import deck_cards_search
from tests.conftest import Run, import_package

pytestmark = pytest.mark.anki


def _notes(count: int) -> str:
    return "notes:\n" + "".join(
        f"  - id: n{i}\n    front: Front {i}\n    back: Back {i}\n" for i in range(count)
    )


def test_a_moved_card_file_keeps_its_notes_and_says_where_anki_keeps_them(
    tmp_path: Path, cli: Any, collection: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards" / "Biology").mkdir(parents=True)
    card = tmp_path / "cards" / "Biology" / "Cells.yaml"
    card.write_text(_notes(2), encoding="utf-8")
    first: Run = cli("build", "--no-preview")
    assert first.code == 0, first.err
    assert "Biology::Cells  (cards/Biology/Cells.yaml)" in first.out
    assert len(import_package(collection, Path("output/cells.apkg")).new) == 2
    guids = {collection.get_note(n).guid for n in collection.find_notes("")}
    assert guids == {note_guid("cells", "n0"), note_guid("cells", "n1")}

    # The file moves to another folder (as 'git mv' would, without its lock file) and
    # gains a note.
    (tmp_path / "cards" / "Science").mkdir()
    moved = tmp_path / "cards" / "Science" / "Cells.yaml"
    os.replace(card, moved)
    moved.write_text(_notes(3), encoding="utf-8")
    second: Run = cli("build", "--no-preview")
    assert second.code == 0, second.err
    assert "Science::Cells  (cards/Science/Cells.yaml)" in second.out
    assert "wrote output/cells.apkg" in second.out
    # Its lock file went with it: the build goes on from it.
    assert "since last build: 1 added, 0 changed, 0 removed, 2 unchanged" in second.out
    assert not (tmp_path / "cards" / "Biology" / "cells.lock").exists()
    assert (tmp_path / "cards" / "Science" / "cells.lock").is_file()
    search = deck_cards_search("Biology::Cells")
    assert second.err.splitlines() == [
        "cards/Science/Cells.yaml: warning: the deck was named 'Biology::Cells' in its last "
        "build and is now 'Science::Cells'; on import Anki keeps the cards it has in "
        "'Biology::Cells' (only new cards go to 'Science::Cells'): to move them, search "
        f"Anki's browser for {search}, select all, and use Change Deck",
    ]

    log = import_package(collection, Path("output/cells.apkg"))
    # The two notes are the same notes (no duplicates), the third is new.
    assert len(log.new) == 1 and not log.conflicting
    assert len(collection.find_notes("")) == 3
    # What the build said: Anki kept the old cards in the old deck, and the search finds
    # exactly them.
    left = {collection.get_card(c).note()["Front"] for c in collection.find_cards(search)}
    assert left == {"Front 0", "Front 1"}
    new = collection.find_cards(deck_cards_search("Science::Cells"))
    assert {collection.get_card(c).note()["Front"] for c in new} == {"Front 2"}


def test_a_build_whose_deck_name_is_unchanged_says_nothing_of_it(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "Cells.yaml").write_text(_notes(1), encoding="utf-8")
    assert cli("build", "--no-preview").code == 0
    again: Run = cli("build", "--no-preview")
    assert again.code == 0 and again.err == ""


def _without_table(package: Path, table: str) -> None:
    """Rewrite ``package`` with its collection's ``table`` dropped."""
    with zipfile.ZipFile(package) as whole:
        members = {name: whole.read(name) for name in whole.namelist()}
    db = package.with_suffix(".anki2")
    db.write_bytes(members["collection.anki2"])
    connection = sqlite3.connect(db)
    connection.execute(f"drop table {table}")
    connection.commit()
    connection.close()
    members["collection.anki2"] = db.read_bytes()
    db.unlink()
    with zipfile.ZipFile(package, "w") as whole:
        for name, data in members.items():
            whole.writestr(name, data)


def test_the_package_a_build_replaces_is_read_for_whatever_it_gives(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replaced package's deck name and notes are read from one copy of its
    collection: a collection without notes still gave its name (the rename warning), one
    without decks still its notes (the Anki note ids, with no lock file); neither was read
    when the other could not be."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    card = tmp_path / "cards" / "Cells.yaml"
    card.write_text("deck: Old\n" + _notes(2), encoding="utf-8")
    package = Path("output/cells.apkg")
    assert cli("build", "--no-preview").code == 0
    _without_table(package, "notes")
    card.write_text("deck: New\n" + _notes(2), encoding="utf-8")
    renamed: Run = cli("build", "--no-preview")
    assert renamed.code == 0, renamed.err
    assert "the deck was named 'Old' in its last build and is now 'New'" in renamed.err

    _without_table(package, "col")
    Path("cards/cells.lock").unlink()
    again: Run = cli("build", "--no-preview")
    assert again.code == 0, again.err
    assert "the Anki note ids and times of 2 notes were taken from the package" in again.err
