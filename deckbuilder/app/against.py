"""``build --against SOURCE``: what Anki's copy of the notes (an exported package, or a
closed Anki's collection) says before a build overwrites it. Kept apart from ``pull``,
whose machinery (the importers) a build without ``--against`` never needs to load."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from deckbuilder.anki.collection import AnkiNote
from deckbuilder.anki.identity import anki_guid
from deckbuilder.anki.pull_source import AnkiSource, read_anki_source
from deckbuilder.app.lockfiles import ProjectLocks
from deckbuilder.errors import DeckError, Problem
from deckbuilder.lock.anki_copy import anki_copy_hash
from deckbuilder.lock.format import Manifest
from deckbuilder.lock.manifest import note_hashes
from deckbuilder.render.deck import RenderedDeck


def refuse_overwriting(source: Path, rendered: Sequence[RenderedDeck], now: int) -> None:
    """DeckError naming each note whose copy in ``source`` (what Anki has) changed since
    the last build and that this build would overwrite: Anki takes a package's note when
    it is newer than its own copy, and the build stamps a note with its lock file's time,
    or with ``now`` when the card file changed it."""
    anki = read_anki_source(source)
    found: list[Problem] = []
    # The lock file each build starts from: a card file moved to another folder builds
    # from the one it left behind, which says what the last build gave Anki.
    project = ProjectLocks(rendered)
    for rd in rendered:
        manifest = project.previous(rd.deck)
        changed = anki_changes(anki, rd, manifest)
        if not changed or manifest is None:
            continue
        hashes = dict(zip((rn.note.id for rn in rd.notes), note_hashes(rd), strict=True))
        for rn in rd.notes:
            copy = changed.get(rn.note.id)
            if copy is None:
                continue
            entry = manifest.notes[rn.note.id]
            stamp = (
                entry.changed
                if hashes[rn.note.id] == entry.content
                else max(now, entry.changed + 1)
            )
            if stamp > copy.mod:
                found.append(
                    Problem(
                        str(rd.deck.source),
                        rn.note.line,
                        "edited in Anki since the last build, and this build would overwrite "
                        f"it: pull first (deckbuilder pull {source}), or build without "
                        "--against to overwrite it",
                        rn.note.id,
                    )
                )
    if found:
        raise DeckError(found)


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
        anki = by_guid.get(anki_guid(rd.deck.key, rn.note))
        if entry is None or anki is None or not entry.anki:
            continue
        if anki_copy_hash(anki.fields, anki.tags) != entry.anki:
            found[rn.note.id] = anki
    return found
