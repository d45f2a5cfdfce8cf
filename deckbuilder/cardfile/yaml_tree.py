"""Safe YAML reading that keeps line numbers.

We read PyYAML's event stream (libyaml's parser) and build a small located tree
ourselves; no constructors run, so no Python object tags can execute. On the way:
scalars keep the text the author typed (``Yes`` stays "Yes", ``1.10`` stays "1.10"),
duplicate keys are reported instead of silently overwritten, and aliases that would
expand into a huge structure (the "billion laughs" shape) are refused before anything
walks them. A syntax error shows its line and says what to do: most often, to put text
that YAML would read as something else in quotes (the line is written out for it).

The card-file reader reads on past a problem
(:mod:`deckbuilder.cardfile.yaml_recovery`): a :class:`TreeBuilder` collects each
problem with its line, and marks the lines whose values it could not read as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import ScalarNode

from deckbuilder.cardfile.yaml_hints import (
    comment_hint,
    quoting_advice_at,
    syntax_problem,
    yaml_lines,
)
from deckbuilder.errors import DeckError, Problem
from deckbuilder.progress import step

try:  # libyaml's parser is several times faster than the pure-Python one; same events
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_T = "tag:yaml.org,2002:"
SCALAR_TAGS = {_T + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_NULL = _T + "null"
_STR = _T + "str"
# The resolver's only patterns for a value that starts with a letter are YAML 1.1's
# true/false words and null, none longer than this ('false'): a longer value is text.
_LONGEST_WORD_VALUE = 5
_MERGE = _T + "merge"
_MERGE_KEY = "YAML merge keys ('<<') are not supported"
# The most a card file may hold (documented in README, "Limits"); with its aliases
# written out, it may hold this many characters of text at most.
MAX_FILE_BYTES = 64 * 1024 * 1024
# Aliases may repeat a structure, but not blow it up: expanded size is capped at
# this many times the written size (plus slack for small files).
ALIAS_FACTOR = 10
ALIAS_SLACK = 10_000
MAX_DEPTH = 100
# The parser's events, typed loosely: the stubs allow events without a position, but
# the parser gives every event its start mark, and every node event its anchor.
_Events = Iterator[Any]
# Values between two progress reports: often enough for a bar, rare enough to cost nothing.
_PROGRESS_EVERY = 4096
# A comment after a plain value, up to the end of its line.
_COMMENT_AFTER = re.compile(r"[ \t]+#[^\n\r\x85\u2028\u2029]*")


@dataclass(slots=True)
class YScalar:
    raw: str
    tag: str
    line: int
    # Where the value is written: its first character's column (0-based), its last line,
    # and its style ('' plain, a quote, '|' or '>'): what finds the line of a part of it.
    column: int = 0
    end_line: int = 0
    style: str = ""

    @property
    def is_null(self) -> bool:
        return self.tag == _NULL

    @property
    def kind(self) -> str:
        return self.tag.removeprefix(_T)


@dataclass(slots=True)
class YSeq:
    items: list[YValue]
    line: int
    # Entries left out because they could not be read (their problems are reported).
    unread: int = 0


@dataclass(slots=True)
class YMap:
    entries: dict[str, YValue] = field(default_factory=dict)  # key -> value, in source order
    lines: dict[str, int] = field(default_factory=dict)  # key -> line of the key
    line: int = 1

    def get(self, key: str) -> YValue | None:
        return self.entries.get(key)

    def key_line(self, key: str) -> int:
        """The line of ``key``; the mapping's own when it has no such key (where a
        missing key is told)."""
        return self.lines.get(key, self.line)


YValue = YScalar | YSeq | YMap


def describe(value: YValue) -> str:
    """Name a value's shape for messages: 'a list', 'a mapping', 'a number'."""
    if isinstance(value, YSeq):
        return "a list"
    if isinstance(value, YMap):
        return "a mapping"
    return {
        "null": "nothing",
        "int": "a number",
        "float": "a number",
        "bool": "true/false",
        "timestamp": "a date",
    }.get(value.kind, "text")


def first_syntax_error(text: str) -> yaml.MarkedYAMLError | None:
    """The first syntax error the parser finds in ``text`` (None: it reads), without
    building anything."""
    parser = _Loader(text)
    try:
        for _ in iter(parser.get_event, None):
            pass
    except yaml.MarkedYAMLError as exc:
        return exc
    finally:
        parser.dispose()
    return None


def parser_words(exc: yaml.MarkedYAMLError) -> str:
    """What the parser says about a syntax error, in its own words."""
    return " ".join(str(p) for p in (exc.context, exc.problem) if p)


def too_deep(exc: yaml.MarkedYAMLError) -> bool:
    """Whether the parser stopped at nesting too deep to read (not a line to fix)."""
    return "maximum nesting depth" in parser_words(exc)


def marked_problem(text: str, file: str, exc: yaml.MarkedYAMLError) -> Problem:
    """The problem the parser stopped ``text`` at, with its hint."""
    if too_deep(exc):
        # PyYAML 6.0.4 and later stop deep nesting themselves, in their own words.
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        return Problem(file, line, f"YAML nesting is deeper than {MAX_DEPTH} levels")
    return syntax_problem(text, file, exc, parser_words(exc))


class TreeBuilder:
    """Builds the located tree from the parser's event stream.

    libyaml's own composer recurses in C and crashes the interpreter on absurdly deep
    nesting; this one recurses in Python, no deeper than :data:`MAX_DEPTH`. Aliases share
    the anchored value, and their expanded size is counted so that an alias bomb is
    refused before anything walks it.

    Text that YAML ends at a comment (``back: a # b``) is read as meant, and reported, in
    the values of ``text_keys`` (the card's text: the comment would be lost from it).
    Problems that keep a value from being read as written (an unknown alias) add their
    line to :attr:`unreadable` (a duplicate key is read as its first value); a problem raised (:meth:`fail`) stops
    the reading.
    """

    def __init__(self, file: str, text: str = "", text_keys: frozenset[str] = frozenset()) -> None:
        self.file = file
        self.text = text
        self.text_keys = text_keys
        self.in_text = 0  # > 0 while reading the value of one of text_keys
        self.unreadable: list[int] = []
        self.size = len(text)  # characters in the document, for progress reports
        self.resolver = yaml.resolver.Resolver()
        # The resolver tries a plain value against the patterns (numbers, true/false, null,
        # dates) registered for its first character; a value starting with another is text
        # (unless a pattern is registered for every value: None).
        patterns = self.resolver.yaml_implicit_resolvers
        self.resolvable: frozenset[str] | None = None if None in patterns else frozenset(patterns)
        self.problems: list[Problem] = []
        # anchor -> (value, its values and characters of text with every alias expanded)
        self.anchors: dict[str, tuple[YValue, int, int]] = {}
        self.opening: list[str | None] = []  # anchors of the collections being read
        self.written = 0  # values as written
        self.expanded = 0  # values with every alias expanded
        self.characters = 0  # of the text values read, every alias expanded
        self.repeated = 0  # characters of text the aliases repeat

    def fail(self, line: int | None, message: str) -> DeckError:
        return DeckError([*self.problems, Problem(self.file, line, message)])

    def problem(self, line: int, message: str, *, readable: bool = False) -> None:
        """A problem at ``line``; ``readable``: the value there is still read as meant."""
        self.problems.append(Problem(self.file, line, message))
        if not readable:
            self.unreadable.append(line)

    def read(self) -> YValue | None:
        """The tree of :attr:`text`. Raises the parser's errors, and DeckError for a
        problem that stops the reading."""
        parser = _Loader(self.text)
        try:
            # The parser gives None after the last event.
            return self.document(iter(parser.get_event, None))
        finally:
            parser.dispose()

    def document(self, events: Iterable[Any]) -> YValue | None:
        """The tree of the stream's only document (None when it has none)."""
        root: YValue | None = None
        documents = 0
        stream = iter(events)
        for event in stream:
            if not isinstance(event, DocumentStartEvent):
                continue
            documents += 1
            if documents > 1:
                mark = event.start_mark
                raise self.fail(
                    mark.line + 1 if mark else None,
                    "more than one YAML document ('---'); use one file per deck",
                )
            root = self.node(next(stream), stream)
        return root

    def node(self, event: Any, stream: _Events) -> YValue:
        """The value that starts with ``event``; a list or mapping reads on in ``stream``."""
        line = event.start_mark.line + 1
        if isinstance(event, AliasEvent):
            return self.alias(event.anchor, line)
        expanded_before, characters_before = self.expanded, self.characters
        column, end = event.start_mark.column, event.end_mark
        self.written += 1
        self.expanded += 1
        if self.written % _PROGRESS_EVERY == 0:
            step("reading", event.start_mark.index, self.size)
        value: YValue
        if isinstance(event, ScalarEvent):
            tag = self.scalar_tag(event, line)
            raw = event.value
            if self.in_text and tag == _STR and not event.style:
                raw = self.comment_cut(event, raw)
            # A block ends at the start of the line after it.
            last = end.line if end.column == 0 and end.line >= line else end.line + 1
            value = YScalar(raw, tag, line, column, last, event.style or "")
            self.characters += len(raw)
        else:
            value = self.collection(event, line, stream)
        if event.anchor:
            self.anchors[event.anchor] = (
                value,
                self.expanded - expanded_before,
                self.characters - characters_before,
            )
        return value

    def collection(self, event: Any, line: int, stream: _Events) -> YSeq | YMap:
        """The list or mapping that ``event`` opens, read up to its end."""
        if len(self.opening) >= MAX_DEPTH:
            raise self.fail(line, f"YAML nesting is deeper than {MAX_DEPTH} levels")
        self.opening.append(event.anchor)
        value: YSeq | YMap
        if isinstance(event, SequenceStartEvent):
            self.check_tag(event.tag, _T + "seq", line)
            value = self.sequence(line, stream)
        else:
            self.check_tag(event.tag, _T + "map", line)
            value = self.mapping(line, stream)
        self.opening.pop()
        return value

    def scalar_tag(self, event: ScalarEvent, line: int) -> str:
        """The scalar's tag; an untagged one is resolved (text, a number, true, null...)."""
        if event.tag is None or event.tag == "!":
            if not event.implicit[0]:
                return _STR  # quoted or a block: text, whatever it says
            first = event.value[:1]
            if self.resolvable is not None and first not in self.resolvable:
                return _STR
            if first.isalpha() and len(event.value) > _LONGEST_WORD_VALUE:
                return _STR  # most of a deck's plain values: a word longer than any
            tag: str = self.resolver.resolve(ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
            return tag
        if event.tag not in SCALAR_TAGS:
            self.unsupported_tag(event.tag, line)
        return event.tag

    def comment_cut(self, event: Any, raw: str) -> str:
        """The text of a plain value of the card's text, as meant: with the comment YAML
        ends it at (reported), if one follows it on its last line."""
        end = event.end_mark
        if self.text[end.index : end.index + 1] not in (" ", "\t"):
            return raw
        comment = _COMMENT_AFTER.match(self.text, end.index)
        if comment is None:
            return raw
        rest = comment.group().rstrip()
        if not rest.startswith((" #", "\t#")):
            # Two spaces or more (or a tab) before the '#': a comment set apart from the
            # text on purpose, as YAML files write them (and the docs' examples do).
            return raw
        one_line = event.start_mark.line == end.line
        line = self.lines[end.line]
        message, _ = comment_hint(
            line, end.column + len(rest) - len(rest.lstrip()), raw, raw + rest if one_line else ""
        )
        self.problem(end.line + 1, message, readable=True)
        return raw + rest

    def check_tag(self, tag: str | None, plain: str, line: int) -> None:
        if tag is not None and tag not in ("!", plain):
            self.unsupported_tag(tag, line)

    def unsupported_tag(self, tag: str, line: int) -> None:
        # '!name' is most often text that starts with '!'; '!!name' is YAML on purpose.
        advice = None if tag.startswith("tag:") else quoting_advice_at(self.lines, line, "!")
        message = f"unsupported YAML tag {tag!r}; {advice or 'write plain text'}"
        self.problem(line, message)

    @cached_property
    def lines(self) -> list[str]:
        """The document's lines, split when a message first shows one."""
        return yaml_lines(self.text)

    def sequence(self, line: int, stream: _Events) -> YSeq:
        seq = YSeq([], line)
        for event in stream:
            if isinstance(event, SequenceEndEvent):
                break
            item = self.node(event, stream)
            if isinstance(item, YScalar) and item.end_line > item.line and not item.style:
                seq.items.extend(self.entry_run_on(item))
            else:
                seq.items.append(item)
        return seq

    def run_on_entries(self, value: YScalar) -> Iterator[tuple[int, str]]:
        """The lines after the first of a plain value written over several lines that
        start like a list entry ('- x'): YAML joins them to the value, as text."""
        for number in range(value.line + 1, min(value.end_line, len(self.lines)) + 1):
            words = self.lines[number - 1].strip()
            if words == "-" or words.startswith(("- ", "-\t")):
                yield number, words

    def entry_run_on(self, item: YScalar) -> list[YScalar]:
        """A list entry whose next entry is indented deeper than it (``- Atorvastatin`` then
        ``    - Ezetimibe``): YAML reads the two as one entry ('Atorvastatin -
        Ezetimibe'). Reported on the deeper line, with that line as it should be; the
        entries are read as that fix makes them, so that nothing else is said of the
        joined one."""
        first = self.lines[item.line - 1] if item.line <= len(self.lines) else ""
        written = first.lstrip(" ")
        run_on = list(self.run_on_entries(item))
        if not run_on or not written.startswith("-"):
            return [item]  # (an entry of a list in brackets: its lines are not entries)
        lead = first[: len(first) - len(written)]
        number, words = run_on[0]
        joined = item.raw if len(item.raw) <= 60 else item.raw[:57] + "..."
        self.problem(
            number,
            f"'{words}' is indented deeper than the list entry above it, so YAML reads "
            f"it as part of that entry ('{joined}'), not as an entry of its own; put its "
            f"'-' under the entry's: write '{lead}{words}'",
            readable=True,
        )
        starts = {line for line, _ in run_on}
        entries: list[tuple[int, list[str]]] = [(item.line, [first[item.column :].strip()])]
        for line in range(item.line + 1, min(item.end_line, len(self.lines)) + 1):
            words = _COMMENT_AFTER.split(self.lines[line - 1])[0].strip()
            if line in starts:
                entries.append((line, [words[1:].strip()]))
            elif words:
                entries[-1][1].append(words)
        out = []
        for line, parts in entries:
            text = " ".join(part for part in parts if part)
            tag = self.resolver.resolve(ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
            out.append(YScalar(text, tag, line, 0, line))
        return out

    def list_in_text(self, key: str, value: YScalar) -> None:
        """Text that is not a block, written over lines that start like list entries
        (``back: Causes`` then ``  - a``): YAML joins its lines with spaces, so the card
        would show 'Causes - a', not a list. Reported on the first such line."""
        if value.style:
            return  # a block keeps its lines; quotes say the text is as meant
        for number, words in self.run_on_entries(value):
            self.problem(
                number,
                f"'{words}' is read as part of the text of '{key}', not as a list entry: "
                "YAML joins the lines of text that is not a block with spaces; write "
                f"'{key}: |' and the text on the lines under it, to keep its lines",
                readable=True,
            )
            return

    def mapping(self, line: int, stream: _Events) -> YMap:
        ymap = YMap(line=line)
        for event in stream:
            if isinstance(event, MappingEndEvent):
                break
            key_line = event.start_mark.line + 1
            key = self.key(event, key_line, stream)
            text = key in self.text_keys
            self.in_text += text
            value = self.node(next(stream), stream)
            self.in_text -= text
            if key is None:
                continue
            if text and isinstance(value, YScalar) and value.end_line > value.line > 0:
                self.list_in_text(key, value)
            first = ymap.lines.get(key)
            if first is None:
                ymap.entries[key] = value
                ymap.lines[key] = key_line
            else:
                # The first is read, and the rest checked: a duplicate hides nothing.
                self.problem(
                    key_line,
                    f"duplicate key '{key}' (first at line {first}); the first is read: "
                    "delete one of them",
                    readable=True,
                )
        return ymap

    def key(self, event: Any, line: int, stream: _Events) -> str | None:
        """The text of the mapping key that starts with ``event``, or None (reported) for a
        key this reader refuses. A plain key outside the card's text (most keys) is read
        without the located value that nothing keeps, counted as :meth:`node` counts it."""
        if not isinstance(event, ScalarEvent) or event.anchor or self.in_text:
            return self.key_text(self.node(event, stream), line)
        self.written += 1
        self.expanded += 1
        if self.written % _PROGRESS_EVERY == 0:
            start: Any = event.start_mark  # (the parser gives every event its start)
            step("reading", start.index, self.size)
        self.characters += len(event.value)
        if self.scalar_tag(event, line) == _MERGE:
            self.problem(line, _MERGE_KEY)
            return None
        text: str = event.value
        return text

    def key_text(self, key: YValue, line: int) -> str | None:
        """A mapping key's text, or None (reported) for a key this reader refuses."""
        if not isinstance(key, YScalar):
            self.problem(line, "a key must be plain text")
            return None
        if key.tag == _MERGE:
            self.problem(line, _MERGE_KEY)
            return None
        return key.raw

    def alias(self, name: str | None, line: int) -> YValue:
        if name in self.opening:
            raise self.fail(line, "YAML alias refers to itself (a recursive structure)")
        hit = self.anchors.get(name or "")
        if hit is None:
            advice = quoting_advice_at(self.lines, line, "*")
            self.problem(line, f"unknown YAML alias '*{name}'" + (f"; {advice}" if advice else ""))
            return YScalar("", _NULL, line)
        value, size, characters = hit
        # Text an alias repeats counts as if written out: a 60 KB text repeated 1,500
        # times is a 90 MB card file, whatever the few values it takes.
        self.characters += characters
        self.repeated += characters
        if len(self.text) + self.repeated > MAX_FILE_BYTES:
            raise self.fail(
                line,
                f"YAML alias '*{name}' repeats text past the size limit of a card file: "
                f"written out, the file would hold over {len(self.text) + self.repeated:,} "
                f"characters, the limit being {MAX_FILE_BYTES:,} (write the text out where "
                "it is needed, or split the deck into several files)",
            )
        # Every other value adds one to both counts, so only an alias can cross the limit.
        self.expanded += size
        if self.expanded > self.written * ALIAS_FACTOR + ALIAS_SLACK:
            raise self.fail(
                line,
                f"YAML aliases expand this file far beyond what is written (over "
                f"{self.expanded:,} values from {self.written:,}); refusing to load "
                "(write the values out, or use fewer nested aliases)",
            )
        return value
