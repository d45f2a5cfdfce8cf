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
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
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
_HASH_CHARS = 16  # 64 bits of SHA-256: collisions are not a concern for one deck's notes


@dataclass(frozen=True)
class NoteEntry:
    id: str  # the author's note id
    anki_id: int  # the Anki note id, fixed when the note is first built (search: nid:...)
    content: str  # hash of everything that ends up in the note
    changed: int  # seconds since 1970 when ``content`` last changed
    line: int | None = field(default=None, compare=False)


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


# Compact, keys sorted, text as is: the JSON users' content hashes were computed from.
_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _json(value: object) -> str:
    return _JSON.encode(value)


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
    ``media`` maps each media name to the SHA-256 of its file."""
    return _hash(
        {
            "type": [rn.spec.kind.value, rn.spec.id, list(rn.spec.fields)],
            "fields": list(rn.fields),
            "tags": list(rn.tags),
            "media": {name: media[name] for name in rn.media},
        }
    )


def note_hashes(rd: RenderedDeck) -> tuple[str, ...]:
    """:func:`note_content_hash` of each of ``rd``'s notes, in order."""
    media = {name: _file_hash(path) for name, path in rd.media.items()}
    return tuple(note_content_hash(rn, media) for rn in rd.notes)


# A deck's notes share a few change times (one per build that changed them).
@functools.lru_cache(maxsize=1024)
def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=1024)
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
    for note_id in sorted(manifest.notes):
        n = manifest.notes[note_id]
        lines.append(f"note {n.id} {n.anki_id} {n.content} {_iso(n.changed)}")
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
    for number, raw in enumerate(text.splitlines(), start=1):
        parts = raw.split()
        if not parts or parts[0].startswith("#"):
            continue
        try:
            if parts[0] == "note" and len(parts) == 5:
                _, note_id, anki_id, content, when = parts
                if note_id in notes:
                    raise ValueError("duplicate")
                notes[note_id] = NoteEntry(note_id, int(anki_id), content, _parse_iso(when), number)
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

    old_notes = prev.notes
    # Above every Anki note id given before, removed notes' included (see Manifest).
    floor = max([prev.next_anki_id, *(entry.anki_id + 1 for entry in old_notes.values())])
    next_anki_id = max(now * 1000, floor)
    notes: dict[str, NoteEntry] = {}
    added: list[str] = []
    changed: list[str] = []
    unchanged: list[str] = []
    for rn, content in zip(rd.notes, note_hashes(rd), strict=True):
        note_id = rn.note.id
        was = old_notes.get(note_id)
        if was is None:
            notes[note_id] = NoteEntry(note_id, next_anki_id, content, now)
            next_anki_id += 1
            added.append(note_id)
        elif was.content == content:
            # Unchanged: the old entry as it is (it keeps its lock file line, as an
            # unchanged note type does).
            notes[note_id] = was
            unchanged.append(note_id)
        else:
            notes[note_id] = NoteEntry(note_id, was.anki_id, content, _bump(was.changed, now))
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
    # unchanged rebuild leaves the lock file as it was.
    manifest = Manifest(note_types, notes, next_anki_id if added else floor)
    return Update(manifest, changes, first_build=old is None)


def write_manifest(path: Path, deck: Deck, manifest: Manifest) -> bool:
    """Write the lock file atomically if its text changed; return whether it was written."""
    from .atomic import atomic_write

    text = format_manifest(deck, manifest)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    data = text.encode("utf-8")
    atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return True
