"""One deck compared with what Anki has of it, note by note, for ``pull``
(:mod:`deckbuilder.app.pulling`): which notes Anki's copy changed since the last build,
which the card file changed, what each becomes (updated, added, a conflict, deleted), the
card file's changes (:mod:`deckbuilder.cardfile.patch`) and the lock file's.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from html import unescape as html_unescape
from pathlib import Path
from urllib.parse import unquote

from deckbuilder.anki.collection import AnkiNote
from deckbuilder.anki.identity import anki_guid, note_guid
from deckbuilder.anki.notetypes import OWN_KINDS, NoteTypeSpec, note_type
from deckbuilder.anki.pull_source import AnkiSource
from deckbuilder.app.requests import ALL_LANGUAGES, PullRequest
from deckbuilder.cardfile.fields import LOCALIZED_KEYS
from deckbuilder.cardfile.patch import CannotPatch, CardFilePatch
from deckbuilder.cardfile.reader import decks_from_tree, read_text
from deckbuilder.cardfile.writer import note_item_text
from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.errors import DeckError, Problem, shown
from deckbuilder.importers.pulled import PullReader, Reading, new_note_id
from deckbuilder.lock.anki_copy import anki_copy_hash
from deckbuilder.lock.format import LAST_SECOND, MAX_ANKI_ID, Manifest, NoteEntry, lock_path
from deckbuilder.lock.manifest import note_hashes
from deckbuilder.model import Deck, Note
from deckbuilder.render.deck import RenderedDeck, render_decks


@dataclass(frozen=True)
class PulledNote:
    """What became of one note. ``what``: updated, added, same (edited alike on both
    sides, or to what the card file already says), deleted (in Anki; kept), removed
    (deleted in Anki and from the card file), conflict, kept (a conflict settled for the
    card file), refused (it cannot be pulled; ``reason`` says why), stale (a note removed
    from the card file before, still in Anki: not added again)."""

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


@dataclass
class CardFile:
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
    def load(cls, path: Path, media_dir: Path | None) -> CardFile:
        data = _read_bytes(path)
        text = read_text(path)
        decks = card_file_decks(path, text, media_dir)
        rendered, problems = render_decks(decks)
        if problems:
            raise DeckError(problems)
        return cls(path, data, text, decks, rendered, media_dir)

    def forget_plan(self) -> None:
        """Forget the changes planned, to plan them again."""
        self.patch = None
        self.planned = {}
        self.deleted = {}

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


def card_file_decks(path: Path, text: str, media_dir: Path | None) -> list[Deck]:
    """The decks of a card file's text, one per language; DeckError with its problems."""
    tree, problems = read_yaml(text, str(path), LOCALIZED_KEYS)
    if problems:
        raise DeckError(problems)
    return decks_from_tree(path, tree, media_dir, ALL_LANGUAGES, source=text)


@dataclass
class LockChange:
    """How one deck's lock file changes: entries replaced or added, entries removed."""

    entries: dict[str, NoteEntry] = field(default_factory=dict)  # content filled in later
    hashes_from_render: set[str] = field(default_factory=set)  # note ids whose content is new
    removed: list[NoteEntry] = field(default_factory=list)
    # Notes that speak, with Anki's fields and a time after the last build: when the card
    # file speaks another text than Anki's copy does (its speech is made from the text
    # by the build), the next build must give Anki the new speech.
    spoken: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)


class PullState:
    """What a pull knows of the project and of SOURCE, and what it has planned so far."""

    def __init__(
        self,
        request: PullRequest,
        source: AnkiSource,
        by_guid: dict[str, AnkiNote],
        files: list[CardFile],
        locks: dict[Path, tuple[str, Manifest]],
        unwritable: dict[tuple[str, str], str],
    ) -> None:
        self.request = request
        # Notes whose copy in Anki the card file's checks refuse, by (card file, note
        # id), with why: found by writing them, then left out.
        self.unwritable = unwritable
        self.source = source
        self.by_guid = by_guid
        self.files = files
        self.locks = locks
        self.problems: list[Problem] = []
        self.changes: dict[Path, LockChange] = {}  # by lock file
        self.manifests: dict[Path, Manifest] = {}
        self.media: dict[str, tuple[Path, bytes]] = {}  # name -> (target, bytes)
        # The GUIDs of the decks pulled, and of the project's other decks (from their
        # lock files): a note in Anki that is one of theirs is never added here.
        self.ours: dict[str, tuple[str, str]] = {}  # GUID -> (deck key, note id)
        for card in files:
            for deck in card.decks:
                for note in deck.notes:
                    self.ours[anki_guid(deck.key, note)] = (deck.key, note.id)
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

    def new_anki_id(self, wanted: int) -> int:
        """Anki's own note id for a note added there, unless a deck of the project holds
        it; else the next id above every id given."""
        if 1 <= wanted <= MAX_ANKI_ID and wanted not in self.held_ids:
            self.held_ids.add(wanted)
            return wanted
        self.id_floor = max(self.id_floor, *self.held_ids) + 1
        self.held_ids.add(self.id_floor)
        return self.id_floor


class DeckPlan:
    """Compares one deck (one language of a card file) with SOURCE and plans its changes."""

    def __init__(self, pulling: PullState, card: CardFile, index: int, manifest: Manifest) -> None:
        self.pulling = pulling
        self.request = pulling.request
        self.card = card
        self.deck = card.decks[index]
        self.rd = card.rendered[index]
        self.manifest = manifest
        self.lock = lock_path(self.deck)
        self.reader = PullReader(self.rd)
        self.change = pulling.changes.setdefault(self.lock, LockChange())
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
        return anki_guid(self.deck.key, note)

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
        in_anki = anki_copy_hash(anki.fields, anki.tags)
        if anki.type_id != spec.id:
            if entry is not None and card_changed and in_anki == entry.anki:
                # The card file gave the note its new type (reverse: true, say), and Anki
                # has the note as the last build gave it: the next build carries it.
                self.changed_in_cards += 1
                return
            # This note alone is left out: the other notes' edits still come in.
            why = (
                f"Anki's note {anki.id} has another note type ({self.type_name(anki.type_id)}, "
                f"the card file's: '{spec.name}'), and a pull does not change a note's type: "
                + (
                    "make Anki's edit in the card file by hand (the card file changed the "
                    "note since the last build too)"
                    if card_changed
                    else 'import the last build with "Merge note types" ticked (it gave the '
                    "note this type, and Anki kept its own), then pull again"
                    if entry is not None and _mod(anki) < entry.changed
                    else "change it back in Anki (Change Note Type) and pull again, or make "
                    "Anki's edit in the card file by hand"
                )
            )
            self.record(note, "refused", anki, reason=why)
            return
        if entry is None:
            self.changed_in_cards += 1  # new in the card file since the last build
            return
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
            # What Anki's copy has that the card file cannot hold is why they read alike.
            self.record(note, "same", anki, losses=reading.losses)
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
        why = self.pulling.unwritable.get((str(self.card.path), note.id))
        if why is not None:
            self.record(note, "refused", anki, reason=why)
            return
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
            change = self.pulling.changes.setdefault(lock_path(deck), LockChange())
            lock = self.pulling.manifests.get(lock_path(deck))
            gone = lock.notes.get(note.id) if lock is not None else None
            if gone is not None:
                change.removed.append(gone)
        self.notes.append(replace(shown_entry, what="removed"))

    def added(self) -> None:
        """Notes added in Anki to this deck, with one of its note types."""
        inside = self.deck.name + "::"
        specs = {rn.spec.id: rn.spec for rn in self.rd.notes}
        for key, held in self.manifest.note_types.items():  # the deck's, once or now
            own = next((note_type(kind) for kind in OWN_KINDS if kind.value == key), None)
            if own is not None and own.id == held.anki_id:
                specs.setdefault(own.id, own)
        taken = {note.id for note in self.deck.notes}
        # The decks Anki has this deck's notes in, when none is the deck's own name: the
        # deck was renamed in Anki, and a note added to it there is named, not left out.
        homes = {
            found.deck
            for note in self.deck.notes
            if (found := self.pulling.by_guid.get(self.guid(note))) is not None
        }
        if any(home == self.deck.name or home.startswith(inside) for home in homes):
            homes = set()
        if homes:
            # Another deck's home (a note moved there in Anki) is that deck's to pull.
            names = {deck.name for card in self.pulling.files for deck in card.decks}
            homes = {h for h in homes if not any(h == n or h.startswith(n + "::") for n in names)}
            homes -= {n.deck for n in self.pulling.source.notes if n.guid in self.pulling.others}
        for anki in self.pulling.source.notes:
            renamed = anki.deck in homes
            if not (renamed or anki.deck == self.deck.name or anki.deck.startswith(inside)):
                continue
            if anki.guid in self.pulling.ours:
                continue
            other = self.pulling.others.get(anki.guid)
            if other is not None and renamed:
                continue  # another deck's note, beside this deck's: not this deck's to pull
            if other is not None:
                self.pulling.problem(
                    self.pulling.source.path,
                    f"Anki's note {anki.id} in deck {shown(anki.deck)} is note '{other[1]}' of "
                    f"deck '{other[0]}' (its GUID): pull that deck's card file with this one, "
                    "or move the note back to its deck in Anki",
                )
                continue
            self.notes.append(self.added_note(anki, renamed, specs, taken))

    def added_note(
        self, anki: AnkiNote, renamed: bool, specs: dict[int, NoteTypeSpec], taken: set[str]
    ) -> PulledNote:
        """What becomes of Anki's note ``anki``, added in Anki to this deck: added to the
        card file (with an id none of ``taken`` has, then taken), or why not."""
        label = f"anki-{anki.id}"
        if renamed:
            why = (
                f"added in Anki to deck {shown(anki.deck)}, which holds this deck's notes "
                f"under another name than {shown(self.deck.name)} (renamed in Anki?): "
                "rename it back there and pull again, or add the note to the card file "
                "yourself"
            )
            return PulledNote(label, "refused", None, anki.id, reason=why)
        if anki.id < self.manifest.id_floor():
            # An id this deck gave (Anki numbers a note it makes by the time it is
            # made, after every build): a note removed from the card file, which
            # learners delete in Anki themselves (build lists it then).
            return PulledNote(label, "stale", None, anki.id)
        spec = specs.get(anki.type_id)
        if spec is None:
            why = (
                f"added in Anki with note type {self.type_name(anki.type_id)}, which no "
                "note of this deck has; add it to the card file yourself"
            )
            return PulledNote(label, "refused", None, anki.id, reason=why)
        if self.deck.lang:
            why = (
                "added in Anki to one language's deck: a card file with languages cannot "
                "keep its GUID; add it to the card file in every language yourself, then "
                "delete it in Anki"
            )
            return PulledNote(label, "refused", None, anki.id, reason=why)
        reading = self.reader.read(anki, spec, None)
        if isinstance(reading, str):
            return PulledNote(label, "refused", None, anki.id, reason=reading)
        missing = self.bring_media(anki)
        if missing:
            return PulledNote(label, "refused", None, anki.id, reason=missing)
        note_id = new_note_id(reading.note, taken)
        taken.add(note_id)
        refused = self.pulling.unwritable.get((str(self.card.path), note_id))
        if refused is not None:
            return PulledNote(note_id, "refused", None, anki.id, reason=refused)
        new = replace(reading.note, id=note_id)
        try:
            self.card.patched().add_note(new)
        except CannotPatch as exc:
            return PulledNote(note_id, "refused", None, anki.id, reason=str(exc))
        self.planned[note_id] = new
        self.change.entries[note_id] = NoteEntry(
            note_id,
            self.pulling.new_anki_id(anki.id),
            "",
            _mod(anki),
            anki=anki_copy_hash(anki.fields, anki.tags),
        )
        self.change.hashes_from_render.add(note_id)
        return PulledNote(note_id, "added", None, anki.id, losses=reading.losses)

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
# A quoted name may hold spaces ("my pic.png", as Anki's editor keeps a pasted file's name).
_IMAGE = re.compile(
    r"""<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^"'\s>]+))""", re.IGNORECASE
)
_SOUND = re.compile(r"\[sound:([^\]]+)\]")


def _media_names(fields: Iterable[str]) -> list[str]:
    names = []
    for html in fields:
        names += [unquote(html_unescape("".join(found))) for found in _IMAGE.findall(html)]
        names += _SOUND.findall(html)
    return [unicodedata.normalize("NFC", name) for name in dict.fromkeys(names)]


_TTS = re.compile(r"\[anki:tts[^\]]*\].*?\[/anki:tts\]", re.DOTALL)


def speech(fields: Sequence[str]) -> list[str]:
    """What a note's fields speak (Anki's text-to-speech tags)."""
    return [found for text in fields for found in _TTS.findall(text)]


def _mod(anki: AnkiNote) -> int:
    """Anki's modification time as a lock file holds it (see importers.anki_package)."""
    return min(max(anki.mod, 0), LAST_SECOND)
