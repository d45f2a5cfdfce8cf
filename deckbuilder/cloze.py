"""Anki's cloze deletions: ``{{c1::answer}}``, ``{{c1::answer::hint}}``, nested ones.

One parser, read the way Anki's backend reads a field (rslib/src/cloze.rs): it decides
which cards a cloze note makes (:func:`card_ordinals`, used by the model, the package
writer and the preview page), which deletions the card loader refuses
(:func:`read_deletions`), and what the ``cloze:`` template filter shows
(:func:`deckbuilder.preview.anki_template.reveal_cloze`). tests/test_anki_template.py and
tests/test_card_rule.py compare it with the real backend.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

from deckbuilder.invisible import is_blank

# An opening needs a number; "{{c::" is text. Anki ignores numbers above u16.
_MARK = re.compile(r"\{\{c([0-9]+)::|\}\}")
_MAX_NUMBER = 0xFFFF
_MAX_NESTING = 10
# The last deletion number with a card of its own: Anki gives every higher number card
# 500 too (two such numbers in a note make two cards with one ordinal).
HIGHEST_CARD_NUMBER = 500


class Cloze:
    """One deletion: its number, what it hides (text and nested deletions), its hint."""

    __slots__ = ("hint", "nodes", "ordinal")

    def __init__(self, ordinal: int) -> None:
        self.ordinal = ordinal
        self.nodes: list[str | Cloze] = []
        self.hint: str | None = None


def parse_clozes(text: str) -> list[str | Cloze]:
    """Top-level text and deletions; a deletion never closed is dropped, as Anki does."""
    output: list[str | Cloze] = []
    open_: list[Cloze] = []

    def add_text(run: str) -> None:
        if not open_:
            output.append(run)
            return
        head, sep, tail = run.partition("::")
        if sep:
            open_[-1].hint = tail
        open_[-1].nodes.append(head)

    start = 0
    for mark in _MARK.finditer(text):
        digits = mark.group(1)
        number = None if digits is None else deletion_number(digits)
        if digits is not None and number is None:
            continue  # not an opening: stays part of the text around it
        if start < mark.start():
            add_text(text[start : mark.start()])
        start = mark.end()
        if number is not None:
            if len(open_) < _MAX_NESTING:
                open_.append(Cloze(number))
        elif open_:
            done = open_.pop()
            (open_[-1].nodes if open_ else output).append(done)
        else:
            output.append("}}")
    if start < len(text):
        add_text(text[start:])
    return output


def deletion_number(digits: str) -> int | None:
    """The number of an opening ``{{cN::`` whose N is ``digits``, as Anki reads it (a
    16-bit number; leading zeros allowed); None when it is none, the opening then being
    text. Any number of digits is read, without int() (which refuses over 4,300)."""
    significant = digits.lstrip("0") or "0"
    if not significant.isascii() or not significant.isdigit() or len(significant) > 5:
        return None
    number = int(significant)
    return number if number <= _MAX_NUMBER else None


def cloze_numbers(text: str) -> set[int]:
    """The deletion numbers in a field, nested ones included. ``c0`` is no number, but
    the deletions it holds are."""
    return set(read_deletions(text).numbers)


def card_ordinals(*fields: str) -> tuple[int, ...]:
    """The cards a cloze note with these fields makes: Anki's 0-based card ordinals,
    sorted, one per deletion number (``c1`` is card 0, numbers above
    :data:`HIGHEST_CARD_NUMBER` are card 500). Anki reads the deletions of every field,
    not only of those the template shows with ``cloze:``."""
    numbers: set[int] = set()
    for text in fields:
        numbers |= read_deletions(text).numbers
    return tuple(sorted({min(n, HIGHEST_CARD_NUMBER) - 1 for n in numbers}))


class Deletions(NamedTuple):
    """A field's deletions, from one parse: what the card loader, the card count and lint
    need to know of them."""

    numbers: frozenset[int]  # as :func:`cloze_numbers`
    problems: tuple[str, ...]  # what keeps them from making the cards their author means
    revealed: str  # the field with every deletion revealed, hints left out (a card's back)
    hidden: Mapping[int, str]  # the text each number hides (c0 too), its parts space-joined


# The card loader, the card count, the renderer and lint each ask for the deletions of the
# same cloze fields; a field is parsed once for all of them, with room for every cloze
# field of a large deck.
_PARSED_FIELDS = 1 << 17


def read_deletions(text: str) -> Deletions:
    """The deletions of a field, and their problems in words: numbers above
    :data:`HIGHEST_CARD_NUMBER` (Anki folds them all into one card) and empty deletions
    (Anki makes a card for ``{{c1::}}`` that hides nothing)."""
    return _parsed_deletions(text) if "{{c" in text else Deletions(frozenset(), (), text, {})


@lru_cache(maxsize=_PARSED_FIELDS)
def _parsed_deletions(text: str) -> Deletions:
    numbers: set[int] = set()
    empty: set[int] = set()
    hidden: dict[int, list[str]] = {}
    revealed = _reveal(parse_clozes(text), numbers, empty, hidden)
    problems = []
    too_high = sorted(n for n in numbers if n > HIGHEST_CARD_NUMBER)
    if too_high:
        problems.append(
            f"cloze number{'s' if len(too_high) > 1 else ''} "
            f"{', '.join(f'c{n}' for n in too_high)} above c{HIGHEST_CARD_NUMBER}: Anki makes "
            f"one card for all numbers from c{HIGHEST_CARD_NUMBER} up; number the deletions "
            f"c1 to c{HIGHEST_CARD_NUMBER}"
        )
    if empty:
        shown = ", ".join(f"{{{{c{n}::}}}}" for n in sorted(empty))
        many = len(empty) > 1
        problems.append(
            f"empty cloze deletion{'s' if many else ''} {shown}: Anki would make "
            f"{'cards that hide' if many else 'a card that hides'} nothing; put the answer "
            "inside, as in {{c1::answer}}"
        )
    return Deletions(
        frozenset(numbers),
        tuple(problems),
        revealed,
        {n: " ".join(parts) for n, parts in hidden.items()},
    )


def _reveal(
    nodes: Sequence[str | Cloze], numbers: set[int], empty: set[int], hidden: dict[int, list[str]]
) -> str:
    """The text of ``nodes`` with their deletions revealed, noting the numbers used, the
    empty ones, and what each hides. (A function of its own, not a closure that calls
    itself: that would be a reference cycle left for the garbage collector per field.)"""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            parts.append(node)
            continue
        inner = _reveal(node.nodes, numbers, empty, hidden)
        hidden.setdefault(node.ordinal, []).append(inner)
        if node.ordinal != 0:
            numbers.add(node.ordinal)
            if is_blank(inner):
                empty.add(node.ordinal)
        parts.append(inner)
    return "".join(parts)
