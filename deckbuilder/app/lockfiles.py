"""The lock files of a project, beyond each deck's own: the Anki note ids the other decks
hold, the lock file a moved card file left behind, and lock files no card file has now.

A project keeps its card files in ``cards/`` (subfolders too), each deck's lock file
beside its card file, whose header names the deck and the card file it was last written
for. Anki knows a note by a GUID made from its deck id and note id, and a deck id is the
card file's name unless the file says ``id:``. So a card file moved to another folder is
the same deck, and its lock file follows it; a card file renamed without ``id:`` is a new
deck, whose notes learners would get again as new ones, and its first build is refused
while the old deck's lock file holds its notes; and a card file copied with its deck id
is refused even when built alone, as a build of both refuses it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from deckbuilder.anki.built import read_built
from deckbuilder.anki.identity import anki_guid, note_guid
from deckbuilder.anki.search import deck_notes_search
from deckbuilder.cardfile.deck import ALL_LANGUAGES
from deckbuilder.cardfile.fields import shown
from deckbuilder.cardfile.reader import SOURCE_SUFFIXES, deck_id_problems, load_decks
from deckbuilder.errors import DeckError, Problem
from deckbuilder.lock.format import Manifest, lock_path, read_manifest
from deckbuilder.lock.manifest import OtherDecks
from deckbuilder.model import Deck
from deckbuilder.render.deck import RenderedDeck

# The folder a project keeps its card files in: the lock files of all its decks are there.
CARDS_FOLDER = "cards"


@dataclass(frozen=True)
class _Lock:
    """A lock file of the project, and what its header says it belongs to."""

    path: Path
    key: str  # the deck id (the header's; the file name's when it has none)
    card: Path | None  # the card file it was last written for, beside it
    manifest: Manifest


class ProjectLocks:
    """The lock files of the project the decks of one build belong to: those in the
    ``cards`` folder holding them (in any subfolder), or else in the decks' own folders.
    One that cannot be read is left out: its own deck's build says why."""

    def __init__(self, rendered: Sequence[RenderedDeck]) -> None:
        self.folders = _project_folders(rendered)
        self.locks: dict[Path, _Lock] = {}
        for folder in self.folders:
            for path in sorted(folder.rglob("*.lock")):
                lock = _read_lock(path)
                if lock is not None:
                    self.locks[path] = lock
        # Each card file built, with every deck id it declares (all its languages').
        self.built: dict[Path, set[str]] = {}
        for rd in rendered:
            self.built.setdefault(_real(rd.deck.source), set()).update(_declared(rd.deck))
        self.declared = {key for keys in self.built.values() for key in keys}
        self.rendered = rendered
        self.own = {lock_path(rd.deck) for rd in rendered}
        self.moved: dict[Path, Path] = {}  # a deck's lock file -> the one it takes over
        self.stale: list[tuple[_Lock, Path]] = []  # old copies, and the lock file now
        self.new: list[Deck] = []  # decks no lock file in the project holds
        self._read: dict[Path, list[Deck]] = {}  # card files not built, as read
        self._by_key: dict[str, list[_Lock]] = {}  # the lock files, by deck
        for lock in self.locks.values():
            self._by_key.setdefault(lock.key, []).append(lock)

    def previous(self, deck: Deck) -> Manifest | None:
        """The manifest ``deck``'s build starts from: its own lock file's, or the one its
        card file left behind in another folder of the project; None when there is none.
        DeckError when a card file not built now has the deck id too (its lock file
        says so), as a build of both would refuse them."""
        own = lock_path(deck)
        mine = self.locks.get(own)
        elsewhere = [lock for lock in self._of_deck(deck.key) if lock.path != own]
        for lock in [mine, *elsewhere] if mine is not None else elsewhere:
            other = self._holder(lock, deck)
            if other:
                raise DeckError(deck_id_problems([deck], other))
        left = [lock for lock in elsewhere if lock.path not in self.moved.values()]
        if mine is not None or os.path.lexists(own):
            self.stale += [(lock, own) for lock in left]
            return mine.manifest if mine is not None else read_manifest(own)
        if len(left) > 1:
            raise DeckError.single(
                deck.source,
                f"deck '{deck.key}' has no lock file beside its card file, and "
                f"{len(left)} elsewhere ({', '.join(str(lock.path) for lock in left)}): move "
                f"the one it was last built with here as {own.name}, and delete the others",
            )
        if left:
            self.moved[own] = left[0].path
            return left[0].manifest
        self.new.append(deck)
        return None

    def _of_deck(self, key: str) -> list[_Lock]:
        """The lock files that say they belong to deck ``key``."""
        return [lock for lock in self._by_key.get(key, []) if self.locks.get(lock.path) is lock]

    def _holder(self, lock: _Lock, deck: Deck) -> list[Deck]:
        """The decks of the card file ``lock`` was last written for, when that file is
        another one than ``deck``'s, is not built now, and still has ``deck``'s id."""
        card = lock.card
        if card is None or _real(card) == _real(deck.source) or _real(card) in self.built:
            return []  # a card file built now has another id: the build of both says so
        decks = self._decks_of(card)
        return decks if any(deck.key in _declared(other) for other in decks) else []

    def _decks_of(self, card: Path) -> list[Deck]:
        """The decks of a card file not built now, as far as they can be read (its build
        says what is wrong with it); [] when there is no such file. Read once."""
        if card not in self._read:
            self._read[card] = []
            if os.path.isfile(card):
                try:
                    self._read[card] = load_decks([card], lang=ALL_LANGUAGES)
                except DeckError as exc:
                    self._read[card] = [d for d in exc.partial if isinstance(d, Deck)]
        return self._read[card]

    def others(self, own: Path, deck_key: str) -> OtherDecks:
        """The Anki note ids held by the decks of the project's lock files other than this
        deck's."""
        holders: dict[int, str] = {}
        floor = 0
        for path, lock in self.locks.items():
            if path != own and lock.key != deck_key:
                for entry in lock.manifest.notes.values():
                    held = holders.get(entry.anki_id)
                    if held is None or lock.key < held:
                        holders[entry.anki_id] = lock.key
                floor = max(floor, lock.manifest.id_floor())
        return OtherDecks(holders, floor)

    def record(self, own: Path, deck: Deck, manifest: Manifest) -> None:
        """The lock file ``deck``'s build will write: the decks after it in the same build
        keep clear of its new ids."""
        self.locks[own] = lock = _Lock(own, deck.key, deck.source, manifest)
        self._by_key.setdefault(deck.key, []).append(lock)

    def left_behind(self, out_dir: Path | None = None) -> tuple[list[Problem], list[Problem]]:
        """What the lock files of decks no card file has now call for: a problem for each
        deck built for the first time whose notes such a lock file holds (its card file
        renamed without ``id:``, or given another id), and a warning for each other such
        lock file and each old copy of a lock file that moved. ``out_dir``: where the
        packages of those decks were built, which name the deck in Anki."""
        lost = [lock for lock in self.locks.values() if self._lost(lock)]
        problems = []
        told: set[Path] = set()
        for deck in self.new:
            found = self._renamed_from(deck, lost)
            if found is not None:
                told.add(found.path)
                problems.append(_renamed(deck, found))
        warnings = [
            _lost(lock, self.built, out_dir, self.guids)
            for lock in lost
            if lock.path not in told
            and lock.card is not None
            # A card file gone from its folder may be a card file not built now that keeps
            # the deck id under another name: told only when every card file is built.
            and (_real(lock.card) in self.built or self.every_card_file_built)
        ]
        warnings += [_old_copy(lock, own) for lock, own in self.stale]
        return problems, warnings

    @cached_property
    def guids(self) -> dict[str, tuple[str, str]]:
        """The GUIDs of the notes built, each with its deck id and note id: a note that
        left a deleted deck with a ``guid:`` of its old GUID is still in Anki under it.
        Worked out when asked (a lock file left behind, a build that removes notes)."""
        return {
            anki_guid(rd.deck.key, rn.note): (rd.deck.key, rn.note.id)
            for rd in self.rendered
            for rn in rd.notes
        }

    def lost_notes(self) -> dict[str, tuple[str, str]]:
        """By note id, the deck id and card file name of each note that the lock file of a
        deck no card file has now holds, as far as can be told (see :meth:`left_behind`)."""
        found = {}
        for lock in self.locks.values():
            if (
                self._lost(lock)
                and lock.card is not None
                and (_real(lock.card) in self.built or self.every_card_file_built)
            ):
                found.update(dict.fromkeys(lock.manifest.notes, (lock.key, lock.card.name)))
        return found

    def _lost(self, lock: _Lock) -> bool:
        """Whether no card file has ``lock``'s deck, as far as can be told without reading
        the card files not built now: its card file is gone, or built as other decks."""
        if lock.path in self.own or lock.path in self.moved.values() or lock.card is None:
            return False
        if lock.key in self.declared:
            return False  # a language not built now, or an old copy (see stale)
        return _real(lock.card) in self.built or not os.path.lexists(lock.card)

    def _renamed_from(self, deck: Deck, lost: list[_Lock]) -> _Lock | None:
        """The lost lock file that holds most of ``deck``'s note ids (at least half of
        them, or of its own), preferring one of the same language; None when there is none
        or a card file not built now has its deck."""
        ids = {note.id for note in deck.notes}
        best: tuple[tuple[bool, int], _Lock] | None = None
        for lock in lost:
            shared = len(ids & lock.manifest.notes.keys())
            if shared and 2 * shared >= min(len(ids), len(lock.manifest.notes)):
                score = (_language(lock.key) == deck.lang, shared)
                if best is None or score > best[0]:
                    best = (score, lock)
        if best is None:
            return None
        lock = best[1]
        return None if self._declared_elsewhere(lock) else lock

    def _declared_elsewhere(self, lock: _Lock) -> bool:
        """Whether a card file of the project not built now declares ``lock``'s deck."""
        return not self.every_card_file_built and any(
            lock.key in _declared(deck)
            for card in self._card_files()
            if _real(card) not in self.built
            for deck in self._decks_of(card)
        )

    def guids_not_built(self) -> dict[str, tuple[str, str]]:
        """The ``guid:`` keys of the notes of the project's card files not built now, each
        with its deck id and note id: a note moved to such a card file with its old GUID
        is still that note in Anki. Read only when asked (a build that removes notes)."""
        found: dict[str, tuple[str, str]] = {}
        for card in self._card_files():
            if _real(card) in self.built:
                continue
            for deck in self._decks_of(card):
                found.update((note.guid, (deck.key, note.id)) for note in deck.notes if note.guid)
        return found

    def _card_files(self) -> list[Path]:
        return [
            path
            for folder in self.folders
            for path in sorted(folder.rglob("*"))
            if path.suffix in SOURCE_SUFFIXES and path.is_file()
        ]

    @cached_property
    def every_card_file_built(self) -> bool:
        return all(_real(card) in self.built for card in self._card_files())


def _project_folders(rendered: Iterable[RenderedDeck]) -> list[Path]:
    folders = set()
    for rd in rendered:
        folder = rd.deck.source.parent
        cards = next((p for p in (folder, *folder.parents) if p.name == CARDS_FOLDER), None)
        folders.add(cards or folder)
    return sorted(folders)


def _read_lock(path: Path) -> _Lock | None:
    try:
        manifest = read_manifest(path) if path.is_file() else None
    except DeckError:
        return None
    if manifest is None:
        return None
    header = manifest.header
    if header is None:
        return _Lock(path, path.stem, None, manifest)
    # A header is text anyone may have typed: only a plain file name names a card file.
    name = header.source
    plain = name not in ("", ".", "..") and not any(c in name for c in "/\\\x00")
    return _Lock(path, header.key, path.parent / name if plain else None, manifest)


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _declared(deck: Deck) -> set[str]:
    """The deck ids of ``deck``'s card file: every language's, for a file with several."""
    if not deck.lang:
        return {deck.key}
    base = _base(deck.key)
    return {f"{base}.{code}" for code in deck.languages}


def _base(key: str) -> str:
    """The ``id:`` a deck id comes from ('topic' for 'topic.en': ids have no dots)."""
    return key.split(".", 1)[0]


def _language(key: str) -> str:
    return key.split(".", 1)[1] if "." in key else ""


def _renamed(deck: Deck, lock: _Lock) -> Problem:
    assert lock.card is not None
    name, base, key = shown(lock.card.name), shown(_base(lock.key)), shown(lock.key)
    shared = len({n.id for n in deck.notes} & lock.manifest.notes.keys())
    if _real(lock.card) == _real(deck.source) and _base(lock.key) == _base(deck.key):
        whose = f"as {name} was last built"
        fix = _languages_fix(lock.key, deck.lang, name)
    elif _real(lock.card) == _real(deck.source):
        whose = f"as {name} was last built"
        fix = f"if you changed its id, change it back to 'id: {base}'"
    else:
        whose = f"({name}), which no card file has now"
        fix = f"if you renamed {name} to {deck.source.name}, add 'id: {base}' to it"
    return Problem(
        str(deck.source),
        None,
        f"deck '{deck.key}' has no lock file, but {lock.path} belongs to deck '{key}' "
        f"{whose}, and holds {shared} of its {len(deck.notes)} note ids: {fix} to keep its "
        "notes' identities (without it learners get every note again, as new); if it is a "
        f"new deck, delete {lock.path}",
    )


def _lost(
    lock: _Lock, built: dict[Path, set[str]], out_dir: Path | None, guids: Mapping[str, object]
) -> Problem:
    assert lock.card is not None
    name, base, key = shown(lock.card.name), shown(_base(lock.key)), shown(lock.key)
    now = built.get(_real(lock.card))
    was = _language(lock.key)
    if now is not None and was and any(_base(other) == _base(lock.key) for other in now):
        message = (
            f"belongs to deck '{key}', the '{was}' language of {name} as it was last built, "
            f"but {name} is now deck {', '.join(repr(key) for key in sorted(now))}: to keep "
            f"building that language, add '{was}' to its 'languages:'; if you removed it, "
            "delete this lock file"
        )
    elif now is not None:
        message = (
            f"belongs to deck '{key}' as {name} was last built, but {name} is "
            f"now deck {', '.join(repr(key) for key in sorted(now))}: if you changed its id, "
            f"change it back to 'id: {base}' to keep its notes' identities; else delete this "
            "lock file"
        )
    else:
        message = (
            f"belongs to deck '{key}' ({name}), which no card file has now: if "
            f"you renamed {name}, add 'id: {base}' to the renamed card file to keep its notes' "
            f"identities; if you deleted the deck, {_delete_notes(lock, out_dir, guids)}delete this "
            "lock file"
        )
    return Problem.warning(str(lock.path), None, message)


def _delete_notes(lock: _Lock, out_dir: Path | None, guids: Mapping[str, object]) -> str:
    """How to find the deleted deck's notes in Anki, which keeps them: the lock file has
    their Anki note ids, and the deck's last package its name, which the search needs to
    find no other deck's note. '' when there is no such package. A note whose GUID a note
    built now has (``guids``) is that note in Anki, and is left out."""
    ids = sorted(
        entry.anki_id
        for entry in lock.manifest.notes.values()
        if note_guid(lock.key, entry.id) not in guids
    )
    name = read_built(out_dir / f"{lock.key}.apkg", lock.key).deck_name if out_dir else None
    if not ids or name is None:
        return ""
    return (
        f"delete its notes in Anki (learners keep them; search the browser for "
        f"{deck_notes_search(name, ids)}), then "
    )


def _languages_fix(lock_key: str, lang: str, name: str) -> str:
    """What keeps the notes' identities when a card file kept its id but not its
    languages: each language of a file with ``languages:`` is a deck of its own to Anki
    ('<id>.<code>'), and a file without it is the deck '<id>', so adding, removing or
    renaming languages makes other decks. Changing the id back would change nothing."""
    was = _language(lock_key)
    if not was:
        return (
            f"{name} had no 'languages:' then, and each language of a card file with "
            f"'languages:' is a deck of its own: leave 'languages:' out and give the other "
            "languages card files of their own"
        )
    if not lang:
        return f"'{was}' was one of its 'languages:' then: write 'languages: [{was}]'"
    return (
        f"'{was}' was one of its 'languages:' then: if you renamed it to '{lang}', change it back"
    )


def _old_copy(lock: _Lock, own: Path) -> Problem:
    return Problem.warning(
        str(lock.path),
        None,
        f"an old copy of deck '{shown(lock.key)}''s lock file, which is {own} beside its "
        "card file now: delete this one",
    )
