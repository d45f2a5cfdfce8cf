"""Card-file readings the tests make but no command does: one deck of one file, a YAML
text read strictly, and the problems of a deck built in memory."""

from __future__ import annotations

from pathlib import Path

import yaml

from deckbuilder.cardfile.checks import Spellings, note_problems
from deckbuilder.cardfile.deck import ALL_LANGUAGES
from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.cardfile.yaml_hints import not_allowed
from deckbuilder.cardfile.yaml_tree import TreeBuilder, YValue, marked_problem
from deckbuilder.errors import DeckError, Problem
from deckbuilder.model import Deck


def load_deck(
    path: Path, media_dir: Path | None = None, *, lang: str | None = None, fallback: bool = False
) -> Deck:
    """Load and validate one card file, in one language: ``lang``, or the file's default
    (first) language when ``lang`` is None. A file without ``languages:`` ignores ``lang``."""
    if lang == ALL_LANGUAGES:
        raise ValueError("load_deck gives one language; use load_deck_languages for 'all'")
    (deck,) = load_deck_languages(path, media_dir, lang=lang, fallback=fallback)
    return deck


def parse_yaml(text: str, file: str) -> YValue | None:
    """Parse one YAML document into a located tree; ``None`` for an empty document.
    Raises a DeckError naming every problem the tree was built with, or the first that
    stopped it (the card-file reader reads on past them: cardfile/yaml_recovery.py)."""
    try:
        builder = TreeBuilder(file, text)
        tree = builder.read()
    except yaml.reader.ReaderError as exc:
        raise DeckError(not_allowed(text, file, chr(exc.character))) from None
    except yaml.MarkedYAMLError as exc:
        raise DeckError([marked_problem(text, file, exc)]) from None
    except yaml.YAMLError as exc:
        raise DeckError([Problem(file, None, f"YAML error: {exc}")]) from None
    if builder.problems:
        raise DeckError(builder.problems)
    return tree


def deck_problems(deck: Deck) -> list[Problem]:
    """Every problem of the deck's notes, in order of line: ids well-formed and unique,
    text sizes and characters Anki can store, required texts not empty, choices and
    answers, cloze deletions, typed answers, tags, GUIDs, pins and lint opt-outs."""
    tags = Spellings("tag")
    deck_tags = [
        Problem(str(deck.source), None, wrong)
        for tag in deck.tags
        if (wrong := tags.problem(tag, "the deck's tags"))
    ]
    found = [deck_tags, *note_problems(deck.notes, str(deck.source), tags=tags)]
    return sorted((p for problems in found for p in problems), key=lambda p: p.line or 0)
