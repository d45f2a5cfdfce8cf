"""``watch``: rebuild a deck each time one of its files is saved.

Card files, the media folder, lock files and the note types card files share
(``note-types/``) are watched with watchfiles (the operating system's change
notifications, grouped: an editor that writes a temporary file and renames it, or saves
in several writes, gives one rebuild). Each deck is checked and built on its own, so one
broken file holds back only its own deck, and a deck whose files did not change is not
rebuilt. A deck that fails keeps its last good package: the build writes nothing unless
every check passes.

With ``serve``, each deck's preview page is served on this machine and redrawn after
each rebuild (:mod:`deckbuilder.app.serving`).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from watchfiles import Change
from watchfiles import watch as watch_changes

from deckbuilder.app.building import BuildResult, build
from deckbuilder.app.requests import BuildRequest, WatchRequest
from deckbuilder.app.serving import LOCAL, LivePages, LiveSite
from deckbuilder.cardfile.declared import NOTE_TYPES_FOLDER, project_root
from deckbuilder.cardfile.reader import SOURCE_SUFFIXES, find_sources
from deckbuilder.errors import DeckError, OutputError, Problem
from deckbuilder.files.bounds import folder_link_outside, link_out_of_project
from deckbuilder.lock.format import lock_path
from deckbuilder.model import Deck

# Changes that come together are one save; a burst ends after this long without another.
QUIET_MS = 100
# However busy the files, a rebuild comes at least this often.
LONGEST_WAIT_MS = 1500
# How long the watcher waits before saying that nothing changed (it has started).
STARTED_MS = 200


@dataclass(frozen=True)
class Rebuild:
    """One card file checked and, when it passed, built."""

    source: Path
    changed: tuple[Path, ...]  # the saved files that made it (empty: the first build)
    result: BuildResult | None  # None: the checks failed, and nothing was written
    problems: tuple[Problem, ...] = ()  # what check says when they failed


@dataclass(frozen=True)
class Serving:
    """The preview pages are served (``serve``), until the watch ends: ``url`` is where
    to open them, the one deck's page when the watch has one deck, else their index at
    ``site``."""

    url: str
    site: str = ""


class _FirstRound:
    """Every card file has been built once (the watch's first round is over)."""


def watch(request: WatchRequest) -> Generator[Rebuild | Serving, None, None]:
    """Build every deck, then rebuild each deck whose card file, lock file, media or
    shared note type changes, until ``request.stop`` is set (or the caller closes the
    iterator). Yields one Rebuild per card file built; with ``serve``, each deck's page
    is published after its Rebuild is yielded, and once every deck has been built the
    first time, where the pages are served (the page of the only deck, when there is
    one)."""
    if not request.serve:
        yield from (event for event in _rebuilds(request) if isinstance(event, Rebuild))
        return
    try:
        site = LiveSite()
    except OSError as exc:  # no loopback network, say
        raise OutputError(f"cannot serve the pages on {LOCAL}: {exc.strerror or exc}") from exc
    try:
        pages = LivePages(site, request.lint)
        for event in _rebuilds(request):
            if isinstance(event, _FirstRound):
                yield Serving(site.page_url(), site.url)
                continue
            yield event
            pages.show(event.source, event.result, event.problems)
    finally:
        site.close()


def _rebuilds(request: WatchRequest) -> Iterator[Rebuild | _FirstRound]:
    watched = _Watched(request)
    started = False
    roots = watched.roots()
    # The watcher starts before the first build, so that a save made while the first
    # build runs (or just after it) is seen; it says so with an empty first batch.
    batches = watch_changes(
        *roots,
        watch_filter=watched.relevant,
        debounce=LONGEST_WAIT_MS,
        step=QUIET_MS,
        stop_event=request.stop,
        rust_timeout=STARTED_MS,
        yield_on_timeout=True,
    )
    while True:
        try:
            changes = next(batches)
        except StopIteration:
            return
        except OSError as exc:  # a folder named outside the project that cannot be read
            names = ", ".join(str(root) for root in roots)
            raise OutputError(f"cannot watch {names}: {exc.strerror or exc}") from exc
        if not started:
            started = True
            yield from watched.rebuild(watched.card_files(), ())
            yield _FirstRound()
        if changes:
            paths = {Path(path) for _, path in changes}
            yield from watched.rebuild(watched.affected(paths), tuple(sorted(paths)))


class _Watched:
    """What the watch knows between saves: each deck's files, and what it last wrote."""

    def __init__(self, request: WatchRequest) -> None:
        self.request = request
        self.media: dict[Path, set[str]] = {}  # card file -> the media files it uses
        self.failing: set[Path] = set()  # card files whose last check failed
        # Card file -> its decks as last read, whose deck ids and GUIDs the others' builds
        # keep clear of (as one build of them all would).
        self.decks: dict[Path, tuple[Deck, ...]] = {}
        # Lock file -> the card file it belongs to, and the bytes the last build left.
        self.locks: dict[Path, tuple[Path, bytes]] = {}
        self.note_type_folders: set[Path] = set()  # the projects' note-types/, resolved

    def roots(self) -> list[Path]:
        """The folders to watch; DeckError naming each source that is not there, and
        each folder that is a link out of the project (a shared deck's 'media ->
        /proc/1'): nothing is watched through it."""
        selection = self.request.selection
        # A source that is not there (a typo) is refused in build's words: watching the
        # folder above it instead would build nothing, for ever, and watch far too much.
        find_sources([source for source in selection.sources if not source.exists()])
        roots = [p if p.is_dir() else p.parent for p in selection.sources]
        if selection.media_dir is not None and selection.media_dir.is_dir():
            roots.append(selection.media_dir)
        problems = []
        for folder in dict.fromkeys(roots):
            outside = folder_link_outside(folder)
            link = (folder, outside) if outside is not None else link_out_of_project(folder)
            if link is not None:
                message = f"a link to '{link[1]}', outside the project; it is not watched"
                problems.append(Problem(str(link[0]), None, message))
        if problems:
            raise DeckError(problems)
        # The note types card files share are read from their project's note-types/; one
        # linked out of the project (shared by several projects) is read, but not watched.
        shared = {project_root(card) / NOTE_TYPES_FOLDER for card in self.card_files()}
        self.note_type_folders = {
            folder.resolve()
            for folder in shared
            if folder.is_dir()
            and folder_link_outside(folder) is None
            and link_out_of_project(folder) is None
        }
        roots.extend(sorted(self.note_type_folders))
        return list(dict.fromkeys(Path(p.resolve()) for p in roots))

    def card_files(self) -> list[Path]:
        try:
            return find_sources(list(self.request.selection.sources))
        except DeckError:
            return []

    def relevant(self, change: Change, path: str) -> bool:
        """Whether a change to ``path`` can matter: not our own temporary files, not a
        lock file that holds what the last build wrote."""
        name = Path(path).name
        if name.startswith(".") or name.endswith("~") or name[:1] == name[-1:] == "#":
            return False  # temporary files: ours (.x.deckbuilder-123.tmp), editors'
        lock = Path(path).resolve()
        if lock in self.locks:
            try:
                return lock.read_bytes() != self.locks[lock][1]
            except OSError:
                return True
        return True

    def affected(self, paths: Iterable[Path]) -> list[Path]:
        """The card files to rebuild for these saved files."""
        cards = {p.resolve(): p for p in self.card_files()}
        out: dict[Path, Path] = {}
        for gone in self.decks.keys() - cards.keys():
            # Its deck ids and GUIDs are free again: a card file refused for them may build.
            del self.decks[gone]
            out.update((key, card) for key, card in cards.items() if key in self.failing)
        for path in paths:
            real = path.resolve()
            if real.parent in self.note_type_folders:  # note-types/<key>.yaml
                for key, card in cards.items():
                    used = {t.key for deck in self.decks.get(key, ()) for t in deck.note_types}
                    if key not in self.decks or real.stem in used or key in self.failing:
                        out[key] = card
            elif real.suffix in SOURCE_SUFFIXES:
                if real in cards:
                    out[real] = cards[real]
            elif real.suffix == ".lock":
                owner = self.locks.get(real)
                for key, card in cards.items():
                    if key == (owner[0] if owner else None) or (
                        owner is None and real.parent == key.parent and key in self.failing
                    ):
                        out[key] = card
            else:  # a media file: the decks that used it, and those that could not build
                # (when it is there: a file gone again, as vim's '4913' is, fixes none).
                there = real.exists()
                for key, card in cards.items():
                    uses = self.media.get(key)
                    if (uses is not None and real.name in uses) or (
                        there and (uses is None or key in self.failing)
                    ):
                        out[key] = card
        return list(out.values())

    def rebuild(self, cards: list[Path], changed: tuple[Path, ...]) -> Iterator[Rebuild]:
        """Build each card file alone; then, if one of them now has other deck ids or
        GUIDs, the card files that failed, which may have failed for the old ones."""
        claimed = {real: _claims(self.decks.get(real, ())) for real in map(Path.resolve, cards)}
        yield from self._build_each(cards, changed)
        if any(_claims(self.decks.get(real, ())) != was for real, was in claimed.items()):
            retry = [card for card in self.card_files() if card.resolve() in self.failing]
            yield from self._build_each([c for c in retry if c.resolve() not in claimed], changed)

    def _build_each(self, cards: list[Path], changed: tuple[Path, ...]) -> Iterator[Rebuild]:
        request = self.request
        for card in cards:
            real = card.resolve()
            build_request = BuildRequest(
                timestamp=request.clock(),
                selection=replace(request.selection, sources=(card,)),
                out_dir=request.out_dir,
                preview=False,
                lint=request.lint,
                unused_media=False,  # one deck alone cannot tell what no deck uses
                alongside=tuple(d for key, ds in self.decks.items() if key != real for d in ds),
            )
            try:
                result = build(build_request)
            except (DeckError, OutputError) as exc:
                self.failing.add(real)
                problems = (
                    exc.problems
                    if isinstance(exc, DeckError)
                    else (Problem(str(card), None, str(exc)),)
                )
                partial = exc.partial if isinstance(exc, DeckError) else ()
                read = [deck for deck in partial if isinstance(deck, Deck)]
                if read:  # else what it had, till it reads again (a save caught halfway)
                    self.decks[real] = tuple(read)
                yield Rebuild(card, changed, None, tuple(problems))
                continue
            self.failing.discard(real)
            self.decks[real] = tuple(package.rendered.deck for package in result.packages)
            self.media[real] = {
                name for package in result.packages for name in package.rendered.media
            }
            for package in result.packages:
                lock = lock_path(package.rendered.deck).resolve()
                try:
                    self.locks[lock] = (real, lock.read_bytes())
                except OSError:
                    self.locks.pop(lock, None)
            yield Rebuild(card, changed, result)


def _claims(decks: Iterable[Deck]) -> frozenset[str]:
    """The deck ids and ``guid:`` keys of ``decks``: what other card files must not have."""
    return frozenset(
        [*(deck.key for deck in decks), *(n.guid for deck in decks for n in deck.notes if n.guid)]
    )
