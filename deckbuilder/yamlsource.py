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
from sys import intern
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
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
_STR = _T + "str"
_NULL = _T + "null"
_MERGE = _T + "merge"
_SEQ = _T + "seq"
_MAP = _T + "map"
_SKIP = object()  # the pending key of a mapping entry that is not kept
# Aliases may repeat a structure, but not blow it up: expanded size is capped at
# this many times the written size (plus slack for small files).
ALIAS_FACTOR = 10
ALIAS_SLACK = 10_000
MAX_DEPTH = 100
_NO_MERGE_KEYS = "YAML merge keys ('<<') are not supported"
_UNSUPPORTED_TAG = "unsupported YAML tag {!r}; write plain text"


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
        loader = _Loader(text)
        try:
            # get_event() until None: the events of yaml.parse(), without its generator.
            return builder.build(iter(loader.get_event, None)), builder.aliased
        finally:
            loader.dispose()
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

    def build(self, events: Iterable[yaml.Event]) -> YValue | None:
        """The tree of one document. The loop is the hot path of reading a card file
        (every scalar passes here), so it dispatches on the event's exact type and keeps
        the innermost open collection in local variables instead of calling helpers."""
        file = self.file
        problems = self.problems
        anchors = self.anchors
        first_line = self.first_line
        size_total = self.size
        resolver = self.resolver
        resolve = resolver.resolve
        # A plain scalar whose first character starts none of the resolver's patterns
        # (numbers, booleans, null, dates...) is text, and a quoted one always is: what
        # resolve() returns, for less work (it has no patterns for every first character
        # and no path resolvers, as PyYAML's own resolver).
        by_first = resolver.yaml_implicit_resolvers
        shortcut = None not in by_first and not resolver.yaml_path_resolvers
        # Every scalar and collection adds one to both counts and an alias adds its
        # expanded size to `expanded` only, so the alias-bomb limit can only be crossed
        # at an alias: keep `extra` = expanded - written and check it there.
        written = self.written
        extra = self.expanded - written
        aliased = False
        documents = 0
        root: YValue | None = None
        # The innermost open collection (None at the top level): the value, its item
        # list or entry dict, whether its next node is a key, the pending key (_SKIP for
        # one that was refused) and its line, `written + extra` before it opened, and its
        # anchor. The enclosing ones wait on `stack` as tuples of the same.
        top: YSeq | YMap | None = None
        items: list[YValue] | None = None
        entries: dict[str, tuple[int, YValue]] | None = None
        want_key = False
        key: Any = _SKIP
        kline = 0
        start = 0
        anchor: str | None = None
        stack: list[tuple[Any, ...]] = []
        value: YValue
        event: Any  # the exact event classes are checked below, not by mypy
        for event in events:
            cls = type(event)
            if cls is ScalarEvent:
                written += 1
                mark = event.start_mark
                line = mark.line + first_line
                if not written & 4095:
                    step("reading", mark.index, size_total)
                text = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    if not shortcut:
                        tag = resolve(ScalarNode, text, event.implicit)  # type: ignore[no-untyped-call]
                    elif (text and text[0] not in by_first) or not event.implicit[0]:
                        tag = _STR
                    else:  # resolve(), for a plain scalar: the first pattern that matches
                        tag = _STR
                        for pattern_tag, pattern in by_first.get(text[:1], ()):
                            if pattern.match(text):
                                tag = pattern_tag
                                break
                elif tag not in SCALAR_TAGS:
                    problems.append(Problem(file, line, _UNSUPPORTED_TAG.format(tag)))
                scalar_anchor = event.anchor
                if want_key and not scalar_anchor:
                    # A key keeps only its text (want_key is only set inside a mapping).
                    if tag == _MERGE:
                        problems.append(Problem(file, line, _NO_MERGE_KEYS))
                        key = _SKIP
                    else:
                        # Keys repeat in every note: one string object for each
                        # (less memory, and less to send between processes).
                        key = intern(text)
                    kline = line
                    want_key = False
                    continue
                value = YScalar(text, tag, line)
                if scalar_anchor:
                    aliased = True
                    anchors[scalar_anchor] = (value, 1)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                assert top is not None
                value = top
                line = value.line
                if anchor:
                    aliased = True
                    anchors[anchor] = (value, written + extra - start)
                top, items, entries, want_key, key, kline, start, anchor = stack.pop()
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                mark = event.start_mark
                line = mark.line + first_line
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(line, f"YAML nesting is deeper than {MAX_DEPTH} levels")
                written += 1
                tag = event.tag
                is_seq = cls is SequenceStartEvent
                if tag is not None and tag != "!" and tag != (_SEQ if is_seq else _MAP):
                    problems.append(Problem(file, line, _UNSUPPORTED_TAG.format(tag)))
                stack.append((top, items, entries, want_key, key, kline, start, anchor))
                start = written + extra - 1
                anchor = event.anchor
                key = _SKIP
                if is_seq:
                    top = YSeq([], line)
                    items = top.items
                    entries = None
                    want_key = False
                else:
                    top = YMap(line=line)
                    entries = top.entries
                    items = None
                    want_key = True
                continue
            elif cls is AliasEvent:
                aliased = True
                mark = event.start_mark
                line = mark.line + first_line
                name = event.anchor
                if anchor == name or any(frame[7] == name for frame in stack):
                    raise self.fail(line, "YAML alias refers to itself (a recursive structure)")
                hit = anchors.get(name or "")
                if hit is None:
                    raise self.fail(line, f"unknown YAML alias '*{name}'")
                self.written, self.expanded = written, written + extra
                self.count(hit[1], line)  # raises when aliases expand too far
                extra = self.expanded - written
                value = hit[0]
            else:
                if cls is DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        mark = event.start_mark
                        raise self.fail(
                            mark.line + first_line,
                            "more than one YAML document ('---'); use one file per deck",
                        )
                continue
            # Attach `value` (found at `line`) to the innermost open collection.
            if entries is not None:
                if want_key:  # an anchored scalar, an alias or a collection as a key
                    if not isinstance(value, YScalar):
                        problems.append(Problem(file, line, "a key must be plain text"))
                        key = _SKIP
                    elif value.tag == _MERGE:
                        problems.append(Problem(file, line, _NO_MERGE_KEYS))
                        key = _SKIP
                    else:
                        key = intern(value.raw)
                    kline = line
                    want_key = False
                else:
                    want_key = True
                    if key is not _SKIP:
                        first = entries.get(key)
                        if first is None:
                            entries[key] = (kline, value)
                        else:
                            problems.append(
                                Problem(
                                    file, kline, f"duplicate key '{key}' (first at line {first[0]})"
                                )
                            )
            elif items is not None:
                items.append(value)
            else:
                root = value
        self.written, self.expanded = written, written + extra
        self.aliased = aliased
        if problems:
            raise DeckError(problems)
        return root
