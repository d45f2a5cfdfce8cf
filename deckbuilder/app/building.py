"""``build``: check every deck, forecast its workload, write its package and lock file."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from deckbuilder.anki.search import deck_cards_search
from deckbuilder.app.against import refuse_overwriting
from deckbuilder.app.checking import Diagnosed, deck_warnings, render_selection
from deckbuilder.app.packages import PackageResult, write_packages
from deckbuilder.app.requests import BuildRequest
from deckbuilder.cardfile.reader import digest_now
from deckbuilder.errors import Problem, RequestError, shown
from deckbuilder.files.bounds import refuse_links_out
from deckbuilder.lint import lint_decks
from deckbuilder.lock.format import LAST_SECOND
from deckbuilder.model import Deck
from deckbuilder.preview.report import DeckForecast, build_previews
from deckbuilder.progress import reporting

# DeckForecast is the preview's, given with the build result from here.
__all__ = ["DEFAULT_OUT", "BuildResult", "DeckForecast", "build"]

DEFAULT_OUT = Path("output")


@dataclass(frozen=True)
class BuildResult(Diagnosed):
    # What the preview says of the study blocks (a history it cannot use: not about the
    # packages, which never depend on it), the decks' warnings and the lock files'
    # updates, each once; then lint's.
    packages: tuple[PackageResult, ...]
    previews: dict[str, DeckForecast]  # by deck key; empty without a preview


@dataclass(frozen=True)
class SourceSnapshot:
    """The card files as the build read them: an editor that saves by writing the file in
    place can be caught halfway, and a build of half a file would drop the other half's
    notes from the lock file. So before anything is written each card file is read again
    and compared with what the decks were made of; a file saved again with the text it
    had still counts as changed when the build read it halfway."""

    digests: dict[Path, str]

    @classmethod
    def of(cls, decks: Iterable[Deck]) -> SourceSnapshot:
        return cls({deck.source: deck.source_digest for deck in decks if deck.source_digest})

    def changes(self) -> list[Problem]:
        """A problem for each card file that is no longer what was read."""
        return [
            Problem(
                str(path),
                None,
                "changed while it was being read (saved meanwhile?); "
                "nothing was written: build again",
            )
            for path, digest in self.digests.items()
            if digest_now(path) != digest
        ]


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
    rendered = render_selection(
        request.selection, unused_media=request.unused_media, alongside=request.alongside
    )
    decks = [rd.deck for rd in rendered]
    read = SourceSnapshot.of(decks)
    previews: dict[str, DeckForecast] = {}
    study: list[Problem] = []
    if request.preview:
        previews, study = build_previews(decks)
    if request.against is not None:
        refuse_overwriting(request.against, rendered, request.timestamp)
    out_dir = request.out_dir
    if out_dir is None:
        out_dir = DEFAULT_OUT
        refuse_links_out([out_dir / "-"], "no package is written through it")
    results = write_packages(
        rendered,
        out_dir,
        timestamp=request.timestamp,
        replaced=request.written,
        still_current=read.changes,
    )
    told = deck_warnings([r.rendered for r in results])
    lint = lint_decks(decks) if request.lint else []
    return BuildResult((*study, *told, *_renamed(results), *lint), tuple(results), previews)


def _renamed(results: Sequence[PackageResult]) -> list[Problem]:
    """A warning for each deck whose name changed since the package this build replaced:
    Anki's import moves no card to the new name, so the learner moves them."""
    found = []
    for result in results:
        deck, old = result.rendered.deck, result.replaced_name
        if old is None or old == deck.name:
            continue
        found.append(
            Problem.warning(
                str(deck.source),
                None,
                f"the deck was named {shown(old, None)} in its last build and is "
                f"now {shown(deck.name, None)}; on import Anki keeps the cards it has in "
                f"{shown(old, None)} (only new cards go to {shown(deck.name, None)}): to move "
                f"them, search Anki's browser for {deck_cards_search(old)}, select all, and "
                "use Change Deck",
            )
        )
    return found
