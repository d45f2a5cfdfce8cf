"""The whole path in one place: sources -> model -> rendered -> package.

Every deck is loaded and rendered before anything is written, so invalid input never
writes or replaces a package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path

from .errors import DeckError, Problem
from .load import find_sources, load_decks
from .manifest import Changes, lock_path, read_manifest, update_manifest, write_manifest
from .model import Deck
from .render import RenderedDeck, render_deck, unused_media

__all__ = ["BuildResult", "build", "check", "write_packages"]


@dataclass(frozen=True)
class BuildResult:
    rendered: RenderedDeck
    path: Path
    size: int
    changes: Changes  # what changed since the last build (from the lock file)
    first_build: bool  # there was no lock file before this build
    lock: Path  # the lock file
    lock_written: bool  # whether the lock file changed


def check(
    sources: Sequence[Path],
    media_dir: Path | None = None,
    *,
    lang: str | None = None,
    fallback: bool = False,
    jobs: int = 1,
    keys: bool = False,
) -> list[RenderedDeck]:
    """Load, validate and render every deck; raise one DeckError with all problems.
    Media files no deck uses are reported once, in the first deck's ``warnings``.
    ``lang`` and ``fallback``: see :func:`deckbuilder.load.load_deck_languages`.
    ``jobs``: processes a big card file may be read in (see :mod:`deckbuilder.parallel`);
    the result is the same whatever it is. ``keys``: a build follows, so work out the
    notes' GUIDs and content hashes where a big file's parts are read (RenderedDeck.keys).
    """
    files = find_sources(sources)
    early: dict[Path, tuple[list[Deck], list[RenderedDeck]]] = {}
    if jobs > 1:
        from .parallel import read_in_parts

        for source in files:
            got = read_in_parts(
                source, media_dir, lang=lang, fallback=fallback, jobs=jobs, keys=keys
            )
            if got is not None:
                early[source] = got
    decks = load_decks(
        files,
        media_dir=media_dir,
        lang=lang,
        fallback=fallback,
        loaded={source: got[0] for source, got in early.items()},
    )
    done = {id(deck): rd for got in early.values() for deck, rd in zip(*got, strict=True)}
    rendered: list[RenderedDeck] = []
    problems: list[Problem] = []
    for deck in decks:
        if id(deck) in done:
            rendered.append(done[id(deck)])
            continue
        try:
            rendered.append(render_deck(deck))
        except DeckError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DeckError(problems)
    unused = unused_media(rendered, media_dir)
    if unused and rendered:
        rendered[0] = replace(rendered[0], warnings=rendered[0].warnings + unused)
    return rendered


def package_path(out_dir: Path, rd: RenderedDeck) -> Path:
    return out_dir / f"{rd.deck.key}.apkg"


def build(
    sources: Sequence[Path],
    out_dir: Path,
    *,
    timestamp: int,
    media_dir: Path | None = None,
    lang: str | None = None,
    fallback: bool = False,
    jobs: int = 1,
) -> list[BuildResult]:
    """Check everything, then write one ``<deck id>.apkg`` per deck into ``out_dir`` and
    its lock file beside the card file (see :mod:`deckbuilder.manifest`). A deck with
    ``languages:`` is ``<deck id>.<lang>.apkg`` with ``<deck id>.<lang>.lock``."""
    rendered = check(
        sources, media_dir=media_dir, lang=lang, fallback=fallback, jobs=jobs, keys=True
    )
    return write_packages(rendered, out_dir, timestamp=timestamp)


def write_packages(
    rendered: Sequence[RenderedDeck], out_dir: Path, *, timestamp: int
) -> list[BuildResult]:
    """Write checked decks (from :func:`check`) as packages, with their lock files.

    ``timestamp`` is the clock (seconds since 1970): it is given only to notes and note
    types whose content changed since the last build. Every lock file is read and every
    update planned before anything is written; a lock file is written only after its
    package, so a failed build leaves both as they were.
    """
    from .export import Stamps, write_package

    updates = []
    problems: list[Problem] = []
    for rd in rendered:
        try:
            updates.append(update_manifest(read_manifest(lock_path(rd.deck)), rd, timestamp))
        except DeckError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DeckError(problems)

    results = []
    for rd, update in zip(rendered, updates, strict=True):
        manifest = update.manifest
        # update_manifest keys every entry by its own id: zip the keys with the values'
        # fields (two C-level passes) rather than a Python-level comprehension per dict.
        notes = manifest.notes
        stamps = Stamps(
            note_ids=dict(zip(notes, map(attrgetter("anki_id"), notes.values()), strict=True)),
            note_mod=dict(zip(notes, map(attrgetter("changed"), notes.values()), strict=True)),
            note_type_mod={t.anki_id: t.changed for t in manifest.note_types.values()},
        )
        info = write_package(rd, package_path(out_dir, rd), timestamp=timestamp, stamps=stamps)
        lock = lock_path(rd.deck)
        written = write_manifest(lock, rd.deck, manifest)
        results.append(
            BuildResult(rd, info.path, info.size, update.changes, update.first_build, lock, written)
        )
    return results
