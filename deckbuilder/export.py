"""RenderedDeck -> ``.apkg``, written atomically and reproducibly.

genanki fills the collection database; we write the zip ourselves so that entry order
and entry times are fixed (the same input gives the same bytes), and we write it to a
temporary file beside the target that replaces the target only once complete.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
import tempfile
import threading
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter, getitem, itemgetter
from pathlib import Path
from typing import Any, cast

from .deckconfig import apply_study
from .errors import OutputError
from .identity import deck_anki_id, note_guids
from .notetypes import NoteTypeSpec
from .progress import step
from .render import RenderedDeck

__all__ = ["PackageInfo", "Stamps", "atomic_write", "write_package"]

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class PackageInfo:
    path: Path
    size: int
    media: int


def _genanki_model(spec: NoteTypeSpec):  # type: ignore[no-untyped-def]
    import genanki

    return genanki.Model(
        spec.id,
        spec.name,
        fields=[{"name": name} for name in spec.fields],
        templates=[{"name": spec.template_name, "qfmt": spec.front, "afmt": spec.back}],
        css=spec.css,
        model_type=genanki.Model.CLOZE if spec.is_cloze else genanki.Model.FRONT_BACK,
    )


@dataclass(frozen=True)
class Stamps:
    """Ids and modification times to give the package instead of ones derived from the
    build time (see :mod:`deckbuilder.manifest`). Missing entries fall back to the build
    time, and ids to a sequence counted from it."""

    note_ids: Mapping[str, int] = field(default_factory=dict)  # note id -> Anki note id
    note_mod: Mapping[str, int] = field(default_factory=dict)  # note id -> seconds
    note_type_mod: Mapping[int, int] = field(default_factory=dict)  # note type id -> seconds


_SCRATCH_PRAGMAS = (
    "PRAGMA journal_mode=OFF",
    "PRAGMA synchronous=OFF",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-65536",  # KiB: 64 MiB, a 50,000-note collection is about 28 MiB
)


def _write_collection(rd: RenderedDeck, db_path: Path, timestamp: int, stamps: Stamps) -> None:
    import genanki

    deck = rd.deck
    deck_id = deck_anki_id(deck.key)
    models = {spec.id: _genanki_model(spec) for spec in rd.note_types}
    # genanki writes the schema, the collection row, the note types and the deck; the notes
    # and cards are inserted below with their final ids, as genanki.Note would write them
    # (same columns and values) but in two statements instead of two per note.
    gdeck = genanki.Deck(deck_id, deck.name, description=rd.description)
    for model in models.values():
        gdeck.add_model(model)
    conn = sqlite3.connect(db_path)
    try:
        cursor = conn.cursor()
        # A scratch file, thrown away on any failure: no rollback journal, no fsync, and
        # room to keep every page in memory. None of these is stored in the file or
        # changes its bytes.
        for pragma in _SCRATCH_PRAGMAS:
            cursor.execute(pragma)
        genanki.Package(gdeck).write_to_db(cursor, timestamp, itertools.count(1))
        (models_json,) = cursor.execute("SELECT models FROM col").fetchone()
        stamped = json.loads(models_json)
        for spec in rd.note_types:
            stamped[str(spec.id)]["mod"] = stamps.note_type_mod.get(spec.id, timestamp)
        cursor.execute("UPDATE col SET models = ?", (json.dumps(stamped),))
        # A deterministic preset time: Anki inserts presets it lacks and ignores the rest.
        apply_study(conn, deck, deck_id, max(stamps.note_mod.values(), default=timestamp))
        # genanki's indexes are made again (same names, SQL and order) once the rows are
        # in: one sorted pass each instead of an update per row. Before the rows, VACUUM
        # packs what is there (the tables and the collection row, a few pages) and leaves
        # no free page behind from the rewrites above or the dropped indexes.
        indexes = cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            " ORDER BY rowid"
        ).fetchall()
        for name, _ in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
        conn.commit()
        cursor.execute("VACUUM")
        notes, cards = _rows(rd, models, deck_id, timestamp, stamps)
        # In key order, whatever order the rows come in: the pages then fill up the same
        # way each time (same bytes, as compact as VACUUM would leave them).
        notes.sort()
        cards.sort()
        cursor.executemany(_INSERT_NOTE, notes)
        cursor.executemany(_INSERT_CARD, cards)
        for _, sql in indexes:
            cursor.execute(sql)
        conn.commit()
    finally:
        conn.close()


# genanki's reading of a cloze note type: the fields its first template shows as clozes,
# and the deletions ({{cN::...}}) in them, one card per number.
_CLOZE_FIELD = (r"{{[^}]*?cloze:(?:[^}]?:)*(.+?)}}", "<%cloze:(.+?)%>")
_CLOZE_NUMBER = re.compile(r"{{c(\d+)::.+?}}", re.DOTALL)


def _card_ords(model: Any) -> Callable[[tuple[str, ...]], Sequence[int]]:
    """The card ordinals genanki gives a note of ``model`` with these fields, in order.

    Worked out once per note type, so that a note costs one test or one regular
    expression search: genanki's own reading (a dict and a generator per note) took a
    third of a 50,000-note collection's rows (60 ms; now 25 ms)."""
    if model.model_type == model.CLOZE:
        qfmt = model.templates[0]["qfmt"]
        names = {name for pattern in _CLOZE_FIELD for name in re.findall(pattern, qfmt)}
        where = [i for i, f in enumerate(model.fields) if f["name"] in names]
        findall = _CLOZE_NUMBER.findall
        # The deletions' numbers as written -> the ordinals: notes of a deck number their
        # deletions alike (c1, c2), so this is worked out a few times, not once per note.
        known: dict[tuple[str, ...], tuple[int, ...]] = {}

        def ords_of(found: tuple[str, ...]) -> tuple[int, ...]:
            ords = known.get(found)
            if ords is None:
                # {{c0::...}} makes no card; {{c2::...}} twice (or as c02) makes one.
                numbers = set(map(int, found))
                numbers.discard(0)
                ords = known[found] = tuple(n - 1 for n in sorted(numbers))
            return ords

        if len(where) == 1:  # the usual case: one field ({{cloze:Text}})
            (text,) = where
            return lambda fields: ords_of(tuple(findall(fields[text])))
        return lambda fields: ords_of(tuple(m for i in where for m in findall(fields[i])))
    # A template's card exists if all (or any) of the fields it needs are non-empty. One
    # field needed: "all" and "any" agree, and the field itself is the test.
    tests: list[tuple[int, Callable[[tuple[str, ...]], object]]] = []
    for ord_, op, needed in model._req:
        get = itemgetter(*needed)
        if len(needed) == 1:
            tests.append((ord_, get))
        else:
            tests.append((ord_, partial(_combined, all if op == "all" else any, get)))
    if len(tests) == 1:  # one template: one card or none (shared tuples, never changed)
        ((ord_, test),) = tests
        one: tuple[int, ...] = (ord_,)

        def single(fields: tuple[str, ...]) -> tuple[int, ...]:
            return one if test(fields) else ()

        return single

    def front_back(fields: tuple[str, ...]) -> list[int]:
        return [ord_ for ord_, test in tests if test(fields)]

    return front_back


def _combined(
    op: Callable[[tuple[str, ...]], bool], get: Callable[[tuple[str, ...]], Any], fields: Any
) -> bool:
    return op(get(fields))


# The columns every note and every new card share are written into the statements, so
# that each row binds only what varies: notes (id, guid, mid, mod, usn -1, tags, flds,
# sfld, csum 0, flags 0, data ''), cards (id, nid, did, ord, mod, usn -1, type, queue,
# due, ivl, factor, reps, lapses, left, odue, odid, flags: 0; data '').
_INSERT_NOTE = "INSERT INTO notes VALUES(?,?,?,?,-1,?,?,?,0,0,'')"
_INSERT_CARD = "INSERT INTO cards VALUES(?,?,?,?,?,-1,0,0,0,0,0,0,0,0,0,0,0,'')"

# Notes whose rows are made in one go (a progress report after each).
_ROWS_CHUNK = 8192
_NOTE_PARTS = attrgetter("note.id", "spec.id", "fields", "tags")


def _rows(
    rd: RenderedDeck, models: dict[int, Any], deck_id: int, timestamp: int, stamps: Stamps
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The notes and cards table rows (the columns that vary, see _INSERT_NOTE and
    _INSERT_CARD). Notes missing from ``stamps`` get ids counted from
    the build time, in deck order. Card ids follow their note's id (Anki shows a card id as
    the day it was added): in note id order, each card takes its note's id or the next id
    after the previous card."""
    fallback = itertools.count(timestamp * 1000)
    card_ords = {spec_id: _card_ords(model) for spec_id, model in models.items()}
    sort_index = {spec_id: model.sort_field_index for spec_id, model in models.items()}
    note_ids, note_mod = stamps.note_ids, stamps.note_mod
    rns = rd.notes
    total = len(rns)
    known = rd.known_keys()
    guids = (
        known.guids if known is not None else note_guids(rd.deck.key, [rn.note.id for rn in rns])
    )
    tag_text: dict[tuple[str, ...], str] = {}  # most notes share their tags
    notes: list[tuple[Any, ...]] = []
    pending: list[tuple[int, int, int]] = []  # (note id, ord, mod)
    # A column at a time, each made by map() and zip() over a chunk's notes: the same
    # values as one loop over the notes with a dozen steps each, in less time (50,000
    # notes: 0.13 s instead of 0.17 s).
    for start in range(0, total, _ROWS_CHUNK):
        chunk = rns[start : start + _ROWS_CHUNK]
        author_ids, spec_ids, fields, tags = zip(*map(_NOTE_PARTS, chunk), strict=True)
        found = list(map(note_ids.get, author_ids))
        if None in found:
            nids = [next(fallback) if nid is None else nid for nid in found]
        else:
            nids = cast("list[int]", found)
        mods = list(map(note_mod.get, author_ids, itertools.repeat(timestamp)))
        for new in set(tags).difference(tag_text):
            tag_text[new] = f" {' '.join(new)} "
        notes += zip(
            nids,
            guids[start : start + _ROWS_CHUNK],
            spec_ids,
            mods,
            map(tag_text.__getitem__, tags),
            map("\x1f".join, fields),
            map(getitem, fields, map(sort_index.__getitem__, spec_ids)),
            strict=True,
        )
        pending += [
            (nid, ord_, mod)
            for nid, mod, spec_id, note_fields in zip(nids, mods, spec_ids, fields, strict=True)
            for ord_ in card_ords[spec_id](note_fields)
        ]
        step("writing", start + len(chunk), total)
    # By note id, then ord: note ids are unique (the notes table's key), so no two
    # cards tie on both and the third member never decides.
    pending.sort()
    cards: list[tuple[Any, ...]] = []
    add = cards.append
    cid = 0
    for nid, ord_, mod in pending:
        cid = nid if nid > cid else cid + 1
        add((cid, nid, deck_id, ord_, mod))
    return notes, cards


def atomic_write(target: Path, write: object) -> None:
    """Call ``write(tmp_path)`` on a temporary file beside ``target``, then rename it
    into place. On any failure (or Ctrl-C) the previous ``target`` is left untouched."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)  # type: ignore[operator]
        # mkstemp makes the file private; give it the mode an ordinary new file gets.
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {target}: {reason}; the previous file was kept") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _zip_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def _deflater() -> Any:
    """The deflate module: zlib-ng if installed, else zlib (zipfile's own). zlib-ng is 2.3
    times as fast (0.11 s instead of 0.25 s for a 50,000-note collection), same size
    within 0.1%."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        import zlib

        return zlib
    return zlib_ng


# Members from this size on (a collection of a few thousand notes) are deflated in two
# halves at once; smaller ones are not worth a thread.
_SPLIT_AT = 1 << 20
_WINDOW = 1 << 15  # how far back deflate refers: 32 KiB


def _deflate(zlib: Any, data: bytes) -> bytes:
    """``data`` as one raw deflate stream, at zlib's default level as zipfile has it.

    From :data:`_SPLIT_AT` on, its two halves are compressed at the same time, the second
    on a thread of its own (zlib and zlib-ng release the GIL while they work), and joined
    as pigz joins its blocks: the first half ends with a sync flush (an empty stored
    block: not the last block, and the stream is byte-aligned after it, so the second half
    follows on directly) and the second half is compressed with the first's last 32 KiB
    as its dictionary (it may refer back into them as a single pass would; the reader has
    them in its window). The cut is at half the length: the bytes depend on the data
    alone, never on timing or on how many cores there are.
    """

    def compressor(**zdict: memoryview) -> Any:
        return zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15, **zdict)

    if len(data) < _SPLIT_AT:
        whole = compressor()
        return bytes(whole.compress(data) + whole.flush())
    view = memoryview(data)
    cut = len(view) // 2
    tail: list[bytes] = []
    failed: list[BaseException] = []

    def second_half() -> None:
        try:
            part = compressor(zdict=view[cut - _WINDOW : cut])
            tail.append(part.compress(view[cut:]) + part.flush())
        except BaseException as exc:  # raised below, in the caller's thread
            failed.append(exc)

    # A bare thread: concurrent.futures would import logging (3-6 ms) for one task.
    thread = threading.Thread(target=second_half, name="deflate")
    thread.start()
    try:
        first = compressor()
        head = first.compress(view[:cut]) + first.flush(zlib.Z_SYNC_FLUSH)
    finally:
        thread.join()
    if failed:
        raise failed[0]
    return bytes(head + tail[0])


class _Deflated:
    """What zipfile calls to compress a member (``compress`` then ``flush``), for a member
    written in one ``write``: the whole of it is deflated by :func:`_deflate`."""

    def __init__(self, zlib: Any) -> None:
        self.zlib = zlib
        self.written = False

    def compress(self, data: bytes) -> bytes:
        if self.written:
            raise RuntimeError("a member is deflated in one piece")
        self.written = True
        return _deflate(self.zlib, data)

    def flush(self) -> bytes:
        return b""


def _add(zf: zipfile.ZipFile, name: str, data: bytes, zlib: Any) -> None:
    """``zf.writestr(_zip_entry(name), data)``, compressed by :func:`_deflate` with
    ``zlib``. zipfile has no way to be given a compressor: the one it made for the member
    is swapped before any data goes through it (it computes the CRC and sizes itself)."""
    info = _zip_entry(name)
    info.file_size = len(data)  # as writestr: a ZIP64 header if the member needs one
    with zf.open(info, "w") as member:
        member._compressor = _Deflated(zlib)  # type: ignore[attr-defined]
        member.write(data)


def write_package(
    rd: RenderedDeck,
    target: Path,
    *,
    timestamp: int,
    stamps: Stamps | None = None,
) -> PackageInfo:
    """Write ``rd`` to ``target`` (an .apkg). ``timestamp`` (seconds since the epoch) is
    the modification time given to notes and note types, and the start of their ids,
    unless ``stamps`` says otherwise. The same input gives the same bytes."""
    with tempfile.TemporaryDirectory(prefix="deckbuilder-") as tmpdir:
        db_path = Path(tmpdir) / "collection.anki2"
        _write_collection(rd, db_path, timestamp, stamps or Stamps())
        media_names = list(rd.media)

        def write_zip(tmp: Path) -> None:
            with zipfile.ZipFile(tmp, "w") as zf:
                zlib = _deflater()
                _add(zf, "collection.anki2", db_path.read_bytes(), zlib)
                media_map = {str(i): name for i, name in enumerate(media_names)}
                media_json = json.dumps(media_map, ensure_ascii=False).encode("utf-8")
                _add(zf, "media", media_json, zlib)
                for i, name in enumerate(media_names):
                    _add(zf, str(i), rd.media[name].read_bytes(), zlib)

        atomic_write(target, write_zip)
    return PackageInfo(target, target.stat().st_size, len(media_names))
