"""YAML -> located tree: what the reader keeps of the text, and what it refuses, with lines."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from yaml.events import ScalarEvent
from yaml.nodes import ScalarNode

from deckbuilder.cardfile.yaml_recovery import read_yaml
from deckbuilder.cardfile.yaml_tree import MAX_FILE_BYTES, TreeBuilder, YMap, YScalar, YSeq, YValue
from deckbuilder.errors import DeckError
from tests.cardfile.loading import parse_yaml
from tests.conftest import ROOT, Run

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
        (
            "a: 1\na: 2\n",
            [(2, "duplicate key 'a' (first at line 1); the first is read: delete one of them")],
        ),
        (
            "a:\n  - x\na:\n  - y\n",
            [(3, "duplicate key 'a' (first at line 1); the first is read: delete one of them")],
        ),
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
            [
                (2, "duplicate key 'a' (first at line 1); the first is read: delete one of them"),
                (3, "unknown YAML alias '*nope'"),
            ],
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


def test_text_an_alias_repeats_counts_toward_the_card_files_size_limit(
    tmp_path: Path, cli: Callable[..., Run]
) -> None:
    """One 60 KB text aliased 1,500 times: a 123 KB card file that built a 71 MB package
    in 16 s (issue 45). Written out it would be 90 MB, past the 64 MiB a card file may
    hold; refused at the alias that crosses it."""
    text = "word " * 12_000
    notes = [f"  - id: n0\n    front: q0\n    back: &a '{text}'\n"]
    notes += [f"  - id: n{i}\n    front: q{i}\n    back: *a\n" for i in range(1, 1500)]
    source = tmp_path / "bomb.yaml"
    source.write_text("deck: Bomb\nid: bomb\nnotes:\n" + "".join(notes), encoding="utf-8")
    crossing = -(-(MAX_FILE_BYTES - source.stat().st_size) // len(text))  # the alias past it
    run = cli("check", source)
    assert run.code == 1
    assert run.err.splitlines() == [
        f"{source}:{3 * crossing + 6}: YAML alias '*a' repeats text past the size limit of a "
        f"card file: written out, the file would hold over "
        f"{source.stat().st_size + crossing * len(text):,} characters, the limit being "
        f"{MAX_FILE_BYTES:,} (write the text out where it is needed, or split the deck into "
        "several files)",
        "1 problem found; nothing was written.",
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
@example("FALSE")
@example("False value")
@example("nulled")
@example("FALSEY")
@example("Yes sir")
@example("off-line")
@example("nullnull")
def test_a_plain_value_is_what_yaml_resolves_it_to(value: str) -> None:
    # The reader skips the resolver for values no pattern can match: it must agree with it.
    event = ScalarEvent(None, None, (True, False), value, start_mark=None)
    expected = yaml.resolver.Resolver().resolve(ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    assert TreeBuilder(FILE).scalar_tag(event, 1) == expected


# -- reading past mistakes (issue 32, item 3: every problem in one run) --------------------
TEXT_KEYS = frozenset({"deck", "question", "choices", "explanation", "front", "back", "text"})


def read(text: str) -> tuple[YValue | None, list[tuple[int | None, str]]]:
    tree, problems = read_yaml(text, FILE, TEXT_KEYS)
    assert all(p.file == FILE for p in problems)
    return tree, [(p.line, p.message) for p in problems]


def note_ids(tree: YValue | None) -> list[str]:
    assert isinstance(tree, YMap)
    notes = tree.get("notes")
    assert isinstance(notes, YSeq)
    ids = [item.get("id") for item in notes.items if isinstance(item, YMap)]
    return [i.raw for i in ids if isinstance(i, YScalar)]


def field(tree: YValue | None, note: str, key: str) -> str:
    assert isinstance(tree, YMap)
    notes = tree.get("notes")
    assert isinstance(notes, YSeq)
    for item in notes.items:
        assert isinstance(item, YMap)
        ident = item.get("id")
        if isinstance(ident, YScalar) and ident.raw == note:
            value = item.get(key)
            assert isinstance(value, YScalar)
            return value.raw
    raise AssertionError(f"no note {note}")


TABBED = (
    "deck: 탭\n"
    "notes:\n"
    "\t- id: one\n"  # 3
    "\t\tfront: 하나\n"  # 4
    "\t\tback: one\n"  # 5
    "\t- id: two\n"  # 6
    "\t\tfront: 둘\n"  # 7
    "\t\tback: two\n"  # 8
)


def test_every_line_indented_with_tabs_is_reported_in_one_read() -> None:
    tree, problems = read(TABBED)
    assert [line for line, _ in problems] == [3, 4, 5, 6, 7, 8]
    assert all("YAML indents with spaces, not tabs" in message for _, message in problems)
    assert problems[1][1].endswith("\n    \t\tfront: 하나")
    # Neither note is read as written: they are left out, and counted.
    assert isinstance(tree, YMap)
    notes = tree.get("notes")
    assert isinstance(notes, YSeq) and notes.items == [] and notes.unread == 2


def test_unquoted_colons_are_each_reported_and_read_as_the_fix_writes_them() -> None:
    text = (
        "deck: 'Colons: three'\n"
        "notes:\n"
        "  - id: a\n"
        "    front: Note: the first\n"  # 4
        "    back: fine\n"
        "  - id: b\n"
        "    front: fine\n"
        "    back: 답: 두 번째\n"  # 8
        "  - id: c\n"
        "    front: Q: third\n"  # 10
        "    back: fine\n"
    )
    tree, problems = read(text)
    assert [line for line, _ in problems] == [4, 8, 10]
    assert 'write front: "Note: the first"' in problems[0][1]
    assert 'write back: "답: 두 번째"' in problems[1][1]
    # Each note is read as its quoted line makes it, so its content checks can run now.
    assert note_ids(tree) == ["a", "b", "c"]
    assert field(tree, "b", "back") == "답: 두 번째"


def test_mistakes_of_every_kind_in_one_file_are_all_reported() -> None:
    text = (
        "deck: D\n"
        "notes:\n"
        "  - id: ok1\n"
        "    front: fine\n"
        "    back: fine\n"
        "  - id: tab\n"
        "\tfront: tabbed\n"  # 7
        "    back: fine\n"
        "  - id: quote\n"
        '    front: "never closed\n'  # 10
        "    back: fine\n"
        "  - id: alias\n"
        "    front: *args\n"  # 13
        "    back: fine\n"
        "  - id: twice\n"
        "    front: one\n"
        "    front: two\n"  # 17
        "    back: fine\n"
        "  - id: flow\n"
        "    front: [a, b\n"  # 20
        "    back: fine\n"
        "  - id: comment\n"
        "    front: 줄 앞에 # 을 붙입니다\n"  # 23
        "    back: fine\n"
        "  - id: ok2\n"
        "    front: fine\n"
        "    back: fine\n"
        "study:\n"
        "\tnew_per_day: 5\n"  # 29
    )
    tree, problems = read(text)
    assert [line for line, _ in problems] == [7, 10, 13, 17, 20, 23, 29]
    # A mistake in the deck's header (study:) leaves nothing to check further.
    assert tree is None
    tree, problems = read(text.rsplit("study:", 1)[0])
    assert [line for line, _ in problems] == [7, 10, 13, 17, 20, 23]
    # The notes read as written, and those read as their fixes write them, go on: a key
    # written twice is read as its first (issue 44: it hid the note's other problems).
    assert note_ids(tree) == ["ok1", "quote", "twice", "comment", "ok2"]
    assert field(tree, "twice", "front") == "one"
    assert field(tree, "comment", "front") == "줄 앞에 # 을 붙입니다"


@pytest.mark.parametrize(
    ("header", "line"),
    [
        ("languages:\n\t- ko\n\t- en\n", 3),
        ("deck: [D\n", 1),
    ],
)
def test_a_header_that_cannot_be_read_leaves_nothing_to_check(header: str, line: int) -> None:
    """Every note depends on the header (its languages): none is checked without it."""
    text = ("deck: D\n" if "deck" not in header else "") + header
    text += "notes:\n  - id: a\n    front: x\n    back: y\n"
    tree, problems = read(text)
    assert tree is None
    assert problems[0][0] == line


@pytest.mark.parametrize(
    "text",
    [
        "deck: D\nnotes:\n  - id: a\n    front: x\n    back: y\n",
        (
            "deck: D\nid: d  # the id\nnotes:\n  # a comment\n  - id: a  # first\n"
            "    front: 'x # y'  # quoted\n    back: \"z\"\n    answer: A # a letter\n"
            "    shuffle: false # kept\n    choices:\n      - text: one\n        pin: true # stays\n"
        ),
        (ROOT / "cards" / "gradient-checkpointing.yaml").read_text(encoding="utf-8"),
    ],
    ids=["plain", "comments", "bundled deck"],
)
def test_a_file_without_mistakes_reads_as_parse_yaml_reads_it(text: str) -> None:
    tree, problems = read(text)
    assert problems == []
    assert shape(tree) == shape(parse_yaml(text, FILE))


@pytest.mark.parametrize(
    ("above", "line", "fixed"),
    [
        ("", "    back: 줄 앞에 # 을 붙입니다", 'back: "줄 앞에 # 을 붙입니다"'),
        (
            "",
            "    question: 가장 많이 팔린 곡은 #1 히트곡이다?",
            'question: "가장 많이 팔린 곡은 #1 히트곡이다?"',
        ),
        ("", "    back: C:\\Temp\t# here", "back: 'C:\\Temp\t# here'"),
        ("    choices:\n", "      - 앞 # 뒤", '- "앞 # 뒤"'),
        ("    back:\n", "      ko: 가 # 나", 'ko: "가 # 나"'),
    ],
)
def test_card_text_that_yaml_would_end_at_a_comment_is_reported_with_the_quoted_line(
    above: str, line: str, fixed: str
) -> None:
    """Issue 32: 'back: 줄 앞에 # 을 붙입니다' was packaged as '줄 앞에', silently."""
    text = "deck: D\nnotes:\n  - id: a\n" + above + line + "\n"
    tree, problems = read(text)
    ((number, message),) = problems
    assert number == text.count("\n")
    value = line.split(": ", 1)[-1].strip().removeprefix("- ")
    kept = re.split(r"[ \t]#", value)[0]
    assert f"the card would show only '{kept}'; " in message
    assert f"write {fixed} (a comment of your own goes on a line of its own)" in message
    assert message.endswith("\n    " + line)
    # The note reads as meant: as the rewritten line reads.
    indent = line[: len(line) - len(line.lstrip())]
    again, none = read("deck: D\nnotes:\n  - id: a\n" + above + indent + fixed + "\n")
    assert none == []
    assert shape(again) == shape(tree)


@pytest.mark.parametrize(
    "text",
    [
        "deck: D\nnotes:\n  - id: a\n    front: x\n    # a comment on its own line\n    back: y\n",
        "deck: D\nnotes:\n  - id: a\n    front: 'x # y'  # after quotes\n    back: \"y\" # too\n",
        "deck: D\nnotes:\n  - id: a1 # the id\n    front: |\n      x # kept in a block\n"
        "    back: y\n    tags: [a] # tags\n",
        "deck: D\nstudy:\n  new_per_day: 20            # 0 to 9999\nnotes: []\n",
    ],
)
def test_comments_on_their_own_line_after_quotes_or_after_other_values_stay_comments(
    text: str,
) -> None:
    assert read(text)[1] == []


def test_the_same_mistakes_are_reported_however_the_file_is_cut() -> None:
    """A mistake in a note is found on its own as in the whole file: the first message is
    the parser's own, the ones after it read the same."""
    one = "deck: D\nnotes:\n  - id: a\n    front: Note: x\n    back: y\n"
    two = one + "  - id: b\n    front: Note: x\n    back: y\n"
    (first,) = read(one)[1]
    assert read(two)[1] == [first, (7, first[1])]


def test_notes_items_at_the_left_edge_and_top_level_keys_after_the_notes() -> None:
    text = (
        "deck: D\nnotes:\n- id: a\n  front: Note: x\n  back: y\n- id: b\n  front: x\n"
        "\tback: y\nstudy:\n  new_per_day: 5\n"
    )
    tree, problems = read(text)
    assert [line for line, _ in problems] == [4, 8]
    assert note_ids(tree) == ["a"]
    assert isinstance(tree, YMap) and list(tree.entries) == ["deck", "notes", "study"]


@pytest.mark.parametrize(
    "text",
    [
        "a: &a [*a]\n",
        "a: 1\n---\nb: 2\n",
        "x: " + "[" * 100 + "]" * 100 + "\n",
    ],
)
def test_what_stops_the_reading_still_stops_it(text: str) -> None:
    tree, problems = read(text)
    assert tree is None
    assert problems == parse_problems(text)


def test_characters_yaml_does_not_allow_are_reported_and_their_notes_left_out() -> None:
    text = "deck: D\nnotes:\n  - id: a\n    front: x\x01\n    back: y\n  - id: b\n    front: x\n    back: y: z\n"
    tree, problems = read(text)
    assert [line for line, _ in problems] == [4, 8]
    assert note_ids(tree) == ["b"]


# Mistakes a teacher makes on the line 'back: answer N', and how the note then reads:
# as the fix writes it (the text meant), or not at all (None).
MISTAKES: dict[str, tuple[str, str | None]] = {
    "tab": ("\tback: answer {n}", None),
    "colon": ("    back: 답: answer {n}", "답: answer {n}"),
    "comment": ("    back: 답 # answer {n}", "답 # answer {n}"),
    "open quote": ('    back: "answer {n}', "answer {n}"),
    "stars": ("    back: **answer** {n}", "**answer** {n}"),
    "alias": ("    back: *answer{n}", None),
    "open list": ("    back: [answer {n}", None),
    "indentation": ("     back: answer {n}", None),
}


def _deck(n: int, mistakes: dict[int, str]) -> tuple[str, dict[int, int]]:
    """A deck of ``n`` notes, note i with the mistake ``mistakes[i]``; and the line of
    each mistake."""
    lines = ["deck: 실수", "notes:"]
    where: dict[int, int] = {}
    for i in range(n):
        lines += [f"  - id: n{i}", f"    front: 질문 {i}"]
        if i in mistakes:
            where[i] = len(lines) + 1
            lines.append(MISTAKES[mistakes[i]][0].format(n=i))
        else:
            lines.append(f"    back: answer {i}")
    return "\n".join(lines) + "\n", where


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.just(n), st.dictionaries(st.integers(0, n - 1), st.sampled_from(sorted(MISTAKES)))
        )
    )
)
def test_each_mistake_is_reported_once_at_its_line_and_the_other_notes_read(
    case: tuple[int, dict[int, str]],
) -> None:
    """A file with N independent mistakes lists all N in one run; each note without a
    mistake reads as in the file without any."""
    n, mistakes = case
    text, where = _deck(n, mistakes)
    tree, problems = read(text)
    assert [line for line, _ in problems] == sorted(where.values())
    clean = parse_yaml(_deck(n, {})[0], FILE)
    kept = [i for i in range(n) if i not in mistakes or MISTAKES[mistakes[i]][1] is not None]
    assert note_ids(tree) == [f"n{i}" for i in kept]
    for i in kept:
        meant = MISTAKES[mistakes[i]][1] if i in mistakes else None
        expected = (meant or "answer {n}").format(n=i)
        assert field(tree, f"n{i}", "back") == expected
        assert field(tree, f"n{i}", "front") == field(clean, f"n{i}", "front")
