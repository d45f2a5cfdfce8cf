"""``check`` and ``list``: read and validate card files, writing nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deckbuilder.app.packages import check as check_decks
from deckbuilder.app.requests import ALL_LANGUAGES, CheckRequest, ListRequest, Selection
from deckbuilder.cardfile.reader import LANG_RE, load_decks
from deckbuilder.errors import Problem, RequestError
from deckbuilder.lint import lint_decks
from deckbuilder.model import Deck
from deckbuilder.preview.settings import study_warnings
from deckbuilder.render.deck import RenderedDeck

__all__ = [
    "CheckResult",
    "ListResult",
    "check",
    "checked",
    "lint_count",
    "list_decks",
    "rendered_decks",
]


@dataclass(frozen=True)
class CheckResult:
    decks: tuple[RenderedDeck, ...]
    # The decks' own warnings (unused media, a fallback language...), each once, then what
    # the preview would say of their study blocks (a history it cannot use).
    warnings: tuple[Problem, ...]
    study_warnings: tuple[Problem, ...]
    lint_warnings: int | None  # how many warnings `lint` gives; None: not counted

    @property
    def notes(self) -> int:
        return sum(len(rd.notes) for rd in self.decks)

    @property
    def cards(self) -> int:
        return sum(rd.deck.card_count for rd in self.decks)


@dataclass(frozen=True)
class ListResult:
    decks: tuple[Deck, ...]


def checked(selection: Selection) -> Selection:
    """``selection``, once its language is known to be a code or 'all'."""
    lang = selection.lang
    if lang is not None and lang != ALL_LANGUAGES and not LANG_RE.match(lang):
        raise RequestError.single(
            "lang", f"must be a language code like ko or en, or 'all', not {lang!r}"
        )
    return selection


def rendered_decks(
    selection: Selection, *, unused_media: bool = True, alongside: Sequence[Deck] = ()
) -> list[RenderedDeck]:
    """Every deck ``selection`` names, loaded, validated and rendered (DeckError with
    every problem otherwise); with ``unused_media``, a warning for each file in the media
    folder that none of them uses. ``alongside``: see
    :func:`deckbuilder.app.packages.check`."""
    selection = checked(selection)
    return check_decks(
        list(selection.sources),
        media_dir=selection.media_dir,
        lang=selection.lang,
        fallback=selection.fallback,
        unused=unused_media,
        alongside=alongside,
    )


def check(request: CheckRequest) -> CheckResult:
    """Validate the card files as build would, and count lint warnings."""
    rendered = rendered_decks(request.selection)
    decks = [rd.deck for rd in rendered]
    return CheckResult(
        decks=tuple(rendered),
        warnings=deck_warnings(rendered),
        study_warnings=tuple(study_warnings(decks)),
        lint_warnings=lint_count(decks) if request.lint else None,
    )


def deck_warnings(rendered: list[RenderedDeck]) -> tuple[Problem, ...]:
    """The decks' warnings, each once: the languages of a deck share its file."""
    return tuple(dict.fromkeys(w for rd in rendered for w in rd.warnings))


def lint_count(decks: list[Deck]) -> int:
    """How many warnings ``lint`` gives for ``decks``."""
    return len(lint_decks(decks))


def list_decks(request: ListRequest) -> ListResult:
    """The decks the card files describe, loaded and validated, not rendered."""
    selection = checked(request.selection)
    decks = load_decks(list(selection.sources), lang=selection.lang, fallback=selection.fallback)
    return ListResult(tuple(decks))
