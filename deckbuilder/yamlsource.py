"""Safe YAML reading that keeps line numbers.

PyYAML's composer gives a node graph with positions but runs no constructors, so no
Python object tags can execute. We turn that graph into a small located tree ourselves:
scalars keep the text the author typed (``Yes`` stays "Yes", ``1.10`` stays "1.10"),
duplicate keys are reported instead of silently overwritten, and aliases that would
expand into a huge structure (the "billion laughs" shape) are refused before anything
walks them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from .errors import DeckError, Problem

__all__ = ["YMap", "YScalar", "YSeq", "YValue", "parse_yaml"]

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
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise DeckError([Problem(file, line, f"YAML syntax error: {what}")]) from None
    except yaml.YAMLError as exc:  # e.g. several documents in one file
        raise DeckError([Problem(file, None, f"YAML error: {exc}")]) from None
    if node is None:
        return None
    _check_expansion(node, file)
    problems: list[Problem] = []
    memo: dict[int, YValue] = {}
    tree = _convert(node, file, problems, memo)
    if problems:
        raise DeckError(problems)
    return tree


def _check_expansion(root: yaml.Node, file: str) -> None:
    """Refuse alias graphs whose expansion is far larger than what was written."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            line = node.start_mark.line + 1
            raise DeckError(
                [Problem(file, line, "YAML alias refers to itself (a recursive structure)")]
            )
        active.add(key)
        total = 1
        if isinstance(node, SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        active.discard(key)
        sizes[key] = total
        return total

    try:
        expanded = size(root)
    except RecursionError:
        raise DeckError([Problem(file, None, "YAML nesting is too deep")]) from None
    written = len(sizes)
    if expanded > written * ALIAS_FACTOR + ALIAS_SLACK:
        raise DeckError(
            [
                Problem(
                    file,
                    None,
                    f"YAML aliases expand {written:,} written values into {expanded:,}; "
                    "refusing to load (write the values out, or use fewer nested aliases)",
                )
            ]
        )


def _convert(
    node: yaml.Node, file: str, problems: list[Problem], memo: dict[int, YValue]
) -> YValue:
    cached = memo.get(id(node))
    if cached is not None:  # an alias: share the converted value (expansion was checked)
        return cached
    line = node.start_mark.line + 1
    out: YValue
    if isinstance(node, ScalarNode):
        if node.tag not in SCALAR_TAGS:
            problems.append(
                Problem(file, line, f"unsupported YAML tag {node.tag!r}; write plain text")
            )
        out = YScalar(node.value, node.tag, line)
    elif isinstance(node, SequenceNode):
        if node.tag != _T + "seq":
            problems.append(Problem(file, line, f"unsupported YAML tag {node.tag!r}"))
        out = YSeq([_convert(child, file, problems, memo) for child in node.value], line)
    else:
        assert isinstance(node, MappingNode)
        if node.tag != _T + "map":
            problems.append(Problem(file, line, f"unsupported YAML tag {node.tag!r}"))
        ymap = YMap(line=line)
        for knode, vnode in node.value:
            kline = knode.start_mark.line + 1
            if not isinstance(knode, ScalarNode):
                problems.append(Problem(file, kline, "a key must be plain text"))
                continue
            if knode.tag == _T + "merge":
                problems.append(Problem(file, kline, "YAML merge keys ('<<') are not supported"))
                continue
            key = knode.value
            if key in ymap.entries:
                first = ymap.entries[key][0]
                problems.append(
                    Problem(file, kline, f"duplicate key '{key}' (first at line {first})")
                )
                continue
            ymap.entries[key] = (kline, _convert(vnode, file, problems, memo))
        out = ymap
    memo[id(node)] = out
    return out
