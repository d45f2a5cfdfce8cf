"""``check`` and ``list``: read and validate card files, writing nothing; and the reading
and rendering of the card files a selection names, for every command that reads them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from deckbuilder.anki.identity import guid_problems
from deckbuilder.app.requests import ALL_LANGUAGES, CheckRequest, ListRequest, Selection
from deckbuilder.cardfile.deck import language_meant
from deckbuilder.cardfile.fields import LANG_RE
from deckbuilder.cardfile.reader import find_sources, load_decks
from deckbuilder.errors import DeckError, Problem, RequestError
from deckbuilder.lint import LintWarning, lint_decks
from deckbuilder.model import Deck
from deckbuilder.preview.settings import study_warnings
from deckbuilder.render.deck import RenderedDeck, render_decks
from deckbuilder.render.deck import unused_media as unused_media_files


@dataclass(frozen=True)
class Diagnosed:
    """A result with what its command tells besides: the decks' warnings, each once, in
    the order told, and (when the request counted them) the warnings ``lint`` gives."""

    diagnostics: tuple[Problem, ...]

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """What the command tells as it goes: every diagnostic but lint's."""
        return tuple(p for p in self.diagnostics if not isinstance(p, LintWarning))

    @property
    def lint_warnings(self) -> int:
        """How many warnings ``lint`` gives (the command points to them)."""
        return sum(isinstance(p, LintWarning) for p in self.diagnostics)


@dataclass(frozen=True)
class CheckResult(Diagnosed):
    # The decks' own warnings (unused media, a fallback language...), then what the
    # preview would say of their study blocks (a history it cannot use), then lint's.
    decks: tuple[RenderedDeck, ...]

    @property
    def notes(self) -> int:
        return sum(len(rd.notes) for rd in self.decks)

    @property
    def cards(self) -> int:
        return sum(rd.deck.card_count for rd in self.decks)


@dataclass(frozen=True)
class ListResult:
    decks: tuple[Deck, ...]


def render_selection(
    selection: Selection, *, unused_media: bool = True, alongside: Sequence[Deck] = ()
) -> list[RenderedDeck]:
    """Every deck ``selection`` names, loaded, validated and rendered; one DeckError with
    every problem otherwise (and the decks that loaded as its ``partial``). With
    ``unused_media``, a warning for each file in the media folder that no deck uses, once,
    in the first deck's ``warnings``. ``alongside``: the decks of the project's other card
    files when they are read apart (watch builds each card file alone): a deck id or a
    GUID of theirs is refused here as it is between the files of one build."""
    _refuse_bad_language(selection)
    problems: list[Problem] = []
    try:
        decks = load_decks(
            find_sources(selection.sources),
            media_dir=selection.media_dir,
            lang=selection.lang,
            fallback=selection.fallback,
            alongside=alongside,
        )
    except DeckError as exc:
        # What loaded despite the problems is rendered too: a missing image shows in the
        # same pass as a misspelt key.
        problems.extend(exc.problems)
        decks = list(exc.partial)
    problems.extend(guid_problems(decks, alongside))
    rendered, unrendered = render_decks(decks)
    problems.extend(unrendered)
    if problems:
        raise DeckError(_in_reading_order(problems), partial=decks)
    found = unused_media_files(rendered, selection.media_dir) if unused_media else ()
    if found and rendered:
        rendered[0] = replace(rendered[0], warnings=rendered[0].warnings + found)
    return rendered


def load_selection(selection: Selection) -> list[Deck]:
    """Every deck ``selection`` names, loaded and validated, not rendered (so its media
    folder is not read)."""
    _refuse_bad_language(selection)
    return load_decks(list(selection.sources), lang=selection.lang, fallback=selection.fallback)


def _refuse_bad_language(selection: Selection) -> None:
    """RequestError unless the selection's language is a code, 'all' or None."""
    lang = selection.lang
    if lang is not None and lang != ALL_LANGUAGES and not LANG_RE.match(lang):
        # The hint a card file's language gets: --lang EN means en (and ALL, all).
        meant = ALL_LANGUAGES if lang.lower() == ALL_LANGUAGES else language_meant(lang)
        hint = f"; did you mean '{meant}'?" if meant else ""
        raise RequestError.single(
            "lang", f"must be a language code like ko or en, or 'all', not {lang!r}{hint}"
        )


def _in_reading_order(problems: Sequence[Problem]) -> list[Problem]:
    """Each problem once (the languages of a deck share its file), each file's in line
    order, files in the order they were read."""
    unique = list(dict.fromkeys(problems))
    files = {p.file: i for i, p in reversed(list(enumerate(unique)))}
    # A problem of the whole file (no line) comes after the file's lines.
    return sorted(unique, key=lambda p: (files[p.file], p.line is None, p.line or 0))


def check(request: CheckRequest) -> CheckResult:
    """Validate the card files as build would, and count lint warnings."""
    rendered = render_selection(request.selection)
    decks = [rd.deck for rd in rendered]
    lint = lint_decks(decks) if request.lint else []
    study = study_warnings(decks)
    return CheckResult((*deck_warnings(rendered), *study, *lint), tuple(rendered))


def deck_warnings(rendered: list[RenderedDeck]) -> tuple[Problem, ...]:
    """The decks' warnings, each once: the languages of a deck share its file."""
    return tuple(dict.fromkeys(w for rd in rendered for w in rd.warnings))


def list_decks(request: ListRequest) -> ListResult:
    """The decks the card files describe, loaded and validated, not rendered."""
    return ListResult(tuple(load_selection(request.selection)))
