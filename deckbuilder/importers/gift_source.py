"""GIFT source text before its questions are read: escapes, blank-line blocks with
their source lines, category paths, and answer marks that look meant as text.

See :mod:`deckbuilder.importers.gift` for the format.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from deckbuilder.cardfile.fields import UNSTORABLE

SPECIALS = ":#={}~n"  # after a backslash; 'n' is a line break


class Escapes:
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
class Block:
    text: str  # escapes protected; lines stripped and joined by '\n'
    lines: list[int]  # source line of each line of text
    starts: list[int]  # offset of each line in text

    def line_at(self, offset: int) -> int:
        return self.lines[max(bisect_right(self.starts, offset) - 1, 0)]


def blocks(text: str, esc: Escapes) -> list[Block]:
    blocks: list[Block] = []
    kept: list[tuple[int, str]] = []

    def close() -> None:
        if kept:
            starts, offset = [], 0
            for _, line in kept:
                starts.append(offset)
                offset += len(line) + 1
            blocks.append(Block("\n".join(s for _, s in kept), [n for n, _ in kept], starts))
            kept.clear()

    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            close()
        elif not line.startswith("//"):
            kept.append((lineno, esc.protect(line)))
    close()
    return blocks


def category(value: str) -> tuple[str, ...]:
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


def markers_in_feedback(answers: str) -> list[int]:
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
