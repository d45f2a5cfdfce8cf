"""What a package deckbuilder built before says of itself: the name it gave its deck, and
its notes' times and contents.

A build compares it with the deck's name now. Anki's import finds a package's deck by its
name and moves no card (measured with anki 26.9.3: a deck renamed from Biology::Cells to
Science::Cells, its id kept, and imported again: the cards already in the collection stay
in Biology::Cells, the new ones go to Science::Cells), so a renamed deck needs the learner
to move the old cards, and the build says how (:func:`deck_cards_search`).

A learner who imported the package has its notes with its times, and Anki takes a later
package's note only when it is newer still: a lock file that went back in time (a `git
revert` of a commit restores the lock file too) would leave them with the package's text.
So the build compares its notes with the package's (:func:`read_built`), and takes
their Anki note ids and times from it when the lock file is gone (deleted, or never
committed).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

from deckbuilder.anki.identity import deck_anki_id
from deckbuilder.lock.anki_copy import anki_copy_hash

_COLLECTION = "collection.anki2"  # the collection genanki writes, the only one it writes
# A package's collection read to find its deck's name: one of a deck of 100,000 notes is
# far below this; anything larger is not one deckbuilder wrote.
_MAX_COLLECTION_BYTES = 1 << 30


class BuiltNote(NamedTuple):
    """A note as a package gives it to Anki."""

    mod: int  # its modification time
    anki_id: int  # its Anki note id
    fields: str  # its field values, joined by U+001F as the package holds them
    tags: str

    @property
    def anki(self) -> str:
        """The hash of its field values and tags (:func:`anki_copy_hash`). Worked out when
        asked: a build compares it only for the few notes whose times do not settle it
        first, and hashing every note of 50,000 took 0.3 s."""
        return anki_copy_hash(self.fields.split("\x1f"), self.tags.split())


class BuiltPackage(NamedTuple):
    """What the package a build replaces says of itself; no name and no notes when there
    is no such package or it cannot be read (the build goes on without comparing)."""

    deck_name: str | None  # the deck's name, as a build of deckbuilder wrote it
    notes: dict[str, BuiltNote]  # by GUID, as a learner who imported it has them


def read_built(package: Path, deck_key: str) -> BuiltPackage:
    """The package at ``package`` as a build of the deck ``deck_key`` wrote it."""
    decks, rows = _query(
        package, "select decks from col", "select guid, mod, tags, flds, id from notes"
    )
    notes = {}
    for guid, mod, tags, fields, anki_id in rows:
        if (
            isinstance(guid, str)
            and isinstance(mod, int)
            and isinstance(fields, str)
            and isinstance(anki_id, int)
        ):
            notes[guid] = BuiltNote(mod, anki_id, fields, tags if isinstance(tags, str) else "")
    return BuiltPackage(_deck_name(decks, deck_key), notes)


def _deck_name(rows: list[tuple[object, ...]], deck_key: str) -> str | None:
    """The name of the deck ``deck_key`` in the rows of the collection's decks."""
    if not rows or not isinstance(rows[0][0], str):
        return None
    try:
        deck = json.loads(rows[0][0]).get(str(deck_anki_id(deck_key)))
    except (TypeError, ValueError, AttributeError):
        return None
    name = deck.get("name") if isinstance(deck, dict) else None
    return name if isinstance(name, str) else None


def _query(package: Path, *sql: str) -> list[list[tuple[object, ...]]]:
    """The rows each of ``sql`` gives from the package's collection, read once; none when
    it cannot be read, and none for a statement that fails (the others still answer)."""
    try:
        with zipfile.ZipFile(package) as whole:
            member = whole.getinfo(_COLLECTION)
            if member.file_size > _MAX_COLLECTION_BYTES:
                return [[] for _ in sql]
            with tempfile.TemporaryDirectory(prefix="deckbuilder-") as folder:
                copy = Path(folder) / _COLLECTION
                with whole.open(member) as source, copy.open("wb") as target:
                    shutil.copyfileobj(source, target)
                connection = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
                try:
                    return [_rows(connection, each) for each in sql]
                finally:
                    connection.close()
    except (OSError, KeyError, zipfile.BadZipFile, sqlite3.Error):
        return [[] for _ in sql]


def _rows(connection: sqlite3.Connection, sql: str) -> list[tuple[object, ...]]:
    try:
        return connection.execute(sql).fetchall()
    except sqlite3.Error:
        return []
