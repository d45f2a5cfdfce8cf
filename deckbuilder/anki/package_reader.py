"""Reading Anki's files, for ``import`` and ``preview --history`` alike: a package
(``.apkg``, ``.colpkg``) with its collection and media, or a collection file from a
profile folder with its write-ahead log.

Anki writes three package layouts: ``collection.anki2`` (schema 11) and
``collection.anki21`` with a JSON media list and plain media members, and the current
``collection.anki21b`` (schema 18), zstd-compressed, with a zstd-compressed protobuf
media list (:mod:`deckbuilder.anki.messages`) and zstd-compressed media members. A current
package also holds a stub ``collection.anki2`` that says to upgrade Anki, so the newest
collection in the zip is the one read. The collection is unpacked into a temporary
folder and read there (:mod:`deckbuilder.anki.collection`); the source is never written.

Limits, so that a small hostile file cannot cost gigabytes or hang (none comes near a
real package; docs/importing.md lists them for users):

- Only regular files are opened; a FIFO or a device is refused unread.
- A package unpacks to at most ``MAX_RATIO`` (100) times its own size plus
  ``RATIO_FLOOR`` (32 MiB), all its members together. Anki expects a collection to
  compress about threefold (AnkiWeb takes 100 MiB compressed as up to 300 MiB), and
  media are compressed already (pictures, sound), so a real package unpacks to a few
  times its size (Anki's export of 5,000 notes: 5 times; of 3 notes and a picture: 3
  times, its nearly empty collection alone 25 times), while a zip bomb unpacks to
  thousands of times. The 32 MiB leave room for any small package, and are about what
  a bomb costs in memory before it is refused. Every member's declared size is checked
  against what is left before it is unpacked, and zstd data, whose size is declared
  nowhere, is counted as it comes.
- The collection is at most ``MAX_COLLECTION_BYTES`` (2 GiB; AnkiWeb syncs collections
  up to 300 MiB), unpacked to a temporary file in chunks, never whole into memory.
- A media file is at most ``MAX_MEDIA_FILE_BYTES`` (100 MiB, the largest file Anki
  syncs) and the media list at most ``MAX_MEDIA_LIST_BYTES`` (64 MiB, the names of
  about a million files).
- A zstd frame may ask for a window of at most ``MAX_ZSTD_WINDOW`` (128 MiB, zstd's own
  default limit; Anki writes 2 MiB windows).
"""

from __future__ import annotations

import lzma
import os
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import zstandard

from deckbuilder.anki.collection import (
    AnkiNote,
    AnkiNoteType,
    CollectionReader,
    UnreadableNote,
    open_collection,
    read_json,
)
from deckbuilder.anki.messages import DecodeError, media_names
from deckbuilder.errors import DeckError, shown
from deckbuilder.files.reading import LimitExceeded, copy_limited, open_regular, read_limited

MAX_RATIO = 100
RATIO_FLOOR = 32 * 1024 * 1024
MAX_COLLECTION_BYTES = 2 * 1024**3
MAX_MEDIA_FILE_BYTES = 100 * 1024 * 1024
MAX_MEDIA_LIST_BYTES = 64 * 1024 * 1024
MAX_ZSTD_WINDOW = 128 * 1024 * 1024

# Newest first: a current package holds a stub of each older layout too.
_COLLECTIONS = ("collection.anki21b", "collection.anki21", "collection.anki2")
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
SQLITE_MAGIC = b"SQLite format 3\0"
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
# What a damaged archive or compressed stream raises while it is read.
_BROKEN = (zipfile.BadZipFile, OSError, EOFError, zlib.error, lzma.LZMAError, zstandard.ZstdError)
_MAX_NAME_BYTES = 255  # a file name's length on common file systems


@dataclass
class AnkiPackage:
    note_types: dict[int, AnkiNoteType] = field(default_factory=dict)
    notes: list[AnkiNote] = field(default_factory=list)
    media: dict[str, bytes] = field(default_factory=dict)  # file name -> contents
    unreadable: list[UnreadableNote] = field(default_factory=list)  # notes left out, and why


def read_package(path: Path) -> AnkiPackage:
    """Read the package at ``path``; raise DeckError when it is not one Anki wrote, or
    passes a limit. Notes that cannot be read are listed in ``unreadable``."""
    with open_regular(path) as stream, _Package(path, stream) as package:
        with package.collection() as collection:
            note_types = collection.note_types()
            notes, unreadable = collection.notes(collection.decks())
        media = package.media()
    return AnkiPackage(note_types, notes, media, unreadable)


@contextmanager
def read_collection(path: Path) -> Iterator[CollectionReader]:
    """The collection at ``path``, open for reading: a package's, or a collection file
    with its write-ahead log (the changes Anki has not yet written into the file itself,
    while it has the collection open), copied first. Raises DeckError when ``path`` is
    neither, or passes a limit."""
    with open_regular(path) as stream:
        if zipfile.is_zipfile(stream):
            stream.seek(0)
            with _Package(path, stream) as package, package.collection() as collection:
                yield collection
            return
        stream.seek(0)
        if stream.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise DeckError.single(path, "not an Anki collection or package")
        stream.seek(0)
        with tempfile.TemporaryDirectory(prefix="deckbuilder-read-") as folder:
            db = Path(folder) / "collection.db"
            _copy(stream, db, path, "the collection")
            wal = path.with_name(path.name + "-wal")
            if os.path.lexists(wal):
                with open_regular(wal) as log:
                    _copy(log, db.with_name(db.name + "-wal"), wal, "the write-ahead log")
            with open_collection(db, path) as collection:
                yield collection


def is_anki_collection(path: Path) -> bool:
    """Whether the database at ``path`` is an Anki collection (it has notes), not some
    other program's (Mnemosyne's, say). Raises DeckError when it is no database, or
    cannot be read."""
    with read_collection(path) as collection:
        return collection.is_collection()


def _copy(stream: IO[bytes], target: Path, source: Path, what: str) -> None:
    try:
        with target.open("wb") as out:
            copy_limited(stream, out, MAX_COLLECTION_BYTES)
    except LimitExceeded:
        raise DeckError.single(
            source, f"{what} is larger than {MAX_COLLECTION_BYTES:,} bytes; it is not read"
        ) from None
    except OSError as exc:
        raise DeckError.single(source, f"cannot read {what}: {exc}") from None


class _Package:
    """An open package: its zip directory, and what it may still unpack to."""

    def __init__(self, path: Path, stream: IO[bytes]) -> None:
        self.path = path
        self.budget = RATIO_FLOOR + MAX_RATIO * os.fstat(stream.fileno()).st_size
        self.left = self.budget
        with self._reading():
            self.zip = zipfile.ZipFile(stream)
        self.names = set(self.zip.namelist())

    def __enter__(self) -> _Package:
        return self

    def __exit__(self, *exc: object) -> None:
        self.zip.close()

    def fault(self, message: str) -> DeckError:
        return DeckError.single(self.path, message)

    @contextmanager
    def collection(self) -> Iterator[CollectionReader]:
        """The package's newest collection, unpacked to a temporary file and open."""
        member = next((name for name in _COLLECTIONS if name in self.names), None)
        if member is None:
            raise self.fault("not an Anki package: it holds no collection")
        with tempfile.TemporaryDirectory(prefix="deckbuilder-import-") as folder:
            db = Path(folder) / "collection.db"
            with db.open("wb") as out:
                self._unpack(member, out, MAX_COLLECTION_BYTES, "collection")
            with open_collection(db, self.path) as collection:
                yield collection

    def media(self) -> dict[str, bytes]:
        """The media files the package's media list names, by file name; the names it
        lists without the file are left out (Anki shows those missing)."""
        if "media" not in self.names:
            return {}
        raw, compressed = self._read("media", MAX_MEDIA_LIST_BYTES, "media list")
        media: dict[str, bytes] = {}
        composed: dict[str, str] = {}  # each name in NFC -> the name the package gives
        for member, name in self._media_list(raw, compressed):
            problem = _name_problem(name)
            if problem:
                raise self.fault(f"the package names a media file {shown(name)} {problem}")
            if member in self.names:
                data = self._read(member, MAX_MEDIA_FILE_BYTES, f"media file {shown(name)}")[0]
                other = composed.setdefault(unicodedata.normalize("NFC", name), name)
                if other != name and media[other] != data:
                    raise self.fault(_same_name(other, name))
                media[name] = data
        return media

    def _media_list(self, raw: bytes, compressed: bool) -> list[tuple[str, str]]:
        """(zip member, file name) pairs, from a protobuf MediaEntries (a current package)
        or a JSON object (older ones)."""
        if compressed:
            try:
                return [(str(number), name) for number, name in enumerate(media_names(raw))]
            except DecodeError as exc:
                raise self.fault(f"cannot read the package's media list: {exc}") from None
        try:
            mapping = read_json(raw.decode("utf-8") or "{}")
        except RecursionError:
            raise self.fault("the package's media list is JSON nested too deeply") from None
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError among them
            raise self.fault(f"cannot read the package's media list: {exc}") from None
        if not isinstance(mapping, dict):
            kind = {list: "a list", str: "text", type(None): "null", bool: "true or false"}
            raise self.fault(
                f"the package's media list is {kind.get(type(mapping), 'a number')}, not a "
                "JSON object of file names"
            )
        for member, name in mapping.items():
            if not (member.isascii() and member.isdigit()) or not isinstance(name, str):
                raise self.fault(
                    f"the package's media list maps {shown(member)} to {shown(name)}: not a "
                    "numbered member to a file name"
                )
        return list(mapping.items())

    def _read(self, member: str, limit: int, what: str) -> tuple[bytes, bool]:
        """A member's contents, unpacked, and whether they were zstd-compressed."""
        with self._opened(member, limit, what) as (stream, allowed, compressed):
            data = read_limited(stream, allowed)
        self.left -= len(data)
        return data, compressed

    def _unpack(self, member: str, target: IO[bytes], limit: int, what: str) -> None:
        with self._opened(member, limit, what) as (stream, allowed, _):
            self.left -= copy_limited(stream, target, allowed)

    @contextmanager
    def _opened(self, member: str, limit: int, what: str) -> Iterator[tuple[IO[bytes], int, bool]]:
        """A member's stream (unpacked from zstd where it is), what it may unpack to, and
        whether it is zstd; refused before unpacking when its declared size passes that."""
        info = self.zip.getinfo(member)
        if info.flag_bits & 0x1:
            raise self.fault(f"its {what} is encrypted, which Anki never does; it is not read")
        if info.compress_type not in _METHODS:
            raise self.fault(
                f"its {what} is compressed with method {info.compress_type}, which Anki never "
                "uses; it is not read"
            )
        allowed = min(limit, self.left)
        if info.file_size > allowed:
            raise self._too_large(what, limit)
        with self._reading(), self.zip.open(info) as stream:
            assert isinstance(stream, zipfile.ZipExtFile)
            compressed = stream.peek(len(_ZSTD_MAGIC))[: len(_ZSTD_MAGIC)] == _ZSTD_MAGIC
            unpacked: IO[bytes] = stream
            if compressed:
                decompressor = zstandard.ZstdDecompressor(max_window_size=MAX_ZSTD_WINDOW)
                unpacked = decompressor.stream_reader(stream, closefd=False)
            try:
                yield unpacked, allowed, compressed
            except LimitExceeded:
                raise self._too_large(what, limit) from None

    def _too_large(self, what: str, limit: int) -> DeckError:
        if limit <= self.left:
            return self.fault(f"its {what} unpacks to more than {limit:,} bytes; it is not read")
        return self.fault(
            f"the package unpacks to more than {self.budget:,} bytes ({MAX_RATIO} times its "
            f"size plus {RATIO_FLOOR // 2**20} MiB), far more than a real package; it is not read"
        )

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except _BROKEN as exc:
            raise self.fault(f"cannot read the package: {exc}") from None


def _same_name(first: str, second: str) -> str:
    """Why two media files whose names differ only in Unicode form cannot both come in."""
    return (
        f"the package holds two media files named {shown(first)} and {shown(second)}, one "
        f"name in Unicode's two forms ({first!a} and {second!a}): Anki stores both under "
        "one name (the composed form, NFC), so one note would show the other's file; "
        "rename one in Anki and export again"
    )


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a media file's name in the project's media folder; None
    when it can."""
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        return "with a folder"
    if any(unicodedata.category(c) == "Cc" for c in name):
        return "holding a control character"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "that is not valid Unicode (a lone surrogate)"
    if size > _MAX_NAME_BYTES:
        return f"longer than a file name may be ({_MAX_NAME_BYTES} bytes)"
    return None
