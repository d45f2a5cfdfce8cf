"""Advice that fits the mistake (issue 32, item 4): text YAML read as a mapping or list is
told to be quoted, an answer that gives a choice's text gets its letter, close misspellings
of note types, keys and language codes get "did you mean", and counts read right."""

from __future__ import annotations

from pathlib import Path

import pytest

from deckbuilder.cardfile.reader import load_deck_languages
from deckbuilder.errors import DeckError


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError) as info:
        load_deck_languages(path, lang="all")
    return [f"{p.line}: {p.message}" for p in info.value.problems]


NOTE = "deck: D\nnotes:\n  - id: a\n    front: f\n"


@pytest.mark.parametrize(
    ("line", "advice"),
    [
        (
            '    back: {"a": 1}',
            "5: 'back' must be text, not a mapping; text starting with '{' needs quotes: "
            """write back: '{"a": 1}'""",
        ),
        (
            "    back: [x, y] is a pair",
            None,  # YAML's own syntax error, with its own advice
        ),
        (
            "    back: [x, y]",
            "5: 'back' must be text, not a list; text starting with '[' needs quotes: "
            "write back: '[x, y]'",
        ),
        (
            "    back: {it's: 1}",
            "5: 'back' must be text, not a mapping; text starting with '{' needs quotes: "
            "write back: '{it''s: 1}'",
        ),
    ],
)
def test_text_starting_with_a_brace_or_bracket_is_told_to_be_quoted(
    tmp_path: Path, line: str, advice: str | None
) -> None:
    """`back: {"a": 1}` was called a language map; it is text YAML read as a mapping."""
    found = problems(tmp_path, NOTE + line + "\n")
    if advice is None:
        assert "language map" not in " ".join(found)
    else:
        assert found == [advice]


def test_a_mapping_of_language_codes_is_still_a_language_map(tmp_path: Path) -> None:
    found = problems(tmp_path, NOTE + "    back: {ko: 뒤, en: back}\n")
    assert found == [
        "5: 'back' is a language map; declare the deck's languages first, e.g. "
        "'languages: [ko, en]' (the first is the default)"
    ]


def test_a_block_mapping_where_text_belongs_gets_no_quoting_advice(tmp_path: Path) -> None:
    found = problems(tmp_path, NOTE + "    back:\n      word: meaning\n")
    assert found == ["6: 'back' must be text, not a mapping"]


def test_an_answer_giving_a_choice_text_gets_its_letter(tmp_path: Path) -> None:
    """`answer: 목성`, the text of choice A, got only "not a choice letter"."""
    text = (
        "deck: D\nnotes:\n  - id: a\n    question: 가장 큰 행성은?\n"
        "    choices: [목성, 토성, 화성]\n    answer: 목성\n"
    )
    assert problems(tmp_path, text) == [
        "6: answer '목성' is not a choice letter (A-C); it is the text of choice A: did you mean A?"
    ]
    spaced = text.replace("[목성, 토성, 화성]", "[Red planet, Gas giant]").replace(
        "answer: 목성", "answer: red  PLANET"
    )
    assert problems(tmp_path, spaced)[0].endswith("choice A: did you mean A?")


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("multiple-choice", "mcq"),
        ("Multiple Choice", "mcq"),
        ("MCQ", "mcq"),
        ("fill-in-the-blank", "cloze"),
        ("flashcard", "basic"),
        ("short-answer", "typed"),
        ("clozee", "cloze"),
    ],
)
def test_a_misspelt_note_type_gets_the_type_meant(tmp_path: Path, written: str, meant: str) -> None:
    found = problems(tmp_path, f"deck: D\nnotes:\n  - id: a\n    type: {written}\n    front: f\n")
    assert found == [
        f"4: unknown note type '{written}'; expected one of mcq, cloze, basic, typed, image-occlusion; "
        f"did you mean '{meant}'?"
    ]


@pytest.mark.parametrize(
    ("line", "advice"),
    [
        (
            "    revrese: true",
            "unknown key 'revrese' in a basic note; did you mean 'reverse'?",
        ),
        ("    Back: x", "unknown key 'Back' in a basic note; did you mean 'back'?"),
    ],
)
def test_a_misspelt_key_gets_the_key_meant(tmp_path: Path, line: str, advice: str) -> None:
    found = problems(tmp_path, NOTE + "    back: b\n" + line + "\n")
    assert found == [f"6: {advice}"]


def test_a_language_code_in_other_case_gets_the_code_meant(tmp_path: Path) -> None:
    """A language key `EN` did not suggest `en`."""
    text = (
        "deck: D\nlanguages: [ko, en]\nnotes:\n  - id: a\n    front: f\n"
        "    back: {ko: 뒤, EN: back}\n"
    )
    found = problems(tmp_path, text)
    assert (
        "6: 'back' has text in 'EN', a language the deck does not declare "
        "(languages: [ko, en]); did you mean 'en'?"
    ) in found


@pytest.mark.parametrize(("count", "words"), [(1, "1 entry"), (27, "27 entries")])
def test_counts_read_right(tmp_path: Path, count: int, words: str) -> None:
    """ "'choices' has 1 entries" is wrong."""
    choices = ", ".join(f"c{i}" for i in range(count))
    text = f"deck: D\nnotes:\n  - id: a\n    question: q\n    choices: [{choices}]\n    answer: A\n"
    assert problems(tmp_path, text) == [f"5: 'choices' has {words}; give 2 to 26"]
