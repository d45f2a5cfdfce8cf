"""Reading a card file fast gives exactly what the straightforward reader gives.

The YAML event walker (yamlsource._Builder) and the deck reader (load._DeckReader) take
shortcuts for the common case: exact-type dispatch, keys kept as bare text, short ASCII
text returned without NFC and size work, one-letter answers, key sets checked at once.
Every test here reads the same text with the tuned code and with the plain versions in
tests/load_reference.py, and compares all of it: trees (order and lines), the aliased
flag of parse_part, decks and notes (field lines and warnings too), problems in order.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder import load, yamlsource
from deckbuilder.errors import DeckError
from deckbuilder.load import ALL_LANGUAGES, MAX_FIELD_BYTES, load_deck_languages
from deckbuilder.model import Deck, McqNote
from deckbuilder.yamlsource import YScalar, YSeq, YValue, parse_part

from .conftest import DATA, ROOT
from .load_reference import ReferenceBuilder, ReferenceReader

FILE = "cards/deck.yaml"


@contextmanager
def reference() -> Iterator[None]:
    """Read with the straightforward builder and reader instead of the tuned ones."""
    with (
        patch.object(yamlsource, "_Builder", ReferenceBuilder),
        patch.object(load, "_DeckReader", ReferenceReader),
    ):
        yield


def shape(value: YValue | None) -> object:
    """A tree as plain data, keeping what dataclass equality ignores: the entry order."""
    if value is None:
        return None
    if isinstance(value, YScalar):
        return ("scalar", value.raw, value.tag, value.line)
    if isinstance(value, YSeq):
        return ("seq", value.line, [shape(item) for item in value.items])
    return ("map", value.line, [(k, line, shape(v)) for k, (line, v) in value.entries.items()])


def parsed(text: str, first_line: int = 1) -> object:
    try:
        tree, aliased = parse_part(text, FILE, first_line)
    except DeckError as exc:
        return ("problems", exc.problems)
    return ("tree", shape(tree), aliased)


def deck_view(deck: Deck) -> object:
    """A Deck with the fields its equality leaves out (field lines, warnings, media dirs)."""
    return (
        deck,
        [type(note) for note in deck.notes],
        [dict(note.field_lines) for note in deck.notes],
        [list(note.field_lines) for note in deck.notes],
        deck.warnings,
        deck.media_dirs,
    )


def loaded(path: Path, lang: str | None, fallback: bool) -> object:
    try:
        decks = load_deck_languages(path, lang=lang, fallback=fallback)
    except DeckError as exc:
        return ("problems", exc.problems)
    return ("decks", [deck_view(deck) for deck in decks])


def assert_same_parse(text: str, first_line: int = 1) -> object:
    fast = parsed(text, first_line)
    with reference():
        slow = parsed(text, first_line)
    assert fast == slow
    return fast


def assert_same_load(path: Path) -> list[object]:
    """Both readers agree on ``path`` in every language mode; the outcomes, for checks."""
    outcomes = []
    for lang, fallback in ((None, False), (ALL_LANGUAGES, False), (ALL_LANGUAGES, True)):
        fast = loaded(path, lang, fallback)
        with reference():
            slow = loaded(path, lang, fallback)
        assert fast == slow, (lang, fallback)
        outcomes.append(fast)
    return outcomes


# --- fixed inputs: every card file in the repository, and the tricky shapes ------------------

CARD_FILES = sorted([*DATA.rglob("*.yaml"), *DATA.rglob("*.yml"), *(ROOT / "cards").glob("*.yaml")])


@pytest.mark.parametrize("path", CARD_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_card_file_in_the_repository_reads_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert_same_parse(text)
    assert_same_parse(text, first_line=41)
    assert_same_load(path)


TRICKY_YAML = [
    "",
    "# only a comment\n",
    "a: 1\na: 2\nb: {c: 1, c: 2}\n",
    "a:\n  x\nb:\n  - y\na:\n  z\nb: &q\n  - w\n",
    "a: &x 1\nb: *x\n*x : 3\n",
    "a: &m {k: v}\n<<: *m\nb: 2\n",
    "!!merge <<: 1\nx: y\n",
    "? [a, b]\n: 1\n? {k: v}\n: 2\nc: 3\n",
    "a: &s [1, 2]\n*s : x\nb: [*s, *s]\n",
    "&r a: 1\nb: &k key\n*k : 2\n",
    "a: !!str 5\nb: ! 12\nc: !!null x\nd: !!int A\ne: !!python/object:os.system x\n",
    "a: !!seq [1]\nb: !!map {k: v}\nc: !!set {k}\nd: !custom [1]\ne: !!str [1]\n",
    "x: [~, null, Null, '', \"\", yes, No, on, 1.10, 0x1F, 010, 1_000, .inf, -.5, 2024-01-02]\n",
    "x: ['1.10', \"yes\", 'null', '~', !, '<<']\n",
    "- a\n- b: c\n  d: [e, {f: g}]\n",
    "a: &a [*a]\n",
    "a: *missing\n",
    "a: 1\n---\nb: 2\n",
    "a: [\n",
    "a: b: c\n",
    "\tkey: value\n",
    "deck: D\nnotes: " + "[" * 120 + "]" * 120 + "\n",
    "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 7)),
    "a: |\n  block\n  text\nb: >-\n  folded\n  text\nc: 'it''s'\nd: \"esc\\tape\"\n",
]


@pytest.mark.parametrize("text", TRICKY_YAML)
@pytest.mark.parametrize("first_line", [1, 7])
def test_tricky_yaml_parses_the_same(text: str, first_line: int) -> None:
    assert_same_parse(text, first_line)


NFD = unicodedata.normalize("NFD", "한국어 café")
DOTLESS_I = "\u0131"  # its upper case is "I"
LONG_S = "\u017f"  # its upper case is "S"
TRICKY_DECKS = [
    "deck: D\nnotes:\n  - {id: a, front: f, back: b}\n",
    "deck: D\nid: d\ntags: [x, x, 'a b', '', ~]\ndescription: ~\nnotes:\n"
    "  - {id: a, type: basic, front: ' ', back: ~}\n"
    "  - {id: b, type: cloze, text: '{{c0::x}} {{c1::y}}', extra: [1]}\n"
    "  - {id: c, type: mcq, question: q, choices: [x, ' X ', y], answer: 'a, c'}\n"
    f"  - {{id: d, question: q, choices: [x, y], answer: [{DOTLESS_I}, {LONG_S}, B, b, 'ß', '']}}\n"
    "  - {id: e, question: q, choices: [x, y], answer: !!null A, shuffle: no}\n"
    "  - {id: f, question: q, choices: [x, y], answer: Z, shuffle: 1}\n"
    "  - {id: g, question: q, choices: [x], answer: [[A]], explanation: {ko: k}}\n"
    "  - {id: a, front: f, back: b, bakc: x, tpye: y}\n"
    "  - {id: h, type: Basic, front: f, back: b}\n"
    "  - {id: i, type: [mcq], front: f, back: b}\n"
    "  - {id: j, prompt: p}\n"
    "  - {id: 'K', text: '{{c1::a}} {{c2:b}}', extra: !!int 5}\n"
    "  - {front: f, back: b}\n"
    "  - [not, a, map]\n"
    "  - {id: l, text: no deletion}\n"
    f"  - {{id: m, front: {NFD}, back: '{NFD}'}}\n",
    "deck: D\nnotes:\n  - id: a\n    question: q\n    choices:\n      - &c one\n      - *c\n"
    "      - {x: 1}\n      - ~\n    answer: [A, C, A]\n",
    "deck: D\nstudy: {new_per_day: 010, review_limit: 0x10, desired_retention: 0.8,"
    " learning_steps: [1m, 0s, x], relearning_steps: 10m, maximum_interval: 1_000}\n"
    "notes: [{id: a, front: f, back: b}]\n",
    "deck: {ko: 덱, en: Deck}\nlanguages: [ko, en]\nnotes:\n"
    "  - {id: a, front: {ko: 앞, en: front}, back: {ko: 뒤}}\n"
    "  - {id: b, text: {ko: '{{c1::가}}', en: '{{c2::a}}'}, extra: {ko: x, fr: y}}\n"
    "  - {id: c, question: {en: q}, choices: [{ko: 가, en: a}, {ko: 나, en: b}], answer: A}\n"
    "  - {id: d, front: {ko: {x: y}, en: z}, back: b}\n",
    "deck: D\nlanguages: [ko, ko, all, EN, '']\nnotes: [{id: a, front: f, back: b}]\n",
    "deck: D\nnotes:\n  - {id: a, front: {ko: x}, back: b}\n",
    "deck: D\nlanguages: ko\nnotes: [{id: a, front: f, back: b}]\n",
    "deck: D\nnotes:\n  - id: a\n    front: "
    + "x" * MAX_FIELD_BYTES
    + "\n    back: "
    + "y" * (MAX_FIELD_BYTES + 1)
    + "\n",
    "deck: D\nnotes:\n  - id: a\n    front: "
    + "😀" * (MAX_FIELD_BYTES // 4 + 1)
    + "\n    back: b\n",
    "deck: D\nnotes:\n  - id: a\n    front: "
    + "é" * (MAX_FIELD_BYTES // 4 + 1)
    + "\n    back: b\n",
    "notes: {a: 1}\nextra: 1\ndeck: [x]\nid: 'Bad Id'\n",
    # More choices than there are letters and than _CHOICE_KEYS holds; blank, null, repeated
    # (by case), decomposed and long choices (the last one takes as_text's long path).
    "deck: D\nnotes:\n  - id: a\n    question: q\n    answer: A\n    choices:\n"
    + "".join(f"      - c{i}\n" for i in range(28))
    + f"      - ' '\n      - ~\n      - C1\n      - {NFD}\n      - {{x: y}}\n"
    + "      - "
    + "é" * (MAX_FIELD_BYTES // 4 + 1)
    + "\n",
    "- a\n",
    "",
]


@pytest.mark.parametrize("text", TRICKY_DECKS, ids=range(len(TRICKY_DECKS)))
def test_tricky_decks_load_the_same(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    assert_same_load(path)


# --- what the shortcuts must give, stated independently of either implementation --------------


def test_parse_part_keeps_its_line_offset_and_alias_flag() -> None:
    tree, aliased = parse_part("a: 1\nb:\n  - x\n", FILE, first_line=100)
    assert not aliased
    assert shape(tree) == (
        "map",
        100,
        [
            ("a", 100, ("scalar", "1", "tag:yaml.org,2002:int", 100)),
            ("b", 101, ("seq", 102, [("scalar", "x", "tag:yaml.org,2002:str", 102)])),
        ],
    )
    assert parse_part("a: &x 1\n", FILE)[1] is True
    assert parse_part("a: &x [1]\n", FILE)[1] is True
    assert parse_part("a: [1]\nb: '&x'\n", FILE)[1] is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1\na: 2\n", [(12, "duplicate key 'a' (first at line 11)")]),
        ("a:\n  - x\na:\n  - y\n", [(13, "duplicate key 'a' (first at line 11)")]),
        (
            "a: {k: v}\n<<: *m\n",
            [(12, "YAML merge keys ('<<') are not supported"), (12, "unknown YAML alias '*m'")],
        ),
        ("m: &m {k: v}\n<<: *m\n", [(12, "YAML merge keys ('<<') are not supported")]),
        ("[k]: 1\n", [(11, "a key must be plain text")]),
        ("a: &s [1]\n*s : 2\n", [(12, "a key must be plain text")]),
        (
            "a: !!binary aGk=\n",
            [(11, "unsupported YAML tag 'tag:yaml.org,2002:binary'; write plain text")],
        ),
    ],
)
def test_parse_problems_are_the_documented_ones(text: str, expected: list[tuple[int, str]]) -> None:
    with pytest.raises(DeckError) as info:
        parse_part(text, FILE, first_line=11)
    assert [(p.line, p.message) for p in info.value.problems] == expected


def test_scalars_keep_their_text_and_resolved_tag() -> None:
    tree, _ = parse_part("[Yes, '1.10', 1.10, ~, '', !!str 5, tea, Tea time, <<]\n", FILE)
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


def test_short_text_answers_and_normalisation_are_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(
        f"deck: D\nnotes:\n  - {{id: a, question: {NFD}, choices: [x, y, z, w, v, u, t, s, r],"
        f" answer: {DOTLESS_I}, explanation: plain}}\n  - {{id: b, question: q, choices: [x, y], answer: b}}\n",
        encoding="utf-8",
    )
    (deck,) = load_deck_languages(path)
    first, second = deck.notes
    assert isinstance(first, McqNote) and isinstance(second, McqNote)
    assert first.question == unicodedata.normalize("NFC", NFD) != NFD
    assert first.answer == (8,)  # I, the ninth letter
    assert second.answer == (1,)
    assert dict(first.field_lines) == {
        "id": 3,
        "question": 3,
        "choices": 3,
        "answer": 3,
        "explanation": 3,
        **{f"choices[{i}]": 3 for i in range(9)},
    }


def test_field_size_limit_is_counted_in_utf8_bytes(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    at_limit = "é" * (MAX_FIELD_BYTES // 2)
    over = "😀" * (MAX_FIELD_BYTES // 4) + "x"
    path.write_text(f"deck: D\nnotes:\n  - id: a\n    front: {at_limit}\n    back: {over}\n")
    with pytest.raises(DeckError) as info:
        load_deck_languages(path)
    assert [p.message for p in info.value.problems] == [
        f"'back' is {MAX_FIELD_BYTES + 1:,} bytes; the limit is {MAX_FIELD_BYTES:,}"
    ]


# --- generated decks: Hypothesis ------------------------------------------------------------

SCALAR_TOKENS = [
    "a", "b", "x", "A", "B", "c", "z", DOTLESS_I, "mcq", "cloze", "basic", "Basic", "q0", "Q", "a b",
    "~", "null", "''", '""', "yes", "No", "on", "1.10", "'1.10'", "0x1F", "010", "1_0", "2024-01-02",
    "!!str 5", "! 12", "!!null A", "!!int A", "!!binary aGk=", "!x y", "'{{c1::x}}'",
    "'{{c1::x}} {{c2:y}}'", "'{{c0::x}}'", "' '", f"'{NFD}'", "'ß'", "ko", "en", "'<<'", "<<",
    "'x, y'", "'[A, C]'",
]  # fmt: skip
KEYS = [
    "id", "type", "tags", "question", "choices", "answer", "explanation", "shuffle", "text",
    "extra", "front", "back", "bogus", "ko", "en", "fr", "deck", "<<", "'id'", "!!str id",
]  # fmt: skip


@st.composite
def flow_node(draw: st.DrawFn, depth: int = 0) -> str:
    """One YAML node written in flow style, sometimes anchored or an alias."""
    choice = draw(st.integers(0, 9 if depth < 3 else 5))
    if choice <= 4:
        node = draw(st.sampled_from(SCALAR_TOKENS))
    elif choice == 5:
        return "*" + draw(st.sampled_from(["a1", "a2", "a3"]))
    elif choice <= 7:
        items = draw(st.lists(flow_node(depth + 1), max_size=4))
        node = "[" + ", ".join(items) + "]"
    else:
        pairs = draw(st.lists(st.tuples(st.sampled_from(KEYS), flow_node(depth + 1)), max_size=4))
        node = "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if draw(st.integers(0, 7)) == 0:
        node = "&" + draw(st.sampled_from(["a1", "a2", "a3"])) + " " + node
    return node


@st.composite
def yaml_deck(draw: st.DrawFn) -> str:
    """A card file in block style whose values are anything flow_node writes."""
    lines = []
    header = draw(
        st.lists(st.sampled_from(["deck", "id", "tags", "description", "languages", "bogus"]))
    )
    for key in header:
        lines.append(f"{key}: {draw(flow_node())}")
    if draw(st.booleans()):
        lines.append(
            "languages: ["
            + ", ".join(draw(st.lists(st.sampled_from(["ko", "en"]), max_size=3)))
            + "]"
        )
    lines.append("notes:")
    for _ in range(draw(st.integers(0, 4))):
        fields = draw(
            st.lists(st.tuples(st.sampled_from(KEYS), flow_node()), min_size=1, max_size=6)
        )
        first, *rest = fields
        lines.append(f"  - {first[0]}: {first[1]}")
        lines.extend(f"    {key}: {value}" for key, value in rest)
    return "\n".join(lines) + "\n"


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=yaml_deck(), first_line=st.integers(1, 500))
def test_generated_yaml_reads_the_same(tmp_path: Path, text: str, first_line: int) -> None:
    assert_same_parse(text, first_line)
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    assert_same_load(path)


note_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=12),
    st.sampled_from(["mcq", "cloze", "basic", "A", "b", DOTLESS_I, "{{c1::x}}", "a, c", NFD]),
    st.lists(st.sampled_from(["A", "B", "c", "x", NFD, ""]), max_size=5),
    st.dictionaries(st.sampled_from(["ko", "en", "fr"]), st.text(max_size=6), max_size=3),
)
structured = st.fixed_dictionaries(
    {
        "deck": st.one_of(st.text(max_size=8), st.fixed_dictionaries({"ko": st.text(max_size=4)})),
        "notes": st.lists(
            st.dictionaries(
                st.sampled_from([k for k in KEYS if k.isalpha()]), note_values, max_size=8
            ),
            max_size=5,
        ),
    },
    optional={
        "languages": st.lists(st.sampled_from(["ko", "en"]), max_size=2),
        "tags": note_values,
    },
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=structured, flow=st.booleans())
def test_generated_structured_decks_read_the_same(
    tmp_path: Path, document: dict[str, Any], flow: bool
) -> None:
    text = yaml.safe_dump(document, allow_unicode=True, default_flow_style=flow)
    assert_same_parse(text)
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    assert_same_load(path)


def test_mapping_keys_are_shared_strings() -> None:
    """Keys repeat in every note; the parser keeps one string object per key text."""
    from deckbuilder.yamlsource import YMap, YSeq, parse_yaml

    tree = parse_yaml("- {front: a, back: b}\n- front: c\n  back: d\n", "x.yaml")
    assert isinstance(tree, YSeq)
    first, second = tree.items
    assert isinstance(first, YMap) and isinstance(second, YMap)
    for a, b in zip(first.entries, second.entries, strict=True):
        assert a == b and a is b
