"""The answer blocks of GIFT questions that are not plain multiple choice, and GIFT's
answer weights, read the way Moodle's ``qformat_gift`` reads them.

- Short answer ``{=no one =nobody}`` and numerical ``{#1822:1}``, ``{#3.141..3.142}``,
  ``{#=1822:0 =%50%1822:2}`` become typed-answer questions: the full-credit answers are
  accepted; partial-credit answers and every answer's feedback go to the explanation.
- Matching ``{=Canada -> Ottawa =Italy -> Rome}`` becomes one multiple-choice question per
  pair: the question's text, then the pair's left side; the choices are every right side
  (as Moodle's drop-down menus offer them).
- Weights in multiple choice: a question with a ``=`` answer has a single right answer
  (partial credit is not right); without one, positive weights are "choose all that
  apply" only when they add up to 100%.

Functions here take the answer block with GIFT's escapes still protected and return
the pieces; :mod:`deckbuilder.importers.gift` turns them into questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deckbuilder.model import TypedAnswer

WEIGHT_RE = re.compile(r"^%\s*(-?\d+(?:\.\d*)?)\s*%")
# What Moodle's is_numeric takes, less hexadecimal and surrounding space.
NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\Z")
# Weights add up to 100% give or take this (three answers at %33.3% are 99.9%).
SUM_SLACK = 1.0


@dataclass
class Weighted:
    """One answer of a block: its text (escapes protected), weight in percent, feedback."""

    text: str
    weight: float
    feedback: str = ""
    number: TypedAnswer | None = None  # a numerical answer's


def split_weight(part: str, default: float) -> tuple[float, str]:
    """``%50%text`` -> (50.0, 'text'); without a weight, ``default``."""
    weight = WEIGHT_RE.match(part)
    if weight is None:
        return default, part
    return float(weight.group(1)), part[weight.end() :].lstrip()


def full_credit(weight: float) -> bool:
    return weight >= 100 - 1e-9


def multiple_choice_right(weights: list[float], marked: list[bool]) -> list[int]:
    """The right choices of a multiple-choice block: the full-credit ``=`` answers when
    there is one, else the positive weights if they add up to 100% (else none)."""
    if any(marked):
        return [
            i for i, (w, m) in enumerate(zip(weights, marked, strict=True)) if m and full_credit(w)
        ]
    positive = [i for i, w in enumerate(weights) if w > 0]
    if positive and abs(sum(weights[i] for i in positive) - 100) <= SUM_SLACK:
        return positive
    return []


def _split_answers(block: str, mark: str) -> list[str]:
    parts = block.split(mark)
    if not parts[0].strip():
        parts = parts[1:]
    return [p.strip() for p in parts]


def short_answers(block: str) -> list[Weighted]:
    """``=no one#Good =%50%nobody`` -> the answers (full credit unless weighted)."""
    out = []
    for part in _split_answers(block, "="):
        weight, rest = split_weight(part, 100.0)
        text, _, said = rest.partition("#")
        out.append(Weighted(text.strip(), weight, said.strip()))
    return out


def numerical_answers(block: str) -> tuple[list[Weighted], str, list[str]]:
    """A numerical block without its leading '#': the answers, the feedback for a wrong
    answer (after '~'), and what is not a number."""
    wrong = ""
    if "~" in block:
        block, _, wrong = block.partition("~")
        wrong = wrong.partition("#")[2].strip()
    out: list[Weighted] = []
    bad: list[str] = []
    for part in _split_answers(block, "="):
        weight, rest = split_weight(part, 100.0)
        text, _, said = rest.partition("#")
        text = text.strip()
        number = _number(text)
        if number is None:
            bad.append(text)
        else:
            out.append(Weighted(text, weight, said.strip(), number))
    return out, wrong, bad


def _number(text: str) -> TypedAnswer | None:
    """'1822' / '1822:2' / '3.141..3.142' -> the accepted number or range."""
    if ".." in text[1:]:
        low, _, high = (s.strip() for s in text.partition(".."))
        if NUMBER_RE.match(low) and NUMBER_RE.match(high) and float(low) <= float(high):
            return TypedAnswer.between(low, high)
        return None
    value, _, tolerance = (s.strip() for s in text.partition(":"))
    if not NUMBER_RE.match(value) or (tolerance and not NUMBER_RE.match(tolerance)):
        return None
    return TypedAnswer.around(value, tolerance.lstrip("+-") or "0")


@dataclass(frozen=True)
class Pair:
    left: str  # escapes protected; '' for an extra right side (a distractor)
    right: str


def matching_pairs(block: str) -> tuple[list[Pair], list[str]]:
    """``=Canada -> Ottawa =Italy -> Rome`` -> the pairs, and the answers without '->'."""
    pairs: list[Pair] = []
    bad: list[str] = []
    for part in _split_answers(block, "="):
        left, arrow, right = part.partition("->")
        if not arrow:
            bad.append(part)
        else:
            pairs.append(Pair(left.strip(), right.strip()))
    return pairs, bad
