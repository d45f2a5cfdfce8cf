"""The lock file: when each note's content last changed, kept beside the card file.

Anki updates a note on re-import only when the package's note modification time is
strictly newer than the one in the collection (even with "always update"), and a note
type only when its modification time is newer. So every note and note type is stamped
with the time its content last changed, not the build time: an unchanged rebuild gives
the same bytes and changes nothing in Anki, and an edit moves exactly the edited note.

``cards/<deck id>.lock`` records, per note, the Anki note id given when the note was first
built, a hash of everything that ends up in the note, and the time that hash last changed;
per note type, its id, its fields, a hash of its templates and CSS, and their change time.

Anki's import updates a note only under the note type it already has: a note that now
comes with another note type (a new note type id for its kind, or a note whose type
changed, basic to typed say) is reported as conflicting and left as it was, unless the
learner ticks "Merge note types". A build warns of both (docs/updating.md). The lock file
does not record each note's type, so a note's change of type is known for certain only
when no note of its new type was in the deck before; that is when the warning comes.
It is plain text, one line per entry, sorted, so it reads and merges well in version
control: what two branches disagree on (the same note listed twice, two notes with one
Anki note id) is settled on the next build, with a warning. Only ``deckbuilder build``
writes it, and only after the package is written.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from deckbuilder.anki.built import BuiltNote
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.errors import DeckError, Problem, plural
from deckbuilder.lock.anki_copy import anki_copy_hash
from deckbuilder.lock.format import (
    LAST_SECOND,
    MAX_ANKI_ID,
    RESTORE,
    UNSETTLED,
    LockHeader,
    Manifest,
    NoteEntry,
    NoteTypeEntry,
    iso_time,
)

# app/previewing.py reads the lock file through this module.
from deckbuilder.lock.format import lock_path as lock_path
from deckbuilder.lock.format import read_manifest as read_manifest
from deckbuilder.model import Deck, Note
from deckbuilder.render.deck import RenderedDeck, RenderedNote

_HASH_CHARS = 16  # 64 bits of SHA-256: collisions are not a concern for one deck's notes


@dataclass(frozen=True)
class NoteTypeReplaced:
    """A note type Anki's import takes for another one: a new id (a new version, for new
    fields; or a declaration that moved), or other cards under the same id."""

    old: NoteTypeEntry
    new: NoteTypeSpec


@dataclass(frozen=True)
class OtherDecks:
    """The Anki note ids the project's other decks hold (from their lock files).

    Anki keeps a package's note id only while the learner's collection has no note with
    it: two decks whose notes share ids (built in the same second, as the two languages of
    one card file are) get other ids in a collection holding both, and a ``nid:`` search
    for one deck's note finds the other's. So a new note's id is above every id of the
    project, and of two decks holding one id, the deck whose id sorts first keeps it.
    """

    holders: Mapping[int, str] = field(default_factory=dict)  # Anki note id -> deck id
    floor: int = 0  # above every Anki note id these decks have given


@dataclass(frozen=True)
class Changes:
    """What changed since the last build, by author note id (sorted)."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[NoteEntry, ...] = ()  # only notes whose Anki note id is theirs alone
    unchanged: tuple[str, ...] = ()
    note_types_changed: tuple[NoteTypeSpec, ...] = ()  # templates or CSS changed, same id
    note_types_replaced: tuple[NoteTypeReplaced, ...] = ()


@dataclass(frozen=True)
class Update:
    """The manifest for this build and how it differs from the previous one."""

    manifest: Manifest
    changes: Changes
    first_build: bool  # there was no lock file
    warnings: tuple[Problem, ...] = ()  # what was settled in the lock file, by its lines


_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _json(value: object) -> str:
    return _JSON.encode(value)


def _hash(value: object) -> str:
    return hashlib.sha256(_json(value).encode("utf-8")).hexdigest()[:_HASH_CHARS]


def _file_hash(path: Path, unwritten: Mapping[Path, bytes]) -> str:
    data = unwritten[path] if path in unwritten else path.read_bytes()
    return hashlib.sha256(data).hexdigest()


def templates_hash(spec: NoteTypeSpec) -> str:
    """Everything of a note type that can change in place: name, templates, CSS. (A second
    template is hashed only where there is one, so one-template note types keep their hash.)"""
    parts: list[object] = [spec.name, spec.template_name, spec.front, spec.back, spec.css]
    parts.append(spec.is_cloze)
    if spec.more_templates:
        parts.append([list(t) for t in spec.more_templates])
    if spec.sort_field:
        parts.append(spec.sort_field)
    if spec.stock_kind:
        parts.append([spec.stock_kind, [list(tag) for tag in spec.field_tags]])
    return _hash(parts)


def card_names(spec: NoteTypeSpec) -> tuple[str, ...]:
    """A declared note type's card names, as the lock file keeps them; () for deckbuilder's
    own note types, whose cards change only with their id."""
    return tuple(name for name, _, _ in spec.templates) if spec.key else ()


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


def note_hashes(rd: RenderedDeck, unwritten: Mapping[Path, bytes] | None = None) -> tuple[str, ...]:
    """:func:`note_content_hash` of each of ``rd``'s notes, in order; ``unwritten``: the
    files an import is about to write, as :func:`~deckbuilder.render.deck.render_deck`."""
    media = {name: _file_hash(path, unwritten or {}) for name, path in rd.media.items()}
    return tuple(note_content_hash(rn, media) for rn in rd.notes)


class _ChangeTimes:
    """Gives the change times of one build's lock file, and collects the problems and
    warnings found giving them."""

    def __init__(self, lock: str, now: int) -> None:
        self.lock = lock
        self.now = now
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def later(self, previous: int, line: int | None, note: str | None, what: str = "") -> int:
        """A change time strictly after ``previous``: Anki ignores an equal time."""
        when = max(self.now, previous + 1)
        if when <= LAST_SECOND:
            return when
        self.problems.append(
            Problem(
                self.lock,
                line,
                f"{what}last changed at {iso_time(previous)}: Anki updates only for a later "
                f"time, and lock file times end with year 9999; {RESTORE}",
                note,
            )
        )
        return previous

    def warn(self, line: int | None, note: str, message: str) -> None:
        self.warnings.append(Problem.warning(self.lock, line, message, note, "lock"))


def _update_note_types(
    prev: Manifest, rd: RenderedDeck, plan: _ChangeTimes
) -> tuple[dict[str, NoteTypeEntry], list[NoteTypeSpec], list[NoteTypeReplaced]]:
    note_types: dict[str, NoteTypeEntry] = dict(prev.note_types)
    changed: list[NoteTypeSpec] = []
    replaced: list[NoteTypeReplaced] = []
    for spec in rd.note_types:
        before = prev.note_types.get(spec.type_key)
        digest = templates_hash(spec)
        cards = card_names(spec)
        what = f"note type '{spec.name}' "
        if before is None:
            note_types[spec.type_key] = NoteTypeEntry(
                spec.type_key, spec.id, spec.fields, digest, plan.now, cards=cards
            )
        elif before.anki_id != spec.id or (before.cards and before.cards != cards):
            replaced.append(NoteTypeReplaced(before, spec))
            plan.warnings.append(_replaced_warning(plan.lock, before, spec))
            when = plan.later(before.changed, before.line, None, what)
            note_types[spec.type_key] = NoteTypeEntry(
                spec.type_key, spec.id, spec.fields, digest, when, cards=cards
            )
        elif before.fields != spec.fields:
            plan.problems.append(
                Problem(
                    plan.lock,
                    before.line,
                    f"note type '{spec.name}' (id {spec.id}) now has the fields "
                    f"{', '.join(spec.fields)} but this deck was built with "
                    f"{', '.join(before.fields)}; Anki would import it as a second note type "
                    f"'{spec.name}+' and leave the existing notes on the old one. A note type's "
                    "fields may change only together with a new note type id and name "
                    "(see docs/updating.md).",
                )
            )
        elif before.templates != digest:
            changed.append(spec)
            when = plan.later(before.changed, before.line, None, what)
            note_types[spec.type_key] = NoteTypeEntry(
                spec.type_key, spec.id, spec.fields, digest, when, cards=cards
            )
        elif before.cards != cards:  # a lock file written before card names were kept
            note_types[spec.type_key] = replace(before, cards=cards)
    return note_types, changed, replaced


def _shared_ids(notes: Mapping[str, NoteEntry], in_deck: set[str]) -> dict[str, NoteEntry]:
    """Notes listed with another note's Anki note id (two branches built in the same
    second and merged, or a line typed by hand), each mapped to the note that keeps the id:
    the first by note id of those still in the deck. Decided by note ids alone, so that
    everyone who builds the merged lock file gets the same result."""
    by_anki_id: dict[int, list[NoteEntry]] = {}
    for entry in notes.values():
        by_anki_id.setdefault(entry.anki_id, []).append(entry)
    shared: dict[str, NoteEntry] = {}
    for group in by_anki_id.values():
        keeper = min(group, key=lambda e: (e.id not in in_deck, e.id))
        shared.update((e.id, keeper) for e in group if e is not keeper)
    return shared


def _held_elsewhere(
    notes: Mapping[str, NoteEntry], deck_key: str, others: OtherDecks
) -> dict[str, str]:
    """This deck's notes whose Anki note id a deck of an earlier id holds, each mapped to
    that deck: they give the id up. Decided by deck ids alone, whichever deck is built
    first, so the lock files agree however the project is built."""
    found = {}
    for entry in notes.values():
        holder = others.holders.get(entry.anki_id)
        if holder is not None and holder != deck_key and holder < deck_key:
            found[entry.id] = holder
    return found


def _not_this_deck(header: LockHeader, deck: Deck) -> str:
    return (
        f"this lock file belongs to deck '{header.key}' ({header.source}), not to deck "
        f"'{deck.key}' ({deck.source.name}); it was probably copied from there. Restore this "
        "deck's own lock file from version control, or delete this copy if this deck was "
        "never built; then build again"
    )


def update_manifest(
    old: Manifest | None,
    rd: RenderedDeck,
    now: int,
    others: OtherDecks | None = None,
    published: Mapping[str, BuiltNote] | None = None,
) -> Update:
    """The manifest for building ``rd`` at time ``now`` (seconds), given the previous one
    and the Anki note ids the project's ``others`` decks hold (see :class:`OtherDecks`).
    ``published``: by note id, each note of the package this build replaces, as learners
    who imported it have it (:func:`deckbuilder.anki.built.read_built`).

    Raises DeckError when the lock file names another deck; when a note type kept its id
    but changed its fields (Anki would import it as a second note type "Name+" and leave
    every existing note behind); or when a change time or a new Anki note id would leave
    the range a lock file holds. Notes sharing an Anki note id are settled with a warning.
    """
    if not 0 <= now <= LAST_SECOND:
        raise ValueError(f"build time {now} is outside 1970 to 9999")
    prev = old or Manifest({}, {})
    lock = str(lock_path(rd.deck))
    if prev.header is not None and prev.header.key != rd.deck.key:
        raise DeckError.single(lock, _not_this_deck(prev.header, rd.deck), prev.header.line)
    plan = _ChangeTimes(lock, now)
    note_types, changed_types, replaced = _update_note_types(prev, rd, plan)

    others = others or OtherDecks()
    shared = _shared_ids(prev.notes, {rn.note.id for rn in rd.notes})
    elsewhere = _held_elsewhere(prev.notes, rd.deck.key, others)
    recovered = _recovered(prev, rd, others, published or {})
    floor = max(prev.id_floor(), others.floor, *(n + 1 for n in recovered.values()))
    # Notes that give up a shared id take the next ones above every id given, whatever the
    # clock, so that everyone building the merged lock files writes the same ids.
    moving = [rn.note.id for rn in rd.notes if rn.note.id in shared or rn.note.id in elsewhere]
    moved = dict(zip(moving, itertools.count(floor)))
    next_anki_id = max(now * 1000, floor + len(moved), 1)  # Anki's ids start at 1
    notes: dict[str, NoteEntry] = {}
    added: list[str] = []
    changed: list[str] = []
    unchanged: list[str] = []
    for rn, content in zip(rd.notes, note_hashes(rd), strict=True):
        note_id = rn.note.id
        was = prev.notes.get(note_id)
        # What Anki gets of the note (the base a pull compares Anki's copy with).
        in_anki = anki_copy_hash(rn.fields, rn.tags)
        copy = (published or {}).get(note_id)
        if was is None and copy is not None and note_id in recovered:
            kept = content if copy.anki == in_anki else UNSETTLED
            was = NoteEntry(note_id, copy.anki_id, kept, copy.mod, anki=copy.anki)
        if was is None:
            notes[note_id] = NoteEntry(note_id, next_anki_id, content, now, anki=in_anki)
            next_anki_id += 1
            added.append(note_id)
            continue
        if note_id in elsewhere:
            plan.warn(was.line, note_id, _moved_across(was, elsewhere[note_id], moved[note_id]))
            was = replace(was, anki_id=moved[note_id])
        elif note_id in moved:
            plan.warn(was.line, note_id, _moved(was, shared[note_id], moved[note_id]))
            was = replace(was, anki_id=moved[note_id])
        # The package this build replaces has a later copy of the note than the lock file
        # says, and another one: the lock file went back in time (a git revert restores it
        # with the card file). Learners who imported that package would keep its copy.
        behind = copy is not None and copy.mod > was.changed and copy.anki != in_anki
        if copy is not None and behind:
            plan.warn(was.line, note_id, _behind(was, copy.mod))
            was = replace(was, changed=copy.mod)
        if was.content == content and not behind:
            # Unchanged: the old entry as it is (it keeps its lock file line, as an
            # unchanged note type does, and the Anki copy a pull took), given the
            # hash of Anki's copy if its lock file predates pull.
            notes[note_id] = was if was.anki else replace(was, anki=in_anki)
            unchanged.append(note_id)
        else:
            when = plan.later(was.changed, was.line, note_id)
            notes[note_id] = NoteEntry(note_id, was.anki_id, content, when, anki=in_anki)
            changed.append(note_id)
            if prev.note_types and rn.spec.type_key not in prev.note_types:
                plan.warnings.append(_retyped_warning(rd, rn))
    if (added or moved) and next_anki_id - 1 > MAX_ANKI_ID:
        plan.problems.append(_no_id_left(prev, lock))
    gone = [prev.notes[note_id] for note_id in sorted(prev.notes.keys() - notes.keys())]
    removed = _removed(gone, shared, plan)
    if gone and added:
        plan.warnings += _renamed(gone, set(added), notes, rd)
    if len(changed) > 1:
        plan.warnings += _traded(prev.notes, changed, notes, rd)
    if plan.problems:
        raise DeckError(plan.problems)
    changes = Changes(
        added=tuple(sorted(added)),
        changed=tuple(sorted(changed)),
        removed=removed,
        unchanged=tuple(sorted(unchanged)),
        note_types_changed=tuple(changed_types),
        note_types_replaced=tuple(replaced),
    )
    # A first build writes the line above every id it gave; later builds raise it only
    # for notes that leave the lock file (see Manifest), never by the clock, so that an
    # unchanged rebuild leaves the lock file as it was.
    if old is None:
        high_water = next_anki_id if added else floor
    else:
        high_water = max([prev.next_anki_id, *(entry.anki_id + 1 for entry in gone)])
    manifest = Manifest(note_types, notes, high_water)
    if recovered:
        plan.warnings.append(_recovered_warning(lock, len(recovered), old is None))
    warnings = prev.warnings + tuple(plan.warnings)
    return Update(manifest, changes, first_build=old is None and not recovered, warnings=warnings)


# What a learner must do for a note Anki's import would leave alone (see the module docstring).
_MERGE = (
    "Anki's import reports it as conflicting and keeps the old note unless \"Merge note "
    'types" is ticked in its import dialog'
)


def _retyped_warning(rd: RenderedDeck, rn: RenderedNote) -> Problem:
    """A note now of a type no note of the deck had before: its type changed."""
    return Problem.warning(
        str(rd.deck.source),
        rn.note.line,
        f"this note changed its note type (now '{rn.spec.name}'): {_MERGE}. Ask "
        'learners to import with "Merge note types" (the old card keeps its reviews but may '
        "show a blank front, which Tools > Empty Cards removes), or give the note a new id to "
        "replace it (the old note stays until learners delete it); see docs/updating.md",
        rn.note.id,
        "retyped",
    )


def _replaced_warning(lock: str, before: NoteTypeEntry, spec: NoteTypeSpec) -> Problem:
    """The note type of a kind has a new id, or other cards: every note of that kind
    changes type as Anki's import sees it."""
    if before.anki_id == spec.id:
        return Problem.warning(
            lock,
            before.line,
            f"note type '{spec.name}' now has the cards {', '.join(card_names(spec))}, not "
            f"{', '.join(before.cards)}: Anki's import takes it for another note type and, "
            'unless "Merge note types" is ticked in its import dialog, adds '
            f"'{spec.name}+' and reports each of its notes as conflicting, keeping the old "
            'note. Ask learners to import with "Merge note types", which updates the note '
            "type in place (see docs/updating.md)",
        )
    # With the same fields the new id is rarely wanted: a declared note type's id comes
    # from its key and, for a card file's own, the deck's id, so moving its declaration
    # between note-types/ and the card file (or dropping its anki_id) gives it another.
    keep = (
        f". Its fields are the same, so keeping the old note type is likely what you want: "
        f"write 'anki_id: {before.anki_id}' in its declaration"
        if before.fields == spec.fields
        else ""
    )
    return Problem.warning(
        lock,
        before.line,
        f"the {spec.type_key} notes now have note type '{spec.name}' (id {spec.id}, "
        f"fields {', '.join(spec.fields)}), not id {before.anki_id} (fields "
        f"{', '.join(before.fields)}): for each of them {_MERGE}. Ask learners to import with "
        f'"Merge note types" (see docs/updating.md){keep}',
    )


def _recovered(
    prev: Manifest, rd: RenderedDeck, others: OtherDecks, published: Mapping[str, BuiltNote]
) -> dict[str, int]:
    """The notes the lock file does not list (it was deleted, or left out of a commit) that
    the package this build replaces has, each with its Anki note id there: learners have
    the note with that id and time, and with a new id the search for it, once removed,
    would find nothing. An id another note of the project holds is not taken."""
    taken = {entry.anki_id for entry in prev.notes.values()} | set(others.holders)
    found = {}
    for rn in rd.notes:
        copy = published.get(rn.note.id)
        if rn.note.id not in prev.notes and copy is not None and copy.anki_id not in taken:
            found[rn.note.id] = copy.anki_id
            taken.add(copy.anki_id)
    return found


def _recovered_warning(lock: str, count: int, no_lock: bool) -> Problem:
    what = "there was no lock file" if no_lock else "the lock file lacked some notes"
    return Problem.warning(
        lock,
        None,
        f"{what}: the Anki note ids and times of {plural(count, 'note')} were taken from the "
        "package this build replaces, which learners may have imported (commit the lock file)",
        None,
        "lock",
    )


def _behind(entry: NoteEntry, published: int) -> str:
    return (
        f"the package this build replaces has another copy of this note, of "
        f"{iso_time(published)}, later than this lock file's {iso_time(entry.changed)}, as "
        "after a git revert or a checkout of an older lock file: Anki keeps the later copy, "
        "so the note counts as changed and gets a later time (commit the lock file)"
    )


def _moved(entry: NoteEntry, keeper: NoteEntry, new_id: int) -> str:
    return (
        f"shares Anki note id {entry.anki_id} with note '{keeper.id}' (line {keeper.line}), "
        f"as when two branches built in the same second are merged; it now gets {new_id} "
        "(commit the lock file)"
    )


def _moved_across(entry: NoteEntry, holder: str, new_id: int) -> str:
    return (
        f"had Anki note id {entry.anki_id}, which deck '{holder}' also gives one of its "
        f"notes; it now gets {new_id}, so that a search for this deck's notes never finds "
        "the other deck's (learners see no change: Anki knows the note by its GUID). "
        "Commit the lock file"
    )


def _removed(
    gone: list[NoteEntry], shared: Mapping[str, NoteEntry], plan: _ChangeTimes
) -> tuple[NoteEntry, ...]:
    """The notes gone from the deck that build may advise deleting: "nid:..." must find no
    other note, so a note that shared its Anki note id is left out, with a warning."""
    for entry in gone:
        holder = shared.get(entry.id)
        if holder is not None:
            plan.warn(
                entry.line,
                entry.id,
                f"removed from the deck, but not listed for deletion: it shares Anki note id "
                f"{entry.anki_id} with note '{holder.id}' (line {holder.line}); find it in "
                "Anki's browser by its text",
            )
    return tuple(entry for entry in gone if entry.id not in shared)


def _renamed(
    gone: list[NoteEntry], added: set[str], notes: Mapping[str, NoteEntry], rd: RenderedDeck
) -> list[Problem]:
    """Notes that look renamed: an id gone from the deck and a new one with the same content,
    each the only one with it. Anki knows a note by an identity made from its id, so the new
    id is a new note, and the review history stays with the old one. The lock file forgets
    the old id, so changing it back looks like a rename too: hence the "unless"."""
    old_ids: dict[str, list[str]] = {}
    for entry in gone:
        old_ids.setdefault(entry.content, []).append(entry.id)
    new_notes: dict[str, list[Note]] = {}
    for rn in rd.notes:
        if rn.note.id in added:
            new_notes.setdefault(notes[rn.note.id].content, []).append(rn.note)
    found = []
    for content, (note, *others) in new_notes.items():
        old = old_ids.get(content, [])
        if len(old) == 1 and not others:
            found.append(
                Problem.warning(
                    str(rd.deck.source),
                    note.line,
                    f"looks like '{old[0]}' was renamed to '{note.id}'; its review "
                    f"history stays with the old id. To keep it, change the id back to "
                    f"'{old[0]}' (unless learners already have '{note.id}')",
                    note.id,
                    "renamed",
                )
            )
    return found


def _traded(
    before: Mapping[str, NoteEntry],
    changed: list[str],
    notes: Mapping[str, NoteEntry],
    rd: RenderedDeck,
) -> list[Problem]:
    """Notes that passed their contents round (two ids swapped, say): each changed note
    has what another changed note had, each content the only one with it. Anki knows a
    note by its id, so each review history now schedules another note's question, and the
    build would say no more than "2 changed"."""
    had: dict[str, list[str]] = {}
    for entry in before.values():
        had.setdefault(entry.content, []).append(entry.id)
    now: dict[str, int] = {}
    for note_id in changed:
        now[notes[note_id].content] = now.get(notes[note_id].content, 0) + 1
    took: dict[str, str] = {}  # note id -> the note whose content it has now
    for note_id in changed:
        content = notes[note_id].content
        owners = had.get(content, [])
        if len(owners) == 1 and now[content] == 1 and owners[0] != note_id:
            took[note_id] = owners[0]
    lines = {rn.note.id: rn.note.line for rn in rd.notes}
    found = []
    told: set[str] = set()
    for start in [rn.note.id for rn in rd.notes if rn.note.id in took]:
        ring = [start]
        while (step := took.get(ring[-1])) is not None and step not in ring:
            ring.append(step)
        if step != start or start in told:
            continue  # a chain that does not come back, or a ring already told
        told.update(ring)
        found.append(_traded_warning(ring, lines, rd))
    return found


def _traded_warning(ring: list[str], lines: Mapping[str, int], rd: RenderedDeck) -> Problem:
    first, *others = ring
    named = [f"'{first}'", *(f"'{i}' (line {lines[i]})" for i in others)]
    who = f"{', '.join(named[:-1])} and {named[-1]}"
    pairs = list(zip(ring, [*ring[1:], first], strict=True))
    moves = [
        f"'{first}' now has what '{ring[1]}' had",
        *(f"'{a}' what '{b}' had" for a, b in pairs[1:]),
    ]
    passed = f"{', '.join(moves[:-1])}, and {moves[-1]}"
    two = len(ring) == 2
    return Problem.warning(
        str(rd.deck.source),
        lines[first],
        f"notes {who} traded contents ({passed}), as when "
        f"{'their ids are swapped' if two else 'ids are passed round'}. Anki knows a note "
        "by its id: each note keeps its review history and takes "
        f"{'the other' if two else 'another'}'s text, so learners get '{len(ring)} updated' "
        f"and each history now schedules {'the other' if two else 'another'} question. To "
        "keep each history with its question, "
        f"{'swap the ids back' if two else 'give each note its id back'} and build again",
        first,
        "traded",
    )


def _no_id_left(prev: Manifest, lock: str) -> Problem:
    """At the line that holds the highest id: only a hand-typed one gets this far."""
    top = max(prev.notes.values(), key=lambda e: e.anki_id, default=None)
    at_top = top is not None and top.anki_id + 1 >= prev.next_anki_id
    return Problem(
        lock,
        top.line if top and at_top else prev.next_anki_id_line,
        f"Anki note ids up to {prev.id_floor() - 1} are taken, which leaves none for new "
        f"notes (Anki's ids end at {MAX_ANKI_ID}); {RESTORE}",
    )
