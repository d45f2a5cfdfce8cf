"""``lint``: item-writing flaws of the decks, one warning each."""

from __future__ import annotations

from dataclasses import dataclass

from deckbuilder.app.checking import load_selection
from deckbuilder.app.requests import LintRequest
from deckbuilder.lint import LintWarning, lint_decks
from deckbuilder.model import Deck


@dataclass(frozen=True)
class LintResult:
    decks: tuple[Deck, ...]
    diagnostics: tuple[LintWarning, ...]  # every flaw a warning

    @property
    def notes(self) -> int:
        """How many notes have a warning."""
        return len({(w.file, w.note) for w in self.diagnostics})


def lint(request: LintRequest) -> LintResult:
    decks = load_selection(request.selection)
    return LintResult(tuple(decks), tuple(lint_decks(decks)))
