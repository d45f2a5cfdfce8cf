"""Moodle's GIFT format, read the way Moodle reads it.

Questions are separated by blank lines; lines starting with ``//`` are comments. A
question is ``::name::`` (optional; it becomes the note's id), its text, and an answer
block in braces:

    ::Tomb::Who's buried in Grant's tomb? {=no one#Right! ~Grant ~Jefferson ####General}
    Grant was buried in a tomb in New York City.{T}
    Which are primes? {~%50%2 ~%50%3 ~%-100%4}
    Two plus two equals {=four =4}.
    When was Ulysses S. Grant born? {#1822:1}
    Match the capitals. {=Canada -> Ottawa =Italy -> Rome}
    $CATEGORY: $course$/top/Presidents

``=`` marks a right choice and ``~`` a wrong one; ``~%50%`` gives a weight (see
:mod:`.gift_answers` for what counts as right); ``{T}``/``{TRUE}``/``{F}``/``{FALSE}``
are true/false; ``#`` starts an answer's feedback (the choice's ``feedback:``, shown on
the back under the picked choice) and ``####`` the general feedback (the explanation);
``\\= \\~ \\# \\{ \\} \\:`` are literal characters and ``\\n`` a line break. As in
Moodle, an unescaped ``=`` or ``~`` in a feedback starts the next answer; where it looks
meant as text (``1 = 2``, ``x=2``) the import warns. Text may start with ``[html]``,
``[markdown]``, ``[plain]`` or ``[moodle]``. Answers in the middle of the text (the
missing-word form) leave a ``_____``.

Short answer and numerical questions become typed-answer notes, matching questions one
multiple-choice note per pair. Essays and descriptions have no card; they are listed as
skipped.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from deckbuilder.cardfile.checks import text_problem
from deckbuilder.cardfile.deck import detected_label_language
from deckbuilder.errors import Problem, shown
from deckbuilder.importers.base import Skipped, SourceDeck, SourceNotes
from deckbuilder.importers.gift_answers import (
    Weighted,
    full_credit,
    matching_pairs,
    multiple_choice_right,
    numerical_answers,
    short_answers,
    split_weight,
)
from deckbuilder.importers.gift_source import Block, Escapes, blocks, category, markers_in_feedback
from deckbuilder.importers.markup import escape_markdown, html_to_markdown, moodle_to_markdown
from deckbuilder.model import MAX_CHOICES, McqNote, Note, TypedAnswer, TypedNote

FORMAT_RE = re.compile(r"^\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
# The choices of a true/false question, in the language of the deck's labels.
TRUE_FALSE_LABELS = {"en": ("True", "False"), "ko": ("참", "거짓")}
# Moodle's short-answer wildcard: an unescaped '*' stands for any text.
WILDCARD_RE = re.compile(r"(?<!\\)\*")
SKIP_REASONS = {
    "description": "it is text without a question",
    "essay": "an essay has no answer to check",
}
_DETECT = (
    re.compile(r"^\s*::.*::"),
    re.compile(r"^\s*\$CATEGORY:"),
    re.compile(r"\{\s*(?:[=~]|%-?\d|T\s*[}#]|TRUE\s*[}#]|F\s*[}#]|FALSE\s*[}#]|#)"),
)


def looks_like_gift(lines: list[str]) -> bool:
    return any(rx.search(line) for line in lines for rx in _DETECT)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _answer_text(answer: TypedAnswer) -> str:
    """A typed answer as the explanation names it: 'no one', '1822 ± 2', '3.141 to 3.142'."""
    return answer.shown.replace(" \u2013 ", " to ") if answer.is_number else answer.text


def _joined(*texts: str) -> str:
    """Texts as paragraphs, empty ones left out."""
    return "\n\n".join(t.strip() for t in texts if t.strip())


class _GiftReader:
    def __init__(self, source: Path, esc: Escapes) -> None:
        self.file = str(source)
        self.esc = esc
        self.problems: list[Problem] = []  # of the question being read
        self.result = SourceNotes("gift", source)
        self.notes: list[Note] = []
        self.category: tuple[str, ...] = ()
        self.categories: list[tuple[str, ...]] = []  # per note
        self.true_false_notes: list[int] = []  # indexes of true/false notes, choices to come
        self.name = ""  # the ::name:: of the question being read

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.file, line, message))

    def text(self, raw: str, default: str = "moodle") -> tuple[str, str]:
        """A piece of GIFT text -> (Markdown, its format)."""
        raw = raw.strip()
        fmt = default
        m = FORMAT_RE.match(raw)
        if m:
            fmt = m.group(1).lower()
            raw = raw[m.end() :]
        plain = self.esc.restore(raw).strip()
        if fmt == "html":
            return html_to_markdown(plain), fmt
        if fmt == "plain":
            return escape_markdown(plain), fmt
        if fmt == "moodle":
            return moodle_to_markdown(plain), fmt
        return plain, fmt  # markdown: as written

    def block(self, b: Block) -> None:
        pos = 0
        if b.text.startswith("$CATEGORY:"):
            end = b.text.find("\n")
            end = len(b.text) if end < 0 else end
            self.category = category(self.esc.restore(b.text[len("$CATEGORY:") : end]))
            too_long = text_problem("the category", "::".join(self.category))
            if too_long:
                self.result.warnings.append(
                    Problem.warning(
                        self.file,
                        b.line_at(0),
                        f"{too_long}; it is left out",
                    )
                )
                self.category = ()
            if end >= len(b.text):
                return
            pos = end + 1
        line = b.line_at(pos)
        self.name = ""
        if b.text.startswith("::", pos):
            name_end = b.text.find("::", pos + 2)
            if name_end < 0:
                self.problem(line, "question name opened with '::' is not closed with '::'")
                return
            self.name = _one_line(self.esc.restore(b.text[pos + 2 : name_end]))
            pos = name_end + 2
        self.question(b, pos, line)

    def question(self, b: Block, pos: int, line: int) -> None:
        text = b.text
        open_ = text.find("{", pos)
        close = text.find("}", open_ + 1 if open_ >= 0 else pos)
        if open_ < 0 and close < 0:
            if text[pos:].strip():
                self.skip(line, "description")
            return
        if open_ < 0:
            self.problem(b.line_at(close), "'}' without an opening '{' (write \\} for a brace)")
            return
        if close < 0:
            self.problem(
                b.line_at(open_),
                "'{' without a closing '}': an answer block cannot contain a blank line "
                "(write \\{ for a brace)",
            )
            return
        if "}" in text[pos:open_]:
            self.problem(b.line_at(text.find("}", pos)), "'}' before the answer block's '{'")
            return
        if "{" in text[close + 1 :] or "}" in text[close + 1 :]:
            self.problem(
                b.line_at(close + 1 + re.search(r"[{}]", text[close + 1 :]).start()),  # type: ignore[union-attr]
                "a second answer block in the same question; separate questions with a "
                "blank line (or write \\{ \\} for braces)",
            )
            return
        after = text[close + 1 :]
        qtext = text[pos:open_] + ("_____" + after if after.strip() else "")
        inside = text[open_ + 1 : close]
        answers = inside.strip()
        start = open_ + 1 + len(inside) - len(inside.lstrip())  # where ``answers`` starts
        general = ""
        if "####" in answers:
            cut = answers.rfind("####")
            general, answers = answers[cut + 4 :], answers[:cut].strip()
        question, fmt = self.text(qtext)
        explanation = self.text(general, fmt)[0] if general.strip() else ""

        if not answers:
            self.skip(line, "essay")
        elif answers.startswith("#"):
            self.numerical(line, question, fmt, answers[1:], explanation)
        elif "~" in answers:
            self.warnmarkers_in_feedback(b, start, answers)
            self.multiple_choice(line, question, fmt, answers, explanation)
        elif "=" in answers and "->" in answers:
            self.matching(line, question, fmt, answers, explanation)
        else:
            head = answers.split("#", 1)[0].strip() if "#" in answers[1:] else answers
            if head in TRUE_FALSE:
                self.true_false(line, question, fmt, answers, TRUE_FALSE[head], explanation)
            else:
                self.typed(line, question, fmt, short_answers(answers), explanation)

    def skip(self, line: int, kind: str) -> None:
        self.result.skipped.append(Skipped(line, SKIP_REASONS[kind], kind))

    def warnmarkers_in_feedback(self, b: Block, start: int, answers: str) -> None:
        """Warn of each '=' or '~' that ends a feedback although it looks like part of it
        (``~wrong#No: 1 = 2``): Moodle and this import read a new answer there."""
        for at in markers_in_feedback(answers):
            mark = answers[at]
            said = _one_line(self.esc.restore(answers[answers.rfind("#", 0, at) + 1 : at]))
            said = said if len(said) <= 30 else "…" + said[-29:]
            self.result.warnings.append(
                Problem.warning(
                    self.file,
                    b.line_at(start + at),
                    f"the '{mark}' after the feedback '{said}' starts another "
                    f"{'right' if mark == '=' else 'wrong'} answer, as Moodle reads it; "
                    f"if it belongs to the feedback, write \\{mark}",
                )
            )

    def multiple_choice(
        self, line: int, question: str, fmt: str, answers: str, general: str
    ) -> None:
        parts = answers.replace("=", "~=").split("~")
        if not parts[0].strip():
            parts = parts[1:]
        choices: list[str] = []
        feedback: list[str] = []
        weights: list[float] = []
        marked: list[bool] = []
        written: list[bool] = []  # the source gives this choice a weight
        for part in parts:
            part = part.strip()
            if not part:  # '~=' and '~~' leave an empty answer, which Moodle drops
                continue
            is_marked = part.startswith("=")
            if is_marked:
                part = part[1:].lstrip()
            weight, rest = split_weight(part, 100.0 if is_marked else 0.0)
            answer, _, said = rest.partition("#")
            marked.append(is_marked)
            weights.append(weight)
            written.append(rest != part)
            feedback.append(self.text(said, fmt)[0] if said.strip() else "")
            choices.append(self.text(answer, fmt)[0])
        right = multiple_choice_right(weights, marked)
        if sum(marked) > 1 and len(right) > 1:
            self.result.warnings.append(
                Problem.warning(
                    self.file,
                    line,
                    f"{len(right)} answers are marked '=': Moodle takes any one of "
                    "them as right, the card asks for all of them",
                )
            )
        if any(written):
            shown = ", ".join(
                f"{_one_line(choice)} {weight:g}%"
                for choice, weight, was in zip(choices, weights, written, strict=True)
                if was
            )
            general = _joined(general, f"Weights in Moodle: {shown}.")
        self.add(line, question, choices, right, general, feedback)

    def typed(
        self,
        line: int,
        question: str,
        fmt: str,
        answers: list[Weighted],
        general: str,
        wrong: str = "",
    ) -> None:
        """A short-answer or numerical question: the full-credit answers are accepted;
        what Moodle says of each answer goes to the explanation."""
        # Each answer once, by how it is written (a number out of range, NaN, is not
        # equal to itself).
        accepted: dict[str, TypedAnswer] = {}
        said: list[str] = []
        wildcards: list[str] = []
        for answer in answers:
            # An answer over several lines is typed on one: the learner has one box.
            written = _one_line(self.esc.restore(answer.text))
            if answer.number is None and written == "*" and not answer.weight:
                wrong = wrong or answer.feedback  # Moodle's answer to every other answer
                continue
            wildcard = answer.number is None and WILDCARD_RE.search(written) is not None
            if answer.number is None and not wildcard:
                written = written.replace("\\*", "*")  # Moodle's escape of an asterisk
            typed = answer.number or TypedAnswer(text=written, shown=written)
            text = _answer_text(typed)
            if full_credit(answer.weight):
                if wildcard:
                    wildcards.append(written)
                else:
                    accepted.setdefault(typed.shown, typed)
                label = escape_markdown(text)
            else:
                label = f"{escape_markdown(text)} ({answer.weight:g}% in Moodle)"
            if answer.feedback.strip() or not full_credit(answer.weight) or wildcard:
                note = self.text(answer.feedback, fmt)[0] if answer.feedback.strip() else ""
                said.append(f"- {label}" + (f": {_one_line(note)}" if note else ""))
        if wrong.strip():
            said.append(f"- Any other answer: {_one_line(self.text(wrong, fmt)[0])}")
        for written in wildcards:
            not_accepted = (
                f"the card does not accept {shown(written)}: Moodle reads '*' as any text, "
                "a card only what is typed; add the answers it stands for"
            )
            if accepted:
                self.result.warnings.append(Problem.warning(self.file, line, not_accepted))
            else:
                self.problem(line, not_accepted)
        if wildcards and not accepted:
            return
        explanation = _joined(general, "\n".join(said))
        typed_note = TypedNote(
            id=self.name,
            line=line,
            question=question,
            answers=tuple(accepted.values()),
            explanation=explanation,
        )
        self.keep(typed_note)

    def numerical(self, line: int, question: str, fmt: str, block: str, general: str) -> None:
        answers, wrong, bad = numerical_answers(block)
        for text in bad:
            shown = _one_line(self.esc.restore(text))
            self.problem(
                line,
                f"numerical question: '{shown}' is not a number, a number:tolerance or a "
                "range min..max",
            )
        if not answers and not bad:
            self.problem(line, "numerical question without an answer ({#4}, {#4:0.5} or {#3..5})")
        if answers and not bad:
            self.typed(line, question, fmt, answers, general, wrong)

    def matching(self, line: int, question: str, fmt: str, block: str, general: str) -> None:
        """One multiple-choice question per pair: every right side is a choice."""
        pairs, bad = matching_pairs(block)
        for text in bad:
            self.problem(
                line,
                f"matching question: '{_one_line(self.esc.restore(text))}' has no '->' "
                "(write =left -> right)",
            )
        rights = list(dict.fromkeys(self.esc.restore(p.right).strip() for p in pairs))
        asked = [p for p in pairs if p.left.strip()]
        if bad:
            return
        if len(asked) < 2 or len(rights) < 2:
            self.problem(line, "matching question needs at least two pairs with different answers")
            return
        if len(rights) > MAX_CHOICES:
            # Each pair is a card showing every answer as a choice: 6,000 pairs would be
            # 6,000 cards of 6,000 choices.
            self.problem(
                line,
                f"matching question has {len(rights):,} different answers; a card shows at "
                f"most {MAX_CHOICES} choices: split it into questions of {MAX_CHOICES} pairs",
            )
            return
        choices = [escape_markdown(r) for r in rights]
        for pair in asked:
            left = self.text(pair.left, fmt)[0]
            right = rights.index(self.esc.restore(pair.right).strip())
            name = f"{self.name} {_one_line(left)}" if self.name else ""
            note = McqNote(
                id=name,
                line=line,
                question=f"{question}\n\n{left}",
                choices=tuple(choices),
                answer=(right,),
                explanation=general,
            )
            self.keep(note)

    def true_false(
        self, line: int, question: str, fmt: str, answers: str, truth: bool, general: str
    ) -> None:
        # {T#shown to who answers wrongly#shown to who answers rightly}
        bits = answers.split("#", 2)
        wrong_fb = self.text(bits[1], fmt)[0] if len(bits) > 1 else ""
        right_fb = self.text(bits[2], fmt)[0] if len(bits) > 2 else ""
        feedback = [right_fb, wrong_fb] if truth else [wrong_fb, right_fb]
        right = 0 if truth else 1
        # The choices are written once the deck's language is known.
        self.true_false_notes.append(len(self.notes))
        self.add(line, question, [], [right], general, feedback, shuffle=False)

    def add(
        self,
        line: int,
        question: str,
        choices: list[str],
        right: list[int],
        explanation: str,
        feedback: list[str],
        shuffle: bool = True,
    ) -> None:
        note = McqNote(
            id=self.name,
            line=line,
            question=question,
            choices=tuple(choices),
            answer=tuple(right),
            explanation=explanation,
            shuffle=shuffle,
            feedback=tuple(feedback) if any(feedback) else (),
        )
        self.keep(note)

    def keep(self, note: Note) -> None:
        self.notes.append(note)
        self.categories.append(self.category)

    def read(self, b: Block) -> None:
        """One block: its notes, or, when it has problems, none and why."""
        kept = len(self.notes)
        self.problems = []
        self.block(b)
        if self.problems:
            self.true_false_notes = [i for i in self.true_false_notes if i < kept]
            del self.notes[kept:], self.categories[kept:]
            reason = "; ".join(p.message for p in self.problems)
            self.result.skipped.append(Skipped(self.problems[0].line, reason))


def parse_gift(text: str, source: Path) -> SourceNotes:
    """Read GIFT questions as Moodle does: each question that can be read becomes a note
    (a matching question one per pair); each that cannot is skipped, and said why.

    The category path all questions share names the deck; what differs between questions
    becomes a tag ('Week_1::Basics'). True/false choices are written in the language of
    the deck's labels."""
    esc = Escapes(text)
    reader = _GiftReader(source, esc)
    for block in blocks(text, esc):
        reader.read(block)
    result = reader.result
    notes = reader.notes
    labels = TRUE_FALSE_LABELS[detected_label_language(notes)] if reader.true_false_notes else ()
    for i in reader.true_false_notes:
        true_false = notes[i]
        assert isinstance(true_false, McqNote)
        notes[i] = replace(true_false, choices=labels)
    paths = reader.categories
    prefix: tuple[str, ...] = ()
    if any(paths):
        first = paths[0]
        n = 0
        while n < len(first) and all(len(p) > n and p[n] == first[n] for p in paths):
            n += 1
        prefix = first[:n]
    for i, path in enumerate(paths):
        rest = path[len(prefix) :]
        if rest:
            tag = "::".join(re.sub(r"\s+", "_", part) for part in rest)
            notes[i] = replace(notes[i], tags=(tag,))
    result.decks = [SourceDeck("::".join(prefix), notes)]
    result.skipped.sort(key=lambda s: s.line or 0)
    return result
