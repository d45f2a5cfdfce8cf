"""The plain numbered quiz format: what a quiz page looks like when pasted as text.

    Gradient checkpointing quiz            <- optional title (the deck name)
    Answer the questions below.            <- optional intro (the deck description)

    1. What does checkpointing trade       <- numbered question ('1.' or '1)'),
       for lower memory?                      wrapping onto further lines
       • Extra computation ✓               <- choices: bullets (• - *) or letters
       • Accuracy                             (A. A) a) (a) ①); a trailing ✓ marks a right one
    ANSWER: A                              <- or an answer line: letters or 1-based numbers
    Explanation: Activations are ...       <- optional; may continue on further lines

    2. How many legs does a spider have?   <- a question without choices: its answer
    Answer: eight | 8                         line gives what the learner types (a
                                              typed-answer note); '|' separates answers
    Answer: 3.14 ± 0.01 | 3.1..3.2         <- a number with a tolerance ('+/-' too), a range

A typed answer is text, typed as written ('007' is not '7'), unless it is a number with a
tolerance or a range; '42 ± 0' accepts any way of writing 42. Text is kept exactly as
written (only the markers above are removed).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from deckbuilder.cardfile.checks import text_problem
from deckbuilder.cardfile.keys import MAX_ANSWERS
from deckbuilder.errors import DeckError, Problem
from deckbuilder.importers.base import Skipped, SourceDeck, SourceNotes, parse_answer
from deckbuilder.model import McqNote, Note, TypedAnswer, TypedNote

# Up to nine digits: quizzes run past question 9,999; a longer number is text.
QUESTION_RE = re.compile(r"^\s*(?:Q\s?)?(\d{1,9})[.)](?:\s+((?:.*\S)?))?\s*$")
BULLET_RE = re.compile(r"^\s*[•\-*·●○◦▪‣]\s+((?:.*\S)?)\s*$")
LETTER_RE = re.compile(
    r"^\s*(?:\(([A-Za-z])\)|([A-Za-z])[.)]\s|([\u2460-\u2473]))\s*((?:.*\S)?)\s*$"
)  # (a) text, A. text, a) text, ① text
ANSWER_RE = re.compile(
    r"^\s*(?:\*\*)?(?:correct\s+answers?|answers?|정답|답)(?:\*\*)?\s*[:\uff1a](?:\*\*)?\s*((?:.*\S)?)\s*$",
    re.IGNORECASE,
)
EXPLANATION_RE = re.compile(
    r"^\s*(?:\*\*)?(?:explanation|해설|설명)(?:\*\*)?\s*[:\uff1a](?:\*\*)?\s*((?:.*\S)?)\s*$",
    re.IGNORECASE,
)
CHECK_RE = re.compile(r"[✓✔✅☑]\ufe0f?\Z")
# A typed answer is compared as text unless it is written as a number with a tolerance
# or as a range: a bare '007' or '1,000' stays exactly what the learner must type.
_UNSIGNED = r"(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER = rf"[-+]?{_UNSIGNED}"
TOLERANCE_RE = re.compile(rf"({_NUMBER})\s*(?:±|\+/-|\+-)\s*({_UNSIGNED})\Z")
RANGE_RE = re.compile(rf"({_NUMBER})\s*\.\.(?!\.)\s*({_NUMBER})\Z")
ALTERNATIVES = "|"


def looks_like_quiz(lines: list[str]) -> bool:
    return any(QUESTION_RE.match(line) for line in lines)


@dataclass
class _Draft:
    number: int
    line: int
    text: list[str]
    choices: list[list[str]] = field(default_factory=list)  # lines of each choice
    choice_lines: list[int] = field(default_factory=list)
    lettered: bool = False
    checked: list[int] = field(default_factory=list)
    answer_value: str | None = None
    answer_line: int = 0
    answer_first: bool = False  # the answer line came before any choice: a typed answer
    explanation: list[str] = field(default_factory=list)
    state: str = "question"  # question | choices | after | explanation
    blank_since: bool = False  # a blank line since the last choice / text line


def _join(lines: list[str]) -> str:
    """Lines -> text: outer blank lines dropped, runs of blank lines kept as one."""
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


class _QuizReader:
    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []  # of no question: the file's own
        self.of_draft: dict[int, list[Problem]] = {}  # by the question's line
        self.current: _Draft | None = None
        self.drafts: list[_Draft] = []
        self.title = ""
        self.intro: list[str] = []
        self.intro_line = 0

    def problem(self, line: int, message: str) -> None:
        found = Problem(self.file, line, message)
        if self.current is None:
            self.problems.append(found)
        else:
            self.of_draft.setdefault(self.current.line, []).append(found)

    def starts_question(self, number: int, current: _Draft | None, prev_blank: bool) -> bool:
        if current is None:
            return True
        if number == current.number + 1:
            return True
        if current.state in ("choices", "after"):
            return True
        return current.state == "explanation" and prev_blank

    def read(self, lines: list[str]) -> None:
        cur: _Draft | None = None
        prev_blank = True
        for lineno, raw in enumerate(lines, start=1):
            line = raw.strip()
            m = QUESTION_RE.match(raw)
            if m and self.starts_question(int(m.group(1)), cur, prev_blank):
                cur = _Draft(int(m.group(1)), lineno, [m.group(2) or ""])
                self.drafts.append(cur)
                self.current = cur
            elif cur is None:
                if not line:
                    pass
                elif not self.title and not self.intro:
                    self.title = re.sub(r"^#+\s*", "", line)
                else:
                    self.intro_line = self.intro_line or lineno
                    self.intro.append(line)
                if not line and self.intro:
                    self.intro.append("")
            else:
                self.line_in_question(cur, lineno, raw, line)
            prev_blank = not line

    def line_in_question(self, q: _Draft, lineno: int, raw: str, line: str) -> None:
        if not line:
            if q.state in ("question", "explanation"):
                (q.text if q.state == "question" else q.explanation).append("")
            q.blank_since = True
            return
        answer = ANSWER_RE.match(raw)
        explanation = EXPLANATION_RE.match(raw) if not answer else None
        choice = self.choice_text(q, raw, lineno)
        if choice is not None and q.answer_first and q.state == "after":
            # Choices after the answer line: a misplaced answer line, not a typed answer.
            self.problem(q.answer_line, f"question {q.number}: answer line before any choice")
            q.answer_first = False
            q.answer_value = None
        if answer:
            self.answer_line(q, lineno, answer.group(1))
        elif explanation and q.state != "explanation":
            if q.state == "question":
                self.problem(
                    lineno,
                    f"question {q.number}: explanation before any choice (choices come first)",
                )
            q.state = "explanation"
            q.explanation.append(explanation.group(1))
        elif q.state == "explanation":
            q.explanation.append(line)
        elif q.state == "after":  # unlabelled text after the answer line explains it
            q.state = "explanation"
            q.explanation.append(line)
        elif choice is not None:
            self.add_choice(q, lineno, choice)
        elif q.state == "question":
            q.text.append(line)
        elif q.blank_since:
            self.problem(
                lineno,
                f"question {q.number}: this line is not a choice, an answer line (ANSWER: B) "
                "or an explanation (Explanation: ...); a choice's text cannot continue after "
                "a blank line",
            )
        else:  # a choice wrapping onto the next line
            q.choices[-1].append(line)
        q.blank_since = False

    def choice_text(self, q: _Draft, raw: str, lineno: int) -> str | None:
        bullet = BULLET_RE.match(raw)
        if bullet:
            return bullet.group(1)
        lettered = LETTER_RE.match(raw)
        if not lettered:
            return None
        circled = lettered.group(3)
        if circled:
            mark = chr(ord("A") + ord(circled) - 0x2460)
        else:
            mark = (lettered.group(1) or lettered.group(2)).upper()
        expected = chr(ord("A") + len(q.choices)) if len(q.choices) < 26 else ""
        if mark == expected and (q.lettered or not q.choices):
            q.lettered = True
            return lettered.group(4)
        if q.lettered and q.state == "choices" and not q.blank_since:
            label = circled or raw.strip()[: 2 if lettered.group(2) else 3]
            self.problem(
                lineno,
                f"question {q.number}: choice '{label}' is out of order "
                f"(expected choice {len(q.choices) + 1})",
            )
            return lettered.group(4)
        return None

    def add_choice(self, q: _Draft, lineno: int, text: str) -> None:
        q.state = "choices"
        # Matched at the end of the stripped text only: a search from every position of a
        # long run of spaces would be quadratic.
        stripped = text.rstrip()
        mark = CHECK_RE.search(stripped)
        stripped = stripped[: mark.start()].rstrip() if mark else text
        if mark:
            q.checked.append(len(q.choices))
        q.choices.append([stripped])
        q.choice_lines.append(lineno)

    def answer_line(self, q: _Draft, lineno: int, value: str) -> None:
        if q.answer_value is not None:
            self.problem(
                lineno,
                f"question {q.number}: a second answer line (the first is at line {q.answer_line})",
            )
        else:
            q.answer_first = q.state == "question"
            q.answer_value = value
            q.answer_line = lineno
        if q.state != "explanation":
            q.state = "after"

    def finish(self, q: _Draft) -> Note:
        self.current = q
        choices = [_join(lines) for lines in q.choices]
        what = f"question {q.number}"
        question, explanation = _join(q.text), _join(q.explanation)
        if not question.strip():
            self.problem(q.line, f"{what} has no text")
        if q.answer_first and q.answer_value is not None:
            answers = self.typed_answers(q.answer_value, q.answer_line, what)
            return TypedNote(
                id="",
                line=q.line,
                question=question,
                answers=tuple(answers),
                explanation=explanation,
            )
        answer: list[int] = []
        if q.answer_value is not None and q.answer_value.strip():
            answer, problems = parse_answer(q.answer_value, len(choices), self.file, q.answer_line)
            for problem in problems:
                self.problem(problem.line or q.line, problem.message)
            if not problems and q.checked and answer != q.checked:
                self.problem(
                    q.answer_line,
                    f"{what}: the answer line disagrees with the choices marked ✓",
                )
        return McqNote(
            id="",
            line=q.line,
            question=question,
            choices=tuple(choices),
            answer=tuple(answer or sorted(q.checked)),
            explanation=explanation,
        )

    def typed_answers(self, value: str, lineno: int, what: str) -> list[TypedAnswer]:
        """'four | 4 | 3.14 ± 0.01' -> the accepted answers, as the card file writes them."""
        if not value.strip():
            self.problem(
                lineno,
                f"{what}: the answer line is empty; write the answer to type "
                "(Answer: four | 4) or put the choices before it",
            )
            return []
        parts = [part.strip() for part in value.split(ALTERNATIVES)]
        if len(parts) > MAX_ANSWERS:
            self.problem(
                lineno, f"{what}: {len(parts)} accepted answers; a note takes at most {MAX_ANSWERS}"
            )
            return []
        accepted: list[TypedAnswer] = []
        first: dict[str, int] = {}
        for n, part in enumerate(parts, start=1):
            answer = self.typed_answer(part, lineno, what, n, len(parts))
            if answer is None:
                continue
            # The same answer, as the card loader tells them apart.
            key = answer.shown if answer.is_number else " ".join(part.split()).casefold()
            if key in first:
                self.problem(
                    lineno, f"{what}: accepted answer {n} repeats answer {first[key]} ('{part}')"
                )
                continue
            first[key] = n
            accepted.append(answer)
        return accepted

    def typed_answer(
        self, part: str, lineno: int, what: str, n: int, count: int
    ) -> TypedAnswer | None:
        if not part:
            where = f"accepted answer {n} of {count}" if count > 1 else "the accepted answer"
            self.problem(lineno, f"{what}: {where} is empty (write 'Answer: four | 4')")
            return None
        numbers = TOLERANCE_RE.match(part) or RANGE_RE.match(part)
        if numbers and not all(math.isfinite(float(x)) for x in numbers.groups()):
            self.problem(lineno, f"{what}: '{part}' holds a number too large to compare")
            return None
        tolerance = TOLERANCE_RE.match(part)
        if tolerance:
            return TypedAnswer.around(*tolerance.groups())
        bounds = RANGE_RE.match(part)
        if bounds:
            low, high = bounds.groups()
            if float(low) > float(high):
                self.problem(
                    lineno, f"{what}: the range '{part}' starts above its end (write low..high)"
                )
                return None
            return TypedAnswer.between(low, high)
        return TypedAnswer(text=part, shown=part)


def parse_quiz(text: str, source: Path) -> SourceNotes:
    """Read the numbered quiz format: every question that can be read becomes a note;
    each that cannot is skipped with its problems. DeckError when nothing is a question."""
    file = str(source)
    reader = _QuizReader(file)
    reader.read(text.split("\n"))
    if not reader.drafts:
        reader.problem(
            1, "no numbered questions found (expected lines like '1. What is ...?' or '1) ...')"
        )
    if reader.problems:
        raise DeckError(reader.problems)
    # The title names the deck (control characters dropped); the introduction describes it.
    deck = SourceDeck(reader.title, description=_join(reader.intro))
    result = SourceNotes("quiz", source, [deck])
    refused = text_problem("the introduction", deck.description)
    if refused:
        deck.description = ""
        result.warnings.append(
            Problem.warning(
                file,
                reader.intro_line,
                f"{refused}; the deck has no description",
            )
        )
    for draft in reader.drafts:
        note = reader.finish(draft)
        problems = reader.of_draft.get(draft.line)
        if problems:
            reason = "; ".join(p.message for p in problems)
            result.skipped.append(Skipped(problems[0].line, reason))
        else:
            deck.notes.append(note)
            result.unanswered[draft.line] = Problem(
                file,
                draft.line,
                f"question {draft.number} has no marked answer; put ✓ after the right choice "
                "or add a line 'ANSWER: B' (or import with --allow-missing-answers and fill it "
                "in later)",
            )
    return result
