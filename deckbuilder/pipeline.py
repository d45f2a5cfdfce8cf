"""The whole path in one place: sources -> model -> rendered -> package.

Every deck is loaded and rendered before anything is written, so invalid input never
writes or replaces a package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import DeckError, Problem
from .load import find_sources, load_decks
from .manifest import Changes, lock_path, read_manifest, update_manifest, write_manifest
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
) -> list[RenderedDeck]:
    """Load, validate and render every deck; raise one DeckError with all problems.
    Media files no deck uses are reported once, in the first deck's ``warnings``.
    ``lang`` and ``fallback``: see :func:`deckbuilder.load.load_deck_languages`.
    """
    decks = load_decks(find_sources(sources), media_dir=media_dir, lang=lang, fallback=fallback)
    rendered: list[RenderedDeck] = []
    problems: list[Problem] = []
    for deck in decks:
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
) -> list[BuildResult]:
    """Check everything, then write one ``<deck id>.apkg`` per deck into ``out_dir`` and
    its lock file beside the card file (see :mod:`deckbuilder.manifest`). A deck with
    ``languages:`` is ``<deck id>.<lang>.apkg`` with ``<deck id>.<lang>.lock``."""
    rendered = check(sources, media_dir=media_dir, lang=lang, fallback=fallback)
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
        stamps = Stamps(
            note_ids={key: entry.anki_id for key, entry in manifest.notes.items()},
            note_mod={key: entry.changed for key, entry in manifest.notes.items()},
            note_type_mod={t.anki_id: t.changed for t in manifest.note_types.values()},
        )
        info = write_package(rd, package_path(out_dir, rd), timestamp=timestamp, stamps=stamps)
        lock = lock_path(rd.deck)
        written = write_manifest(lock, rd.deck, manifest)
        results.append(
            BuildResult(rd, info.path, info.size, update.changes, update.first_build, lock, written)
        )
    return results
