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

from deckbuilder.errors import Problem
from deckbuilder.importers.base import Imported, Question, parse_answer, question_problems, raise_if
from deckbuilder.importers.markup import escape_markdown

__all__ = ["looks_like_aiken", "parse_aiken"]

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


def _not_completed(file: str, draft: _Draft, next_line: int | None) -> Problem:
    where = "before the next question starts" if next_line else "at the end of the file"
    return Problem(
        file,
        next_line or draft.line,
        f"the question at line {draft.line} was not completed {where}: "
        "add its 'ANSWER:' line (e.g. 'ANSWER: B') after its choices (or import with "
        "--allow-missing-answers and fill it in later)",
    )


def parse_aiken(text: str, file: str) -> Imported:
    """Read Aiken questions; raise DeckError listing every problem."""
    problems: list[Problem] = []
    incomplete: list[Problem] = []  # questions with choices but no 'ANSWER:' line
    drafts: list[_Draft] = []
    cur: _Draft | None = None  # the question being read; None between questions

    def _unfinished(draft: _Draft, next_line: int | None) -> None:
        # Only a question that could be a card may go on without its answer.
        (incomplete if len(draft.choices) >= 2 else problems).append(
            _not_completed(file, draft, next_line)
        )

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
                problems.append(
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
            problems.extend(found)
            if not answer.group(1):
                problems.append(
                    Problem(file, lineno, "'ANSWER:' has no letter; write e.g. 'ANSWER: B'")
                )
            cur.answer = picked
            cur.answer_line = lineno
            cur = None
        elif choice and cur is not None:
            expected = chr(ord("A") + len(cur.choices)) if len(cur.choices) < 26 else ""
            if choice.group(1) != expected:
                problems.append(
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
    questions: list[Question] = []
    for d in drafts:
        while d.text and not d.text[-1]:
            d.text.pop()
        if not d.answer_line and len(d.choices) < 2:
            continue  # a question text alone, or too few choices (reported above)
        q = Question(
            d.line,
            escape_markdown("\n".join(d.text)),
            [escape_markdown(choice) for choice in d.choices],
            d.answer,
        )
        problems.extend(question_problems(file, q, "question"))
        questions.append(q)
    if not drafts and not problems:
        problems.append(
            Problem(
                file, 1, "no Aiken questions found (a question line, choices 'A. ...', 'ANSWER: A')"
            )
        )
    # With other problems, the missing answers are told in the same pass; alone, they
    # are the import's to refuse or (--allow-missing-answers) to let through.
    raise_if(sorted(problems + incomplete, key=lambda p: p.line or 0) if problems else [])
    return Imported("aiken", file, questions=questions, missing_answer_messages=incomplete)
