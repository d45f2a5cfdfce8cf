"""Reading a card file past its YAML mistakes, so that one run reports every one of them.

YAML's parser stops at a file's first mistake. When it does, the file is read again in
parts: each top-level key (``deck:``, ``study:``...) with its lines, and each entry of its
``notes:`` list. A part with a mistake is read on its own, mistake by mistake: each is
reported, and its line is written as the message says to write it (the text in quotes),
or, when that is not sure, with its tabs made spaces, or left out with the lines under
it; then the part is read again, until it reads. Last, the mended file is read whole into
the tree the content checks read.

A note mended only as its messages say is read as that fix would make it. A note with a
line left out or guessed at is left out of the tree (:attr:`YSeq.unread` counts it): its
content checks wait for the next run. A top-level key so broken stops the content checks
of the whole file, since every note depends on the header (its languages, for one).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from deckbuilder.cardfile.yaml_hints import (
    LineHint,
    disallowed_characters,
    not_allowed,
    syntax_hint,
)
from deckbuilder.cardfile.yaml_tree import (
    TreeBuilder,
    YMap,
    YSeq,
    YValue,
    first_syntax_error,
    marked_problem,
    parser_words,
    too_deep,
)
from deckbuilder.errors import DeckError, Problem

# A line and the line break that ends it ('' for the last line without one).
_LINE = re.compile(r"([^\n\r\x85\u2028\u2029]*)(\r\n|[\n\r\x85\u2028\u2029]|\Z)")
_NOTES_KEY = re.compile(r"notes[ \t]*:[ \t]*(?:#.*)?\Z")
_ENTRY = re.compile(r"[ \t]*-(?:[ \t]|\Z)")
# What reading the parts again may cost, in characters parsed: a few times the file, so
# that a file of mistakes in one long part is reported in linear time (then cut short).
_BUDGET_FACTOR = 20
_BUDGET_SLACK = 1 << 20
# Widths tried for a tab that indents a line, to read on past it.
_TAB_WIDTHS = (2, 4, 8)
# How far a line was mended: written as its message says, tabs made spaces, left out.
_REWRITTEN, _UNTABBED, _LEFT_OUT = 1, 2, 3


def read_yaml(
    text: str, file: str, text_keys: frozenset[str] = frozenset()
) -> tuple[YValue | None, list[Problem]]:
    """The located tree of a card file and every problem of its YAML, each with its line.

    The tree leaves out the notes that could not be read as written; it is None when
    nothing is left to check (the file is empty, or its top level could not be read).
    ``text_keys``: the keys whose values are the card's text (see :class:`TreeBuilder`)."""
    builder = TreeBuilder(file, text, text_keys)
    try:
        tree = builder.read()
    except DeckError as exc:  # alias loops and bombs, several documents: not a slip
        return None, list(exc.problems)
    except yaml.reader.ReaderError as exc:
        mending = _Mending(text, file)
        mending.leave_out_characters(chr(exc.character))
        mending.mend_parts(range(len(mending.parts)))
    except yaml.MarkedYAMLError as exc:
        if too_deep(exc):
            return None, [marked_problem(text, file, exc)]
        mending = _Mending(text, file)
        # The part the parser stopped in is mended, then the file read again: most files
        # have one mistake (see read_again for the others).
        first = syntax_hint(mending.lines, exc, parser_words(exc)).index
        mending.mend_parts([0] if first is None else [mending.part_of(first)])
    except yaml.YAMLError as exc:
        return None, [Problem(file, None, f"YAML error: {exc}")]
    else:
        return _readable(tree, builder.problems, builder.unreadable, [])
    return mending.read_again(text_keys)


@dataclass(frozen=True)
class _Part:
    """Lines ``start`` to ``stop`` (0-based, stop excluded): a top-level key with its
    lines, or (``entry``) one entry of the notes list."""

    start: int
    stop: int
    entry: bool


def _parts(lines: list[str]) -> list[_Part]:
    """The file cut before each top-level key and each entry of ``notes:`` (the entries
    are the lines starting with a dash indented as the first one). Lines before the first
    cut (comments) go with the first part."""
    cuts: list[tuple[int, bool]] = []
    in_notes = False
    lead: str | None = None  # the indentation of the notes' entries, once seen
    for i, line in enumerate(lines):
        text = line.lstrip(" \t")
        if not text or text[0] == "#":
            continue
        indent = line[: len(line) - len(text)]
        if in_notes and lead is None:
            lead = indent if _ENTRY.match(line) else None
            in_notes = lead is not None
        if in_notes and indent == lead and _ENTRY.match(line):
            cuts.append((i, True))
        elif not indent:
            cuts.append((i, False))
            in_notes, lead = _NOTES_KEY.match(line) is not None, None
    if not cuts:
        return [_Part(0, len(lines), False)] if lines else []
    starts = [0] + [start for start, _ in cuts[1:]]
    stops = [*starts[1:], len(lines)]
    return [_Part(a, b, entry) for a, b, (_, entry) in zip(starts, stops, cuts, strict=True)]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


class _Mending:
    """The lines of a file YAML refused, mended part by part, and what was said of them."""

    def __init__(self, text: str, file: str) -> None:
        self.file = file
        pieces = [m.groups() for m in _LINE.finditer(text)]
        if pieces and pieces[-1] == ("", ""):
            pieces.pop()  # the empty match at the very end
        self.lines = [line for line, _ in pieces]
        self.ends = [end for _, end in pieces]
        self.parts = _parts(self.lines)
        self.starts = [part.start for part in self.parts]
        self.problems: list[Problem] = []
        self.unread: set[int] = set()  # parts not read as written
        self.checked: set[int] = set()  # parts read on their own
        self.rounds = 0  # times the mended file was read again and did not read
        self.mended: dict[int, int] = {}  # line -> how far it was mended
        self.budget = _BUDGET_FACTOR * len(text) + _BUDGET_SLACK
        self.stopped = False  # reading stopped short: no tree

    def part_of(self, index: int) -> int:
        return bisect_right(self.starts, index) - 1

    def text_of(self, part: _Part) -> str:
        body = "".join(
            a + b
            for a, b in zip(
                self.lines[part.start : part.stop], self.ends[part.start : part.stop], strict=True
            )
        )
        # An entry reads as the notes list holding it, on the line before its own.
        return "notes:\n" + body if part.entry else body

    def stop(self, index: int | None, message: str) -> None:
        self.problems.append(Problem(self.file, None if index is None else index + 1, message))
        self.stopped = True

    def error_in(self, k: int) -> yaml.MarkedYAMLError | None:
        """The first syntax error of part ``k`` read on its own."""
        text = self.text_of(self.parts[k])
        self.budget -= len(text)
        return first_syntax_error(text)

    def hint_for(self, k: int, exc: yaml.MarkedYAMLError) -> LineHint:
        part = self.parts[k]
        shift = part.start - 1 if part.entry else part.start
        return syntax_hint(self.lines, exc, parser_words(exc), shift, (part.start, part.stop))

    def leave_out_characters(self, reported: str) -> None:
        """Report the lines holding characters YAML does not allow (naming the first
        few), and leave them out."""
        text = "".join(a + b for a, b in zip(self.lines, self.ends, strict=True))
        self.problems.extend(not_allowed(text, self.file, reported))
        for line, _, _ in disallowed_characters(text):
            if line < len(self.lines):
                self.unread.add(self.part_of(line))
                self.leave_out(line)

    def mend_parts(self, parts: Iterable[int]) -> None:
        """Read each of ``parts`` on its own, mending those that do not read."""
        for k in parts:
            if self.stopped:
                return
            self.checked.add(k)
            exc = self.error_in(k)
            if exc is not None:
                self.mend_part(k, exc)

    def mend_part(self, k: int, exc: yaml.MarkedYAMLError) -> None:
        """Report ``exc`` and each mistake after it in part ``k``, mending the part until
        it reads."""
        part = self.parts[k]
        found: yaml.MarkedYAMLError | None = exc
        while found is not None and not self.stopped:
            if too_deep(found):
                self.stop(part.start, marked_problem("", self.file, found).message)
                return
            hint = self.hint_for(k, found)
            if hint.index is None:  # no line of the part to mend
                self.problems.append(Problem(self.file, part.start + 1, hint.message))
                self.unread.add(k)
                return
            if self.budget < 0:
                self.stop(
                    hint.index,
                    "too many YAML mistakes to read on; fix the ones above and check again",
                )
                return
            self.problems.append(Problem(self.file, hint.index + 1, hint.message))
            found = self.mend_line(k, hint)

    def mend_line(self, k: int, hint: LineHint) -> yaml.MarkedYAMLError | None:
        """Mend the line ``hint`` is about; the part's next syntax error (None: it reads)."""
        index = hint.index
        assert index is not None
        done = self.mended.get(index, 0)
        if hint.fixed is not None and done < _REWRITTEN:
            self.lines[index] = hint.fixed
            self.mended[index] = _REWRITTEN
            return self.error_in(k)
        self.unread.add(k)
        if hint.tabs and done < _UNTABBED:
            line = self.lines[index]
            body = line.lstrip(" \t")
            lead = line[: len(line) - len(body)]
            for width in _TAB_WIDTHS:
                self.lines[index] = lead.expandtabs(width) + body
                exc = self.error_in(k)
                if exc is None or too_deep(exc):
                    self.mended[index] = _UNTABBED
                    return exc
                after = self.hint_for(k, exc).index
                if after is not None and after > index:
                    self.mended[index] = _UNTABBED
                    return exc
            self.lines[index] = line
        self.leave_out(index)
        return self.error_in(k)

    def leave_out(self, index: int) -> None:
        """Empty line ``index`` and the lines under it (indented deeper)."""
        indent = _indent(self.lines[index])
        self.lines[index] = ""
        self.mended[index] = _LEFT_OUT
        for below in range(index + 1, len(self.lines)):
            line = self.lines[below]
            if line.strip() and _indent(line) <= indent:
                break
            self.lines[below] = ""
            self.mended[below] = _LEFT_OUT

    def read_again(self, text_keys: frozenset[str]) -> tuple[YValue | None, list[Problem]]:
        """The tree of the mended file, and every problem found on the way."""
        if self.stopped:
            return None, _in_line_order(self.problems)
        text = "".join(a + b for a, b in zip(self.lines, self.ends, strict=True))
        builder = TreeBuilder(self.file, text, text_keys)
        try:
            tree = builder.read()
        except DeckError as exc:
            return None, _in_line_order([*self.problems, *exc.problems])
        except yaml.MarkedYAMLError as exc:
            unchecked = [k for k in range(len(self.parts)) if k not in self.checked]
            if unchecked and not too_deep(exc):
                # Another mistake: the parts from it on are read on their own, in one pass,
                # so that a file of many mistakes is read a few times, not once for each.
                # Once, a mistake may lie before the first the parser met, and run on into
                # it (a quote never closed): then every part left is read on its own.
                at = syntax_hint(self.lines, exc, parser_words(exc)).index
                self.rounds += 1
                if at is not None and self.rounds == 1:
                    unchecked = [k for k in unchecked if k >= self.part_of(at)] or unchecked
                self.mend_parts(unchecked)
                return self.read_again(text_keys)
            # A mistake no part shows on its own (a quote that runs on into the next one).
            found = marked_problem(text, self.file, exc)
            return None, _in_line_order([*self.problems, found])
        except yaml.YAMLError as exc:
            found = Problem(self.file, None, f"YAML error: {exc}")
            return None, _in_line_order([*self.problems, found])
        unread = [self.parts[k] for k in sorted(self.unread)]
        return _readable(tree, [*self.problems, *builder.problems], builder.unreadable, unread)


def _in_line_order(problems: list[Problem]) -> list[Problem]:
    """Each problem once, by line (a problem of the whole file last)."""
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line is None, p.line or 0))


def _readable(
    tree: YValue | None, problems: list[Problem], lines: list[int], parts: list[_Part]
) -> tuple[YValue | None, list[Problem]]:
    """``tree`` less the notes holding ``lines`` (1-based) or ``parts`` that could not be
    read as written; None when such a line or part is outside the notes."""
    problems = _in_line_order(problems)
    if not lines and not parts:
        return tree, problems
    if not isinstance(tree, YMap):
        return None, problems
    notes = tree.get("notes")
    if not isinstance(notes, YSeq) or not notes.items:
        return None, problems
    starts = [item.line for item in notes.items]
    notes_line = tree.key_line("notes")
    # The notes end where the first top-level key after them starts.
    end = min((line for line in tree.lines.values() if line > notes_line), default=math.inf)
    dropped: set[int] = set()
    vanished = 0  # entries left out whole
    for line in lines:
        if not starts[0] <= line < end:
            return None, problems
        dropped.add(bisect_right(starts, line) - 1)
    for part in parts:
        if not part.entry:
            return None, problems
        inside = range(bisect_left(starts, part.start + 1), bisect_left(starts, part.stop + 1))
        vanished += not inside
        dropped.update(inside)
    notes.items = [item for i, item in enumerate(notes.items) if i not in dropped]
    notes.unread += len(dropped) + vanished
    return tree, problems
