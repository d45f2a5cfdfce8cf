"""``build``: check every deck, forecast its workload, write its package and lock file."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deckbuilder.anki.built import built_deck_name, deck_cards_search
from deckbuilder.app.checking import deck_warnings, lint_count, rendered_decks
from deckbuilder.app.packages import PackageResult, package_path, write_packages
from deckbuilder.app.requests import BuildRequest
from deckbuilder.cardfile.deck import CARDS_FOLDER
from deckbuilder.cardfile.reader import find_sources
from deckbuilder.errors import DeckError, Problem, RequestError
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.lock.format import LAST_SECOND
from deckbuilder.lock.manifest import lock_path, read_manifest
from deckbuilder.preview.report import build_previews
from deckbuilder.progress import reporting
from deckbuilder.render.deck import RenderedDeck

__all__ = ["DEFAULT_OUT", "BuildResult", "DeckPreviewLine", "build"]

DEFAULT_OUT = Path("output")


@dataclass(frozen=True)
class DeckPreviewLine:
    """What build shows of a deck's forecast: one line, and its numbers for JSON."""

    line: str
    summary: dict[str, Any] = field(compare=False)


@dataclass(frozen=True)
class BuildResult:
    packages: tuple[PackageResult, ...]
    # What the preview says of the study blocks (a history it cannot use): not about the
    # packages, which never depend on it.
    study_warnings: tuple[Problem, ...]
    previews: dict[str, DeckPreviewLine]  # by deck key; empty without a preview
    warnings: tuple[Problem, ...]  # the decks' warnings and the lock files' updates, once
    lint_warnings: int | None  # None: not counted


@dataclass(frozen=True)
class SourceSnapshot:
    """The card files as they were when a build began: an editor that saves by writing
    the file in place can be caught halfway, and a build of half a file would drop the
    other half's notes from the lock file."""

    digests: dict[Path, bytes]

    @classmethod
    def take(cls, sources: Sequence[Path]) -> SourceSnapshot:
        try:
            files = find_sources(list(sources))
        except DeckError:
            return cls({})  # the loader says what is wrong with them
        return cls({path: _digest(path) for path in files})

    def changes(self) -> list[Problem]:
        """A problem for each card file that is no longer what it was."""
        return [
            Problem(
                str(path),
                None,
                "changed while it was being read (saved meanwhile?); "
                "nothing was written: build again",
            )
            for path, digest in self.digests.items()
            if _digest(path) != digest
        ]


def _digest(path: Path) -> bytes:
    try:
        return hashlib.blake2b(path.read_bytes(), digest_size=16).digest()
    except OSError:
        return b""


def build(request: BuildRequest) -> BuildResult:
    """Check everything, then write one package per deck (see
    :func:`deckbuilder.app.packages.write_packages`). The forecast comes before writing,
    so that writing is the build's last long step."""
    if not 0 <= request.timestamp <= LAST_SECOND:
        raise RequestError.single(
            "timestamp",
            f"must be whole seconds from 0 (1970) to {LAST_SECOND} (the end of year 9999, "
            f"where lock file dates end), not {request.timestamp}",
        )
    with reporting(request.progress):
        return _build(request)


def _build(request: BuildRequest) -> BuildResult:
    read = SourceSnapshot.take(request.selection.sources)
    rendered = rendered_decks(request.selection, unused_media=request.unused_media)
    decks = [rd.deck for rd in rendered]
    previews: dict[str, DeckPreviewLine] = {}
    study: list[Problem] = []
    if request.preview:
        lines, study = build_previews(decks)
        previews = {key: DeckPreviewLine(line, data) for key, (line, data) in lines.items()}
    out_dir = request.out_dir
    if out_dir is None:
        out_dir = DEFAULT_OUT
        refuse_links_out([out_dir / "-"], "no package is written through it")
    # Before anything is replaced: the lock file a moved card file left behind, and the
    # name each deck had in the package it replaces.
    told = _carry_locks(rendered) + _renamed(rendered, out_dir)
    results = write_packages(
        rendered,
        out_dir,
        timestamp=request.timestamp,
        replaced=request.written,
        still_current=read.changes,
    )
    return BuildResult(
        packages=tuple(results),
        study_warnings=tuple(study),
        previews=previews,
        warnings=deck_warnings([r.rendered for r in results]) + tuple(told),
        lint_warnings=lint_count(decks) if request.lint else None,
    )


def _carry_locks(rendered: Sequence[RenderedDeck]) -> list[Problem]:
    """Move the lock file of a deck whose card file moved to another folder (its deck id,
    its file name made an id, is the same) beside the card file, so that the build goes
    on from it: the notes keep their Anki note ids and change times. A lock file is moved
    when it is the deck's, in the same project, and its card file is no longer beside
    it. A warning names each move."""
    told: list[Problem] = []
    locks: dict[Path, list[tuple[Path, str, str]]] = {}  # project folder -> its lock files
    for rd in rendered:
        own = lock_path(rd.deck)
        if own.exists():
            continue
        folder = rd.deck.source.parent
        root = next((p for p in (folder, *folder.parents) if p.name == CARDS_FOLDER), folder)
        if root not in locks:
            locks[root] = _lock_files(root)
        for path, key, card_file in locks[root]:
            if key == rd.deck.key and path != own and not (path.parent / card_file).exists():
                os.replace(path, own)
                locks[root].remove((path, key, card_file))
                told.append(
                    Problem(
                        str(own),
                        None,
                        f"warning: moved here from {path}: its card file moved, and the lock "
                        "file goes with it, so the notes keep their Anki ids; commit the move",
                    )
                )
                break
    return told


def _lock_files(root: Path) -> list[tuple[Path, str, str]]:
    """The lock files under ``root`` that can be read, each with its deck id and the name
    of its card file (from its header)."""
    found = []
    for path in sorted(root.rglob("*.lock")):
        try:
            manifest = read_manifest(path) if path.is_file() else None
        except DeckError:
            continue
        if manifest is not None and manifest.header is not None:
            found.append((path, manifest.header.key, manifest.header.source))
    return found


def _renamed(rendered: Sequence[RenderedDeck], out_dir: Path) -> list[Problem]:
    """A warning for each deck whose name changed since the package this build replaces:
    Anki's import moves no card to the new name, so the learner moves them."""
    told = []
    for rd in rendered:
        deck = rd.deck
        old = built_deck_name(package_path(out_dir, rd), deck.key)
        if old is None or old == deck.name:
            continue
        told.append(
            Problem(
                str(deck.source),
                None,
                f"warning: the deck was named '{old}' in its last build and is now "
                f"'{deck.name}'; on import Anki keeps the cards it has in '{old}' (only new "
                f"cards go to '{deck.name}'): to move them, search Anki's browser for "
                f"{deck_cards_search(old)}, select all, and use Change Deck",
            )
        )
    return told
