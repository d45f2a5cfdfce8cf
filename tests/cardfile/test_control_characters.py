"""Characters Anki cannot store never reach a package, and never reach a card file.

U+001F separates the fields of a note in Anki's database: one inside a field shifts the
fields and Anki refuses the whole package ("note has 3 fields, expected 2"). Anki drops the
other C0 control characters (and DEL) on import, so the card would not show what was
written. A card file can hold them only as YAML escapes ("\\x1f", "\\u001f", "\\a"); a raw
one is refused by the YAML reader, and must be reported like any other problem.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.anki.identity import note_guid
from deckbuilder.cardfile.fields import MAX_FIELD_BYTES, UNSTORABLE
from deckbuilder.cli.output import problem_line
from deckbuilder.errors import DeckError
from deckbuilder.importers import ImportOptions, plan_import, read_source, write_import
from deckbuilder.importers import plan as import_plan
from tests.app_calls import build_packages, check_decks
from tests.cardfile.loading import load_deck
from tests.conftest import Run, import_package
from tests.importers.reading import import_text

CliRun = Callable[..., Run]

# A card file with a placeholder for every place text reaches a package; the comment
# after each line is its line number.
TEMPLATE = """\
deck: {deck}
id: {deck_id}
description: {description}
tags: [{deck_tag}]
notes:
  - id: {note_id}
    front: {front}
    back: b
    tags: [{note_tag}]
  - id: m
    question: {question}
    choices: [one, {choice}]
    answer: A
    explanation: {explanation}
  - id: c
    text: {text}
    extra: {extra}
"""
PLAIN = {
    "deck": "Deck",
    "deck_id": "deck",
    "description": "about",
    "deck_tag": "t",
    "note_id": "a",
    "front": "f",
    "note_tag": "n",
    "question": "q",
    "choice": "two",
    "explanation": "e",
    "text": "'{{c1::x}}'",
    "extra": "x",
}
# placeholder -> (line, note named in the message, field named in the message)
PLACES = {
    "deck": (1, None, "deck"),
    "deck_id": (2, None, "id"),
    "description": (3, None, "description"),
    "deck_tag": (4, None, "tags"),
    "note_id": (6, None, "id"),
    "front": (7, "a", "front"),
    "note_tag": (9, "a", "tags"),
    "question": (11, "m", "question"),
    "choice": (12, "m", "choices[1]"),
    "explanation": (14, "m", "explanation"),
    "text": (16, "c", "text"),
    "extra": (17, "c", "extra"),
}
FIELD_SEPARATOR = "U+001F (Anki's field separator), which Anki cannot store; delete it"


def card_file(tmp_path: Path, **values: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(TEMPLATE.format(**{**PLAIN, **values}), encoding="utf-8")
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(DeckError) as info:
        load_deck(path)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("escape", ["\\x1f", "\\u001f", "\\U0000001F"])
def test_field_separator_is_refused_wherever_it_is_written(
    tmp_path: Path, place: str, escape: str
) -> None:
    path = card_file(tmp_path, **{place: f'"a{escape}b"'})
    line, note, what = PLACES[place]
    who = f" note '{note}':" if note else ""
    assert problems_of(path) == [
        f"{path}:{line}:{who} '{what}' contains the control character {FIELD_SEPARATOR}"
    ]


def test_the_unchanged_template_loads(tmp_path: Path) -> None:
    """The places above are refused for the character, not for something else."""
    deck = load_deck(card_file(tmp_path))
    assert [note.id for note in deck.notes] == ["a", "m", "c"]


REFUSED = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]


@pytest.mark.parametrize("code", REFUSED, ids=lambda code: f"U+{code:04X}")
def test_every_control_character_anki_cannot_store_is_named(tmp_path: Path, code: int) -> None:
    path = card_file(tmp_path, front=f'"a\\x{code:02x}b"')
    (problem,) = problems_of(path)
    assert problem.startswith(
        f"{path}:7: note 'a': 'front' contains the control character U+{code:04X}"
    )
    assert problem.endswith(", which Anki cannot store; delete it")


def test_carriage_return_is_refused_with_a_hint(tmp_path: Path) -> None:
    (problem,) = problems_of(card_file(tmp_path, front='"a\\r\\nb"'))
    assert problem.endswith(
        "'front' contains the control character U+000D (a carriage return; write \\n for a "
        "line break), which Anki cannot store; delete it"
    )


def test_several_characters_are_named_together(tmp_path: Path) -> None:
    (problem,) = problems_of(card_file(tmp_path, front='"\\a\\x1fb\\a\\e"'))
    assert problem.endswith(
        "'front' contains the control characters U+0007, U+001B, U+001F (Anki's field "
        "separator), which Anki cannot store; delete them"
    )


@pytest.mark.parametrize(
    "text",
    ['"a\\tb"', '"a\\nb"', '"a\\x85b"', '"a\\x80\\x9fb"', '"a\\u2028b"', '"\\ufeffa"', "é 漢 😀"],
)
def test_characters_anki_stores_are_kept(tmp_path: Path, text: str) -> None:
    (note, _, _) = load_deck(card_file(tmp_path, front=text)).notes
    assert note.front == yaml.safe_load(text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ['"A\\tB"', '"A\\nB"', '"A::B\\nC"'])
def test_deck_name_is_one_line(tmp_path: Path, name: str) -> None:
    """Anki removes line breaks and tabs from deck names: the deck would be named otherwise."""
    (problem,) = problems_of(card_file(tmp_path, deck=name))
    assert problem == (
        f"{tmp_path / 'deck.yaml'}:1: 'deck' must be one line without tabs (Anki removes "
        "line breaks and tabs from deck names)"
    )


def test_deck_name_block_with_a_final_line_break_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text("deck: |\n  Name\nnotes:\n  - {id: a, front: f, back: b}\n", encoding="utf-8")
    assert load_deck(path).name == "Name"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('  - id: a\n    front: f\n    back: b\n    "bad\\e[31m": 1\n', "'bad<U+001B>[31m'"),
        (
            '  - id: a\n    question: q\n    choices: [x, y]\n    answer: "\\e[2J"\n',
            "'<U+001B>[2J'",
        ),
    ],
)
def test_messages_never_carry_control_characters(tmp_path: Path, text: str, expected: str) -> None:
    """A message echoing a control character would send an escape sequence to the terminal."""
    path = tmp_path / "deck.yaml"
    path.write_text("deck: D\nnotes:\n" + text, encoding="utf-8")
    (problem,) = problems_of(path)
    assert expected in problem
    assert not UNSTORABLE.search(problem)


def test_a_refused_note_type_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(
        'deck: D\nnotes:\n  - id: a\n    type: "basic\\a"\n    front: f\n    back: b\n',
        encoding="utf-8",
    )
    assert problems_of(path) == [
        f"{path}:4: note 'a': 'type' contains the control character U+0007, which Anki "
        "cannot store; delete it"
    ]


def test_language_map_code_is_shown_without_control_characters(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(
        'deck: D\nlanguages: [en]\nnotes:\n  - id: a\n    front: {en: f, "e\\x1bn": g}\n'
        "    back: b\n",
        encoding="utf-8",
    )
    (problem,) = problems_of(path)
    assert "'e<U+001B>n'" in problem and not UNSTORABLE.search(problem)


# -- raw characters in the card file ------------------------------------------------------------
def test_raw_control_character_is_one_line_with_its_place(tmp_path: Path, cli: CliRun) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(
        "deck: D\nnotes:\n  - id: é\n    front: 한국\x01어\n    back: b\x7f\x02\n", encoding="utf-8"
    )
    result = cli("check", path)
    assert result.code == 1
    assert result.err.splitlines() == [
        f"{path}:4: the control character U+0001 (column 14) cannot be in a card file; delete it",
        f"{path}:5: the control character U+007F (column 12) cannot be in a card file; delete it",
        "2 problems found; nothing was written.",
    ]


def test_a_file_full_of_control_characters_names_ten_lines(tmp_path: Path, cli: CliRun) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text("deck: D\n" + "\x01\x02\n" * 50_000, encoding="utf-8")
    lines = cli("check", path).err.splitlines()
    assert lines[0] == (
        f"{path}:2: the control character U+0001 (column 1) cannot be in a card file; delete it"
    )
    assert lines[9].startswith(f"{path}:11: ")
    assert lines[10:] == [
        f"{path}: ...and more lines with such characters",
        "11 problems found; nothing was written.",
    ]


# -- what Anki stores ---------------------------------------------------------------------------
STORABLE = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_characters="!"),  # '!': no image references
        st.sampled_from([chr(c) for c in (*REFUSED, 0x09, 0x0A, 0x85, 0x9F, 0x2028, 0xFEFF)]),
    ),
    min_size=1,
    max_size=20,
)
_decks = itertools.count()


@pytest.mark.anki
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(front=STORABLE, tag=STORABLE, deck=STORABLE)
def test_what_check_accepts_anki_stores_as_written(
    tmp_path: Path, collection: Any, front: str, tag: str, deck: str
) -> None:
    """Any text: the loader refuses it, or Anki imports the package with every field, tag
    and the deck name exactly as the package holds them."""
    key = f"d{next(_decks)}"
    source = tmp_path / key / f"{key}.yaml"
    source.parent.mkdir()
    # The deck's name and the tag carry the example's key: Anki matches deck names and
    # tags without case, so 'D HeADE' went into an earlier example's 'D 0eADE'... deck of
    # the one collection the examples share, named as first spelt.
    document = {
        "deck": f"D{key} {deck}",
        "notes": [{"id": "a", "front": f"f {front}", "back": "b", "tags": [f"t{key}_{tag}"]}],
    }
    source.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    try:
        (result,) = build_packages([source], tmp_path / key / "out", timestamp=1_700_000_000)
    except DeckError as exc:
        assert all(p.line for p in exc.problems), exc
        return
    assert not any(UNSTORABLE.search(text) for text in (front, tag, deck))
    log = import_package(collection, result.path)
    assert len(log.new) == 1, log  # type: ignore[attr-defined]
    (rendered,) = result.rendered.notes
    guid = note_guid(key, "a")
    (note,) = [n for n in map(collection.get_note, collection.find_notes("")) if n.guid == guid]
    assert tuple(note.fields) == rendered.fields
    assert note.tags == list(rendered.tags)
    assert result.rendered.deck.name in [d.name for d in collection.decks.all_names_and_ids()]


# -- importers ----------------------------------------------------------------------------------
QUIZ = "1. First?\n- a ✓\n- b\n\n2. Second?\n- c ✓\n- d{bad}d\n\n3. Third?\n- e ✓\n- f\n"
AIKEN = "First?\nA. a\nB. b\nANSWER: A\n\nSecond?\nA. c\nB. d{bad}d\nANSWER: A\n"
GIFT = "First? {{=a ~b}}\n\nSecond? {{=c ~d{bad}d}}\n\nThird? {{=e ~f}}\n"


@pytest.mark.parametrize(
    ("fmt", "template", "line", "kept"),
    [
        ("quiz", QUIZ, 5, "2 questions"),
        ("aiken", AIKEN, 6, "1 question"),
        ("gift", GIFT, 3, "2 questions"),
    ],
)
def test_importer_skips_a_question_anki_cannot_store(
    tmp_path: Path,
    cli: CliRun,
    monkeypatch: pytest.MonkeyPatch,
    fmt: str,
    template: str,
    line: int,
    kept: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    source = Path(f"in.{fmt}")
    source.write_text(template.format(bad="\x1f"), encoding="utf-8")
    result = cli("import", source, "--format", fmt, "--out", "cards/out.yaml")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        f"{source}:{line}: warning: skipped: 'choices[1]' contains the control character "
        f"{FIELD_SEPARATOR}"
    ]
    assert f"{kept} imported, 1 skipped" in result.out
    assert cli("check", "cards/out.yaml").code == 0


def test_importer_skips_a_question_too_big_for_a_field(tmp_path: Path) -> None:
    big = "x" * (MAX_FIELD_BYTES + 1)
    source = tmp_path / "in.txt"
    source.write_text(QUIZ.format(bad="").replace("Second?", big), encoding="utf-8")
    plan = plan_import(read_source(source, "quiz"), ImportOptions(out=tmp_path / "o.yaml"))
    assert [note.question for note in plan.decks[0].notes] == ["First?", "Third?"]  # type: ignore[attr-defined]
    (skipped,) = plan.skipped
    assert (skipped.line, skipped.reason) == (
        5,
        f"'question' is {MAX_FIELD_BYTES + 1:,} bytes; the limit is {MAX_FIELD_BYTES:,}",
    )


def test_only_unstorable_questions_is_an_error_naming_them() -> None:
    with pytest.raises(DeckError) as info:
        import_text("1. Q\x07?\n- a ✓\n- b\n", "in.txt", "quiz")
    assert [str(p) for p in info.value.problems] == [
        "in.txt: no notes to import",
        "in.txt:1: 'question' contains the control character U+0007, which Anki cannot "
        "store; delete it",
    ]


def test_control_characters_leave_deck_names_and_category_tags(tmp_path: Path) -> None:
    """Anki drops them from deck names and tags itself: removing them is safe."""
    quiz = tmp_path / "in.txt"
    quiz.write_text("Title\x07 one\x1f two\n\n" + QUIZ.format(bad=""), encoding="utf-8")
    options = ImportOptions(out=tmp_path / "a.yaml")
    assert plan_import(read_source(quiz), options).decks[0].name == "Title one two"
    gift = tmp_path / "in.gift"
    gift.write_text(
        "$CATEGORY: top/Sci\x1bence/Week\x01 1\n\nQ? {=a ~b}\n\n"
        "$CATEGORY: top/Sci\x1bence/Week 2\n\nR? {=c ~d}\n",
        encoding="utf-8",
    )
    plan = plan_import(read_source(gift), ImportOptions(out=tmp_path / "b.yaml"))
    assert plan.decks[0].name == "Sci ence"
    assert [note.tags for note in plan.decks[0].notes] == [("Week_1",), ("Week_2",)]


def test_quiz_introduction_with_a_control_character_is_left_out_with_a_warning() -> None:
    result = import_text("Title\n\nIntro\nmore \x1b[1m\n\n" + QUIZ.format(bad=""), "in.txt", "quiz")
    assert result.description == ""
    assert [problem_line(p) for p in result.warnings] == [
        "in.txt:3: warning: 'the introduction' contains the control character U+001B, which "
        "Anki cannot store; delete it; the deck has no description"
    ]


def test_more_questions_than_a_card_file_holds_is_located(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(import_plan, "MAX_NOTES", 2)
    with pytest.raises(DeckError) as info:
        import_text(QUIZ.format(bad=""), "in.txt", "quiz")
    assert [str(p) for p in info.value.problems] == [
        "in.txt:9: more than 2 notes; a card file holds at most 2 (split the file, and import "
        "each part)"
    ]


# Pieces of every format, and the characters that cannot be stored, to build any text from.
PIECES = st.sampled_from(
    [
        "\n",
        "\n\n",
        "1. ",
        "2) ",
        "- ",
        "A. ",
        "B) ",
        " ✓",
        "ANSWER: A",
        "Explanation: ",
        "::n::",
        "{",
        "}",
        "=",
        "~",
        "#",
        "%50%",
        "$CATEGORY: a/b\n",
        "[html]",
        "{{c1::}}",
        "{{c600::x}}",
        *(chr(c) for c in REFUSED),
    ]
)
ANY_TEXT = st.lists(
    st.one_of(PIECES, st.text(st.characters(codec="utf-8", exclude_characters="!"), max_size=6)),
    max_size=40,
).map("".join)


# Text for each part of a well-formed question, control characters likely.
WORD = st.lists(
    st.one_of(
        st.sampled_from([chr(c) for c in REFUSED]),
        st.text(st.characters(codec="utf-8", exclude_characters="!\n\r"), min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=4,
).map("".join)
SHAPES = {
    "quiz": "{n}. {0}\n- {1} ✓\n- {2}\nExplanation: {3}\n\n",
    "aiken": "{0}\nA. {1}\nB. {2}\nANSWER: A\n\n",
    "gift": "$CATEGORY: top/{3}\n\n{0} {{={1} ~{2}}}\n\n",
}


@st.composite
def sources(draw: st.DrawFn) -> tuple[str, str]:
    """A format, and text in it: pieces in any order, or questions with any text in them."""
    fmt = draw(st.sampled_from(sorted(SHAPES)))
    if draw(st.booleans()):
        return fmt, draw(ANY_TEXT)
    questions = draw(st.lists(st.tuples(WORD, WORD, WORD, WORD), min_size=1, max_size=4))
    return fmt, "".join(SHAPES[fmt].format(*q, n=n) for n, q in enumerate(questions, start=1))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(source=sources())
def test_any_import_gives_a_card_file_check_accepts(
    tmp_path: Path, source: tuple[str, str]
) -> None:
    """Whatever text is imported: the card file written passes `check` (its text, ids,
    sizes and characters), or the import fails with errors located in the input."""
    fmt, text = source
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(text.encode("utf-8"))
    out = tmp_path / "cards" / "out.yaml"
    try:
        plan = plan_import(read_source(path, fmt), ImportOptions(out=out))
    except DeckError as exc:
        assert exc.problems and all(p.file == str(path) for p in exc.problems)
        assert all(
            p.line or "binary file" in p.message or "no notes" in p.message for p in exc.problems
        ), exc
        return
    assert all(skipped.line for skipped in plan.skipped)  # each left out at its line
    write_import(plan, force=True)
    (deck,) = [rendered.deck for rendered in check_decks([out])]
    assert len(deck.notes) == len(plan.decks[0].notes)
