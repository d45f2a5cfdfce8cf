"""What each command asks of the library: one request per application call.

Requests are plain values (paths, numbers, dates), cheap to import: the CLI builds one
from its options and hands it to :mod:`deckbuilder.app`. Clocks are fields, so a test
or a reproducible build says what time it is. ``written`` lists are filled by the call
as each file is replaced, so that an interrupt can say which files are already new.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from deckbuilder.model import Deck, StudyOverrides

# Told of long work as it goes: (stage, units done, units in all; 0 when not known).
Progress = Callable[[str, int, int], None]

ALL_LANGUAGES = "all"  # a Selection's lang: every language of a bilingual deck


@dataclass(frozen=True)
class Selection:
    """Which card files to read, and which language of a bilingual deck.

    ``lang``: a language code, ALL_LANGUAGES, or None for each deck's first language.
    ``fallback``: a text missing in that language uses the deck's default language."""

    sources: tuple[Path, ...] = (Path("cards"),)
    lang: str | None = ALL_LANGUAGES
    fallback: bool = False
    media_dir: Path | None = Path("media")


@dataclass(frozen=True)
class CheckRequest:
    selection: Selection = Selection()
    lint: bool = True  # count lint warnings (check says how many)


@dataclass(frozen=True)
class BuildRequest:
    timestamp: int  # seconds since 1970: the time given to notes whose content changed
    selection: Selection = Selection()
    # The folder for packages; None: the project's output/, which must not be a link out
    # of the project (a folder named here is the caller's choice).
    out_dir: Path | None = None
    preview: bool = True  # forecast each deck's workload for its summary line
    lint: bool = True
    # Warn of files in the media folder that no deck uses (only right when every deck
    # of the project is built).
    unused_media: bool = True
    # What Anki has (as pull reads it): the build writes nothing while a note edited
    # there since the last build would be overwritten by it.
    against: Path | None = None
    written: list[Path] = field(default_factory=list, compare=False)
    progress: Progress | None = field(default=None, compare=False)
    # The decks of the project's other card files when they are built apart (watch builds
    # each card file alone): a deck id or GUID of theirs is refused as between the files
    # of one build.
    alongside: tuple[Deck, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class PreviewRequest:
    today: date  # the first study day when ``start`` is not given
    selection: Selection = Selection(lang=None)
    study: StudyOverrides = field(default_factory=StudyOverrides)  # over each deck's own
    days: int = 365
    params: str | None = None  # 21 numbers, comma-separated, or a file holding them
    seed: int = 42
    plot: Path | None = None  # also draw the forecast (.svg or .png)
    html: bool = False  # also write each deck's preview page
    html_out: Path | None = None  # the page's file (several decks: FILE-<deck id>.html)
    sweep: bool = False
    exam: date | None = None
    start: date | None = None
    lead: int = 7
    history: Path | None = None  # fit the FSRS parameters from this review history
    out_dir: Path = Path("output")  # where pages go when html_out is not given
    written: list[Path] = field(default_factory=list, compare=False)
    progress: Progress | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ImportRequest:
    source: Path
    format: str = "auto"  # or quiz, aiken, gift, anki-text
    out: Path | None = None  # the card file of one deck (None: cards/<deck name>.yaml)
    # The deck to import from a source with several (a package), else the deck's name.
    deck: str | None = None
    allow_missing_answers: bool = False
    # Refuse the import when any note is left out, or its identity is not the source's
    # (text without GUIDs), instead of warning.
    strict: bool = False
    force: bool = False  # replace an existing card file
    media_dir: Path = Path("media")
    # Note types of a package (by their Anki names) whose templates and CSS are kept with
    # the scripts and remote resources they hold; others lose them.
    keep_scripts: tuple[str, ...] = ()
    # The note type the notes of Anki text or a spreadsheet come in onto when the file
    # names none: the key of one of the project's (note-types/<key>.yaml), or of a new
    # one, declared in the card file, named from the columns.
    note_type: str | None = None
    written: list[Path] = field(default_factory=list, compare=False)


@dataclass(frozen=True)
class PullRequest:
    source: Path  # an .apkg or .colpkg exported from Anki, or a collection.anki2
    timestamp: int  # seconds since 1970: the time given to notes the pull changes anew
    selection: Selection = Selection()  # the card files (every language of each)
    prefer: str | None = None  # settle every conflict: "anki" or "cards"
    delete: bool = False  # remove notes deleted in Anki from the card files
    dry_run: bool = False  # write nothing; the result says what would change
    written: list[Path] = field(default_factory=list, compare=False)


@dataclass(frozen=True)
class LintRequest:
    selection: Selection = Selection()


@dataclass(frozen=True)
class ListRequest:
    selection: Selection = Selection()


@dataclass(frozen=True)
class InitRequest:
    folder: Path = Path(".")
    written: list[Path] = field(default_factory=list, compare=False)


@dataclass(frozen=True)
class WatchRequest:
    clock: Callable[[], int]  # seconds since 1970, asked at each rebuild
    selection: Selection = field(default_factory=Selection)
    out_dir: Path | None = None
    lint: bool = True
    # Also serve each deck's preview page on this machine, redrawn after each rebuild.
    serve: bool = False
    # Set to end the watch (the command line ends it with Ctrl-C instead).
    stop: threading.Event | None = field(default=None, compare=False)
