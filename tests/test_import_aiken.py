"""Importing Moodle's Aiken format."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from deckbuilder.importers import import_file, import_text

from .conftest import DATA, assert_imports_or_fails_cleanly

AIKEN = DATA / "import" / "moodle.aiken"


def test_moodle_examples() -> None:
    result = import_file(AIKEN)
    assert result.format == "aiken"
    got = [(q.line, q.question, q.choices, q.answer) for q in result.questions]
    assert got == [
        (
            1,
            "What is the correct answer to this question?",
            ["Is it this one?", "Maybe this answer?", "Possibly this one?", "Must be this one!"],
            [3],
        ),
        (
            8,
            "Which LMS has the most quiz import formats?",
            ["Moodle", "ATutor", "Claroline", "Blackboard", "WebCT", "Ilias"],
            [0],
        ),
        (
            17,
            "그래디언트 체크포인팅은 메모리를 아끼는 대가로\n주로 무엇을 치릅니까?",
            ["추가 계산(재계산)", "모델 정확도"],
            [0],
        ),
    ]


def test_questions_need_no_blank_line_between_them() -> None:
    text = "One?\nA. a\nB. b\nANSWER: B\nTwo?\nA) c\nB) d\nANSWER: A\n"
    result = import_text(text, "q.txt", "aiken")
    assert [(q.question, q.answer) for q in result.questions] == [("One?", [1]), ("Two?", [0])]


def test_several_answer_letters_make_a_choose_all_card() -> None:
    (q,) = import_text("Q?\nA. a\nB. b\nC. c\nANSWER: A, C\n", "q.txt", "aiken").questions
    assert q.answer == [0, 2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Q?\nA. a\nB. b\nANSWER: E\n", "q.txt:4: answer 'E' is not one of the choices (A-B)"),
        ("Q?\nA. a\nB. b\nANSWER: 1\n", "q.txt:4: cannot read answer '1'; write a letter (B)"),
        ("Q?\nA. a\nC. b\nANSWER: A\n", "q.txt:3: choice C where B was expected"),
        ("A. a\nB. b\nANSWER: A\n", "q.txt:1: a choice before any question text"),
        ("Q?\nANSWER: A\n", "q.txt:2: 'ANSWER:' line before any choice"),
        ("Q?\nA. a\nANSWER: A\n", "q.txt:1: question has 1 choices; a card needs 2 to 26"),
        (
            "Q?\nA. a\nB. b\nNext?\nA. c\nB. d\nANSWER: A\n",
            "q.txt:1: question has no marked answer; add a line 'ANSWER: B' after the choices",
        ),
    ],
)
def test_malformed_aiken_is_located(text: str, expected: str) -> None:
    with pytest.raises(DeckError) as info:
        import_text(text, "q.txt", "aiken")
    assert any(str(p).startswith(expected) for p in info.value.problems), info.value.problems


LINES = st.sampled_from(
    ["Q?", "A. a", "B) b", "C. c", "D. d", "ANSWER: A", "ANSWER: B", "ANSWER:", "answer: c", ""]
)
TEXT = st.lists(st.one_of(LINES, st.text(max_size=8)), max_size=12).map("\n".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXT)
def test_any_text_gives_a_card_file_or_a_located_error(tmp_path: Path, text: str) -> None:
    assert_imports_or_fails_cleanly(tmp_path, text, "aiken")
