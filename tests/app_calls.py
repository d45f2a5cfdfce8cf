"""``check`` and ``build`` as the tests call them most: through :mod:`deckbuilder.app`'s
own calls, with the request filled in for card files named by path.

The defaults are the library's, not the command line's: no media folder unless one is
named, each deck's first language (``lang=None``), no forecast and no lint count.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from deckbuilder import app
from deckbuilder.app import BuildRequest, CheckRequest, PackageResult, RenderedDeck, Selection


def _selection(
    sources: Sequence[Path], media_dir: Path | None, lang: str | None, fallback: bool
) -> Selection:
    return Selection(sources=tuple(sources), lang=lang, fallback=fallback, media_dir=media_dir)


def check_decks(
    sources: Sequence[Path],
    media_dir: Path | None = None,
    *,
    lang: str | None = None,
    fallback: bool = False,
) -> list[RenderedDeck]:
    """The decks ``deckbuilder.app.check`` loads, validates and renders (DeckError with
    every problem otherwise)."""
    request = CheckRequest(_selection(sources, media_dir, lang, fallback), lint=False)
    return list(app.check(request).decks)


def build_packages(
    sources: Sequence[Path],
    out_dir: Path,
    *,
    timestamp: int,
    media_dir: Path | None = None,
    lang: str | None = None,
    fallback: bool = False,
) -> list[PackageResult]:
    """The packages ``deckbuilder.app.build`` writes into ``out_dir``, one per deck, with
    their lock files beside the card files."""
    request = BuildRequest(
        timestamp,
        _selection(sources, media_dir, lang, fallback),
        out_dir=out_dir,
        preview=False,
        lint=False,
    )
    return list(app.build(request).packages)
