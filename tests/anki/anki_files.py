"""Anki files built by hand for tests: schema 11 collections holding just the tables and
columns the reader reads, and packages around them, well formed or broken on purpose.

The tables are declared without column types, so a test can store a value of any type
(text where Anki keeps a number, a blob where it keeps text), as a damaged or hostile
file would.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import zstandard

from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.model import NoteKind

BASIC = {
    "id": 1,
    "name": "Basic",
    "type": 0,
    "mod": 1_700_000_000,
    "css": ".card {}",
    "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}],
    "tmpls": [{"name": "Card 1", "ord": 0, "qfmt": "{{Front}}", "afmt": "{{Back}}"}],
}
MODELS: dict[str, Any] = {"1": BASIC}
DECKS: dict[str, Any] = {"1": {"id": 1, "name": "Default"}}
NOTES: list[tuple[object, ...]] = [
    (100, "guid-one", 1, 1_700_000_000, "tag", "front one\x1fback one"),
    (101, "guid-two", 1, 1_700_000_000, "", "front two\x1fback two"),
]
CARDS: list[tuple[object, ...]] = [(1000, 100, 1, 0), (1001, 101, 1, 0)]

TABLES = {
    "col": "CREATE TABLE col (id, conf, models, decks)",
    "notes": "CREATE TABLE notes (id, guid, mid, mod, tags, flds)",
    "cards": "CREATE TABLE cards (id, nid, did, ord)",
    "revlog": "CREATE TABLE revlog (id, cid, ease, type, factor)",
}


def _json(value: object) -> object:
    """An object or list as JSON text; any other value stored as it is."""
    return json.dumps(value) if isinstance(value, (dict, list)) else value


def collection(
    path: Path,
    *,
    models: object = MODELS,
    decks: object = DECKS,
    conf: object = None,
    notes: Sequence[tuple[object, ...]] = NOTES,
    cards: Sequence[tuple[object, ...]] = CARDS,
    revlog: Sequence[tuple[object, ...]] = (),
    tables: Mapping[str, str] = TABLES,
) -> Path:
    """A schema 11 collection at ``path``. JSON columns take an object or list (written
    as JSON) or any other value (stored as it is); ``tables`` may replace a table with a
    view."""
    db = sqlite3.connect(path)
    for sql in tables.values():
        db.execute(sql)
    if "col" in tables and tables["col"].startswith("CREATE TABLE"):
        db.execute(
            "INSERT INTO col VALUES (1, ?, ?, ?)",
            (_json(conf or {"rollover": 4}), _json(models), _json(decks)),
        )
    for table, rows, marks in (("notes", notes, 6), ("cards", cards, 4), ("revlog", revlog, 5)):
        if tables.get(table, "").startswith("CREATE TABLE"):
            db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * marks)})", rows)
    db.commit()
    db.close()
    return path


def package(
    path: Path,
    db: Path | bytes | None,
    *,
    member: str = "collection.anki2",
    media: object = None,
    files: Mapping[str, bytes] | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """A package at ``path`` holding ``db`` as ``member`` (zstd-compressed when the
    member is ``collection.anki21b``), the media list ``media`` (an object written as
    JSON, or bytes as they are) and the zip members ``files``."""
    with zipfile.ZipFile(path, "w", compression) as zf:
        if db is not None:
            data = db.read_bytes() if isinstance(db, Path) else db
            if member.endswith("b"):
                data = zstandard.ZstdCompressor().compress(data)
            zf.writestr(member, data)
        if media is not None:
            zf.writestr("media", media if isinstance(media, bytes) else json.dumps(media))
        for name, data in (files or {}).items():
            zf.writestr(name, data)
    return path


def media_entries(names: Sequence[str]) -> bytes:
    """A current package's media list: Anki's own MediaEntries message, zstd-compressed."""
    from anki.import_export_pb2 import MediaEntries

    entries = MediaEntries(entries=[MediaEntries.MediaEntry(name=name) for name in names])
    return zstandard.ZstdCompressor().compress(entries.SerializeToString())


def zstd_zeros(size: int) -> bytes:
    """``size`` zero bytes, zstd-compressed in one frame that declares no size (as Anki
    writes its frames): a few kilobytes that unpack to ``size``."""
    compressor = zstandard.ZstdCompressor().compressobj()
    chunk = bytes(1 << 20)
    parts = [compressor.compress(chunk) for _ in range(size >> 20)]
    parts.append(compressor.compress(bytes(size & ((1 << 20) - 1))))
    parts.append(compressor.flush())
    return b"".join(parts)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail, instead of hanging, when the block runs longer than ``seconds`` (a read
    that blocks on a FIFO, a query that never ends). Main thread only."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_ABOUT = (
    "Written by 'deckbuilder import': the Anki note types of this deck's notes, kept as "
    "they were in the collection so that Anki updates the notes in place. Commit it with "
    "the card file; change a template or the CSS here if you must, never an id or a name."
)


def carried_json(specs: Mapping[NoteKind, NoteTypeSpec]) -> str:
    """The sidecar file's text for ``specs``, as earlier imports wrote it beside the card
    file (``<stem>.notetypes.json``, still read: deckbuilder.anki.notetypes.carried)."""
    entries = [
        {
            "kind": kind.value,
            "id": spec.id,
            "name": spec.name,
            # Written only when true, so that every other file keeps its bytes.
            **({"keep_scripts": True} if spec.keep_scripts else {}),
            "fields": list(spec.fields),
            "templates": [
                {"name": name, "front": front, "back": back} for name, front, back in spec.templates
            ],
            "css": spec.css,
        }
        for kind, spec in sorted(specs.items(), key=lambda item: item[0].value)
    ]
    return json.dumps({"about": _ABOUT, "note_types": entries}, ensure_ascii=False, indent=2) + "\n"
