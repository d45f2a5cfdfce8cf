"""Safe YAML reading that keeps line numbers.

We read PyYAML's event stream (libyaml's parser) and build a small located tree
ourselves; no constructors run, so no Python object tags can execute. On the way:
scalars keep the text the author typed (``Yes`` stays "Yes", ``1.10`` stays "1.10"),
duplicate keys are reported instead of silently overwritten, and aliases that would
expand into a huge structure (the "billion laughs" shape) are refused before anything
walks them. A syntax error shows its line and says what to do: most often, to put text
that YAML would read as something else in quotes (the line is written out for it).
"""

from __future__ import annotations

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

from deckbuilder.cardfile.yaml_hints import not_allowed, quoting_advice_at, syntax_problem
from deckbuilder.errors import DeckError, Problem
from deckbuilder.progress import step

__all__ = ["YMap", "YScalar", "YSeq", "YValue", "describe", "parse_yaml"]

try:  # libyaml's parser is several times faster than the pure-Python one; same events
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_T = "tag:yaml.org,2002:"
SCALAR_TAGS = {_T + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_NULL = _T + "null"
_STR = _T + "str"
_MERGE = _T + "merge"
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


@dataclass(slots=True)
class YScalar:
    raw: str
    tag: str
    line: int

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


@dataclass(slots=True)
class YMap:
    entries: dict[str, YValue] = field(default_factory=dict)  # key -> value, in source order
    lines: dict[str, int] = field(default_factory=dict)  # key -> line of the key
    line: int = 1

    def get(self, key: str) -> YValue | None:
        return self.entries.get(key)

    def key_line(self, key: str) -> int:
        return self.lines[key]


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


def parse_yaml(text: str, file: str) -> YValue | None:
    """Parse one YAML document into a located tree; ``None`` for an empty document."""
    try:
        parser = _Loader(text)
        try:
            # The parser gives None after the last event.
            return _Builder(file, text).document(iter(parser.get_event, None))
        finally:
            parser.dispose()
    except yaml.reader.ReaderError as exc:
        raise DeckError(not_allowed(text, file, chr(exc.character))) from None
    except yaml.MarkedYAMLError as exc:
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        if "maximum nesting depth" in what:
            # PyYAML 6.0.4 and later stop deep nesting themselves, in their own words.
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            raise DeckError(
                [Problem(file, line, f"YAML nesting is deeper than {MAX_DEPTH} levels")]
            ) from None
        raise DeckError([syntax_problem(text, file, exc, what)]) from None
    except yaml.YAMLError as exc:
        raise DeckError([Problem(file, None, f"YAML error: {exc}")]) from None


class _Builder:
    """Builds the located tree from the parser's event stream.

    libyaml's own composer recurses in C and crashes the interpreter on absurdly deep
    nesting; this one recurses in Python, no deeper than :data:`MAX_DEPTH`. Aliases share
    the anchored value, and their expanded size is counted so that an alias bomb is
    refused before anything walks it.
    """

    def __init__(self, file: str, text: str = "") -> None:
        self.file = file
        self.text = text
        self.size = len(text)  # characters in the document, for progress reports
        self.resolver = yaml.resolver.Resolver()
        # The resolver tries a plain value against the patterns (numbers, true/false, null,
        # dates) registered for its first character; a value starting with another is text
        # (unless a pattern is registered for every value: None).
        patterns = self.resolver.yaml_implicit_resolvers
        self.resolvable: frozenset[str] | None = None if None in patterns else frozenset(patterns)
        self.problems: list[Problem] = []
        self.anchors: dict[str, tuple[YValue, int]] = {}  # anchor -> (value, expanded size)
        self.opening: list[str | None] = []  # anchors of the collections being read
        self.written = 0  # values as written
        self.expanded = 0  # values with every alias expanded

    def fail(self, line: int | None, message: str) -> DeckError:
        return DeckError([*self.problems, Problem(self.file, line, message)])

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
        if self.problems:
            raise DeckError(self.problems)
        return root

    def node(self, event: Any, stream: _Events) -> YValue:
        """The value that starts with ``event``; a list or mapping reads on in ``stream``."""
        line = event.start_mark.line + 1
        if isinstance(event, AliasEvent):
            return self.alias(event.anchor, line)
        expanded_before = self.expanded
        self.written += 1
        self.expanded += 1
        if self.written % _PROGRESS_EVERY == 0:
            step("reading", event.start_mark.index, self.size)
        value: YValue
        if isinstance(event, ScalarEvent):
            value = YScalar(event.value, self.scalar_tag(event, line), line)
        else:
            value = self.collection(event, line, stream)
        if event.anchor:
            self.anchors[event.anchor] = (value, self.expanded - expanded_before)
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
            if self.resolvable is not None and event.value[:1] not in self.resolvable:
                return _STR
            tag: str = self.resolver.resolve(ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
            return tag
        if event.tag not in SCALAR_TAGS:
            self.unsupported_tag(event.tag, line)
        return event.tag

    def check_tag(self, tag: str | None, plain: str, line: int) -> None:
        if tag is not None and tag not in ("!", plain):
            self.unsupported_tag(tag, line)

    def unsupported_tag(self, tag: str, line: int) -> None:
        # '!name' is most often text that starts with '!'; '!!name' is YAML on purpose.
        advice = None if tag.startswith("tag:") else self.quoting_advice(line, "!")
        message = f"unsupported YAML tag {tag!r}; {advice or 'write plain text'}"
        self.problems.append(Problem(self.file, line, message))

    @cached_property
    def lines(self) -> list[str]:
        """The document's lines, split when a message first shows one."""
        return self.text.splitlines()

    def quoting_advice(self, line: int, first: str) -> str | None:
        """For a value on ``line`` that starts with ``first`` and was likely meant as text:
        that it needs quotes, and the line as it should be, then the line as it is."""
        return quoting_advice_at(self.lines, line, first)

    def sequence(self, line: int, stream: _Events) -> YSeq:
        seq = YSeq([], line)
        for event in stream:
            if isinstance(event, SequenceEndEvent):
                break
            seq.items.append(self.node(event, stream))
        return seq

    def mapping(self, line: int, stream: _Events) -> YMap:
        ymap = YMap(line=line)
        for event in stream:
            if isinstance(event, MappingEndEvent):
                break
            key_line = event.start_mark.line + 1
            key = self.key_text(self.node(event, stream), key_line)
            value = self.node(next(stream), stream)
            if key is None:
                continue
            first = ymap.lines.get(key)
            if first is None:
                ymap.entries[key] = value
                ymap.lines[key] = key_line
            else:
                self.problems.append(
                    Problem(self.file, key_line, f"duplicate key '{key}' (first at line {first})")
                )
        return ymap

    def key_text(self, key: YValue, line: int) -> str | None:
        """A mapping key's text, or None (reported) for a key this reader refuses."""
        if not isinstance(key, YScalar):
            self.problems.append(Problem(self.file, line, "a key must be plain text"))
            return None
        if key.tag == _MERGE:
            self.problems.append(
                Problem(self.file, line, "YAML merge keys ('<<') are not supported")
            )
            return None
        return key.raw

    def alias(self, name: str | None, line: int) -> YValue:
        if name in self.opening:
            raise self.fail(line, "YAML alias refers to itself (a recursive structure)")
        hit = self.anchors.get(name or "")
        if hit is None:
            advice = self.quoting_advice(line, "*")
            raise self.fail(
                line, f"unknown YAML alias '*{name}'" + (f"; {advice}" if advice else "")
            )
        value, size = hit
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
