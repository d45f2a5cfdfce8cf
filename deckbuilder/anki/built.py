"""What a package deckbuilder built before says of itself: the name it gave its deck.

A build compares it with the deck's name now. Anki's import finds a package's deck by its
name and moves no card (measured with anki 26.9.3: a deck renamed from Biology::Cells to
Science::Cells, its id kept, and imported again: the cards already in the collection stay
in Biology::Cells, the new ones go to Science::Cells), so a renamed deck needs the learner
to move the old cards, and the build says how (:func:`deck_cards_search`).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import zipfile
from pathlib import Path

from deckbuilder.anki.identity import deck_anki_id

_COLLECTION = "collection.anki2"  # the collection genanki writes, the only one it writes
# A package's collection read to find its deck's name: one of a deck of 100,000 notes is
# far below this; anything larger is not one deckbuilder wrote.
_MAX_COLLECTION_BYTES = 1 << 30


def built_deck_name(package: Path, deck_key: str) -> str | None:
    """The name of the deck ``deck_key`` in the package at ``package``, as a build of
    deckbuilder wrote it; None when there is no such package or deck, or it cannot be
    read (the build goes on without comparing)."""
    try:
        with zipfile.ZipFile(package) as whole:
            member = whole.getinfo(_COLLECTION)
            if member.file_size > _MAX_COLLECTION_BYTES:
                return None
            with tempfile.TemporaryDirectory(prefix="deckbuilder-") as folder:
                copy = Path(folder) / _COLLECTION
                with whole.open(member) as source, copy.open("wb") as target:
                    shutil.copyfileobj(source, target)
                connection = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
                try:
                    row = connection.execute("select decks from col").fetchone()
                finally:
                    connection.close()
        deck = json.loads(row[0]).get(str(deck_anki_id(deck_key)))
    except (
        OSError,
        KeyError,
        IndexError,
        TypeError,
        ValueError,
        zipfile.BadZipFile,
        sqlite3.Error,
    ):
        return None
    name = deck.get("name") if isinstance(deck, dict) else None
    return name if isinstance(name, str) else None
