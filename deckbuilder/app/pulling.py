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

import hashlib
import tempfile
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deckbuilder.anki.collection import AnkiNote
from deckbuilder.anki.identity import anki_guid
from deckbuilder.anki.pull_source import AnkiSource, read_anki_source
from deckbuilder.app.lockfiles import ProjectLocks
from deckbuilder.app.pull_notes import (
    CardFile,
    DeckPlan,
    LockChange,
    PulledDeck,
    PulledNote,
    PullState,
    speech,
)
from deckbuilder.app.requests import ALL_LANGUAGES, PullRequest
from deckbuilder.cardfile.fields import LOCALIZED_KEYS
from deckbuilder.cardfile.reader import decks_from_tree, find_sources
from deckbuilder.cardfile.writer import note_item_text
from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq
from deckbuilder.errors import DeckError, OutputError, Problem, RequestError, shown
from deckbuilder.files.atomic import PartlyReplaced, Staging
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.files.reading import contents_if_any
from deckbuilder.lock.format import LAST_SECOND, Manifest, format_manifest, lock_path, read_manifest
from deckbuilder.lock.manifest import note_hashes
from deckbuilder.model import Deck, Note
from deckbuilder.render.deck import RenderedDeck, render_deck

PREFER = ("anki", "cards")


@dataclass(frozen=True)
class PullResult:
    decks: tuple[PulledDeck, ...]
    diff: str  # the card files' changes as a unified diff
    written: tuple[Path, ...]  # files replaced (none with dry_run)
    dry_run: bool

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
    files = [CardFile.load(path, selection.media_dir) for path in find_sources(selection.sources)]
    source = read_anki_source(request.source)
    by_guid = _by_guid(source)
    project = ProjectLocks([rd for card in files for rd in card.rendered])
    locks = {path: (lock.key, lock.manifest) for path, lock in project.locks.items()}
    unwritable: dict[tuple[str, str], str] = {}
    while True:
        pulling = _Pulling(request, source, by_guid, files, locks, unwritable)
        decks = [pulling.deck(card, index) for card in files for index in range(len(card.decks))]
        if pulling.problems:
            raise DeckError(pulling.problems)
        try:
            writes, diff = pulling.finish()
            break
        except _Unwritable as exc:
            # Planned again without those notes: each pass leaves out at least one more.
            assert not exc.notes.keys() <= unwritable.keys(), "planned the same again"
            unwritable.update(exc.notes)
            for card in files:
                card.forget_plan()
    written: list[Path] = []
    if not request.dry_run and writes:
        _write(writes, files, request.written)
        written = [path for path, _ in writes]
    return PullResult(tuple(decks), diff, tuple(written), request.dry_run)


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


class _Unwritable(Exception):
    """Pulled notes that the card file's checks refuse as Anki has them, by (card file,
    note id), with why: the pull plans again without them."""

    def __init__(self, notes: dict[tuple[str, str], str]) -> None:
        super().__init__(notes)
        self.notes = notes


class _Pulling(PullState):
    """A pull's planning, deck by deck, then the files it writes."""

    def deck(self, card: CardFile, index: int) -> PulledDeck:
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
        return DeckPlan(self, card, index, manifest).run()

    def in_source(self, deck: Deck) -> bool:
        """Whether SOURCE holds the deck: a note of it, or a note in its Anki deck."""
        inside = deck.name + "::"
        if any(n.deck == deck.name or n.deck.startswith(inside) for n in self.source.notes):
            return True
        return any(anki_guid(deck.key, note) in self.by_guid for note in deck.notes)

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
                decks, rendered = self.read_back(card, new_text, media_copies)
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
                if data != contents_if_any(lock):
                    lock_writes.append((lock, data))
        if self.problems:
            raise DeckError(self.problems)
        media = [(target, data) for target, data in self.media.values()]
        refuse_links_out([target for target, _ in media], "nothing is written through it")
        writes += media
        writes += card_writes + lock_writes
        return writes, "".join(diffs)

    def read_back(
        self, card: CardFile, text: str, media: Path | None
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
            # A pulled note the checks refuse (deletions numbered otherwise in one
            # language, a note left with no card) is named, and the others written.
            if exc.problems and all(p.note in changed for p in exc.problems):
                why: dict[tuple[str, str], list[str]] = {}
                for p in exc.problems:
                    why.setdefault((str(card.path), str(p.note)), []).append(p.message)
                raise _Unwritable(
                    {
                        key: f"the card file cannot hold Anki's copy: {'; '.join(messages)}"
                        for key, messages in why.items()
                    }
                ) from None
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

    def new_manifest(self, old: Manifest, change: LockChange, rd: RenderedDeck) -> Manifest:
        """``old`` with ``change`` made; ``rd`` holds (at least) the notes whose content
        hash the change takes from the card file as pulled."""
        notes = dict(old.notes)
        hashes = dict(zip((rn.note.id for rn in rd.notes), note_hashes(rd), strict=True))
        fields = {rn.note.id: rn.fields for rn in rd.notes}
        for note_id, entry in change.entries.items():
            if note_id in change.hashes_from_render:
                entry = replace(entry, content=hashes[note_id])
            spoken = change.spoken.get(note_id)
            if spoken is not None and speech(fields[note_id]) != speech(spoken[0]):
                entry = replace(entry, changed=spoken[1])
            notes[note_id] = entry
        next_anki_id = old.next_anki_id
        for entry in change.removed:
            notes.pop(entry.id, None)
            next_anki_id = max(next_anki_id, entry.anki_id + 1)
        return Manifest(old.note_types, notes, next_anki_id)


def _item_id(item: object) -> str | None:
    value = item.get("id") if isinstance(item, YMap) else None
    return value.raw if isinstance(value, YScalar) else None


def _written(note: Note) -> str:
    return unicodedata.normalize("NFC", note_item_text(replace(note, line=0), 0))


def _encoded(card: CardFile, text: str) -> bytes:
    """The new text in the file's own encoding: a byte order mark and CRLF line ends kept."""
    bom = b"\xef\xbb\xbf" if card.data.startswith(b"\xef\xbb\xbf") else b""
    if b"\r\n" in card.data:
        text = text.replace("\n", "\r\n")
    return bom + text.encode("utf-8")


def _write(
    writes: Sequence[tuple[Path, bytes]], files: Sequence[CardFile], replaced: list[Path]
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
                if _digest(contents_if_any(card.path)) != _digest(card.data)
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
