"""Moodle's GIFT format, read the way Moodle reads it.

Questions are separated by blank lines; lines starting with ``//`` are comments. A
question is ``::name::`` (optional), its text, and an answer block in braces:

    ::Tomb::Who's buried in Grant's tomb? {=no one#Right! ~Grant ~Jefferson ####General}
    Grant was buried in a tomb in New York City.{T}
    Which are primes? {~%50%2 ~%50%3 ~%-100%4}
    $CATEGORY: $course$/top/Presidents

``=`` marks a right choice and ``~`` a wrong one; ``~%50%`` gives a weight (positive means
right); ``{T}``/``{TRUE}``/``{F}``/``{FALSE}`` are true/false; ``#`` starts an answer's
feedback (the choice's ``feedback:``, shown on the back under the picked choice) and
``####`` the general feedback (the explanation); ``\\= \\~ \\# \\{ \\} \\:`` are literal
characters and ``\\n`` a line break. As in Moodle, an unescaped ``=`` or ``~`` in a
feedback starts the next answer; where it looks meant as text (``1 = 2``, ``x=2``) the
import warns. Text may start with ``[html]``, ``[markdown]``, ``[plain]`` or
``[moodle]``. Answers in the middle of the text (the missing-word form) leave a ``_____``.

Numerical, matching, short-answer and essay questions and descriptions have no
multiple-choice card; they are listed as skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..errors import Problem
from ..load.fields import UNSTORABLE
from .base import Imported, Question, Skipped, question_problems, raise_if, size_problem
from .markup import escape_markdown, html_to_markdown

__all__ = ["looks_like_gift", "parse_gift"]

SPECIALS = ":#={}~n"  # after a backslash; 'n' is a line break
WEIGHT_RE = re.compile(r"^%\s*(-?\d+(?:\.\d*)?)\s*%")
FORMAT_RE = re.compile(r"^\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
SKIP_REASONS = {
    "description": "it is text without a question",
    "essay": "an essay has no answer to check",
    "numerical": "cards have no numeric answers",
    "matching": "cards have no matching pairs",
    "short answer": "cards have no typed answers",
}
_DETECT = (
    re.compile(r"^\s*::.*::"),
    re.compile(r"^\s*\$CATEGORY:"),
    re.compile(r"\{\s*(?:[=~]|%-?\d|T\s*[}#]|TRUE\s*[}#]|F\s*[}#]|FALSE\s*[}#]|#)"),
)


def looks_like_gift(lines: list[str]) -> bool:
    return any(rx.search(line) for line in lines for rx in _DETECT)


class _Escapes:
    """Escaped characters become private-use placeholders (ones the text does not
    contain) while the structure is parsed, and are put back in the pieces of text."""

    def __init__(self, text: str) -> None:
        used = set(text)
        free = (
            chr(c) for c in (*range(0xE000, 0xF900), *range(0xF0000, 0xFFFFE)) if chr(c) not in used
        )
        self.placeholder = {ch: next(free) for ch in SPECIALS}
        self.restore_table = str.maketrans(
            {v: ("\n" if k == "n" else k) for k, v in self.placeholder.items()}
        )

    def protect(self, line: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "\\" and i + 1 < len(line):
                nxt = line[i + 1]
                if nxt in self.placeholder:
                    out.append(self.placeholder[nxt])
                    i += 2
                    continue
                if nxt == "\\":
                    out.append("\\")
                    i += 2
                    continue
            out.append(ch)
            i += 1
        return "".join(out)

    def restore(self, text: str) -> str:
        return text.translate(self.restore_table)


@dataclass
class _Block:
    text: str  # escapes protected; lines stripped and joined by '\n'
    lines: list[int]  # source line of each line of text
    starts: list[int]  # offset of each line in text

    def line_at(self, offset: int) -> int:
        return self.lines[max(bisect_right(self.starts, offset) - 1, 0)]


def _blocks(text: str, esc: _Escapes) -> list[_Block]:
    blocks: list[_Block] = []
    kept: list[tuple[int, str]] = []

    def close() -> None:
        if kept:
            starts, offset = [], 0
            for _, line in kept:
                starts.append(offset)
                offset += len(line) + 1
            blocks.append(_Block("\n".join(s for _, s in kept), [n for n, _ in kept], starts))
            kept.clear()

    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            close()
        elif not line.startswith("//"):
            kept.append((lineno, esc.protect(line)))
    close()
    return blocks


def _category(value: str) -> tuple[str, ...]:
    """'$course$/top/Default for X/Week 1' -> ('Default for X', 'Week 1')."""
    # Control characters become spaces: Anki would drop them from deck names and tags.
    parts = [
        " ".join(UNSTORABLE.sub(" ", p.replace("//", "/")).split())
        for p in re.split(r"(?<!/)/(?!/)", value)
    ]
    parts = [p for p in parts if p]
    if parts and re.fullmatch(r"\$\w+\$", parts[0]):
        parts = parts[1:]
    if parts and parts[0].lower() == "top":
        parts = parts[1:]
    return tuple(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _GiftReader:
    def __init__(self, file: str, esc: _Escapes) -> None:
        self.file = file
        self.esc = esc
        self.problems: list[Problem] = []
        self.result = Imported("gift", file)
        self.category: tuple[str, ...] = ()
        self.categories: list[tuple[str, ...]] = []  # per question

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
        return plain, fmt  # moodle (hand-written text) and markdown: as written

    def block(self, b: _Block) -> None:
        pos = 0
        if b.text.startswith("$CATEGORY:"):
            end = b.text.find("\n")
            end = len(b.text) if end < 0 else end
            self.category = _category(self.esc.restore(b.text[len("$CATEGORY:") : end]))
            too_long = size_problem("::".join(self.category))
            if too_long:
                self.problem(b.line_at(0), f"the category {too_long}")
                self.category = ()
            if end >= len(b.text):
                return
            pos = end + 1
        line = b.line_at(pos)
        if b.text.startswith("::", pos):
            name_end = b.text.find("::", pos + 2)
            if name_end < 0:
                self.problem(line, "question name opened with '::' is not closed with '::'")
                return
            pos = name_end + 2
        self.question(b, pos, line)

    def question(self, b: _Block, pos: int, line: int) -> None:
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
            self.skip(line, "numerical")
        elif "~" in answers:
            self.warn_markers_in_feedback(b, start, answers)
            self.multiple_choice(line, question, fmt, answers, explanation)
        elif "=" in answers and "->" in answers:
            self.skip(line, "matching")
        else:
            head = answers.split("#", 1)[0].strip() if "#" in answers[1:] else answers
            if head in TRUE_FALSE:
                self.true_false(line, question, fmt, answers, TRUE_FALSE[head], explanation)
            else:
                self.skip(line, "short answer")

    def skip(self, line: int, kind: str) -> None:
        self.result.skipped.append(Skipped(line, kind, SKIP_REASONS[kind]))

    def warn_markers_in_feedback(self, b: _Block, start: int, answers: str) -> None:
        """Warn of each '=' or '~' that ends a feedback although it looks like part of it
        (``~wrong#No: 1 = 2``): Moodle and this import read a new answer there."""
        for at in _markers_in_feedback(answers):
            mark = answers[at]
            said = _one_line(self.esc.restore(answers[answers.rfind("#", 0, at) + 1 : at]))
            said = said if len(said) <= 30 else "…" + said[-29:]
            self.result.warnings.append(
                Problem(
                    self.file,
                    b.line_at(start + at),
                    f"warning: the '{mark}' after the feedback '{said}' starts another "
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
        right: list[int] = []
        feedback: list[str] = []
        for part in parts:
            part = part.strip()
            is_right = False
            if part.startswith("="):
                is_right, part = True, part[1:].lstrip()
                weight = WEIGHT_RE.match(part)
                if weight:
                    part = part[weight.end() :]
            else:
                weight = WEIGHT_RE.match(part)
                if weight:
                    is_right, part = float(weight.group(1)) > 0, part[weight.end() :]
            answer, _, said = part.partition("#")
            if is_right:
                right.append(len(choices))
            feedback.append(self.text(said, fmt)[0] if said.strip() else "")
            choices.append(self.text(answer, fmt)[0])
        self.add(line, question, choices, right, general, feedback)

    def true_false(
        self, line: int, question: str, fmt: str, answers: str, truth: bool, general: str
    ) -> None:
        # {T#shown to who answers wrongly#shown to who answers rightly}
        bits = answers.split("#", 2)
        wrong_fb = self.text(bits[1], fmt)[0] if len(bits) > 1 else ""
        right_fb = self.text(bits[2], fmt)[0] if len(bits) > 2 else ""
        feedback = [right_fb, wrong_fb] if truth else [wrong_fb, right_fb]
        right = 0 if truth else 1
        self.add(line, question, ["True", "False"], [right], general, feedback, shuffle=False)

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
        q = Question(
            line,
            question,
            choices,
            right,
            explanation,
            shuffle=shuffle,
            feedback=feedback if any(feedback) else [],
        )
        found = question_problems(self.file, q, "question")
        self.problems.extend(found)
        if not found:
            self.result.questions.append(q)
            self.categories.append(self.category)


def _markers_in_feedback(answers: str) -> list[int]:
    """Offsets of the '=' and '~' in an answer block that end a feedback and look like
    part of its text: inside a word (``x=2``, ``3~5``; not after a sentence's end, as in
    the compact ``#Right!~no``), or followed by a space (``1 = 2``) in a block whose
    answers are written without one (``~no``). A mark at the start of a line starts an
    answer."""
    marks: list[tuple[int, bool]] = []  # (offset, ends a feedback)
    in_feedback = False
    for at, ch in enumerate(answers):
        if ch == "#":
            in_feedback = True
        elif ch in "=~":
            marks.append((at, in_feedback))
            in_feedback = False

    def spaced(at: int) -> bool:
        return at + 1 >= len(answers) or answers[at + 1].isspace()

    spaced_answers = any(spaced(at) for at, after_feedback in marks if not after_feedback)
    found: list[int] = []
    for at, after_feedback in marks:
        before = answers[at - 1] if at else "\n"
        if not after_feedback or before == "\n":
            continue
        in_word = not before.isspace() and before not in ".!?"
        if in_word or (spaced(at) and not spaced_answers):
            found.append(at)
    return found


def parse_gift(text: str, file: str) -> Imported:
    """Read GIFT questions; raise DeckError listing every problem."""
    esc = _Escapes(text)
    reader = _GiftReader(file, esc)
    for block in _blocks(text, esc):
        reader.block(block)
    raise_if(reader.problems)
    result = reader.result
    for q, category in zip(result.questions, reader.categories, strict=True):
        q.category = category
    return result
