"""The lock file's format: its entries, how they are written and read.

One line per entry, sorted, so that it reads and merges well in version control. Reading
settles what two branches may disagree on (an entry listed twice, two ``next-anki-id``
lines) and reports every unreadable line with its number; writing never gives a line its
own reading refuses. What the entries mean and how a build updates them is
:mod:`deckbuilder.lock.manifest`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, unquote

from deckbuilder.errors import DeckError, Problem
from deckbuilder.files.bounds import real_path_outside
from deckbuilder.files.reading import LimitExceeded, open_regular, read_limited
from deckbuilder.model import Deck, NoteKind

VERSION = 2
# Version 1 lock files (before ``pull``) are read as well; their notes have no ANKI-HASH
# until the next build writes one.
READABLE_VERSIONS = ("1", "2")
# Anki's clients (the browser, AnkiDroid) handle ids as JavaScript numbers, exact only up
# to 2**53 - 1; SQLite's own limit, 2**63 - 1, is far above.
MAX_ANKI_ID = 2**53 - 1
# One line per note: a lock file of 100,000 notes (the most a card file holds) is some
# 15 MB; more is not a lock file deckbuilder wrote.
MAX_LOCK_BYTES = 64 * 1024 * 1024
LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: the lock file writes 4-digit years
# The hash of an entry whose two lines (both sides of a merge) changed in the same second
# and disagree: it matches no content, so the next build gives a time after both.
UNSETTLED = "unsettled"


@dataclass(frozen=True)
class NoteEntry:
    id: str  # the author's note id
    anki_id: int  # the Anki note id, fixed when the note is first built (search: nid:...)
    content: str  # hash of everything that ends up in the note
    changed: int  # seconds since 1970 when ``content`` last changed
    line: int | None = field(default=None, compare=False)
    # Hash of the field values and tags Anki has of the note, as the last build wrote them
    # or ``pull`` took them from Anki (deckbuilder.lock.anki_copy); '' in a lock file of
    # version 1, which predates pull.
    anki: str = ""


@dataclass(frozen=True)
class NoteTypeEntry:
    kind: str  # a NoteKind's value, or a declared note type's key
    anki_id: int
    fields: tuple[str, ...]
    templates: str  # hash of name, templates and CSS
    changed: int
    line: int | None = field(default=None, compare=False)
    # A declared note type's card names, in order, after CHANGED: Anki's import takes a
    # note type whose cards were added, removed, renamed or reordered for another note
    # type (as for new fields). () where the lock file has none (deckbuilder's own note
    # types, whose cards never change, and lock files written before it was kept).
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class LockHeader:
    """The deck a lock file says it belongs to, from its first comment line."""

    key: str
    source: str  # the card file's name
    line: int


@dataclass(frozen=True)
class Manifest:
    note_types: Mapping[str, NoteTypeEntry]  # by NoteKind value or declared type key
    notes: Mapping[str, NoteEntry]  # each entry under its own id
    # Above the Anki note id of every note that was given one and is no longer listed: a
    # learner may still have a removed note, and a new note must not take its id. Listed
    # notes' ids count from their own lines (see id_floor), so adding notes leaves this
    # line as it is, and two branches that each add notes do not both change it.
    next_anki_id: int = 0
    header: LockHeader | None = field(default=None, compare=False)
    next_anki_id_line: int | None = field(default=None, compare=False)
    warnings: tuple[Problem, ...] = field(default=(), compare=False)  # found while reading

    def id_floor(self) -> int:
        """Above every Anki note id this deck has given."""
        return max([self.next_anki_id, *(entry.anki_id + 1 for entry in self.notes.values())])


def lock_path(deck: Deck) -> Path:
    """``<folder of the card file>/<deck id>.lock``."""
    return deck.source.parent / f"{deck.key}.lock"


# Compact, keys sorted, text as is: the JSON users' content hashes were computed from.


@lru_cache(maxsize=256)  # a lock file's notes share a few change times
def iso_time(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _one_line(text: str) -> str:
    """``text`` fit for a comment line: a line break in a file name would end it."""
    return "".join(c if c.isprintable() else "?" for c in text)


def _field_token(name: str) -> str:
    """A field name as one token of a lock file line: Anki's own note types have names with
    spaces ("Back Extra"), which are written %-escaped, as are commas and '%'. Other names,
    deckbuilder's own among them, are written as they are."""
    return "".join(quote(ch, safe="") if ch in " ,%" or not ch.isprintable() else ch for ch in name)


def format_manifest(deck: Deck, manifest: Manifest) -> str:
    """The lock file's text: deterministic, one entry per line, sorted."""
    lines = [
        f"# deckbuilder lock file for deck '{deck.key}' ({_one_line(deck.source.name)}).",
        "# Written by `deckbuilder build` and `pull`; commit it with the card file, do not edit it.",
        "# Each note's modification time stays fixed until its content changes, so re-importing",
        "# a rebuilt package updates exactly the notes that changed; ANKI-HASH is Anki's copy.",
        f"version {VERSION}",
        f"next-anki-id {manifest.next_anki_id}",
        "# notetype KIND ANKI-ID FIELDS TEMPLATES-HASH CHANGED",
    ]
    # deckbuilder's own kinds in their order, then declared note types by key.
    order = {kind.value: number for number, kind in enumerate(NoteKind)}
    for kind in sorted(manifest.note_types, key=lambda key: (order.get(key, len(order)), key)):
        t = manifest.note_types[kind]
        fields = ",".join(_field_token(name) for name in t.fields)
        cards = f" {','.join(_field_token(name) for name in t.cards)}" if t.cards else ""
        lines.append(
            f"notetype {kind} {t.anki_id} {fields} {t.templates} {iso_time(t.changed)}{cards}"
        )
    lines.append("# note ID ANKI-ID CONTENT-HASH CHANGED ANKI-HASH")
    times: dict[int, str] = {}  # each change time written once: the notes of a build share it
    for note_id in sorted(manifest.notes):
        n = manifest.notes[note_id]
        anki = f" {n.anki}" if n.anki else ""
        changed = times.get(n.changed)
        if changed is None:
            changed = times[n.changed] = iso_time(n.changed)
        lines.append(f"note {n.id} {n.anki_id} {n.content} {changed}{anki}")
    lines.append("")
    return "\n".join(lines)


_HEADER = re.compile(r"# deckbuilder lock file for deck '([^']*)' \((.*)\)\.")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")
# What a notetype line may name: one of deckbuilder's kinds, or a declared note type's key.
_TYPE_KEY = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
_ANKI_HASH = re.compile(r"[0-9a-f]{16}\Z")
RESTORE = "restore the file from version control"
_UNREADABLE = (
    f"cannot read this lock file line; {RESTORE} (deleting it makes every note count as changed)"
)
_CONFLICT = (
    "unresolved git merge conflict: delete the marker lines (<<<<<<<, =======, >>>>>>>), "
    "keep the lines of both sides, and build again (a line '*.lock merge=union' in "
    ".gitattributes makes git do this itself)"
)


class _BadLine(Exception):
    def __init__(self, message: str = _UNREADABLE) -> None:
        super().__init__(message)
        self.message = message


def _integer(text: str, what: str, low: int, high: int) -> int:
    if not _INTEGER.fullmatch(text):
        raise _BadLine
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > len(str(high)) or not low <= int(text) <= high:
        shown = text if len(text) <= 30 else f"{text[:20]}..."
        raise _BadLine(
            f"{what} {shown} is out of range ({low} to {high}; Anki's clients hold ids as "
            f"JavaScript numbers, exact only up to {MAX_ANKI_ID}); {RESTORE}"
        )
    return int(text)


def _time(text: str) -> int:
    match = _TIME.fullmatch(text)
    if match is None:
        raise _BadLine
    year, month, day, hour, minute, second = map(int, match.groups())
    try:
        when = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        raise _BadLine from None
    seconds = int(when.timestamp())
    if not 0 <= seconds <= LAST_SECOND:
        raise _BadLine(
            f"time {text} is outside 1970-01-01T00:00:00Z to {iso_time(LAST_SECOND)}; {RESTORE}"
        )
    return seconds


def _settle_note(a: NoteEntry, b: NoteEntry) -> NoteEntry:
    """One entry for a note listed twice (both sides of a merge conflict kept): the one
    changed last, so that the next change is later than both sides' (Anki ignores an older
    or equal time); when both changed in the same second and differ, it counts as changed."""
    earlier, later = sorted((a, b), key=lambda e: (e.changed, e.content, e.anki_id))
    if earlier.changed == later.changed and earlier.content != later.content:
        return replace(later, content=UNSETTLED)
    return later


def _settle_note_type(a: NoteTypeEntry, b: NoteTypeEntry) -> NoteTypeEntry:
    """As :func:`_settle_note`, for a note type listed twice."""
    earlier, later = sorted((a, b), key=lambda e: (e.changed, e.templates, e.anki_id, e.fields))
    if earlier.changed == later.changed and earlier != later:
        return replace(later, templates=UNSETTLED)
    return later


class _LockReader:
    """Reads a lock file line by line, collecting every problem."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.note_types: dict[str, NoteTypeEntry] = {}
        self.notes: dict[str, NoteEntry] = {}
        self.next_anki_id = 0
        self.next_anki_id_line: int | None = None
        self.header: LockHeader | None = None
        self.version_seen = False
        self.in_conflict = False

    def read(self, number: int, raw: str) -> None:
        line = raw.strip()
        if line.startswith("<<<<<<<"):
            self.in_conflict = True
            self.problems.append(Problem(self.file, number, _CONFLICT))
            return
        if self.in_conflict and line.startswith(("|||||||", "=======", ">>>>>>>")):
            return  # the same conflict, reported once at its start
        header = _HEADER.fullmatch(line)
        if header and self.header is None:
            self.header = LockHeader(header[1], header[2], number)
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            return
        try:
            self._entry(number, parts[0], parts[1:])
        except _BadLine as exc:
            self.problems.append(Problem(self.file, number, exc.message))

    def _entry(self, number: int, keyword: str, values: list[str]) -> None:
        if keyword == "note" and (
            len(values) == 4 or (len(values) == 5 and _ANKI_HASH.match(values[4]))
        ):
            note_id, anki_id, content, changed, *in_anki = values
            anki = _integer(anki_id, "Anki note id", 1, MAX_ANKI_ID)
            entry = NoteEntry(note_id, anki, content, _time(changed), number, "".join(in_anki))
            was = self.notes.get(note_id)
            self.notes[note_id] = entry if was is None else _settle_note(was, entry)
            if was is not None:
                self._twice(number, was.line, "listed twice", note_id)
        elif keyword == "notetype" and len(values) in (5, 6) and _TYPE_KEY.match(values[0]):
            kind, anki_id, fields, templates, changed, *cards = values
            anki = _integer(anki_id, "note type id", 1, MAX_ANKI_ID)
            t = NoteTypeEntry(
                kind,
                anki,
                tuple(unquote(name) for name in fields.split(",")),
                templates,
                _time(changed),
                number,
                tuple(unquote(name) for card in cards for name in card.split(",")),
            )
            before = self.note_types.get(t.kind)
            self.note_types[t.kind] = t if before is None else _settle_note_type(before, t)
            if before is not None:
                self._twice(number, before.line, f"the {kind} note type is listed twice")
        elif keyword == "next-anki-id" and len(values) == 1:
            value = _integer(values[0], "next-anki-id", 0, MAX_ANKI_ID + 1)
            # Two such lines are what keeping both sides of a merge leaves: the larger one
            # is above every id either side gave.
            if self.next_anki_id_line is None or value > self.next_anki_id:
                self.next_anki_id, self.next_anki_id_line = value, number
        elif keyword == "version" and len(values) == 1:
            self.version_seen = True
            if values[0] not in READABLE_VERSIONS:
                raise _BadLine(
                    f"lock file version {values[0]} is not supported "
                    f"(this deckbuilder writes version {VERSION}); upgrade deckbuilder"
                )
        else:
            raise _BadLine

    def _twice(self, number: int, first: int | None, what: str, note: str | None = None) -> None:
        self.warnings.append(
            Problem.warning(
                self.file,
                number,
                f"{what} (also line {first}), as when both sides of a git merge are kept; "
                "the later change counts, and the next build writes one line",
                note,
            )
        )

    def manifest(self) -> Manifest:
        if not self.version_seen and not self.problems:
            self.problems.append(
                Problem(self.file, None, "not a deckbuilder lock file (no 'version' line)")
            )
        if self.problems:
            raise DeckError(self.problems)
        return Manifest(
            self.note_types,
            self.notes,
            self.next_anki_id,
            self.header,
            self.next_anki_id_line,
            tuple(self.warnings),
        )


def parse_manifest(text: str, file: str) -> Manifest:
    """Parse a lock file; raise DeckError listing every malformed line. Entries listed
    twice are settled (see :func:`_settle_note`), with a warning in ``warnings``."""
    reader = _LockReader(file)
    for number, raw in enumerate(text.splitlines(), start=1):
        reader.read(number, raw)
    return reader.manifest()


def read_manifest(path: Path) -> Manifest | None:
    """The lock file at ``path``, or None when there is none yet. Only a regular file is
    read (a named pipe there would block the build), and no more than MAX_LOCK_BYTES; a
    byte order mark, as some editors save, is read past."""
    if not os.path.lexists(path):
        return None
    elsewhere = real_path_outside(path, [os.path.realpath(path.parent)])
    if elsewhere is not None:  # a shared deck's 'd.lock -> /elsewhere'
        raise DeckError.single(
            path, f"a link to '{elsewhere}', outside the card file's folder; it is not read"
        )
    try:
        with open_regular(path) as stream:
            data = read_limited(stream, MAX_LOCK_BYTES)
    except LimitExceeded:
        raise DeckError.single(
            path,
            f"the lock file is larger than {MAX_LOCK_BYTES:,} bytes; restore it from version control",
        ) from None
    except OSError as exc:
        raise DeckError.single(path, f"cannot read the lock file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DeckError.single(path, f"cannot read the lock file: {exc}") from exc
    return parse_manifest(text, str(path))
