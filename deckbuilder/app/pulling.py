"""``pull``: edits made in Anki come back into the card files, three-way.

The base is the last build: the lock file records, per note, a hash of what the build
gave Anki (ANKI-HASH) and of everything the note was built from (CONTENT-HASH), with its
change time. A note whose copy in Anki differs from the base was edited in Anki; one
whose card file renders otherwise than the base was edited in the card file. Then:

- edited in Anki only (and after the last build of it): the card file takes Anki's
  text, in place (:mod:`deckbuilder.cardfile.patch`), and the lock file Anki's copy and
  modification time, so that the next build gives Anki the time it has and changes
  nothing there;
- edited on both sides, or Anki's copy older than the last build of the note (a build
  not imported yet: Anki's text may be an edit of the one before, or just the one before):
  a conflict, shown as a diff and left alone, unless ``prefer`` settles it;
- edited in the card file only: nothing to pull, the next build carries it;
- added in Anki, to the deck, with a note type the deck uses: added to the card file;
- deleted in Anki: reported; removed from the card file with ``delete``.

Nothing is written when the source, a card file or a lock file cannot be used; the card
files, lock files and media that change are replaced together
(:class:`deckbuilder.files.atomic.Staging`).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

from deckbuilder.anki.collection import AnkiNote, shown
from deckbuilder.anki.identity import note_guid
from deckbuilder.anki.notetypes import NoteTypeSpec
from deckbuilder.anki.pull_source import AnkiSource, read_anki_source
from deckbuilder.app.lockfiles import ProjectLocks
from deckbuilder.app.requests import ALL_LANGUAGES, PullRequest
from deckbuilder.cardfile.fields import LOCALIZED_KEYS
from deckbuilder.cardfile.patch import CannotPatch, CardFilePatch
from deckbuilder.cardfile.reader import decks_from_tree, find_sources, read_text
from deckbuilder.cardfile.writer import note_item_text
from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq
from deckbuilder.errors import DeckError, OutputError, Problem, RequestError
from deckbuilder.files.atomic import PartlyReplaced, Staging
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.importers.pulled import PullReader, Reading, new_note_id
from deckbuilder.lock.anki_copy import anki_copy_hash
from deckbuilder.lock.format import LAST_SECOND, MAX_ANKI_ID
from deckbuilder.lock.manifest import (
    Manifest,
    NoteEntry,
    format_manifest,
    lock_path,
    note_hashes,
    read_manifest,
)
from deckbuilder.model import Deck, Note
from deckbuilder.render.deck import RenderedDeck, render_deck

__all__ = ["PREFER", "PullResult", "PulledDeck", "PulledNote", "anki_changes", "pull"]

PREFER = ("anki", "cards")


@dataclass(frozen=True)
class PulledNote:
    """What became of one note. ``what``: updated, added, same (edited alike on both
    sides, or to what the card file already says), deleted (in Anki; kept), removed
    (deleted in Anki and from the card file), conflict, kept (a conflict settled for the
    card file), refused (it cannot be pulled; ``reason`` says why)."""

    note_id: str
    what: str
    line: int | None = None  # of the note in the card file as it was
    anki_id: int = 0
    reason: str = ""
    diff: str = ""  # a conflict's two texts: the card file's (-) and Anki's (+)
    losses: tuple[str, ...] = ()  # Anki's markup the card file cannot hold


@dataclass(frozen=True)
class PulledDeck:
    key: str
    name: str
    card_file: Path
    lock: Path
    in_source: bool  # SOURCE holds this deck (else nothing of it was compared)
    notes: tuple[PulledNote, ...] = ()
    unchanged: int = 0
    changed_in_cards: int = 0  # edited in the card file only: the next build carries them

    def of(self, *what: str) -> list[PulledNote]:
        return [note for note in self.notes if note.what in what]


@dataclass(frozen=True)
class PullResult:
    decks: tuple[PulledDeck, ...]
    diff: str  # the card files' changes as a unified diff
    written: tuple[Path, ...]  # files replaced (none with dry_run)
    dry_run: bool
    warnings: tuple[Problem, ...] = ()

    @property
    def unsettled(self) -> list[tuple[PulledDeck, PulledNote]]:
        """Conflicts left, and notes that could not be pulled: exit status 1."""
        return [(d, n) for d in self.decks for n in d.of("conflict", "refused")]


def pull(request: PullRequest) -> PullResult:
    """Bring the edits made in Anki (``request.source``) into the card files; see the
    module's docstring. Raises DeckError (nothing written) when the source, a card file or
    a lock file cannot be used, or the source holds what no pull should take."""
    if request.prefer is not None and request.prefer not in PREFER:
        raise RequestError.single("prefer", f"must be anki or cards, not {request.prefer!r}")
    if not 0 <= request.timestamp <= LAST_SECOND:
        raise RequestError.single("timestamp", f"is outside 1970 to 9999: {request.timestamp}")
    selection = replace(request.selection, lang=ALL_LANGUAGES)  # every language
    files = [_CardFile.load(path, selection.media_dir) for path in find_sources(selection.sources)]
    source = read_anki_source(request.source)
    by_guid = _by_guid(source)
    project = ProjectLocks([rd for card in files for rd in card.rendered])
    locks = {path: (lock.key, lock.manifest) for path, lock in project.locks.items()}
    pulling = _Pulling(request, source, by_guid, files, locks)
    decks = [pulling.deck(card, index) for card in files for index in range(len(card.decks))]
    if pulling.problems:
        raise DeckError(pulling.problems)
    writes, diff = pulling.finish()
    written: list[Path] = []
    if not request.dry_run and writes:
        _write(writes, files, request.written)
        written = [path for path, _ in writes]
    return PullResult(tuple(decks), diff, tuple(written), request.dry_run, tuple(pulling.warnings))


def anki_changes(
    source: AnkiSource, rd: RenderedDeck, manifest: Manifest | None
) -> dict[str, AnkiNote]:
    """The notes of ``rd`` whose copy in ``source`` differs from the one the lock file
    says the last build gave Anki, by note id (``build --against``)."""
    if manifest is None:
        return {}
    by_guid = {note.guid: note for note in source.notes}
    found = {}
    for rn in rd.notes:
        entry = manifest.notes.get(rn.note.id)
        anki = by_guid.get(rn.note.guid or note_guid(rd.deck.key, rn.note.id))
        if entry is None or anki is None or not entry.anki:
            continue
        if anki_copy_hash(anki.fields, anki.tags) != entry.anki:
            found[rn.note.id] = anki
    return found


# -- reading -------------------------------------------------------------------------------


@dataclass
class _CardFile:
    """One card file: its text as read, its decks (one per language) and their renders."""

    path: Path
    data: bytes
    text: str
    decks: list[Deck]
    rendered: list[RenderedDeck]
    media_dir: Path | None
    patch: CardFilePatch | None = None
    # Per language deck: the notes whose copy changes, as they will read.
    planned: dict[str, dict[str, Note]] = field(default_factory=dict)
    deleted: dict[str, set[str]] = field(default_factory=dict)  # note id -> languages

    @classmethod
    def load(cls, path: Path, media_dir: Path | None) -> _CardFile:
        data = _read_bytes(path)
        text = read_text(path)
        decks = _decks(path, text, media_dir)
        rendered = []
        problems: list[Problem] = []
        for deck in decks:
            try:
                rendered.append(render_deck(deck))
            except DeckError as exc:
                problems.extend(exc.problems)
        if problems:
            raise DeckError(problems)
        return cls(path, data, text, decks, rendered, media_dir)

    def patched(self) -> CardFilePatch:
        if self.patch is None:
            lines = {note.id: note.line for note in self.decks[0].notes} if self.decks else None
            self.patch = CardFilePatch(self.text, str(self.path), lines)
        return self.patch


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DeckError.single(path, f"cannot be read: {exc.strerror or exc}") from None


def _decks(path: Path, text: str, media_dir: Path | None) -> list[Deck]:
    """The decks of a card file's text, one per language; DeckError with its problems."""
    tree, problems = read_yaml(text, str(path), LOCALIZED_KEYS)
    if problems:
        raise DeckError(problems)
    return decks_from_tree(path, tree, media_dir, ALL_LANGUAGES, source=text)


def _by_guid(source: AnkiSource) -> dict[str, AnkiNote]:
    found: dict[str, AnkiNote] = {}
    for note in source.notes:
        if note.guid in found:
            raise DeckError.single(
                source.path,
                f"two notes ({found[note.guid].id} and {note.id}) have the GUID "
                f"{shown(note.guid)}; Anki never writes that, and a pull cannot tell which "
                "one is the card file's",
            )
        found[note.guid] = note
    return found


# -- planning ------------------------------------------------------------------------------


@dataclass
class _LockChange:
    """How one deck's lock file changes: entries replaced or added, entries removed."""

    entries: dict[str, NoteEntry] = field(default_factory=dict)  # content filled in later
    hashes_from_render: set[str] = field(default_factory=set)  # note ids whose content is new
    removed: list[NoteEntry] = field(default_factory=list)
    # Notes that speak, with Anki's fields and a time after the last build: when the card
    # file speaks another text than Anki's copy does (its speech is made from the text
    # by the build), the next build must give Anki the new speech.
    spoken: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)


class _Pulling:
    def __init__(
        self,
        request: PullRequest,
        source: AnkiSource,
        by_guid: dict[str, AnkiNote],
        files: list[_CardFile],
        locks: dict[Path, tuple[str, Manifest]],
    ) -> None:
        self.request = request
        self.source = source
        self.by_guid = by_guid
        self.files = files
        self.locks = locks
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.changes: dict[Path, _LockChange] = {}  # by lock file
        self.manifests: dict[Path, Manifest] = {}
        self.media: dict[str, tuple[Path, bytes]] = {}  # name -> (target, bytes)
        # The GUIDs of the decks pulled, and of the project's other decks (from their
        # lock files): a note in Anki that is one of theirs is never added here.
        self.ours: dict[str, tuple[str, str]] = {}  # GUID -> (deck key, note id)
        for card in files:
            for deck in card.decks:
                for note in deck.notes:
                    self.ours[note.guid or note_guid(deck.key, note.id)] = (deck.key, note.id)
        pulled = {deck.key for card in files for deck in card.decks}
        self.others: dict[str, tuple[str, str]] = {}
        for key, manifest in locks.values():
            if key not in pulled:
                for note_id in manifest.notes:
                    self.others[note_guid(key, note_id)] = (key, note_id)
        self.held_ids = {e.anki_id for _, m in locks.values() for e in m.notes.values()}
        self.id_floor = max([0, *(m.id_floor() for _, m in locks.values())])

    def problem(
        self, file: Path | str, message: str, line: int | None = None, note: str | None = None
    ) -> None:
        self.problems.append(Problem(str(file), line, message, note))

    def deck(self, card: _CardFile, index: int) -> PulledDeck:
        deck = card.decks[index]
        lock = lock_path(deck)
        base = PulledDeck(deck.key, deck.name, deck.source, lock, in_source=False)
        in_source = self.in_source(deck)
        if not in_source:
            return base
        try:
            manifest = read_manifest(lock)
        except DeckError as exc:
            self.problems.extend(exc.problems)
            return base
        if manifest is not None and manifest.header and manifest.header.key != deck.key:
            self.problem(
                lock,
                f"this lock file belongs to deck '{manifest.header.key}', not to deck "
                f"'{deck.key}'; restore the deck's own lock file from version control",
                manifest.header.line,
            )
            return base
        if manifest is None:
            self.problem(
                lock,
                f"deck '{deck.key}' has no lock file: build it and import the package into "
                "Anki before pulling edits from there",
            )
            return base
        if manifest.notes and not all(entry.anki for entry in manifest.notes.values()):
            self.problem(
                lock,
                "this lock file was written before deckbuilder could pull (it does not "
                "record what Anki has of each note): build the deck once, import the package "
                "into Anki, and pull edits made after that",
            )
            return base
        self.manifests[lock] = manifest
        return _DeckPlan(self, card, index, manifest).run()

    def in_source(self, deck: Deck) -> bool:
        """Whether SOURCE holds the deck: a note of it, or a note in its Anki deck."""
        inside = deck.name + "::"
        if any(n.deck == deck.name or n.deck.startswith(inside) for n in self.source.notes):
            return True
        return any(
            (note.guid or note_guid(deck.key, note.id)) in self.by_guid for note in deck.notes
        )

    # -- writing ---------------------------------------------------------------------------

    def finish(self) -> tuple[list[tuple[Path, bytes]], str]:
        """What to write (media first, then card files, then lock files: see _write), and
        the card files' diff."""
        if not self.media:
            return self.changed_files(None)
        # The media files the pulled notes bring, in a scratch folder, for checking the
        # card files before anything is written.
        with tempfile.TemporaryDirectory(prefix="deckbuilder-pull-") as scratch:
            folder = Path(scratch)
            for name, (_, data) in self.media.items():
                (folder / name).write_bytes(data)
            return self.changed_files(folder)

    def changed_files(self, media_copies: Path | None) -> tuple[list[tuple[Path, bytes]], str]:
        writes: list[tuple[Path, bytes]] = []
        diffs: list[str] = []
        card_writes: list[tuple[Path, bytes]] = []
        lock_writes: list[tuple[Path, bytes]] = []
        for card in self.files:
            new_text = card.patch.result() if card.patch is not None else card.text
            decks, rendered = card.decks, card.rendered
            if new_text != card.text:
                decks, rendered = self.checked(card, new_text, media_copies)
                if self.request.dry_run and card.patch is not None:
                    diffs.append(card.patch.diff(str(card.path), f"{card.path} (pulled)"))
                card_writes.append((card.path, _encoded(card, new_text)))
            for deck, rd in zip(decks, rendered, strict=True):
                lock = lock_path(deck)
                change = self.changes.get(lock)
                if change is None:
                    continue
                manifest = self.new_manifest(self.manifests[lock], change, rd)
                data = format_manifest(deck, manifest).encode("utf-8")
                if data != _contents(lock):
                    lock_writes.append((lock, data))
        if self.problems:
            raise DeckError(self.problems)
        media = [(target, data) for target, data in self.media.values()]
        refuse_links_out([target for target, _ in media], "nothing is written through it")
        writes += media
        writes += card_writes + lock_writes
        return writes, "".join(diffs)

    def checked(
        self, card: _CardFile, text: str, media: Path | None
    ) -> tuple[list[Deck], list[RenderedDeck]]:
        """The card file's new text read as check reads it, and its changed notes loaded
        and rendered; every note pulled must read back as planned. The other notes keep
        their bytes, as the patch only writes inside the notes it changes (and after the
        last), so they load and render as they did: a large deck is not read twice. The
        decks returned hold the changed notes only."""
        changed = {note_id for planned in card.planned.values() for note_id in planned}
        tree, problems = read_yaml(text, str(card.path), LOCALIZED_KEYS)
        notes = tree.get("notes") if isinstance(tree, YMap) else None
        if not problems and isinstance(tree, YMap) and isinstance(notes, YSeq):
            kept = [item for item in notes.items if _item_id(item) in changed]
            entries = {**tree.entries, "notes": YSeq(kept, notes.line)}
            tree = YMap(entries, tree.lines, tree.line)
        try:
            if problems:
                raise DeckError(problems)
            if not changed:  # notes removed, none changed: the rest as it was
                return card.decks, card.rendered
            decks = decks_from_tree(card.path, tree, card.media_dir, ALL_LANGUAGES, source=text)
            # What the loader works out from every note (the labels' language, the
            # speech's) stays what the whole deck gave.
            decks = [
                replace(
                    d,
                    label_language=before.label_language,
                    speak_language=d.speak_language or before.speak_language,
                    media_dirs=(*d.media_dirs, media) if media is not None else d.media_dirs,
                )
                for d, before in zip(decks, card.decks, strict=True)
            ]
            rendered = [render_deck(deck) for deck in decks]
        except DeckError as exc:
            raise DeckError(
                [
                    Problem(p.file, p.line, f"after the pull: {p.message}", p.note)
                    for p in exc.problems
                ]
            ) from None
        for deck in decks:
            planned = card.planned.get(deck.key, {})
            loaded = {note.id: note for note in deck.notes}
            for note_id, note in planned.items():
                got = loaded.get(note_id)
                if got is None or _written(got) != _written(note):
                    self.problem(  # pragma: no cover - a patch that does not read back
                        card.path,
                        "pull cannot write this note as Anki has it (a deckbuilder bug: "
                        "please report it); nothing was written",
                        note.line or None,
                        note_id,
                    )
        return decks, rendered

    def new_manifest(self, old: Manifest, change: _LockChange, rd: RenderedDeck) -> Manifest:
        """``old`` with ``change`` made; ``rd`` holds (at least) the notes whose content
        hash the change takes from the card file as pulled."""
        notes = dict(old.notes)
        hashes = dict(zip((rn.note.id for rn in rd.notes), note_hashes(rd), strict=True))
        fields = {rn.note.id: rn.fields for rn in rd.notes}
        for note_id, entry in change.entries.items():
            if note_id in change.hashes_from_render:
                entry = replace(entry, content=hashes[note_id])
            spoken = change.spoken.get(note_id)
            if spoken is not None and _speech(fields[note_id]) != _speech(spoken[0]):
                entry = replace(entry, changed=spoken[1])
            notes[note_id] = entry
        next_anki_id = old.next_anki_id
        for entry in change.removed:
            notes.pop(entry.id, None)
            next_anki_id = max(next_anki_id, entry.anki_id + 1)
        return Manifest(old.note_types, notes, next_anki_id)

    def new_anki_id(self, wanted: int) -> int:
        """Anki's own note id for a note added there, unless a deck of the project holds
        it; else the next id above every id given."""
        if 1 <= wanted <= MAX_ANKI_ID and wanted not in self.held_ids:
            self.held_ids.add(wanted)
            return wanted
        self.id_floor = max(self.id_floor, *self.held_ids) + 1
        self.held_ids.add(self.id_floor)
        return self.id_floor


class _DeckPlan:
    """Compares one deck (one language of a card file) with SOURCE and plans its changes."""

    def __init__(self, pulling: _Pulling, card: _CardFile, index: int, manifest: Manifest) -> None:
        self.pulling = pulling
        self.request = pulling.request
        self.card = card
        self.deck = card.decks[index]
        self.rd = card.rendered[index]
        self.manifest = manifest
        self.lock = lock_path(self.deck)
        self.reader = PullReader(self.rd)
        self.change = pulling.changes.setdefault(self.lock, _LockChange())
        self.planned = card.planned.setdefault(self.deck.key, {})
        self.notes: list[PulledNote] = []
        self.unchanged = 0
        self.changed_in_cards = 0

    def run(self) -> PulledDeck:
        hashes = note_hashes(self.rd)
        for rn, content in zip(self.rd.notes, hashes, strict=True):
            self.note(rn.note, rn.spec, content)
        self.added()
        return PulledDeck(
            self.deck.key,
            self.deck.name,
            self.deck.source,
            self.lock,
            in_source=True,
            notes=tuple(self.notes),
            unchanged=self.unchanged,
            changed_in_cards=self.changed_in_cards,
        )

    def guid(self, note: Note) -> str:
        return note.guid or note_guid(self.deck.key, note.id)

    def note(self, note: Note, spec: NoteTypeSpec, content: str) -> None:
        entry = self.manifest.notes.get(note.id)
        anki = self.pulling.by_guid.get(self.guid(note))
        card_changed = entry is None or entry.content != content
        if anki is None:
            if entry is not None:
                self.gone(note, entry, card_changed)
            elif card_changed:
                self.changed_in_cards += 1
            return
        if anki.type_id != spec.id:
            self.pulling.problem(
                self.pulling.source.path,
                f"Anki's note {anki.id} has the GUID of note '{note.id}' of "
                f"{self.deck.source} (deck '{self.deck.key}') but another note type "
                f"({self.type_name(anki.type_id)}, not '{spec.name}'); a pull does not change "
                "a note's type",
            )
            return
        if entry is None:
            self.changed_in_cards += 1  # new in the card file since the last build
            return
        in_anki = anki_copy_hash(anki.fields, anki.tags)
        if in_anki == entry.anki:
            if card_changed:
                self.changed_in_cards += 1
            else:
                self.unchanged += 1
            return
        reading = self.reader.read(anki, spec, note)
        if isinstance(reading, str):
            self.record(note, "refused", anki, reason=reading)
            return
        if reading.note == note:
            # Edited alike on both sides (or back to what the card file says). Anki's
            # copy stays; learners get an edit of the card file: a time after the last
            # build's, and not before Anki's, which then changes nothing in Anki.
            if card_changed:
                when = max(_mod(anki), self.later(entry.changed))
            else:
                when = max(entry.changed, _mod(anki))
            self.set_entry(note.id, entry, in_anki, when, content)
            self.record(note, "same", anki)
            return
        newer = _mod(anki) > entry.changed
        if newer and not card_changed:
            self.take(note, reading, anki, entry, in_anki, "updated")
            return
        reason = (
            "edited in the card file and in Anki since the last build"
            if card_changed
            else "Anki's copy is older than the last build of this note (was that build "
            "imported?): its text may be an edit of the one before"
        )
        prefer = self.request.prefer
        if prefer == "anki":
            self.take(note, reading, anki, entry, in_anki, "updated", reason=reason)
        elif prefer == "cards":
            if _mod(anki) >= entry.changed:
                # The next build must be newer than Anki's copy, or Anki keeps it.
                self.set_entry(note.id, entry, entry.anki, min(_mod(anki) + 1, LAST_SECOND))
            self.record(note, "kept", anki, reason=reason)
        else:
            self.record(note, "conflict", anki, reason=reason, diff=self.diff(note, reading.note))

    def take(
        self,
        note: Note,
        reading: Reading,
        anki: AnkiNote,
        entry: NoteEntry,
        in_anki: str,
        what: str,
        reason: str = "",
    ) -> None:
        """The card file takes Anki's copy of ``note``."""
        new = reading.note
        missing = self.bring_media(anki)
        if missing:
            self.record(note, "refused", anki, reason=missing)
            return
        try:
            self.card.patched().change_note(note.id, note, new, self.deck.lang, self.deck.languages)
        except CannotPatch as exc:
            self.record(note, "refused", anki, reason=str(exc))
            return
        self.planned[note.id] = new
        # Anki's time when it is later than the last build: the next build then gives
        # Anki the time it has, and Anki changes nothing. Else a new time, so that Anki
        # (and every learner) takes the text the card file now has.
        when = _mod(anki) if _mod(anki) > entry.changed else self.later(entry.changed)
        self.set_entry(note.id, entry, in_anki, when, None)
        if new.speak:
            self.change.spoken[note.id] = (anki.fields, max(when + 1, self.later(entry.changed)))
        self.record(note, what, anki, reason=reason, losses=reading.losses)

    def later(self, previous: int) -> int:
        return min(max(self.request.timestamp, previous + 1), LAST_SECOND)

    def set_entry(
        self, note_id: str, entry: NoteEntry, in_anki: str, when: int, content: str | None = ""
    ) -> None:
        """The note's lock entry from now: Anki's copy ``in_anki``, change time ``when``;
        ``content`` None: the hash of the card file as pulled (known once it is
        rendered), '' the entry's own."""
        new = replace(entry, anki=in_anki, changed=when, line=None)
        if content:
            new = replace(new, content=content)
        self.change.entries[note_id] = new
        if content is None:
            self.change.hashes_from_render.add(note_id)

    def gone(self, note: Note, entry: NoteEntry, card_changed: bool) -> None:
        """A note of the card file that SOURCE no longer has: deleted in Anki."""
        shown_entry = PulledNote(note.id, "deleted", note.line, entry.anki_id)
        if not self.request.delete:
            self.notes.append(shown_entry)
            return
        if card_changed and self.request.prefer != "anki":
            if self.request.prefer == "cards":
                self.notes.append(replace(shown_entry, what="kept", reason=_DELETED_CHANGED))
            else:
                self.notes.append(replace(shown_entry, what="conflict", reason=_DELETED_CHANGED))
            return
        languages = self.deck.languages
        deleted = self.card.deleted.setdefault(note.id, set())
        deleted.add(self.deck.lang)
        if languages and deleted != set(languages):
            others = ", ".join(code for code in languages if code not in deleted)
            self.notes.append(
                replace(
                    shown_entry,
                    reason=f"kept: the card file has it in {others} too (pull those decks "
                    "with it deleted, from one collection, to remove it)",
                )
            )
            return
        try:
            self.card.patched().remove_note(note.id)
        except CannotPatch as exc:
            self.notes.append(replace(shown_entry, what="refused", reason=str(exc)))
            return
        for deck in self.card.decks:  # every language's lock file forgets it
            change = self.pulling.changes.setdefault(lock_path(deck), _LockChange())
            lock = self.pulling.manifests.get(lock_path(deck))
            gone = lock.notes.get(note.id) if lock is not None else None
            if gone is not None:
                change.removed.append(gone)
        self.notes.append(replace(shown_entry, what="removed"))

    def added(self) -> None:
        """Notes added in Anki to this deck, with one of its note types."""
        inside = self.deck.name + "::"
        specs = {rn.spec.id: rn.spec for rn in self.rd.notes}
        taken = {note.id for note in self.deck.notes}
        for anki in self.pulling.source.notes:
            if not (anki.deck == self.deck.name or anki.deck.startswith(inside)):
                continue
            if anki.guid in self.pulling.ours:
                continue
            other = self.pulling.others.get(anki.guid)
            if other is not None:
                self.pulling.problem(
                    self.pulling.source.path,
                    f"Anki's note {anki.id} in deck {shown(anki.deck)} is note '{other[1]}' of "
                    f"deck '{other[0]}' (its GUID): pull that deck's card file with this one, "
                    "or move the note back to its deck in Anki",
                )
                continue
            label = f"anki-{anki.id}"
            spec = specs.get(anki.type_id)
            if spec is None:
                why = (
                    f"added in Anki with note type {self.type_name(anki.type_id)}, which no "
                    "note of this deck has; add it to the card file yourself"
                )
                self.notes.append(PulledNote(label, "refused", None, anki.id, reason=why))
                continue
            if self.deck.lang:
                why = (
                    "added in Anki to one language's deck: a card file with languages cannot "
                    "keep its GUID; add it to the card file in every language yourself, then "
                    "delete it in Anki"
                )
                self.notes.append(PulledNote(label, "refused", None, anki.id, reason=why))
                continue
            reading = self.reader.read(anki, spec, None)
            if isinstance(reading, str):
                self.notes.append(PulledNote(label, "refused", None, anki.id, reason=reading))
                continue
            missing = self.bring_media(anki)
            if missing:
                self.notes.append(PulledNote(label, "refused", None, anki.id, reason=missing))
                continue
            note_id = new_note_id(reading.note, taken)
            taken.add(note_id)
            new = replace(reading.note, id=note_id)
            try:
                self.card.patched().add_note(new)
            except CannotPatch as exc:
                self.notes.append(PulledNote(note_id, "refused", None, anki.id, reason=str(exc)))
                continue
            self.planned[note_id] = new
            entry = NoteEntry(
                note_id,
                self.pulling.new_anki_id(anki.id),
                "",
                _mod(anki),
                anki=anki_copy_hash(anki.fields, anki.tags),
            )
            self.change.entries[note_id] = entry
            self.change.hashes_from_render.add(note_id)
            self.notes.append(PulledNote(note_id, "added", None, anki.id, losses=reading.losses))

    def bring_media(self, anki: AnkiNote) -> str:
        """Stage the media files Anki's copy shows that the project lacks; why not, when
        SOURCE lacks one too ('' when all are there)."""
        for name in _media_names(anki.fields):
            if name in self.pulling.media or any(
                (d / name).is_file() for d in self.deck.media_dirs
            ):
                continue
            unsafe = not name or name in (".", "..") or "/" in name or "\\" in name
            data = None if unsafe else self.pulling.source.media(name)
            if data is None:
                return (
                    f"it shows the media file {shown(name)}, which neither the project nor "
                    "SOURCE has (export from Anki with media)"
                )
            folder = self.card.media_dir or self.deck.source.parent
            self.pulling.media[name] = (folder / name, data)
        return ""

    def record(
        self,
        note: Note,
        what: str,
        anki: AnkiNote,
        *,
        reason: str = "",
        diff: str = "",
        losses: tuple[str, ...] = (),
    ) -> None:
        self.notes.append(PulledNote(note.id, what, note.line, anki.id, reason, diff, losses))

    def diff(self, note: Note, anki: Note) -> str:
        """The note as the card file has it (-) and as Anki has it (+)."""
        return "".join(
            difflib.unified_diff(
                note_item_text(note, 0).splitlines(True),
                note_item_text(anki, 0).splitlines(True),
                f"{self.deck.source} (note '{note.id}')",
                f"{self.pulling.source.path} (Anki)",
            )
        )

    def type_name(self, type_id: int) -> str:
        found = self.pulling.source.note_types.get(type_id)
        return shown(found.name) if found is not None else f"id {type_id}"


_DELETED_CHANGED = "deleted in Anki, and edited in the card file since the last build"
# What a field names as media, as Anki finds it (its media check).
_IMAGE = re.compile(r"""<img\b[^>]*?\bsrc\s*=\s*["']?([^"' >]+)""", re.IGNORECASE)
_SOUND = re.compile(r"\[sound:([^\]]+)\]")


def _media_names(fields: Iterable[str]) -> list[str]:
    names = []
    for html in fields:
        names += [unquote(found) for found in _IMAGE.findall(html)]
        names += _SOUND.findall(html)
    return [unicodedata.normalize("NFC", name) for name in dict.fromkeys(names)]


_TTS = re.compile(r"\[anki:tts[^\]]*\].*?\[/anki:tts\]", re.DOTALL)


def _speech(fields: Sequence[str]) -> list[str]:
    """What a note's fields speak (Anki's text-to-speech tags)."""
    return [found for text in fields for found in _TTS.findall(text)]


def _item_id(item: object) -> str | None:
    value = item.get("id") if isinstance(item, YMap) else None
    return value.raw if isinstance(value, YScalar) else None


def _mod(anki: AnkiNote) -> int:
    """Anki's modification time as a lock file holds it (see importers.anki_package)."""
    return min(max(anki.mod, 0), LAST_SECOND)


def _written(note: Note) -> str:
    return unicodedata.normalize("NFC", note_item_text(replace(note, line=0), 0))


def _encoded(card: _CardFile, text: str) -> bytes:
    """The new text in the file's own encoding: a byte order mark and CRLF line ends kept."""
    bom = b"\xef\xbb\xbf" if card.data.startswith(b"\xef\xbb\xbf") else b""
    if b"\r\n" in card.data:
        text = text.replace("\n", "\r\n")
    return bom + text.encode("utf-8")


def _contents(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _write(
    writes: Sequence[tuple[Path, bytes]], files: Sequence[_CardFile], replaced: list[Path]
) -> None:
    """Replace the files together. Media first, then card files, then lock files: a run
    killed between two renames leaves a pulled card file with its old lock file, which
    the next pull sees as the same edit on both sides (and settles), never a lock file
    whose note the card file lacks, which the next build would overwrite in Anki."""
    try:
        with Staging() as staging:
            for path, data in writes:
                path.parent.mkdir(parents=True, exist_ok=True)
                staging.stage_bytes(path, data)
            stale = [
                Problem(
                    str(card.path),
                    None,
                    "changed while pull was reading it (saved meanwhile?); nothing was "
                    "written: pull again",
                )
                for card in files
                if _digest(_contents(card.path)) != _digest(card.data)
            ]
            if stale:
                raise DeckError(stale)
            staging.commit(replaced)
    except PartlyReplaced:
        raise
    except OutputError as exc:
        raise OutputError(f"{exc}; no card file or lock file was replaced") from exc


def _digest(data: bytes | None) -> bytes:
    return hashlib.blake2b(data or b"", digest_size=16).digest()
