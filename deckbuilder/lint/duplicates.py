"""Near-duplicate questions across every card file.

Two notes ask the same question when their question texts (a multiple-choice question,
a basic front, a cloze text with its deletions revealed) are equal once normalised (case,
punctuation, spaces, Unicode compatibility forms), or nearly so: the content words (the
words less a few English function words, :data:`FUNCTION_WORDS`) of one are all among
the other's, which has one more or few more (at least :data:`SIMILAR` of them shared,
Jaccard index), for texts of at least :data:`MIN_WORDS` words. A question with a word added ("the capital
city of France") or with other function words ("Which is...", "What is...") repeats the
other; one with a word changed ("largest" for "smallest", "binary" for "multiclass")
asks something else.

Exact matches are found with one dictionary. Near matches are compared only within
small buckets of texts that share their first or their last content word (a word added
in the middle keeps both; a bucket larger than :data:`MAX_BUCKET` is a stock phrase, e.g.
"Which of the following", and is not searched), so the work grows with the number of
notes, not with its square.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

SIMILAR = 0.8
MIN_WORDS = 4
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
    ]
)
MAX_BUCKET = 50


class Question(NamedTuple):
    """One note's question. ``owner`` tells the same note in several languages of one
    file apart from another note (a translation is no repeat)."""

    owner: tuple[str, str]  # (file, note id)
    line: int
    text: str  # normalised
    lang: str = ""


class Repeat(NamedTuple):
    """``later`` asks what ``earlier`` asked; ``shared`` is 1.0 for the same text."""

    later: Question
    earlier: Question
    shared: float


def find_repeats(questions: Sequence[Question]) -> list[Repeat]:
    """Each question that repeats an earlier one (in the order given), with the first it
    repeats: an exact repeat if there is one, else the most similar."""
    # text -> language -> the first question with it in that language
    first_exact: dict[str, dict[str, int]] = {}
    # A bucket holds each question's number and its content words as a tuple of text,
    # which the garbage collector need not follow (a deck of 50,000 notes fills them).
    buckets: dict[tuple[int, str], list[tuple[int, tuple[str, ...]]]] = {}
    out: list[Repeat] = []
    for number, question in enumerate(questions):
        if not question.text:
            continue
        firsts = first_exact.setdefault(question.text, {})
        firsts.setdefault(question.lang, number)
        earlier = min(n for lang, n in firsts.items() if _same_deck_language(question.lang, lang))
        if earlier != number and questions[earlier].owner != question.owner:
            out.append(Repeat(question, questions[earlier], 1.0))
            continue
        if len(question.text.split()) < MIN_WORDS:
            continue
        tokens = [word for word in question.text.split() if word not in FUNCTION_WORDS]
        if not tokens:
            continue
        distinct = frozenset(tokens)
        words = tuple(distinct)
        best: Repeat | None = None
        for key in ((0, tokens[0]), (1, tokens[-1])):
            bucket = buckets.setdefault(key, [])
            if len(bucket) > MAX_BUCKET:
                continue
            for other_number, other_words in bucket:
                other = questions[other_number]
                if other.owner == question.owner or not _same_deck_language(
                    question.lang, other.lang
                ):
                    continue
                if not (distinct.issubset(other_words) or distinct.issuperset(other_words)):
                    continue  # a word changed: another question
                smaller, larger = sorted((len(distinct), len(other_words)))
                shared = smaller / larger
                if (shared >= SIMILAR or larger - smaller == 1) and (
                    best is None or shared > best.shared
                ):
                    best = Repeat(question, other, shared)
            bucket.append((number, words))
        if best is not None:
            out.append(best)
    return out


def _same_deck_language(lang: str, other: str) -> bool:
    """Whether questions in these languages can meet in one deck: a question in ko repeats
    no English text, which the ko deck never shows; a file without languages ('') may be
    studied beside any language."""
    return lang == other or not lang or not other
