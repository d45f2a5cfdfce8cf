"""What ``pull`` reads: a package exported from Anki (``.apkg``, ``.colpkg``, with or
without scheduling) or a collection file itself (``collection.anki2`` in an Anki profile
folder), read-only.

A collection is never opened where it is: the backend would take it over (Anki opens it
with SQLite's exclusive locking, and a newer backend may upgrade the file beyond what
the user's Anki opens), and even SQLite's own read-only mode leaves ``-wal`` and ``-shm``
files beside a collection in WAL mode (measured). It is copied with its write-ahead log
and read from the copy (:func:`deckbuilder.anki.package_reader.read_collection`). While
Anki desktop has it open, it holds an exclusive lock on the file's SQLite lock bytes and
changes it through the write-ahead log, so a copy may be half of what it shows: pull
asks for the lock SQLite readers ask for, and a collection Anki holds is refused.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.anki.collection import AnkiNote, AnkiNoteType, UnreadableNote
from deckbuilder.anki.package_reader import (
    MAX_MEDIA_FILE_BYTES,
    SQLITE_MAGIC,
    read_collection,
    read_package,
)
from deckbuilder.errors import DeckError
from deckbuilder.files.reading import LimitExceeded, open_regular, read_limited

try:  # POSIX: SQLite's locks are fcntl's
    import fcntl
except ImportError:  # pragma: no cover - Windows, where SQLite locks otherwise
    fcntl = None  # type: ignore[assignment]

# SQLite's lock bytes (its os_unix.c): a reader locks the shared range for reading; a
# connection in exclusive locking mode, as Anki's backend is, holds it for writing.
_PENDING_BYTE = 0x40000000
_SHARED_FIRST = _PENDING_BYTE + 2
_SHARED_SIZE = 510
MEDIA_FOLDER = "collection.media"  # beside collection.anki2 in a profile folder


@dataclass
class AnkiSource:
    """The note types and notes of what ``pull`` reads, and its media on demand."""

    path: Path
    note_types: dict[int, AnkiNoteType] = field(default_factory=dict)
    notes: list[AnkiNote] = field(default_factory=list)
    unreadable: list[UnreadableNote] = field(default_factory=list)
    # A media file's bytes by its name (None when the source does not have it).
    media: Callable[[str], bytes | None] = lambda name: None


def read_anki_source(path: Path) -> AnkiSource:
    """Read ``path``: an Anki package, or a collection file (refused while Anki holds it
    open). DeckError in one line when it is neither, is locked, or passes a limit."""
    if not os.path.lexists(path):  # a git revision, say: 'build --against HEAD~1'
        raise DeckError.single(
            path,
            "no such file: give what Anki has, an exported package (.apkg, .colpkg) or "
            "its collection (collection.anki2)",
        )
    with open_regular(path) as stream:
        is_zip = zipfile.is_zipfile(stream)
        stream.seek(0)
        is_database = stream.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    if is_zip:
        package = read_package(path)
        return AnkiSource(
            path, package.note_types, package.notes, package.unreadable, package.media.get
        )
    if not is_database:
        raise DeckError.single(
            path, "not an Anki package (.apkg, .colpkg) or collection (collection.anki2)"
        )
    if held_by_anki(path):
        raise DeckError.single(
            path,
            "Anki has this collection open (it is locked): close Anki, or export the deck "
            "(File > Export, .apkg), and pull again",
        )
    with read_collection(path) as collection:
        if not collection.is_collection():
            raise DeckError.single(path, "a database, but not an Anki collection")
        note_types = collection.note_types()
        notes, unreadable = collection.notes(collection.decks())
    folder = path.parent / MEDIA_FOLDER
    return AnkiSource(path, note_types, notes, unreadable, lambda name: _media(folder, name))


def held_by_anki(path: Path) -> bool:
    """Whether another program holds the database at ``path`` locked for writing, as
    Anki does while the collection is open. Asks for SQLite's shared read lock without
    waiting, and lets it go at once; where the system has no such locks (Windows), False."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    with open_regular(path) as stream:
        try:
            fcntl.lockf(stream.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB, _SHARED_SIZE, _SHARED_FIRST)
        except OSError:
            return True
        fcntl.lockf(stream.fileno(), fcntl.LOCK_UN, _SHARED_SIZE, _SHARED_FIRST)
    return False


def _media(folder: Path, name: str) -> bytes | None:
    """A media file of the profile's media folder: a plain name, a regular file, no
    larger than Anki syncs."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        return None
    path = folder / name
    if not os.path.lexists(path) or path.is_symlink():
        return None
    try:
        with open_regular(path) as stream:
            return read_limited(stream, MAX_MEDIA_FILE_BYTES)
    except (DeckError, LimitExceeded, OSError):
        return None
