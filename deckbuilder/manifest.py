"""The lock file: when each note's content last changed, kept beside the card file.

Anki updates a note on re-import only when the package's note modification time is
strictly newer than the one in the collection (even with "always update"), and a note
type only when its modification time is newer. So every note and note type is stamped
with the time its content last changed, not the build time: an unchanged rebuild gives
the same bytes and changes nothing in Anki, and an edit moves exactly the edited note.

``cards/<deck id>.lock`` records, per note, the Anki note id given when the note was first
built, a hash of everything that ends up in the note, and the time that hash last changed;
per note type, its id, its fields, a hash of its templates and CSS, and their change time.
It is plain text, one line per entry, sorted, so it reads and merges well in version
control. Only ``deckbuilder build`` writes it, and only after the package is written.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import count, repeat
from json.encoder import encode_basestring as _quote  # a str as json.dumps writes it
from operator import attrgetter
from pathlib import Path

from .errors import DeckError, Problem
from .model import Deck, NoteKind
from .notetypes import NoteTypeSpec
from .render import RenderedDeck, RenderedNote

__all__ = [
    "Changes",
    "Manifest",
    "NoteEntry",
    "NoteTypeEntry",
    "Update",
    "format_manifest",
    "lock_path",
    "note_hashes",
    "parse_manifest",
    "read_manifest",
    "update_manifest",
    "write_manifest",
]

VERSION = 1
_ANKI_ID = attrgetter("anki_id")
_HASH_CHARS = 16  # 64 bits of SHA-256: collisions are not a concern for one deck's notes


@dataclass(frozen=True, slots=True)
class NoteEntry:
    id: str  # the author's note id
    anki_id: int  # the Anki note id, fixed when the note is first built (search: nid:...)
    content: str  # hash of everything that ends up in the note
    changed: int  # seconds since 1970 when ``content`` last changed
    line: int | None = field(default=None, compare=False)

    def __init__(
        self, id: str, anki_id: int, content: str, changed: int, line: int | None = None
    ) -> None:
        # A build makes an entry per note twice (reading the lock file, and the new
        # manifest). The __init__ a frozen dataclass generates sets each field through
        # object.__setattr__, which looks up the slot's descriptor and calls its setter;
        # calling the setters directly takes about 40% less time. Same fields, defaults,
        # equality, hash, repr and immutability (slots: less memory, faster reads).
        _set_id(self, id)
        _set_anki_id(self, anki_id)
        _set_content(self, content)
        _set_changed(self, changed)
        _set_line(self, line)


_set_id, _set_anki_id, _set_content, _set_changed, _set_line = (
    NoteEntry.__dict__[name].__set__ for name in ("id", "anki_id", "content", "changed", "line")
)


@dataclass(frozen=True)
class NoteTypeEntry:
    kind: NoteKind
    anki_id: int
    fields: tuple[str, ...]
    templates: str  # hash of name, templates and CSS
    changed: int
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Manifest:
    note_types: Mapping[NoteKind, NoteTypeEntry]
    notes: Mapping[str, NoteEntry]  # each entry under its own id
    # Above every Anki note id ever given in this deck, removed notes included: a learner
    # may still have a removed note, and a new note must not take its id.
    next_anki_id: int = 0


@dataclass(frozen=True)
class NoteTypeReplaced:
    """A note type whose fields changed and that therefore has a new id (a new version)."""

    old: NoteTypeEntry
    new: NoteTypeSpec


@dataclass(frozen=True)
class Changes:
    """What changed since the last build, by author note id (sorted)."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[NoteEntry, ...] = ()
    unchanged: tuple[str, ...] = ()
    note_types_changed: tuple[NoteTypeSpec, ...] = ()  # templates or CSS changed, same id
    note_types_replaced: tuple[NoteTypeReplaced, ...] = ()


@dataclass(frozen=True)
class Update:
    """The manifest for this build and how it differs from the previous one."""

    manifest: Manifest
    changes: Changes
    first_build: bool  # there was no lock file


def lock_path(deck: Deck) -> Path:
    """``<folder of the card file>/<deck id>.lock``."""
    return deck.source.parent / f"{deck.key}.lock"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _hash(value: object) -> str:
    return hashlib.sha256(_json(value).encode("utf-8")).hexdigest()[:_HASH_CHARS]


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def templates_hash(spec: NoteTypeSpec) -> str:
    """Everything of a note type that can change in place: name, templates, CSS."""
    return _hash([spec.name, spec.template_name, spec.front, spec.back, spec.css, spec.is_cloze])


def note_content_hash(rn: RenderedNote, media: Mapping[str, str]) -> str:
    """Everything that ends up in the note: note type, rendered fields, tags, and the bytes
    of the media files its fields name (a replaced image is a visible change too).

    Equal to ``_hash({"type": [kind, id, [fields...]], "fields": [...], "tags": [...],
    "media": {name: file hash}})``, which users' lock files hold; the JSON text is written
    out piece by piece (keys in sorted order) because this runs for every note on every
    build. tests/test_performance_export.py checks that the two agree."""
    (digest,) = _content_hashes((rn,), media)
    return digest


def note_hashes(rd: RenderedDeck) -> tuple[str, ...]:
    """:func:`note_content_hash` of each of ``rd``'s notes, in order."""
    media = {name: _file_hash(path) for name, path in rd.media.items()}
    return _content_hashes(rd.notes, media)


def _content_hashes(notes: Sequence[RenderedNote], media: Mapping[str, str]) -> tuple[str, ...]:
    """:func:`note_content_hash` of each note: one loop, no call per note, and the JSON of
    each note type (shared by many notes) made once."""
    sha256 = hashlib.sha256
    types: dict[int, str] = {}  # id(spec) -> its JSON; every spec outlives the loop
    out: list[str] = []
    add = out.append
    for rn in notes:
        spec = rn.spec
        type_json = types.get(id(spec))
        if type_json is None:
            type_json = types[id(spec)] = _type_json(spec)
        # Most notes use no media: skip the sorting (JSON objects are written key-sorted).
        used = (
            ",".join([f"{_quote(name)}:{_quote(media[name])}" for name in sorted(set(rn.media))])
            if rn.media
            else ""
        )
        data = (
            f'{{"fields":[{",".join(map(_quote, rn.fields))}],"media":{{{used}}},'
            f'"tags":[{",".join(map(_quote, rn.tags))}],"type":{type_json}}}'
        )
        add(sha256(data.encode("utf-8")).hexdigest()[:_HASH_CHARS])
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _type_json(spec: NoteTypeSpec) -> str:
    """The JSON of what identifies a note's note type in :func:`note_content_hash`."""
    return _json([spec.kind.value, spec.id, list(spec.fields)])


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_iso(text: str) -> int:
    if not text.endswith("Z"):
        raise ValueError(text)
    parsed = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return int(parsed.timestamp())


def format_manifest(deck: Deck, manifest: Manifest) -> str:
    """The lock file's text: deterministic, one entry per line, sorted."""
    lines = [
        f"# deckbuilder lock file for deck '{deck.key}' ({deck.source.name}).",
        "# Written by `deckbuilder build`; commit it with the card file and do not edit it.",
        "# It keeps each note's modification time fixed until the note's content changes,",
        "# so re-importing a rebuilt package updates exactly the notes that changed.",
        f"version {VERSION}",
        f"next-anki-id {manifest.next_anki_id}",
        "# notetype KIND ANKI-ID FIELDS TEMPLATES-HASH CHANGED",
    ]
    for kind in NoteKind:
        t = manifest.note_types.get(kind)
        if t is not None:
            fields = ",".join(t.fields)
            lines.append(
                f"notetype {kind.value} {t.anki_id} {fields} {t.templates} {_iso(t.changed)}"
            )
    lines.append("# note ID ANKI-ID CONTENT-HASH CHANGED")
    # Most notes share a few change times: format each time once.
    iso: dict[int, str] = {}
    notes = manifest.notes
    for note_id in sorted(notes):
        n = notes[note_id]
        when = iso.get(n.changed)
        if when is None:
            when = iso[n.changed] = _iso(n.changed)
        lines.append(f"note {n.id} {n.anki_id} {n.content} {when}")
    lines.append("")
    return "\n".join(lines)


def parse_manifest(text: str, file: str) -> Manifest:
    """Parse a lock file; raise DeckError listing every malformed line."""
    problems: list[Problem] = []
    note_types: dict[NoteKind, NoteTypeEntry] = {}
    notes: dict[str, NoteEntry] = {}
    version_seen = False
    next_anki_id = 0
    kinds = {k.value: k for k in NoteKind}
    times: dict[str, int] = {}  # most notes share a few change times: parse each once
    # ``raw.split()`` is ``raw.strip().split()``: [] for a blank line, and a comment is a
    # line whose first word starts with "#". Nearly every line is a note: test that first.
    for number, parts in enumerate(map(str.split, text.splitlines()), start=1):
        try:
            if len(parts) == 5 and parts[0] == "note":
                _, note_id, anki_id, content, when = parts
                if note_id in notes:
                    raise ValueError("duplicate")
                changed = times.get(when)
                if changed is None:
                    changed = times[when] = _parse_iso(when)
                notes[note_id] = NoteEntry(note_id, int(anki_id), content, changed, number)
            elif not parts or parts[0][0] == "#":
                continue
            elif parts[0] == "version" and len(parts) == 2:
                if parts[1] != str(VERSION):
                    problems.append(
                        Problem(
                            file,
                            number,
                            f"lock file version {parts[1]} is not supported "
                            f"(this deckbuilder writes version {VERSION}); upgrade deckbuilder",
                        )
                    )
                version_seen = True
            elif parts[0] == "next-anki-id" and len(parts) == 2:
                next_anki_id = int(parts[1])
            elif parts[0] == "notetype" and len(parts) == 6 and parts[1] in kinds:
                kind = kinds[parts[1]]
                if kind in note_types:
                    raise ValueError("duplicate")
                note_types[kind] = NoteTypeEntry(
                    kind,
                    int(parts[2]),
                    tuple(parts[3].split(",")),
                    parts[4],
                    _parse_iso(parts[5]),
                    number,
                )
            else:
                raise ValueError(parts)
        except ValueError:
            problems.append(
                Problem(
                    file,
                    number,
                    "cannot read this lock file line; restore the file from version control "
                    "(deleting it makes every note count as changed)",
                )
            )
    if not version_seen and not problems:
        problems.append(Problem(file, None, "not a deckbuilder lock file (no 'version' line)"))
    if problems:
        raise DeckError(problems)
    return Manifest(note_types, notes, next_anki_id)


def read_manifest(path: Path) -> Manifest | None:
    """The lock file at ``path``, or None when there is none yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError.single(path, f"cannot read the lock file: {exc}") from exc
    return parse_manifest(text, str(path))


def _bump(previous: int, now: int) -> int:
    """A change time strictly after ``previous``: Anki ignores an equal time."""
    return max(now, previous + 1)


def update_manifest(old: Manifest | None, rd: RenderedDeck, now: int) -> Update:
    """The manifest for building ``rd`` at time ``now`` (seconds), given the previous one.

    Raises DeckError when a note type kept its id but changed its fields: Anki would
    import it as a second note type ("Name+") and leave every existing note behind.
    """
    prev = old or Manifest({}, {})
    lock = str(lock_path(rd.deck))
    problems: list[Problem] = []

    note_types: dict[NoteKind, NoteTypeEntry] = dict(prev.note_types)
    changed_types: list[NoteTypeSpec] = []
    replaced: list[NoteTypeReplaced] = []
    for spec in rd.note_types:
        before = prev.note_types.get(spec.kind)
        digest = templates_hash(spec)
        if before is None or before.anki_id != spec.id:
            if before is not None:
                replaced.append(NoteTypeReplaced(before, spec))
            when = now if before is None else _bump(before.changed, now)
            note_types[spec.kind] = NoteTypeEntry(spec.kind, spec.id, spec.fields, digest, when)
        elif before.fields != spec.fields:
            problems.append(
                Problem(
                    lock,
                    before.line,
                    f"note type '{spec.name}' (id {spec.id}) now has the fields "
                    f"{', '.join(spec.fields)} but this deck was built with "
                    f"{', '.join(before.fields)}; Anki would import it as a second note type "
                    f"'{spec.name}+' and leave the existing notes on the old one. A note type's "
                    "fields may change only together with a new note type id and name "
                    "(see README, 'Updating a shared deck').",
                )
            )
        elif before.templates != digest:
            changed_types.append(spec)
            note_types[spec.kind] = NoteTypeEntry(
                spec.kind, spec.id, spec.fields, digest, _bump(before.changed, now)
            )
    if problems:
        raise DeckError(problems)

    known = rd.known_keys()
    hashes = known.hashes if known is not None else note_hashes(rd)
    ids = [rn.note.id for rn in rd.notes]
    if len(ids) != len(hashes):
        raise ValueError(f"{len(hashes)} content hashes for {len(ids)} notes")
    old_notes = prev.notes
    # Above every id given before (see Manifest.next_anki_id): one pass over the old notes.
    floor = [prev.next_anki_id]
    if old_notes:
        floor.append(max(map(_ANKI_ID, old_notes.values())) + 1)
    start = max(now * 1000, *floor)
    notes: dict[str, NoteEntry]
    added: list[str] = []
    changed: list[str] = []
    unchanged: list[str] = []
    if not old_notes:
        # First build (or a lock file without notes): every note is new and takes the
        # next id in deck order. One map over the notes instead of a branch per note.
        notes = dict(zip(ids, map(NoteEntry, ids, count(start), hashes, repeat(now)), strict=True))
        added = ids
        next_anki_id = start + len(ids)
    else:
        notes = {}
        get = old_notes.get
        next_anki_id = start
        for note_id, content in zip(ids, hashes, strict=True):
            was = get(note_id)
            if was is None:
                notes[note_id] = NoteEntry(note_id, next_anki_id, content, now)
                next_anki_id += 1
                added.append(note_id)
            elif was.content == content:
                # Unchanged: the old entry as it is (equal to a new one with the same
                # fields; it keeps its lock file line, as an unchanged note type does).
                notes[note_id] = was
                unchanged.append(note_id)
            else:
                when = _bump(was.changed, now)
                notes[note_id] = NoteEntry(note_id, was.anki_id, content, when)
                changed.append(note_id)
    removed = tuple(old_notes[nid] for nid in sorted(old_notes.keys() - notes.keys()))
    changes = Changes(
        added=tuple(sorted(added)),
        changed=tuple(sorted(changed)),
        removed=removed,
        unchanged=tuple(sorted(unchanged)),
        note_types_changed=tuple(changed_types),
        note_types_replaced=tuple(replaced),
    )
    # The high-water mark depends only on ids given, never on the clock, so that an
    # unchanged rebuild leaves the lock file as it was. The new notes' ids are old ids or
    # ids counted up from ``start``, of which the last one given is the highest.
    high = max([*floor, next_anki_id] if added else floor)
    manifest = Manifest(note_types, notes, high)
    return Update(manifest, changes, first_build=old is None)


def write_manifest(path: Path, deck: Deck, manifest: Manifest) -> bool:
    """Write the lock file atomically if its text changed; return whether it was written."""
    from .export import atomic_write

    text = format_manifest(deck, manifest)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    data = text.encode("utf-8")
    atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return True
