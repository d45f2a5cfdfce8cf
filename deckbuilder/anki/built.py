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
So the build compares its notes with the package's (:func:`built_notes`), and takes
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


def built_deck_name(package: Path, deck_key: str) -> str | None:
    """The name of the deck ``deck_key`` in the package at ``package``, as a build of
    deckbuilder wrote it; None when there is no such package or deck, or it cannot be
    read (the build goes on without comparing)."""
    rows = _query(package, "select decks from col")
    if not rows or not isinstance(rows[0][0], str):
        return None
    try:
        deck = json.loads(rows[0][0]).get(str(deck_anki_id(deck_key)))
    except (TypeError, ValueError, AttributeError):
        return None
    name = deck.get("name") if isinstance(deck, dict) else None
    return name if isinstance(name, str) else None


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


def built_notes(package: Path) -> dict[str, BuiltNote]:
    """The notes of the package at ``package`` by GUID, as a learner who imported it has
    them; empty when there is no package or it cannot be read."""
    found = {}
    rows = _query(package, "select guid, mod, tags, flds, id from notes")
    for guid, mod, tags, fields, anki_id in rows:
        if (
            isinstance(guid, str)
            and isinstance(mod, int)
            and isinstance(fields, str)
            and isinstance(anki_id, int)
        ):
            found[guid] = BuiltNote(mod, anki_id, fields, tags if isinstance(tags, str) else "")
    return found


def _query(package: Path, sql: str) -> list[tuple[object, ...]]:
    """The rows ``sql`` gives from the package's collection; none when it cannot be read."""
    try:
        with zipfile.ZipFile(package) as whole:
            member = whole.getinfo(_COLLECTION)
            if member.file_size > _MAX_COLLECTION_BYTES:
                return []
            with tempfile.TemporaryDirectory(prefix="deckbuilder-") as folder:
                copy = Path(folder) / _COLLECTION
                with whole.open(member) as source, copy.open("wb") as target:
                    shutil.copyfileobj(source, target)
                connection = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
                try:
                    return connection.execute(sql).fetchall()
                finally:
                    connection.close()
    except (OSError, KeyError, zipfile.BadZipFile, sqlite3.Error):
        return []
