"""The build's last step: rendered decks -> packages and lock files.

The build (:mod:`deckbuilder.app.building`) loads and renders every deck before anything
is written, so invalid input never writes or replaces a package; packages and lock files
are replaced together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from deckbuilder.anki.built import BuiltNote, read_built
from deckbuilder.anki.identity import anki_guid, note_guid
from deckbuilder.anki.package import Stamps, stage_package
from deckbuilder.anki.search import deck_notes_search
from deckbuilder.app.lockfiles import ProjectLocks
from deckbuilder.errors import DeckError, OutputError, Problem, plural
from deckbuilder.files.atomic import PartlyReplaced, Staging, remove_stale
from deckbuilder.files.reading import contents_if_any
from deckbuilder.lock.format import Manifest, NoteEntry, format_manifest, lock_path
from deckbuilder.lock.manifest import Changes, Update, update_manifest
from deckbuilder.render.deck import RenderedDeck


@dataclass(frozen=True)
class PackageResult:
    rendered: RenderedDeck
    path: Path
    size: int
    changes: Changes  # what changed since the last build (from the lock file)
    first_build: bool  # there was no lock file before this build
    lock: Path  # the lock file
    lock_written: bool  # whether the lock file changed
    # The lock file the card file left in another folder, which this build moved beside
    # it (None: it was there).
    lock_moved_from: Path | None = None
    # The deck's name in the package this build replaced (None: none, or none it could read).
    replaced_name: str | None = None

    @property
    def removed_search(self) -> str:
        """What finds the removed notes in Anki's browser, in this deck only ('' if none)."""
        removed = self.changes.removed
        if not removed:
            return ""
        return deck_notes_search(self.rendered.deck.name, (e.anki_id for e in removed))

    def removed_search_for(self, entry: NoteEntry) -> str:
        """What finds one removed note in Anki's browser, in this deck only."""
        return deck_notes_search(self.rendered.deck.name, (entry.anki_id,))


def package_path(out_dir: Path, rd: RenderedDeck) -> Path:
    return out_dir / f"{rd.deck.key}.apkg"


def write_packages(
    rendered: Sequence[RenderedDeck],
    out_dir: Path,
    *,
    timestamp: int,
    replaced: list[Path] | None = None,
    still_current: Callable[[], Sequence[Problem]] | None = None,
) -> list[PackageResult]:
    """Write rendered decks (from :func:`deckbuilder.app.checking.render_selection`) as
    packages, with their lock files.

    ``timestamp`` is the clock (seconds since 1970): it is given only to notes and note
    types whose content changed since the last build. Every lock file is read and every
    update planned before anything is written. Then every package and every changed lock
    file is written to a temporary file beside it, and only once all are complete are
    they renamed into place, together (:class:`deckbuilder.files.atomic.Staging`): a failure
    or an interrupt leaves every package and lock file as it was, or the error names the
    files that are new. ``replaced`` gets each file as it is replaced, so that an
    interrupt, even one that comes after the last rename, is told with the files it left
    new. ``still_current`` is asked, once everything is staged and before anything is
    replaced, whether the sources are still what was read; what it finds stops the write.

    The project's other lock files are read too (:class:`ProjectLocks`): a deck whose
    card file moved builds from the lock file it left behind, which is removed once its
    copy beside the card file is in place; what the lock files of decks no card file has
    now call for is a problem or a warning.
    """
    updates, names = [], []
    problems: list[Problem] = []
    project = ProjectLocks(rendered)
    for rd in rendered:
        own = lock_path(rd.deck)
        try:
            old = project.previous(rd.deck)
            package = package_path(out_dir, rd)
            built = read_built(package, rd.deck.key)
            others = project.others(own, rd.deck.key)
            update = update_manifest(old, rd, timestamp, others, _published(built.notes, rd))
        except DeckError as exc:
            problems.extend(exc.problems)
            continue
        left = _left_in_package(package, built.notes, rd, old)
        updates.append(replace(update, warnings=update.warnings + left))
        names.append(built.deck_name)
        project.record(own, rd.deck, update.manifest)
    refused, warnings = project.left_behind(out_dir)
    problems += refused
    if problems:
        raise DeckError(problems)
    kept = _kept_elsewhere(rendered, updates, project)
    updates = _left_for(rendered, kept, project.lost_notes())

    try:
        with Staging() as staging:
            results = [
                _stage_deck(staging, rd, update, out_dir, timestamp, project.moved, name)
                for rd, update, name in zip(rendered, updates, names, strict=True)
            ]
            stale = still_current() if still_current is not None else ()
            if stale:
                raise DeckError(stale)
            staging.commit(replaced)
    except PartlyReplaced:
        raise  # it names the files that are new
    except OutputError as exc:
        raise OutputError(f"{exc}; no package or lock file was replaced") from exc
    for result in results:
        if result.lock_moved_from is not None:
            try:
                result.lock_moved_from.unlink()
            except OSError as exc:
                warnings.append(
                    Problem.warning(
                        str(result.lock_moved_from),
                        None,
                        f"cannot remove this lock file, now moved to {result.lock}: "
                        f"{exc.strerror or exc}; delete it",
                    )
                )
    if warnings and results:
        # Of the project, not of one deck: told once, with the first deck's warnings.
        first = results[0]
        warned = replace(first.rendered, warnings=first.rendered.warnings + tuple(warnings))
        results[0] = replace(first, rendered=warned)
    return results


def _stage_deck(
    staging: Staging,
    rd: RenderedDeck,
    update: Update,
    out_dir: Path,
    timestamp: int,
    moved: Mapping[Path, Path],
    replaced_name: str | None,
) -> PackageResult:
    """Stage one deck's package and (if it changed) its lock file. ``moved``: the lock
    files that move beside their card files (see :class:`ProjectLocks`)."""
    package, lock = package_path(out_dir, rd), lock_path(rd.deck)
    remove_stale(package)
    remove_stale(lock)
    lock_data = format_manifest(rd.deck, update.manifest).encode("utf-8")
    lock_changed = contents_if_any(lock) != lock_data
    # A lock file is renamed before its package. A run killed between the two (SIGKILL,
    # power loss) leaves the new lock with the old package, and the next build writes the
    # new package from that lock, which holds every id and time the package is made from.
    # The other way round, the next build would stamp the same changes anew.
    if lock_changed:
        staging.stage_bytes(lock, lock_data)
    stamps = _stamps(update.manifest)
    info = stage_package(staging, rd, package, timestamp=timestamp, stamps=stamps)
    # What the lock file's update settled (shared ids after a merge...) is told with the
    # deck's other warnings.
    warned = replace(rd, warnings=rd.warnings + update.warnings)
    return PackageResult(
        warned,
        info.path,
        info.size,
        update.changes,
        update.first_build,
        lock,
        lock_changed,
        moved.get(lock),
        replaced_name,
    )


def _kept_elsewhere(
    rendered: Sequence[RenderedDeck], updates: list[Update], project: ProjectLocks
) -> list[Update]:
    """The updates without the removed notes whose GUID a note of the project now has (a
    note moved to another card file with a ``guid:`` of its old GUID, as when a deck is
    split): Anki updates that note in place, with its reviews, and a search for its Anki
    note id would find it, so it is told instead of listed for deletion."""
    if not any(update.changes.removed for update in updates):
        return updates
    guids = {**project.guids_not_built(), **project.guids}
    kept = []
    for rd, update in zip(rendered, updates, strict=True):
        removed, told = [], []
        for entry in update.changes.removed:
            holder = guids.get(note_guid(rd.deck.key, entry.id))
            if holder is None:
                removed.append(entry)
                continue
            told.append(
                Problem.warning(
                    str(lock_path(rd.deck)),
                    entry.line,
                    f"removed from the deck, but not listed for deletion: note '{holder[1]}' "
                    f"of deck '{holder[0]}' has its GUID, so Anki updates this note in place, "
                    "with its reviews (its cards stay in the deck they are in: move them with "
                    "Change Deck in Anki's browser)",
                    entry.id,
                    "lock",
                )
            )
        changes = replace(update.changes, removed=tuple(removed))
        kept.append(replace(update, changes=changes, warnings=update.warnings + tuple(told)))
    return kept


def _left_for(
    rendered: Sequence[RenderedDeck], updates: list[Update], lost: Mapping[str, tuple[str, str]]
) -> list[Update]:
    """The updates with a warning for each note added to a deck that another deck of this
    build removed, or whose card file is gone (``lost``: by note id, its deck id and card
    file name), as when a deck is split in two or two are merged: a note's GUID comes from
    its deck id, so to Anki it is a new note, and the old note keeps the reviews. A
    ``guid:`` of the old GUID keeps the old note (:func:`_kept_elsewhere`)."""
    gone = dict(lost)
    gone.update(
        (entry.id, (rd.deck.key, rd.deck.source.name))
        for rd, update in zip(rendered, updates, strict=True)
        for entry in update.changes.removed
    )
    told = []
    for rd, update in zip(rendered, updates, strict=True):
        found = []
        for rn in rd.notes:
            old = gone.get(rn.note.id)
            if old is None or old[0] == rd.deck.key or rn.note.id not in update.changes.added:
                continue
            if rn.note.guid:  # a GUID of its own, the old one or another: told elsewhere
                continue
            key, name = old
            guid = json.dumps(note_guid(key, rn.note.id))
            found.append(
                Problem.warning(
                    str(rd.deck.source),
                    rn.note.line,
                    f"note '{rn.note.id}' of deck '{key}' ({name}) left it for "
                    "this card file: to Anki this is a new note, which learners get again, as "
                    "new, while its reviews stay with the old one; to keep that note and its "
                    f"reviews, add 'guid: {guid}' to this note",
                    rn.note.id,
                )
            )
        told.append(replace(update, warnings=update.warnings + tuple(found)))
    return told


def _published(notes: Mapping[str, BuiltNote], rd: RenderedDeck) -> dict[str, BuiltNote]:
    """By note id, the deck's notes in the package this build replaces (``notes``, by
    GUID), which learners may have imported (see :func:`update_manifest`)."""
    if not notes:  # no package yet, or one that cannot be read
        return {}
    copies = ((rn.note.id, notes.get(anki_guid(rd.deck.key, rn.note))) for rn in rd.notes)
    return {note_id: copy for note_id, copy in copies if copy is not None}


def _left_in_package(
    package: Path, built: Mapping[str, BuiltNote], rd: RenderedDeck, old: Manifest | None
) -> tuple[Problem, ...]:
    """A warning when the package this build replaces has notes that neither the card file
    nor the lock file has: a `git revert` of the commit that added them takes them out of
    both, and then no build lists them as removed, while learners who imported them keep
    them. The package has their Anki note ids, so the warning gives the search."""
    if not built:
        return ()
    known = {anki_guid(rd.deck.key, rn.note) for rn in rd.notes}
    # The lock file's notes by Anki note id: a note with a guid: of its own has no GUID
    # the lock file could give.
    listed = {entry.anki_id for entry in old.notes.values()} if old else set()
    left = sorted(
        copy.anki_id
        for guid, copy in built.items()
        if guid not in known and copy.anki_id not in listed
    )
    if not left:
        return ()
    return (
        Problem.warning(
            str(rd.deck.source),
            None,
            f"{package} (the package this build replaces) has {plural(len(left), 'note')} "
            "that neither this card file nor its lock file has, as after a git revert of the "
            "commit that added them: learners who imported it keep them. If they are gone "
            "for good, delete them in Anki: search the browser for "
            f"{deck_notes_search(rd.deck.name, left)}; if that package is a build of "
            "another branch, ignore this",
        ),
    )


def _stamps(manifest: Manifest) -> Stamps:
    """The ids and times a lock file gives a package."""
    return Stamps(
        note_ids={key: entry.anki_id for key, entry in manifest.notes.items()},
        note_mod={key: entry.changed for key, entry in manifest.notes.items()},
        note_type_mod={t.anki_id: t.changed for t in manifest.note_types.values()},
    )
