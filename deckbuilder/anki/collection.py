"""Reading an Anki collection, the SQLite database in a package or a profile folder: its
note types, decks, notes and review log.

Schema 11 (``collection.anki2``, ``collection.anki21``) keeps note types and decks as JSON
in the one row of ``col``; schema 18 (``collection.anki21b``) keeps them in tables of
their own, with settings as protobuf messages (:mod:`deckbuilder.anki.messages`).

The database is always a private copy (:mod:`deckbuilder.anki.package_reader` makes it),
opened read-only and read with limits, so that a hostile file costs seconds and
megabytes, never hours and gigabytes:

- The tables read must be plain tables, as Anki writes them: a view (a recursive one
  never ends), a virtual table or a computed column is refused before it is read.
- No single value may be longer than ``MAX_VALUE_BYTES`` (100 MiB, the largest media
  file Anki syncs; a field or a note-type list that long is no deck's); SQLite itself
  refuses a longer one.
- Reading stops after ``STEPS_PER_BYTE`` steps of SQLite's virtual machine per byte of
  database, plus ``BASE_STEPS``. Reading a real collection's notes, cards and review
  log takes well under one step per byte (a 2 MB collection of 5,000 notes: 0.1), so
  the limit is ten times what any honest file needs. It is counted in steps, not
  seconds, so a file gets the same answer on every machine.
- Expressions in the schema nest at most ``MAX_EXPRESSION_DEPTH`` deep (Anki's schema
  nests a few levels), and the schema's functions are not trusted (``trusted_schema``
  off).

What makes the whole collection unreadable (a missing table, note types or decks not
as Anki writes them, a review log entry that is not numbers) is a DeckError naming the
file and the fault. A note that cannot be read (fields that are not text, an id or a
time that is not a number) is reported as an :class:`UnreadableNote`, and the others
are read.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from deckbuilder.anki.messages import DecodeError, notetype_config, template_formats
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.errors import DeckError, shown
from deckbuilder.model import NoteKind

MAX_VALUE_BYTES = 100 * 1024 * 1024
# A review history holds at most this many entries (5 columns of 8 bytes each: 160 MB).
# A learner of ten years with 100,000 cards logs one to three million.
MAX_REVIEW_LOG_ENTRIES = 4_000_000
# When Anki can have logged an answer (revlog ids are milliseconds since 1970): 1970 to
# 2100. An entry dated 2**62 ms (146 million years) on made the fit overflow.
REVIEW_TIMES = range(0, 4_102_444_800_000)
# What to do with a history too long to fit.
SMALLER_HISTORY = (
    "export a smaller one (only the decks in question, with scheduling) or give the FSRS "
    "parameters Anki's deck options show instead"
)
STEPS_PER_BYTE = 10
BASE_STEPS = 10_000_000
MAX_EXPRESSION_DEPTH = 100
DEFAULT_ROLLOVER = 4  # the hour Anki starts a new day at, unless the collection says
_STEPS_BETWEEN_CHECKS = 10_000
_INT64 = range(-(2**63), 2**63)
_DECIMAL = re.compile(r"-?[0-9]{1,19}")
# The longest number Anki writes in its JSON: a 64-bit id or time, 19 digits. A longer
# one is read as its digits (text), which every check of a number refuses by name: int()
# refuses over 4,300 digits, and takes time that grows with the square of the length.
_LONGEST_JSON_NUMBER = 19


@dataclass(frozen=True)
class AnkiNoteType:
    id: int
    name: str
    is_cloze: bool
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str, str], ...]  # (name, front, back)
    css: str
    mod: int  # seconds since 1970
    sort_field: int = 0  # the index of the field Anki's browser sorts by
    stock_kind: int = 0  # Anki's "originalStockKind" (6: image occlusion)

    def spec(self, kind: NoteKind) -> NoteTypeSpec:
        """The note type as the collection has it (its templates and CSS), for notes of
        ``kind``."""
        (name, front, back), *more = self.templates
        return NoteTypeSpec(
            kind=kind,
            id=self.id,
            name=self.name,
            fields=self.fields,
            template_name=name,
            front=front,
            back=back,
            css=self.css,
            more_templates=tuple(more),
        )


@dataclass(frozen=True)
class AnkiNote:
    id: int
    guid: str
    type_id: int
    mod: int  # seconds since 1970
    tags: tuple[str, ...]
    fields: tuple[str, ...]
    deck: str  # the deck of its first card ('' if it has none)


class Revlog(NamedTuple):
    """The review log's columns, entry i at position i of each, by card and then time."""

    cards: array[int]  # cid
    millis: array[int]  # id: when it was answered
    ratings: array[int]  # ease: 1..4, 0 for an entry no button made
    kinds: array[int]  # type: 0 learning, 1 review, 2 relearning, 3 filtered, 4 manual, 5 rescheduled
    factors: array[int]  # factor: ease in permille, 0 where Anki stores none


@dataclass(frozen=True)
class UnreadableNote:
    """A note the collection holds but that cannot be read, and why."""

    id: int | None  # None when the id itself is not a number
    reason: str


@contextmanager
def open_collection(db: Path, source: Path) -> Iterator[CollectionReader]:
    """The collection database ``db`` (a private copy), open for reading; ``source``
    names the file it came from in every message."""
    reader = CollectionReader(db, source)
    try:
        yield reader
    finally:
        reader.close()


class CollectionReader:
    """One collection database, open read-only with the limits of the module's docstring."""

    def __init__(self, db: Path, source: Path) -> None:
        self.source = source
        wal = db.with_name(db.name + "-wal")
        size = sum(p.stat().st_size for p in (db, wal) if p.exists())
        self._budget = BASE_STEPS + STEPS_PER_BYTE * size
        self._steps = 0
        # A private copy changes under nobody: immutable spares SQLite its locks, unless a
        # write-ahead log is to be read with it.
        mode = "ro" if wal.exists() else "ro&immutable=1"
        with self._reading():
            self._conn = sqlite3.connect(
                f"{db.as_uri()}?mode={mode}", uri=True, isolation_level=None
            )
        self._conn.text_factory = bytes  # text is decoded here, note by note
        if sys.version_info >= (3, 11):
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_EXPR_DEPTH, MAX_EXPRESSION_DEPTH)
        self._conn.set_progress_handler(self._progress, _STEPS_BETWEEN_CHECKS)
        try:
            with self._reading():
                for pragma in ("trusted_schema = OFF", "query_only = ON", "cell_size_check = ON"):
                    self._conn.execute(f"PRAGMA {pragma}")
                self._tables = {
                    _label(name).lower(): (_label(kind), _label(sql))
                    for kind, name, sql in self._conn.execute(
                        "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view')"
                    )
                }
        except DeckError:
            self._conn.close()
            raise

    def close(self) -> None:
        self._conn.close()

    def fault(self, message: str) -> DeckError:
        """What is wrong with the collection, as the error to raise."""
        return DeckError.single(self.source, message)

    # -- the collection's parts -----------------------------------------------------------
    def is_collection(self) -> bool:
        """Whether the database is an Anki collection (it has a notes table), not some
        other program's (Mnemosyne keeps facts and cards, no notes)."""
        return "notes" in self._tables

    def note_types(self) -> dict[int, AnkiNoteType]:
        """Note types by id."""
        with self._reading():
            if "notetypes" in self._tables:
                return self._note_types_18()
            models = self._col_json("models", "note types")
            if not isinstance(models, dict):
                raise self.fault("its note types (col.models) are not a JSON object")
            found = (self._note_type_11(key, model) for key, model in models.items())
            return {note_type.id: note_type for note_type in found}

    def decks(self) -> dict[int, str]:
        """Deck names by id, with "::" between the parts of a subdeck's name."""
        with self._reading():
            if "decks" in self._tables:
                rows = self._rows("decks", "SELECT id, name FROM decks")
                # Schema 18 separates a deck name's parts with U+001F where the name shows "::".
                return {
                    self._integer(did, "a deck's id"): self._name(name, "a deck's name").replace(
                        "\x1f", "::"
                    )
                    for did, name in rows
                }
            decks = self._col_json("decks", "decks")
            if not isinstance(decks, dict):
                raise self.fault("its decks (col.decks) are not a JSON object")
            found: dict[int, str] = {}
            for key, deck in decks.items():
                if not isinstance(deck, dict):
                    raise self.fault(f"deck {shown(key)} is not a JSON object")
                name = deck.get("name")
                if not isinstance(name, str):
                    raise self.fault(f"deck {shown(key)}: its name is not text")
                found[self._integer(deck.get("id"), f"deck {shown(name)}: its id")] = name
            return found

    def notes(self, decks: dict[int, str]) -> tuple[list[AnkiNote], list[UnreadableNote]]:
        """Every note, by id, with the deck of its first card; and the notes that cannot
        be read, each with the reason."""
        with self._reading():
            first_deck = dict(
                self._rows("cards", "SELECT nid, did FROM cards ORDER BY nid, ord DESC")
            )
            notes: list[AnkiNote] = []
            unreadable: list[UnreadableNote] = []
            query = "SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id"
            for nid, guid, mid, mod, tags, flds in self._rows("notes", query):
                try:  # text comes as bytes (see text_factory); anything else fails here
                    if not (type(nid) is int and type(mid) is int and type(mod) is int):
                        raise TypeError
                    note = AnkiNote(
                        id=nid,
                        guid=guid.decode("utf-8"),
                        type_id=mid,
                        mod=mod,
                        tags=tuple(tags.decode("utf-8").split()),
                        fields=tuple(flds.decode("utf-8").split("\x1f")),
                        deck=decks.get(first_deck.get(nid, 0), ""),
                    )
                except (AttributeError, TypeError, UnicodeDecodeError):
                    unreadable.append(_unreadable(nid, guid, mid, mod, tags))
                    continue
                notes.append(note)
            return notes, unreadable

    def review_log(self) -> Revlog:
        """Every entry of the review log, by card and then time, as columns: at most
        MAX_REVIEW_LOG_ENTRIES, each dated as Anki dates answers (see REVIEW_TIMES)."""
        with self._reading():
            cards, millis, ratings, kinds, factors = (array("q") for _ in range(5))
            query = "SELECT cid, id, ease, type, factor FROM revlog ORDER BY cid, id"
            for cid, rid, ease, kind, factor in self._rows("revlog", query):
                if not (
                    type(cid) is int
                    and type(rid) is int
                    and type(ease) is int
                    and type(kind) is int
                ):
                    self._refuse_entry(cid, rid, ease, kind)
                if rid not in REVIEW_TIMES:
                    raise self.fault(
                        f"its review log holds an entry dated {_date(rid)} (id {rid}, card "
                        f"{cid}); Anki dates every answer it logs, in milliseconds since "
                        f"1970, between 1970 and {_date(REVIEW_TIMES.stop)[:4]}: this is not a "
                        "review history Anki wrote"
                    )
                if len(cards) == MAX_REVIEW_LOG_ENTRIES:
                    raise self.fault(
                        f"its review log holds over {MAX_REVIEW_LOG_ENTRIES:,} entries, more "
                        f"than a history is read for; {SMALLER_HISTORY}"
                    )
                cards.append(cid)
                millis.append(rid)
                ratings.append(ease)
                kinds.append(kind)
                factors.append(factor if type(factor) is int else 0)
            return Revlog(cards, millis, ratings, kinds, factors)

    def _refuse_entry(self, cid: object, rid: object, ease: object, kind: object) -> None:
        where = f" {rid}" if type(rid) is int else ""
        for value, what in ((cid, "card id"), (rid, "id"), (ease, "ease"), (kind, "type")):
            if type(value) is not int:
                raise self.fault(
                    f"its review log holds an entry{where} whose {what} is {shown(value)}, "
                    "not a number"
                )

    def rollover(self) -> int:
        """The hour the collection's days start: the config table's (schema 15 and later)
        or the col row's JSON (older), else Anki's default."""
        found: object = None
        try:
            with self._reading():
                if "config" in self._tables:
                    rows = self._rows("config", "SELECT val FROM config WHERE key = 'rollover'")
                    found = next((_json(val) for (val,) in rows), None)
                if found is None and "col" in self._tables:
                    conf = next(iter(self._rows("col", "SELECT conf FROM col")), (None,))[0]
                    parsed = _json(conf)
                    found = parsed.get("rollover") if isinstance(parsed, dict) else None
        except DeckError:  # the hour is worth no refusal: Anki's default stands in
            found = None
        return found if isinstance(found, int) and 0 <= found <= 23 else DEFAULT_ROLLOVER

    # -- schema 11 ------------------------------------------------------------------------

    def _col_json(self, column: str, what: str) -> Any:
        row = next(iter(self._rows("col", f"SELECT {column} FROM col")), None)
        if row is None:
            raise self.fault("not an Anki collection: its col table is empty")
        text = row[0]
        if not isinstance(text, bytes):
            raise self.fault(f"its {what} (col.{column}) are not JSON text")
        try:
            return read_json(text.decode("utf-8"))
        except RecursionError:
            raise self.fault(f"its {what} (col.{column}) are JSON nested too deeply") from None
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError among them
            raise self.fault(f"its {what} (col.{column}) are not JSON: {exc}") from None

    def _note_type_11(self, key: str, model: object) -> AnkiNoteType:
        if not isinstance(model, dict):
            raise self.fault(f"note type {shown(key)} is not a JSON object")
        name = model.get("name")
        if not isinstance(name, str):
            raise self.fault(f"note type {shown(key)}: its name is not text")
        label = f"note type {shown(name)}"
        fields = self._entries(model.get("flds"), f"{label}: its fields ('flds')", ("name",))
        templates = self._entries(
            model.get("tmpls"), f"{label}: its templates ('tmpls')", ("name", "qfmt", "afmt")
        )
        css = model.get("css", "")
        if not isinstance(css, str):
            raise self.fault(f"{label}: its CSS is not text")
        return AnkiNoteType(
            id=self._integer(model.get("id"), f"{label}: its id"),
            name=name,
            is_cloze=self._integer(model.get("type", 0), f"{label}: its type") == 1,
            fields=tuple(name for (name,) in fields),
            templates=tuple((name, front, back) for name, front, back in templates),
            css=css,
            mod=self._integer(model.get("mod", 0), f"{label}: its modification time"),
            sort_field=self._integer(model.get("sortf", 0), f"{label}: its sort field"),
            stock_kind=self._integer(model.get("originalStockKind", 0), f"{label}: its kind"),
        )

    def _entries(self, value: object, what: str, keys: Sequence[str]) -> list[tuple[str, ...]]:
        """A JSON list of objects with an integer "ord" and text under ``keys``, in order
        of "ord"."""
        if not isinstance(value, list):
            raise self.fault(f"{what} are not a list")
        found: list[tuple[int, tuple[str, ...]]] = []
        for entry in value:
            if not isinstance(entry, dict):
                raise self.fault(f"{what} hold {shown(entry)}, not an object")
            if not all(isinstance(entry.get(key), str) for key in keys):
                raise self.fault(f"{what} hold one without text under {', '.join(keys)}")
            texts = tuple(str(entry[key]) for key in keys)
            found.append((self._integer(entry.get("ord"), f"{what}: an 'ord'"), texts))
        found.sort(key=lambda entry: entry[0])
        return [texts for _, texts in found]

    # -- schema 18 ------------------------------------------------------------------------
    def _note_types_18(self) -> dict[int, AnkiNoteType]:
        fields: dict[int, list[str]] = {}
        for ntid, name in self._rows("fields", "SELECT ntid, name FROM fields ORDER BY ntid, ord"):
            fields.setdefault(self._integer(ntid, "a field's note type id"), []).append(
                self._name(name, f"a field name of note type {ntid}")
            )
        templates: dict[int, list[tuple[str, str, str]]] = {}
        query = "SELECT ntid, name, config FROM templates ORDER BY ntid, ord"
        for ntid, name, config in self._rows("templates", query):
            label = f"a template of note type {shown(ntid)}"
            front, back = self._message(template_formats, config, label)
            templates.setdefault(self._integer(ntid, f"{label}: its note type id"), []).append(
                (self._name(name, f"{label}: its name"), front, back)
            )
        note_types = {}
        query = "SELECT id, name, mtime_secs, config FROM notetypes"
        for ntid, raw_name, mtime, config in self._rows("notetypes", query):
            name = self._name(raw_name, f"note type {shown(ntid)}: its name")
            label = f"note type {shown(name)}"
            ntid = self._integer(ntid, f"{label}: its id")
            settings = self._message(notetype_config, config, label)
            note_types[ntid] = AnkiNoteType(
                id=ntid,
                name=name,
                is_cloze=settings.is_cloze,
                fields=tuple(fields.get(ntid, ())),
                templates=tuple(templates.get(ntid, ())),
                css=settings.css,
                mod=self._integer(mtime, f"{label}: its modification time"),
                sort_field=settings.sort_field,
                stock_kind=settings.stock_kind,
            )
        return note_types

    def _message(self, decode: Callable[[bytes], Any], data: object, label: str) -> Any:
        if not isinstance(data, bytes):
            raise self.fault(f"{label}: its settings are not a protobuf message")
        try:
            return decode(data)
        except DecodeError as exc:
            raise self.fault(f"{label}: its settings cannot be read: {exc}") from None

    # -- values ---------------------------------------------------------------------------
    def _integer(self, value: object, what: str) -> int:
        """``value`` as a 64-bit integer; JSON may hold one as decimal text (genanki writes
        note type ids so)."""
        if isinstance(value, str) and _DECIMAL.fullmatch(value):
            value = int(value)
        if not _is_int64(value):
            raise self.fault(f"{what} is {shown(value)}, not a number")
        assert isinstance(value, int)
        return value

    def _name(self, value: object, what: str) -> str:
        text = _text(value)
        if text is None:
            raise self.fault(f"{what} is not text")
        return text

    # -- reading with limits --------------------------------------------------------------
    def _rows(self, table: str, query: str) -> sqlite3.Cursor:
        """The rows of ``query``, which reads ``table`` (checked to be a plain table); to
        be read within :meth:`_reading`, which turns SQLite's errors into DeckErrors."""
        self._check_table(table)
        with self._reading():
            return self._conn.execute(query)

    def _check_table(self, table: str) -> None:
        kind, sql = self._tables.get(table, ("", ""))
        if not kind:
            raise self.fault(f"not an Anki collection: it has no {table} table")
        if kind != "table" or sql.lstrip().upper().startswith("CREATE VIRTUAL"):
            kind = "a view" if kind == "view" else "a virtual table"
            raise self.fault(
                f"its {table} table is {kind}, which Anki never writes; it is not read"
            )
        with self._reading():
            computed = [
                _label(name)
                for _, name, *_, hidden in self._conn.execute(f"PRAGMA table_xinfo({table})")
                if hidden in (2, 3)
            ]
        if computed:
            raise self.fault(
                f"its {table} table computes column {shown(computed[0])}, which Anki never "
                "writes; it is not read"
            )

    def _progress(self) -> int:
        self._steps += _STEPS_BETWEEN_CHECKS
        return int(self._steps > self._budget)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            if self._steps > self._budget:
                raise self.fault(
                    f"reading the collection took more than {self._budget:,} steps, far more "
                    "than a collection of its size needs; it is not read"
                ) from None
            raise self.fault(f"cannot read the collection: {exc}") from None


def _unreadable(
    nid: object, guid: object, mid: object, mod: object, tags: object
) -> UnreadableNote:
    """Why a note row cannot be read."""
    if type(nid) is not int:
        return UnreadableNote(None, "its id is not a number")
    for value, what in ((mid, "note type id"), (mod, "modification time")):
        if type(value) is not int:
            return UnreadableNote(nid, f"its {what} is not a number")
    for value, what in ((guid, "guid is"), (tags, "tags are")):
        if _text(value) is None:
            return UnreadableNote(nid, f"its {what} not text")
    return UnreadableNote(nid, "its fields are not text (binary data, or not UTF-8)")


def _is_int64(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in _INT64


def _text(value: object) -> str | None:
    """Text read from the database (bytes, as text_factory gives it) as a str; None
    when it is not text: a number, NULL, or bytes that are not UTF-8."""
    if not isinstance(value, bytes):
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_json(text: str) -> Any:
    """``text`` read as JSON, a whole number longer than any Anki writes kept as its
    digits (text) rather than converted."""
    return json.loads(text, parse_int=_json_number)


def _json_number(digits: str) -> int | str:
    return int(digits) if len(digits.lstrip("-")) <= _LONGEST_JSON_NUMBER else digits


def _date(millis: int) -> str:
    """A revlog time as a date, or where it lies beyond the dates Python knows."""
    if millis < 0:
        return "before 1970"
    if millis >= _LAST_DATE_MILLIS:
        return "after the year 9999"
    return datetime.fromtimestamp(millis // 1000, timezone.utc).date().isoformat()


_LAST_DATE_MILLIS = 253_402_300_800_000  # 10000-01-01


def _label(value: object) -> str:
    """A name from the database's own schema, as well as it can be read."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else ""


def _json(value: object) -> object:
    """``value`` read as JSON; None when it is not JSON text."""
    text = _text(value)
    if text is None:
        return None
    try:
        return read_json(text)
    except (ValueError, RecursionError):
        return None
