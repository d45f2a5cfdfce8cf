"""Moodle's Aiken format: a question line, lettered choices, an answer line.

    What is the correct answer to this question?
    A. Is it this one?
    B) Maybe this answer?
    ANSWER: B

Each choice is an uppercase letter, '.' or ')', then the text (Moodle takes 'A)Correct'
without a space as a choice too, and so do we once a question has started); 'ANSWER:'
follows the choices and ends the question. As in Moodle, the question text is what
comes before the first choice; we also accept it wrapped over several lines, and
several letters ('ANSWER: A, C') for a choose-all-that-apply card. A question whose
'ANSWER:' line is missing is reported where the next question starts, as Moodle does
("not completed before the next question starts"), or at the end of the file.

Aiken is plain text: Moodle escapes it (``A) <b>x</b>`` shows the tags, ``< > &`` show
as typed), so the question and the choices are written into the card file with the
characters Markdown or HTML would interpret escaped, as GIFT's ``[plain]`` text is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers.base import Skipped, SourceDeck, SourceNotes, parse_answer
from deckbuilder.importers.markup import escape_markdown
from deckbuilder.model import McqNote

CHOICE_RE = re.compile(r"^([A-Z])[.)][ \t]*((?:.*\S)?)\s*$")
SPACED_CHOICE_RE = re.compile(r"^[A-Z][.)][ \t]")
ANSWER_RE = re.compile(r"^ANSWER\s*:\s*((?:.*\S)?)\s*$", re.IGNORECASE)


def looks_like_aiken(lines: list[str]) -> bool:
    return any(ANSWER_RE.match(line.strip()) for line in lines) and any(
        SPACED_CHOICE_RE.match(line.strip()) for line in lines
    )


@dataclass
class _Draft:
    line: int
    text: list[str]
    choices: list[str] = field(default_factory=list)
    answer: list[int] = field(default_factory=list)
    answer_line: int = 0  # 0: no 'ANSWER:' line
    problems: list[Problem] = field(default_factory=list)
    incomplete: Problem | None = None  # no 'ANSWER:' line, said as Moodle says it


def _not_completed(file: str, draft: _Draft, next_line: int | None) -> Problem:
    where = "before the next question starts" if next_line else "at the end of the file"
    return Problem(
        file,
        next_line or draft.line,
        f"the question at line {draft.line} was not completed {where}: "
        "add its 'ANSWER:' line (e.g. 'ANSWER: B') after its choices (or import with "
        "--allow-missing-answers and fill it in later)",
    )


def parse_aiken(text: str, source: Path) -> SourceNotes:
    """Read Aiken questions as Moodle does: each question that can be read becomes a
    note; the others, and lines that are no part of a question, are skipped and said why."""
    file = str(source)
    problems: list[Problem] = []  # lines that belong to no question
    drafts: list[_Draft] = []
    cur: _Draft | None = None  # the question being read; None between questions

    def _unfinished(draft: _Draft, next_line: int | None) -> None:
        # Only a question that could be a card may go on without its answer.
        if len(draft.choices) >= 2:
            draft.incomplete = _not_completed(file, draft, next_line)
        else:
            draft.problems.append(_not_completed(file, draft, next_line))

    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            if cur is not None and not cur.choices:
                cur.text.append("")
            continue
        choice = CHOICE_RE.match(line)
        if choice and not SPACED_CHOICE_RE.match(line) and (cur is None or not cur.choices):
            # 'A.I. is...' starts a question; 'A)Correct' is a choice only among choices
            # or right after the question text.
            choice = choice if cur is not None else None
        answer = ANSWER_RE.match(line)
        if answer:
            if cur is None or not cur.choices:
                problems.append(Problem(file, lineno, "'ANSWER:' line before any choice"))
                cur = None
                continue
            if len(cur.choices) < 2:
                cur.problems.append(
                    Problem(
                        file,
                        lineno,
                        f"the question at line {cur.line} has {len(cur.choices)} choice"
                        f"{'' if len(cur.choices) == 1 else 's'}; a card needs 2 to 26",
                    )
                )
                cur = None
                continue
            picked, found = parse_answer(
                answer.group(1), len(cur.choices), file, lineno, numbers=False
            )
            cur.problems.extend(found)
            if not answer.group(1):
                cur.problems.append(
                    Problem(file, lineno, "'ANSWER:' has no letter; write e.g. 'ANSWER: B'")
                )
            cur.answer = picked
            cur.answer_line = lineno
            cur = None
        elif choice and cur is not None:
            expected = chr(ord("A") + len(cur.choices)) if len(cur.choices) < 26 else ""
            if choice.group(1) != expected:
                cur.problems.append(
                    Problem(
                        file,
                        lineno,
                        f"choice {choice.group(1)} where {expected or 'the answer line'} was expected",
                    )
                )
            cur.choices.append(choice.group(2))
        elif choice:
            problems.append(
                Problem(
                    file, lineno, "a choice before any question text (the question comes first)"
                )
            )
        elif cur is not None and not cur.choices:
            cur.text.append(line)  # the question wraps onto another line
        else:
            if cur is not None and cur.choices:
                _unfinished(cur, lineno)
            cur = _Draft(lineno, [line])
            drafts.append(cur)
    if cur is not None and cur.choices:
        _unfinished(cur, None)
    result = SourceNotes("aiken", source, [SourceDeck("")])
    for d in drafts:
        while d.text and not d.text[-1]:
            d.text.pop()
        question = escape_markdown("\n".join(d.text))
        if not d.answer_line and not d.choices:
            # A question text alone: Moodle reads it as a question without choices.
            d.problems.append(
                Problem(file, d.line, f"the question at line {d.line} has no choices")
            )
        if d.problems:
            reason = "; ".join(p.message for p in d.problems)
            result.skipped.append(Skipped(d.problems[0].line, reason))
            continue
        note = McqNote(
            id="",
            line=d.line,
            question=question,
            choices=tuple(escape_markdown(choice) for choice in d.choices),
            answer=tuple(d.answer),
        )
        if d.incomplete is not None:
            result.unanswered[d.line] = d.incomplete
        result.decks[0].notes.append(note)
    if not drafts and not problems:
        raise DeckError.single(
            file, "no Aiken questions found (a question line, choices 'A. ...', 'ANSWER: A')", 1
        )
    result.skipped += [Skipped(p.line, p.message) for p in problems]
    result.skipped.sort(key=lambda s: s.line or 0)
    return result
