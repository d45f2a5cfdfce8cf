"""YAML -> located tree: what the reader keeps of the text, and what it refuses, with lines."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from yaml.events import ScalarEvent
from yaml.nodes import ScalarNode

from deckbuilder.cardfile.yaml_tree import YMap, YScalar, YSeq, YValue, _Builder, parse_yaml
from deckbuilder.errors import DeckError

FILE = "cards/deck.yaml"


def shape(value: YValue | None) -> object:
    """A tree as plain data, keeping what dataclass equality ignores: the entry order."""
    if value is None:
        return None
    if isinstance(value, YScalar):
        return ("scalar", value.raw, value.tag, value.line)
    if isinstance(value, YSeq):
        return ("seq", value.line, [shape(item) for item in value.items])
    return ("map", value.line, [(k, value.lines[k], shape(v)) for k, v in value.entries.items()])


def parse_problems(text: str) -> list[tuple[int | None, str]]:
    with pytest.raises(DeckError) as info:
        parse_yaml(text, FILE)
    assert all(p.file == FILE for p in info.value.problems)
    return [(p.line, p.message) for p in info.value.problems]


def test_tree_keeps_every_line_and_the_key_order() -> None:
    tree = parse_yaml("b: 1\na:\n  - x\n", FILE)
    assert shape(tree) == (
        "map",
        1,
        [
            ("b", 1, ("scalar", "1", "tag:yaml.org,2002:int", 1)),
            ("a", 2, ("seq", 3, [("scalar", "x", "tag:yaml.org,2002:str", 3)])),
        ],
    )


@pytest.mark.parametrize("text", ["", "# only a comment\n"])
def test_empty_document_is_none(text: str) -> None:
    assert parse_yaml(text, FILE) is None


def test_scalars_keep_their_text_and_resolved_tag() -> None:
    tree = parse_yaml("[Yes, '1.10', 1.10, ~, '', !!str 5, tea, Tea time, <<]\n", FILE)
    assert isinstance(tree, YSeq)
    kinds = [(item.raw, item.kind) for item in tree.items if isinstance(item, YScalar)]
    assert kinds == [
        ("Yes", "bool"),
        ("1.10", "str"),
        ("1.10", "float"),
        ("~", "null"),
        ("", "str"),
        ("5", "str"),
        ("tea", "str"),
        ("Tea time", "str"),
        ("<<", "merge"),
    ]


def test_an_alias_shares_the_anchored_value() -> None:
    tree = parse_yaml("a: &x [1, &y {k: v}]\nb: *x\nc: *y\n", FILE)
    assert isinstance(tree, YMap)
    a, b, c = (tree.get(key) for key in "abc")
    assert isinstance(a, YSeq) and b is a and c is a.items[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1\na: 2\n", [(2, "duplicate key 'a' (first at line 1)")]),
        ("a:\n  - x\na:\n  - y\n", [(3, "duplicate key 'a' (first at line 1)")]),
        (
            "a: {k: v}\n<<: *m\n",
            [(2, "YAML merge keys ('<<') are not supported"), (2, "unknown YAML alias '*m'")],
        ),
        ("m: &m {k: v}\n<<: *m\n", [(2, "YAML merge keys ('<<') are not supported")]),
        ("[k]: 1\n", [(1, "a key must be plain text")]),
        ("a: &s [1]\n*s : 2\n", [(2, "a key must be plain text")]),
        (
            "a: !!binary aGk=\n",
            [(1, "unsupported YAML tag 'tag:yaml.org,2002:binary'; write plain text")],
        ),
        ("a: !!set {k}\n", [(1, "unsupported YAML tag 'tag:yaml.org,2002:set'; write plain text")]),
        # A refusal that stops reading still reports what was found before it.
        (
            "a: 1\na: 2\nb: [*nope]\n",
            [(2, "duplicate key 'a' (first at line 1)"), (3, "unknown YAML alias '*nope'")],
        ),
        ("a: &a [*a]\n", [(1, "YAML alias refers to itself (a recursive structure)")]),
        ("a: 1\n---\nb: 2\n", [(2, "more than one YAML document ('---'); use one file per deck")]),
        (
            "a: [\n",
            [
                (
                    1,
                    "YAML syntax error: the [ here is never closed with ]; if this is text, put "
                    "it in quotes (YAML parser: while parsing a flow node did not find expected "
                    "node content)\n    a: [",
                )
            ],
        ),
    ],
)
def test_parse_problems_are_the_documented_ones(text: str, expected: list[tuple[int, str]]) -> None:
    assert parse_problems(text) == expected


_ESCAPE_ADVICE = (
    "YAML syntax error: inside double quotes a backslash starts an escape (\\n, \\t, "
    "\\u00e9); write \\\\ for a backslash, or put the text in single quotes, where a "
    "backslash is only a backslash"
)


_HALVES = "; a character above U+FFFF is one escape of 8 digits (\\U0001F600), not two halves"


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ('path: "C:\\Users\\me"', "; write path: 'C:\\Users\\me'"),
        ('front: "say \\q and it\'s"', "; write front: 'say \\q and it''s'"),
        ('  - front: "C:\\Users"', "; write - front: 'C:\\Users'"),
        ('- "C:\\Users"', ""),
        # Single quotes would show the escapes the author meant as typed: no rewrite.
        ('front: "He said \\"go\\" to C:\\Users"', ""),
        ('front: "caf\\u00e9 in C:\\Users"', ""),
        ('front: "\\\\(x\\\\) and \\(y\\)"', ""),
        ('front: "smile \\ud83d\\ude00"', _HALVES),
        ('front: "half \\ud800 of one"', _HALVES),
    ],
)
def test_an_unknown_escape_in_double_quotes_says_how_to_write_a_backslash(
    line: str, fixed: str
) -> None:
    """Not the advice to put the text in quotes: it is in quotes already."""
    ((number, message),) = parse_problems(line + "\n")
    assert number == 1
    assert message.startswith(_ESCAPE_ADVICE + fixed + " (YAML parser: while parsing a quoted")


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("aU:\\ q'x0u"), min_size=1, max_size=12))
def test_a_suggested_rewrite_reads_as_the_text_typed_between_the_quotes(inner: str) -> None:
    line = f'front: "{inner}"'
    try:
        parse_yaml(line + "\n", FILE)
    except DeckError as exc:
        (problem,) = exc.problems
        if not problem.message.startswith(_ESCAPE_ADVICE + "; write front: "):
            return  # no rewrite offered, or another mistake (a quote left open)
        fixed = problem.message.rsplit("; write ", 1)[1].split(" (YAML parser")[0]
        tree = parse_yaml(fixed + "\n", FILE)
        assert isinstance(tree, YMap)
        value = tree.get("front")
        assert isinstance(value, YScalar) and value.raw == inner


def test_nesting_is_limited_to_100_levels() -> None:
    assert parse_yaml("x: " + "[" * 99 + "1" + "]" * 99 + "\n", FILE) is not None
    assert parse_problems("x: " + "[" * 100 + "]" * 100 + "\n") == [
        (1, "YAML nesting is deeper than 100 levels")
    ]


def test_aliases_that_expand_far_beyond_the_text_are_refused() -> None:
    text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 7)
    )
    assert parse_problems(text) == [
        (
            4,
            "YAML aliases expand this file far beyond what is written (over 11,238 values "
            "from 19); refusing to load (write the values out, or use fewer nested aliases)",
        )
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "a: b\x01\nc: d\n\x7f: e\n",
            [
                (1, "the control character U+0001 (column 5) cannot be in a card file; delete it"),
                (3, "the control character U+007F (column 1) cannot be in a card file; delete it"),
            ],
        ),
        # Columns count characters, not bytes; one problem per line, for its first character.
        (
            "한국어: \x02x\x03\n",
            [(1, "the control character U+0002 (column 6) cannot be in a card file; delete it")],
        ),
        (
            "a: |\n  x\n  \x9f\n",
            [(3, "the control character U+009F (column 3) cannot be in a card file; delete it")],
        ),
        (
            "a: '\ufffe'\n",
            [(1, "the character U+FFFE (column 5) cannot be in a card file; delete it")],
        ),
        (
            "a: \x1b[31mred\n",
            [(1, "the control character U+001B (column 4) cannot be in a card file; delete it")],
        ),
    ],
)
def test_characters_yaml_does_not_allow_are_located(
    text: str, expected: list[tuple[int, str]]
) -> None:
    """The parser's own message ("unacceptable character #x0001 ... position 3") names
    neither line nor column; these name both, in one line each."""
    assert parse_problems(text) == expected


def test_a_file_of_control_characters_names_ten_lines_and_stops() -> None:
    problems = parse_problems("\x01" * 100_000 + "\n\x02" * 100_000)
    assert [line for line, _ in problems] == [*range(1, 11), None]
    assert problems[-1] == (None, "...and more lines with such characters")


@pytest.mark.parametrize(
    ("text", "expected"),
    [('a: "\\x1f"\n', "\x1f"), ('a: "\\u0007"\n', "\a"), ('a: "b\\tc"\n', "b\tc")],
)
def test_escaped_control_characters_are_read_as_written(text: str, expected: str) -> None:
    """Escapes are valid YAML: the card loader, which knows the field and the note,
    decides about them (tests/test_control_characters.py)."""
    tree = parse_yaml(text, FILE)
    assert isinstance(tree, YMap)
    value = tree.get("a")
    assert isinstance(value, YScalar) and value.raw == expected


@given(st.text(st.sampled_from("0123456789.+-_:eExXoObBtTfFyYnNuUlL~=<>! aAZz"), max_size=12))
@example("")
@example("1.10")
@example("~")
@example("2024-01-02")
@example("<<")
@example("=")
def test_a_plain_value_is_what_yaml_resolves_it_to(value: str) -> None:
    # The reader skips the resolver for values no pattern can match: it must agree with it.
    event = ScalarEvent(None, None, (True, False), value, start_mark=None)
    expected = yaml.resolver.Resolver().resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    assert _Builder(FILE).scalar_tag(event, 1) == expected
