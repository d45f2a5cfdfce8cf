"""The whole path in one place: sources -> model -> rendered -> package.

Every deck is loaded and rendered before anything is written, so invalid input never
writes or replaces a package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import DeckError, Problem
from .load import load_decks
from .render import RenderedDeck, render_deck, unused_media

__all__ = ["BuildResult", "build", "check"]


@dataclass(frozen=True)
class BuildResult:
    rendered: RenderedDeck
    path: Path
    size: int


def check(sources: Sequence[Path], media_dir: Path | None = None) -> list[RenderedDeck]:
    """Load, validate and render every deck; raise one DeckError with all problems.
    Media files no deck uses are reported once, in the first deck's ``warnings``."""
    decks = load_decks(sources, media_dir=media_dir)
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
    sources: Sequence[Path], out_dir: Path, *, timestamp: int, media_dir: Path | None = None
) -> list[BuildResult]:
    """Check everything, then write one ``<deck id>.apkg`` per deck into ``out_dir``."""
    from .export import write_package

    results = []
    for rd in check(sources, media_dir=media_dir):
        info = write_package(rd, package_path(out_dir, rd), timestamp=timestamp)
        results.append(BuildResult(rd, info.path, info.size))
    return results
