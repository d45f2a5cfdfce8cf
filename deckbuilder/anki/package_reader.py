"""Reading an Anki package (``.apkg``, ``.colpkg``): note types, notes, decks and media.

Anki writes three layouts: ``collection.anki2`` (schema 11) and ``collection.anki21``
with a JSON media map and plain media members, and the current ``collection.anki21b``
(schema 18), zstd-compressed, with a zstd-compressed protobuf media map and zstd-compressed
media members. A current package also holds a stub ``collection.anki2`` that says to
upgrade Anki, so the newest collection in the zip is the one read.

The source is never written: the collection is copied out of the zip into a temporary
folder and opened read-only there.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.errors import DeckError

__all__ = ["AnkiNote", "AnkiNoteType", "AnkiPackage", "read_package"]

# Newest first: a current package holds a stub of each older layout too.
_COLLECTIONS = ("collection.anki21b", "collection.anki21", "collection.anki2")
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# Limits against a package that unpacks to far more than it holds.
MAX_COLLECTION_BYTES = 2 * 1024**3
MAX_MEDIA_FILE_BYTES = 100 * 1024 * 1024  # what Anki syncs (render.MAX_MEDIA_BYTES)


@dataclass(frozen=True)
class AnkiNoteType:
    id: int
    name: str
    is_cloze: bool
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str, str], ...]  # (name, front, back)
    css: str
    mod: int  # seconds since 1970


@dataclass(frozen=True)
class AnkiNote:
    id: int
    guid: str
    type_id: int
    mod: int  # seconds since 1970
    tags: tuple[str, ...]
    fields: tuple[str, ...]
    deck: str  # the deck of its first card ('' if it has none)


@dataclass
class AnkiPackage:
    note_types: dict[int, AnkiNoteType] = field(default_factory=dict)
    notes: list[AnkiNote] = field(default_factory=list)
    media: dict[str, bytes] = field(default_factory=dict)  # file name -> contents


def read_package(path: Path) -> AnkiPackage:
    """Read the package at ``path``; raise DeckError when it is not one Anki wrote."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            member = next((name for name in _COLLECTIONS if name in names), None)
            if member is None:
                raise DeckError.single(path, "not an Anki package: it holds no collection")
            with tempfile.TemporaryDirectory(prefix="deckbuilder-import-") as folder:
                db_path = Path(folder) / "collection.db"
                db_path.write_bytes(_unpacked(zf.read(member), path))
                package = _read_collection(db_path, path)
            package.media = _read_media(zf, names, path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DeckError.single(path, f"cannot read the package: {exc}") from exc
    return package


def _zstd_decompress(data: bytes, path: Path, limit: int) -> bytes:
    import zstandard

    try:
        with zstandard.ZstdDecompressor().stream_reader(data) as reader:
            out = reader.read(limit + 1)
    except zstandard.ZstdError as exc:
        raise DeckError.single(path, f"cannot read the package: {exc}") from exc
    if len(out) > limit:
        raise DeckError.single(path, f"the package unpacks to more than {limit:,} bytes")
    return out


def _unpacked(data: bytes, path: Path, limit: int = MAX_COLLECTION_BYTES) -> bytes:
    return _zstd_decompress(data, path, limit) if data.startswith(_ZSTD_MAGIC) else data


def _read_collection(db_path: Path, path: Path) -> AnkiPackage:
    conn = sqlite3.connect(f"{db_path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "notetypes" in tables:
            note_types, decks = _schema18(conn)
        else:
            note_types, decks = _schema11(conn)
        first_deck = dict(conn.execute("SELECT nid, did FROM cards ORDER BY nid, ord DESC"))
        notes = [
            AnkiNote(
                id=nid,
                guid=guid,
                type_id=mid,
                mod=mod,
                tags=tuple(tags.split()),
                fields=tuple(flds.split("\x1f")),
                deck=decks.get(first_deck.get(nid, 0), ""),
            )
            for nid, guid, mid, mod, tags, flds in conn.execute(
                "SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id"
            )
        ]
    except sqlite3.DatabaseError as exc:
        raise DeckError.single(path, f"cannot read the package's collection: {exc}") from exc
    finally:
        conn.close()
    return AnkiPackage(note_types, notes)


def _schema11(conn: sqlite3.Connection) -> tuple[dict[int, AnkiNoteType], dict[int, str]]:
    models_json, decks_json = conn.execute("SELECT models, decks FROM col").fetchone()
    note_types = {}
    for model in json.loads(models_json).values():
        fields = sorted(model["flds"], key=lambda f: f["ord"])
        templates = sorted(model["tmpls"], key=lambda t: t["ord"])
        note_types[int(model["id"])] = AnkiNoteType(
            id=int(model["id"]),
            name=model["name"],
            is_cloze=model.get("type", 0) == 1,
            fields=tuple(f["name"] for f in fields),
            templates=tuple((t["name"], t["qfmt"], t["afmt"]) for t in templates),
            css=model.get("css", ""),
            mod=int(model.get("mod", 0)),
        )
    decks = {int(d["id"]): d["name"] for d in json.loads(decks_json).values()}
    return note_types, decks


def _schema18(conn: sqlite3.Connection) -> tuple[dict[int, AnkiNoteType], dict[int, str]]:
    fields: dict[int, list[str]] = {}
    for ntid, name in conn.execute("SELECT ntid, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(ntid, []).append(name)
    templates: dict[int, list[tuple[str, str, str]]] = {}
    for ntid, name, config in conn.execute(
        "SELECT ntid, name, config FROM templates ORDER BY ntid, ord"
    ):
        values = _protobuf(config)
        front, back = _text(values, 1), _text(values, 2)  # TemplateConfig q_format, a_format
        templates.setdefault(ntid, []).append((name, front, back))
    note_types = {}
    for ntid, name, mtime, config in conn.execute(
        "SELECT id, name, mtime_secs, config FROM notetypes"
    ):
        values = _protobuf(config)
        note_types[ntid] = AnkiNoteType(
            id=ntid,
            name=name,
            is_cloze=_integer(values, 1) == 1,  # NotetypeConfig.kind: KIND_CLOZE
            fields=tuple(fields.get(ntid, ())),
            templates=tuple(templates.get(ntid, ())),
            css=_text(values, 3),  # NotetypeConfig.css
            mod=mtime,
        )
    # Schema 18 separates deck name parts with U+001F where the name shows "::".
    decks = {
        did: name.replace("\x1f", "::") for did, name in conn.execute("SELECT id, name FROM decks")
    }
    return note_types, decks


def _read_media(zf: zipfile.ZipFile, names: set[str], path: Path) -> dict[str, bytes]:
    if "media" not in names:
        return {}
    raw = zf.read("media")
    media: dict[str, bytes] = {}
    for member, name in _media_map(raw, path):
        if member not in names:
            continue  # Anki lists files it could not find; the card shows them missing
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise DeckError.single(path, f"the package names a media file '{name}' with a folder")
        info = zf.getinfo(member)
        if info.file_size > MAX_MEDIA_FILE_BYTES * 2:
            raise DeckError.single(path, f"media file '{name}' is larger than Anki syncs")
        media[name] = _unpacked(zf.read(member), path, MAX_MEDIA_FILE_BYTES)
    return media


def _media_map(raw: bytes, path: Path) -> Iterator[tuple[str, str]]:
    """(zip member, file name) pairs, from a JSON map or a protobuf MediaEntries."""
    if raw.startswith(_ZSTD_MAGIC):
        entries = _protobuf(_zstd_decompress(raw, path, MAX_COLLECTION_BYTES))
        for number, entry in enumerate(entries.get(1, [])):
            assert isinstance(entry, bytes)
            yield str(number), _text(_protobuf(entry), 1)  # MediaEntry.name
        return
    try:
        mapping = json.loads(raw.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise DeckError.single(path, f"cannot read the package's media list: {exc}") from exc
    for member, name in mapping.items():
        yield str(member), str(name)


# -- a minimal protobuf reader: the few fields above, by number --------------------------------
def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _protobuf(data: bytes) -> dict[int, list[int | bytes]]:
    """Every field of one protobuf message, by number: varints as ints, length-delimited
    fields as bytes (fixed-width fields are skipped)."""
    out: dict[int, list[int | bytes]] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            continue
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _text(values: dict[int, list[int | bytes]], number: int) -> str:
    found = values.get(number)
    return found[-1].decode("utf-8") if found and isinstance(found[-1], bytes) else ""


def _integer(values: dict[int, list[int | bytes]], number: int) -> int:
    found = values.get(number)
    return found[-1] if found and isinstance(found[-1], int) else 0
