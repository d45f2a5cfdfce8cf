"""Safe YAML reading that keeps line numbers.

We read PyYAML's event stream (libyaml's parser) and build a small located tree
ourselves; no constructors run, so no Python object tags can execute. On the way:
scalars keep the text the author typed (``Yes`` stays "Yes", ``1.10`` stays "1.10"),
duplicate keys are reported instead of silently overwritten, and aliases that would
expand into a huge structure (the "billion laughs" shape) are refused before anything
walks them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import ScalarNode

from .errors import DeckError, Problem
from .progress import step

__all__ = ["YMap", "YScalar", "YSeq", "YValue", "parse_part", "parse_yaml"]

try:  # libyaml's composer is several times faster; same node graph
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_T = "tag:yaml.org,2002:"
SCALAR_TAGS = {_T + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
# Aliases may repeat a structure, but not blow it up: expanded size is capped at
# this many times the written size (plus slack for small files).
ALIAS_FACTOR = 10
ALIAS_SLACK = 10_000
MAX_DEPTH = 100


@dataclass
class YScalar:
    raw: str
    tag: str
    line: int

    @property
    def is_null(self) -> bool:
        return self.tag == _T + "null"

    @property
    def kind(self) -> str:
        return self.tag.removeprefix(_T)


@dataclass
class YSeq:
    items: list[YValue]
    line: int


@dataclass
class YMap:
    # key -> (line of the key, value), in source order
    entries: dict[str, tuple[int, YValue]] = field(default_factory=dict)
    line: int = 1

    def get(self, key: str) -> YValue | None:
        hit = self.entries.get(key)
        return hit[1] if hit else None

    def key_line(self, key: str) -> int:
        return self.entries[key][0]


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
    return parse_part(text, file)[0]


def parse_part(text: str, file: str, first_line: int = 1) -> tuple[YValue | None, bool]:
    """:func:`parse_yaml` of a part of a file that starts at line ``first_line``, and
    whether the part has anchors or aliases (``&a``, ``*a``)."""
    builder = _Builder(file, len(text), first_line)
    try:
        return builder.build(yaml.parse(text, Loader=_Loader)), builder.aliased
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else None
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise DeckError([Problem(file, line, f"YAML syntax error: {what}")]) from None
    except yaml.YAMLError as exc:  # e.g. a control character the reader refuses
        raise DeckError([Problem(file, None, f"YAML error: {exc}")]) from None


class _Builder:
    """Builds the located tree from the parser's event stream, without recursion.

    libyaml's own composer recurses in C and crashes the interpreter on absurdly deep
    nesting; walking events keeps a depth limit of our own. Aliases share the anchored
    value, and their expanded size is counted so that an alias bomb is refused early.
    """

    def __init__(self, file: str, size: int = 0, first_line: int = 1) -> None:
        self.file = file
        self.first_line = first_line  # the line number of the text's first line
        self.size = size  # characters in the document, for progress reports
        self.resolver = yaml.resolver.Resolver()
        self.problems: list[Problem] = []
        self.anchors: dict[str, tuple[YValue, int]] = {}  # anchor -> (value, expanded size)
        self.written = 0
        self.expanded = 0
        self.aliased = False  # whether an anchor or alias was seen

    def fail(self, line: int | None, message: str) -> DeckError:
        return DeckError([*self.problems, Problem(self.file, line, message)])

    def count(self, size: int, line: int) -> None:
        self.expanded += size
        if self.expanded > self.written * ALIAS_FACTOR + ALIAS_SLACK:
            raise self.fail(
                line,
                f"YAML aliases expand this file far beyond what is written (over "
                f"{self.expanded:,} values from {self.written:,}); refusing to load "
                "(write the values out, or use fewer nested aliases)",
            )

    def check_tag(self, tag: str | None, expected: set[str], line: int) -> None:
        if tag not in (None, "!") and tag not in expected:
            self.problems.append(
                Problem(self.file, line, f"unsupported YAML tag {tag!r}; write plain text")
            )

    def build(self, events: Iterable[yaml.Event]) -> YValue | None:
        # Each open collection: [value, expanded size, anchor, pending key (maps only)]
        stack: list[list[Any]] = []
        root: YValue | None = None
        documents = 0

        def attach(value: YValue, size: int, line: int) -> None:
            nonlocal root
            if not stack:
                root = value
                return
            frame = stack[-1]
            frame[1] += size
            parent = frame[0]
            if isinstance(parent, YSeq):
                parent.items.append(value)
            elif frame[3] is None:  # a key
                if not isinstance(value, YScalar):
                    self.problems.append(Problem(self.file, line, "a key must be plain text"))
                    frame[3] = ("", line, True)
                elif value.tag == _T + "merge":
                    self.problems.append(
                        Problem(self.file, line, "YAML merge keys ('<<') are not supported")
                    )
                    frame[3] = ("", line, True)
                else:
                    frame[3] = (value.raw, line, False)
            else:
                key, kline, skip = frame[3]
                frame[3] = None
                if skip:
                    return
                if key in parent.entries:
                    first = parent.entries[key][0]
                    self.problems.append(
                        Problem(self.file, kline, f"duplicate key '{key}' (first at line {first})")
                    )
                else:
                    parent.entries[key] = (kline, value)

        resolve = self.resolver.resolve
        # A plain scalar whose first character starts none of the resolver's patterns
        # (numbers, booleans, null, dates...) is text: what resolve() returns, for less work.
        by_first = self.resolver.yaml_implicit_resolvers
        shortcut = None not in by_first and not self.resolver.yaml_path_resolvers
        first_line = self.first_line
        for event in events:
            mark = event.start_mark
            line = mark.line + first_line if mark is not None else 0
            if isinstance(event, yaml.ScalarEvent):
                # Most events are scalars: count(1, line) and check_tag() written inline.
                self.written += 1
                self.expanded += 1
                if self.expanded > self.written * ALIAS_FACTOR + ALIAS_SLACK:
                    self.count(0, line)  # raises: aliases expand too far
                if not self.written & 4095:
                    step("reading", mark.index if mark is not None else 0, self.size)
                tag = event.tag
                if tag is None or tag == "!":
                    text = event.value
                    if shortcut and text and text[0] not in by_first:
                        tag = _T + "str"
                    else:
                        tag = resolve(ScalarNode, text, event.implicit)  # type: ignore[no-untyped-call]
                elif tag not in SCALAR_TAGS:
                    self.check_tag(tag, SCALAR_TAGS, line)
                scalar = YScalar(event.value, tag, line)
                if event.anchor:
                    self.aliased = True
                    self.anchors[event.anchor] = (scalar, 1)
                attach(scalar, 1, line)
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(line, f"YAML nesting is deeper than {MAX_DEPTH} levels")
                self.written += 1
                self.count(1, line)
                is_seq = isinstance(event, yaml.SequenceStartEvent)
                self.check_tag(event.tag, {_T + ("seq" if is_seq else "map")}, line)
                value: YValue = YSeq([], line) if is_seq else YMap(line=line)
                stack.append([value, 1, event.anchor, None])
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                value, size, anchor, _ = stack.pop()
                if anchor:
                    self.aliased = True
                    self.anchors[anchor] = (value, size)
                attach(value, size, value.line)
            elif isinstance(event, yaml.AliasEvent):
                self.aliased = True
                if any(frame[2] == event.anchor for frame in stack):
                    raise self.fail(line, "YAML alias refers to itself (a recursive structure)")
                hit = self.anchors.get(event.anchor or "")
                if hit is None:
                    raise self.fail(line, f"unknown YAML alias '*{event.anchor}'")
                self.count(hit[1], line)
                attach(hit[0], hit[1], line)
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self.fail(
                        line, "more than one YAML document ('---'); use one file per deck"
                    )
        if self.problems:
            raise DeckError(self.problems)
        return root
