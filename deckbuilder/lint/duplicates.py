"""Near-duplicate questions across every card file.

Two notes ask the same question when their question texts (a multiple-choice question,
a basic front, a cloze text with its deletions revealed) are equal once normalised (case,
punctuation, spaces, Unicode compatibility forms), or nearly so: at least
:data:`SIMILAR` of their distinct words shared (Jaccard index), for texts of at least
:data:`MIN_WORDS` words.

Exact matches are found with one dictionary. Near matches are compared only within
small buckets of texts that share their first or their last three words (a reworded
middle keeps one end; a bucket larger than :data:`MAX_BUCKET` is a stock phrase, e.g.
"Which of the following", and is not searched), so the work grows with the number of
notes, not with its square.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MAX_BUCKET", "MIN_WORDS", "SIMILAR", "Question", "Repeat", "find_repeats"]

SIMILAR = 0.8
MIN_WORDS = 4
MAX_BUCKET = 50
_ENDS = 3  # words at each end that name a bucket


@dataclass(frozen=True)
class Question:
    """One note's question. ``owner`` tells the same note in several languages of one
    file apart from another note (a translation is no repeat)."""

    owner: tuple[str, str]  # (file, note id)
    line: int
    text: str  # normalised
    lang: str = ""


@dataclass(frozen=True)
class Repeat:
    """``later`` asks what ``earlier`` asked; ``shared`` is 1.0 for the same text."""

    later: Question
    earlier: Question
    shared: float


def find_repeats(questions: Sequence[Question]) -> list[Repeat]:
    """Each question that repeats an earlier one (in the order given), with the first it
    repeats: an exact repeat if there is one, else the most similar."""
    first_exact: dict[str, Question] = {}
    buckets: dict[tuple[int, tuple[str, ...]], list[tuple[Question, frozenset[str]]]] = {}
    out: list[Repeat] = []
    for question in questions:
        if not question.text:
            continue
        earlier = first_exact.get(question.text)
        if earlier is not None and earlier.owner != question.owner:
            out.append(Repeat(question, earlier, 1.0))
            continue
        first_exact.setdefault(question.text, question)
        tokens = question.text.split()
        if len(tokens) < MIN_WORDS:
            continue
        distinct = frozenset(tokens)
        best: Repeat | None = None
        keys = [(0, tuple(tokens[:_ENDS])), (1, tuple(tokens[-_ENDS:]))]
        for key in keys:
            bucket = buckets.setdefault(key, [])
            if len(bucket) > MAX_BUCKET:
                continue
            for other, other_words in bucket:
                if other.owner == question.owner:
                    continue
                both = len(distinct & other_words)
                shared = both / (len(distinct) + len(other_words) - both)
                if shared >= SIMILAR and (best is None or shared > best.shared):
                    best = Repeat(question, other, shared)
            bucket.append((question, distinct))
        if best is not None:
            out.append(best)
    return out
