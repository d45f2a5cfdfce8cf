"""The lint rules' codes, each with the one line ``deckbuilder lint`` and the docs give it.

Kept apart from the rules themselves so that the card loader can check a note's
``lint: [code, ...]`` opt-outs without loading them. docs/lint.md gives each rule's
reason and the item-writing guideline it comes from.
"""

from __future__ import annotations

__all__ = ["RULES"]

RULES: dict[str, str] = {
    "above-choice": '"all/none of the above" among choices that move',
    "choice-reference": "a choice names other choices by letter or position while they move",
    "longest-correct": "the right choice is clearly longer than every other choice",
    "negative-stem": "a negative question (NOT, EXCEPT, 아닌, 틀린...) without emphasis",
    "duplicate-question": "the same question (or nearly) in another note",
    "cloze-hides-all": "a cloze deletion hides nearly all of its text",
    "front-equals-back": "a basic card's back repeats its front",
    "answer-position": "with shuffling off, the right answers pile up on one letter",
}
