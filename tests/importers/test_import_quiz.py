"""Importing the plain numbered quiz format (the seed's shape)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from deckbuilder.model import McqNote, TypedNote
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, assert_imports_or_fails_cleanly
from tests.importers.reading import card_text, import_file, import_text

IMPORT = DATA / "import"
SEED = IMPORT / "gradient-checkpointing-quiz.txt"


def quiz(text: str, **options: bool) -> list[tuple[str, list[str], list[int], str]]:
    result = import_text(text, "q.txt", "quiz", **options)
    return [(q.question, q.choices, q.answer, q.explanation) for q in result.questions]


def test_seed_with_answer_lines_gives_its_eight_questions() -> None:
    result = import_file(SEED)
    assert result.format == "quiz"
    assert result.deck == "그라데이션 체크포인트 퀴즈"
    assert result.description == "퀴즈를 풀면 정답과 설명이 나타납니다."
    qs = result.questions
    assert len(qs) == 8
    assert [q.answer for q in qs] == [[0], [1], [2], [3], [0], [1], [2], [3]]
    assert all(len(q.choices) == 4 for q in qs)
    assert [q.line for q in qs] == [5, 11, 17, 23, 29, 35, 41, 47]
    assert (
        qs[0].question == "메모리를 절약하기 위해 그라디언트 체크포인트는 주로 무엇을 거래합니까?"
    )
    assert qs[0].choices[0] == "더 적은 메모리 사용을 위한 추가 계산(재계산)"
    assert qs[1].choices[1] == "역전파에서는 그래디언트를 계산하는 데 필요하기 때문입니다."
    # Question 5's machine-translated code names stay exactly as written.
    assert qs[4].choices == [
        "토치.utils.체크포인트",
        "토치.최적.SGD",
        "torch.nn.드롭아웃",
        "torch.cuda.empty_cache",
    ]
    assert qs[3].choices[0] == "Only the model\u2019s file extension"
    assert qs[3].choices[1] == "A fixed 20\u201330% slowdown for every model"
    assert qs[7].choices[3] == (
        "Which operations to save and which to recompute based on their memory and runtime costs"
    )


def test_seed_card_file_loads_back(tmp_path: Path) -> None:
    result = import_file(SEED)
    target = tmp_path / "seed.yaml"
    target.write_text(card_text(result), encoding="utf-8")
    deck = load_deck(target)
    assert deck.name == "그라데이션 체크포인트 퀴즈" and deck.key == "out"
    notes = [n for n in deck.notes if isinstance(n, McqNote)]
    assert [n.answer_letters for n in notes] == [(x,) for x in "ABCDABCD"]
    assert notes[4].choices[3] == "torch.cuda.empty_cache"
    assert len({n.id for n in notes}) == 8


def test_markers_letters_and_explanations() -> None:
    result = import_file(IMPORT / "marked.txt")
    assert result.deck == "Mixed markers"
    assert result.description == "A short intro line.\nIt wraps."
    (q1, q2, q3) = [(q.question, q.choices, q.answer, q.explanation) for q in result.questions]
    assert q1 == (
        "Which planet is closest\nto the Sun?",
        ["Venus", "Mercury", "Mars"],
        [1],
        "Mercury orbits at about 0.39 AU.\nIt is also the smallest planet.",
    )
    assert q2 == ("Which of these are prime?", ["2", "4", "5", "9"], [0, 2], "2와 5만 소수입니다.")
    assert q3 == (
        "서울은 어느 나라의 수도입니까?",
        ["대한민국", "일본"],
        [0],
        "서울은 대한민국의 수도입니다.",
    )


@pytest.mark.parametrize(
    ("answer_line", "expected"),
    [
        ("ANSWER: B", [1]),
        ("Answer: b", [1]),
        ("Answer: 2", [1]),
        ("Answers: A, C", [0, 2]),
        ("Answer: 1, 3", [0, 2]),
        ("정답: C", [2]),
        ("정답\uff1a A", [0]),
        ("Correct answer: B) second", [1]),
        ("**Answer:** A and C", [0, 2]),
    ],
)
def test_answer_lines(answer_line: str, expected: list[int]) -> None:
    text = f"1. Q?\n- first\n- second\n- third\n{answer_line}\n"
    assert quiz(text)[0][2] == expected


@pytest.mark.parametrize("choice", ["A. {}", "A) {}", "a) {}", "(a) {}", "• {}", "- {}", "* {}"])
def test_choice_styles(choice: str) -> None:
    lines = [choice.format("one"), choice.replace("A", "B").replace("a", "b").format("two ✓")]
    if not choice.startswith(("A", "a", "(a")):
        lines[1] = choice.format("two ✓")
    text = "1. Which?\n" + "\n".join(lines) + "\n"
    assert quiz(text) == [("Which?", ["one", "two"], [1], "")]


def test_circled_number_choices_and_answers() -> None:
    text = "1. 다음 중 소수는?\n① 4\n② 5\n③ 6\n정답: ②\n"
    assert quiz(text) == [("다음 중 소수는?", ["4", "5", "6"], [1], "")]


def test_text_is_kept_as_written() -> None:
    text = "1. Is `a_b` *kept*?  \n   •   spaced   out   ✓\n   • 토치.utils.체크포인트\n"
    assert quiz(text) == [("Is `a_b` *kept*?", ["spaced   out", "토치.utils.체크포인트"], [0], "")]


def test_choice_wraps_onto_next_line_and_unlabelled_text_after_answer_explains() -> None:
    text = "1. Q?\n- first part\n  continued\n- other\nANSWER: A\nBecause it is.\n"
    assert quiz(text) == [("Q?", ["first part\ncontinued", "other"], [0], "Because it is.")]


def test_numbered_lines_inside_an_explanation_stay_there() -> None:
    text = (
        "1. Q?\n- a\n- b\nAnswer: A\nExplanation: two steps:\n1. first\n3. third\n"
        "\n2. Next?\n- c\n- d\nAnswer: 2\n"
    )
    qs = quiz(text)
    assert [q[0] for q in qs] == ["Q?", "Next?"]
    assert qs[0][3] == "two steps:\n1. first\n3. third"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_bom_and_crlf(tmp_path: Path, newline: str, bom: str) -> None:
    source = tmp_path / "seed.txt"
    text = SEED.read_text(encoding="utf-8")
    source.write_bytes((bom + text.replace("\n", newline)).encode("utf-8"))
    expected = import_file(SEED)
    got = import_file(source)
    assert got.questions == expected.questions and got.deck == expected.deck


def messages(text: str, **options: bool) -> list[str]:
    with pytest.raises(DeckError) as info:
        import_text(text, "q.txt", "quiz", **options)
    return [str(p) for p in info.value.problems]


def test_missing_answers_are_all_listed_with_their_lines() -> None:
    text = "1. One?\n- a\n- b\n\n2. Two?\n- a\n- b\nANSWER: A\n\n3. Three?\n- a\n- b\n"
    assert messages(text) == [
        "q.txt:1: question 1 has no marked answer; put ✓ after the right choice or add a line "
        "'ANSWER: B' (or import with --allow-missing-answers and fill it in later)",
        "q.txt:10: question 3 has no marked answer; put ✓ after the right choice or add a line "
        "'ANSWER: B' (or import with --allow-missing-answers and fill it in later)",
    ]
    allowed = import_text(text, "q.txt", "quiz", allow_missing_answers=True)
    assert [q.answer for q in allowed.questions] == [[], [0], []]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. Q?\n- a\n- b\nANSWER: E\n", "q.txt:4: answer 'E' is not one of the choices (A-B)"),
        ("1. Q?\n- a\n- b\nANSWER: 3\n", "q.txt:4: answer '3' is not one of the choices (A-B)"),
        (
            "1. Q?\n- a\n- b\nANSWER: maybe\n",
            "q.txt:4: cannot read answer 'maybe'; write letters (B) or numbers from 1",
        ),
        ("1. Q?\n- a\nANSWER: A\n", "q.txt:1: 'choices' has 1 entry; give 2 to 26"),
        ("1. Q?\n- a\n- A\nANSWER: A\n", "q.txt:1: choice B repeats choice A"),
        (
            "1. Q?\n- a ✓\n- b\nANSWER: B\n",
            "q.txt:4: question 1: the answer line disagrees with the choices marked ✓",
        ),
        ("1. Q?\nANSWER: A\n- a\n- b\n", "q.txt:2: question 1: answer line before any choice"),
        (
            "1. Q?\nA. a\nB. b\nD. d\nANSWER: A\n",
            "q.txt:4: question 1: choice 'D.' is out of order (expected choice 3)",
        ),
        (
            "1. Q?\n- a\n- b\nANSWER: A\nANSWER: B\n",
            "q.txt:5: question 1: a second answer line (the first is at line 4)",
        ),
        (
            "1. Q?\n- a\n- b\n\nstray text\nANSWER: A\n",
            "q.txt:5: question 1: this line is not a choice, an answer line (ANSWER: B) or an explanation (Explanation: ...); a choice's text cannot continue after a blank line",
        ),
        (
            "Title only\nno questions\n",
            "q.txt:1: no numbered questions found (expected lines like '1. What is ...?' or '1) ...')",
        ),
    ],
)
def test_malformed_input_is_located(text: str, expected: str) -> None:
    assert expected in messages(text)


def typed(text: str) -> list[dict[str, str] | None]:
    return [q.typed for q in import_text(text, "q.txt", "quiz").questions]


@pytest.mark.parametrize(
    ("answer_line", "expected"),
    [
        ("Answer: four | 4", [{"text": "four"}, {"text": "4"}]),
        ("정답: 넷 | 4", [{"text": "넷"}, {"text": "4"}]),
        ("ANSWER: B", [{"text": "B"}]),  # no choices: the letter is what is typed
        ("Answer: A, C", [{"text": "A, C"}]),
        ("**Answer:** Paris|  paris, France ", [{"text": "Paris"}, {"text": "paris, France"}]),
        ("Answer: 3.14 ± 0.01", [{"number": "3.14", "tolerance": "0.01"}]),
        ("Answer: 3.14+/-0.01", [{"number": "3.14", "tolerance": "0.01"}]),
        ("Answer: -2.5e3 +- .5", [{"number": "-2.5e3", "tolerance": ".5"}]),
        ("Answer: 42 ± 0", [{"number": "42"}]),  # any way of writing 42 (42.0, +42)
        ("Answer: 3.141..3.142", [{"min": "3.141", "max": "3.142"}]),
        ("Answer: -5 .. -3 | minus four", [{"min": "-5", "max": "-3"}, {"text": "minus four"}]),
        # Numbers without a tolerance or a range are typed as written.
        ("Answer: 007", [{"text": "007"}]),
        ("Answer: 10:30", [{"text": "10:30"}]),
        ("Answer: 1...5", [{"text": "1...5"}]),
        ("Answer: 5 ± 2 apples", [{"text": "5 ± 2 apples"}]),
    ],
)
def test_a_question_without_choices_takes_a_typed_answer(
    answer_line: str, expected: list[dict[str, str]]
) -> None:
    assert typed(f"1. What is it?\n{answer_line}\n") == [expected]


def test_typed_and_multiple_choice_questions_mix_and_load_back(tmp_path: Path) -> None:
    text = (
        "Counting\n\n"
        "1. How many legs does a spider have?\n"
        "Answer: eight | 8\n"
        "Explanation: it is an arachnid.\n\n"
        "2. Which is prime?\n- 4\n- 5 ✓\n\n"
        "3. Pi to two decimals?\n"
        "정답: 3.14 ± 0.005 | 3.1..3.2\n"
        "Close enough.\n"
    )
    result = import_text(text, "q.txt", "quiz")
    assert [q.typed is not None for q in result.questions] == [True, False, True]
    assert [q.explanation for q in result.questions] == [
        "it is an arachnid.",
        "",
        "Close enough.",
    ]
    target = tmp_path / "typed.yaml"
    target.write_text(card_text(result), encoding="utf-8")
    spider, prime, pi = load_deck(target).notes
    assert isinstance(spider, TypedNote) and isinstance(pi, TypedNote)
    assert [a.text for a in spider.answers] == ["eight", "8"]
    assert not spider.match_case and spider.explanation == "it is an arachnid."
    assert isinstance(prime, McqNote) and prime.answer_letters == ("B",)
    assert [(a.low, a.high) for a in pi.answers] == [
        pytest.approx((3.135, 3.145)),
        (3.1, 3.2),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "1. Q?\nAnswer: four | | 4\n",
            "q.txt:2: question 1: accepted answer 2 of 3 is empty (write 'Answer: four | 4')",
        ),
        (
            "1. Q?\nAnswer: four |\n",
            "q.txt:2: question 1: accepted answer 2 of 2 is empty (write 'Answer: four | 4')",
        ),
        (
            "1. Q?\nAnswer:\n",
            "q.txt:2: question 1: the answer line is empty; write the answer to type "
            "(Answer: four | 4) or put the choices before it",
        ),
        (
            "1. Q?\nAnswer: Four | four\n",
            "q.txt:2: question 1: accepted answer 2 repeats answer 1 ('four')",
        ),
        (
            "1. Q?\nAnswer: 4 | 4 ± 0\n",
            "q.txt:2: question 1: accepted answer 2 repeats answer 1 ('4 ± 0')",
        ),
        (
            "1. Q?\nAnswer: 1e999 ± 1\n",
            "q.txt:2: question 1: '1e999 ± 1' holds a number too large to compare",
        ),
        (
            "1. Q?\nAnswer: 5..3\n",
            "q.txt:2: question 1: the range '5..3' starts above its end (write low..high)",
        ),
        (
            "1. Q?\nAnswer: four\nAnswer: 4\n",
            "q.txt:3: question 1: a second answer line (the first is at line 2)",
        ),
        (
            "1. Q?\nAnswer: " + " | ".join(map(str, range(101))) + "\n",
            "q.txt:2: question 1: 101 accepted answers; a note takes at most 100",
        ),
        ("\n1.\nAnswer: four\n", "q.txt:2: question 1 has no text"),
        # Choices after the answer line: the answer line is misplaced, not a typed answer.
        ("1. Q?\nAnswer: A\n\n- a\n- b\n", "q.txt:2: question 1: answer line before any choice"),
    ],
)
def test_malformed_typed_answers_are_located(text: str, expected: str) -> None:
    assert expected in messages(text)


def test_typed_answers_keep_every_existing_quiz_as_it_was() -> None:
    """A question with choices reads its answer line as before: letters and numbers pick
    choices, and '|' is no separator there."""
    assert quiz("1. Q?\n- four\n- 4\nAnswer: 2\n") == [("Q?", ["four", "4"], [1], "")]
    assert "q.txt:4: cannot read answer '|'; write letters (B) or numbers from 1" in messages(
        "1. Q?\n- four\n- 4\nAnswer: A | B\n"
    )


LINES = st.sampled_from(
    [
        "1. Q?",
        "2) Second question",
        "3.",
        "Title",
        "   • a",
        "- b",
        "* c",
        "A. x",
        "B) y",
        "c) z",
        "ANSWER: B",
        "Answer: 1, 3",
        "정답: A",
        "Answer: four | 4",
        "정답: 3.14 ± 0.01 | 1..2 | pi",
        "Answer: 5..3 | |",
        "Answer:",
        "해설: because",
        "Explanation:",
        "",
        "   ",
        "✓",
        "- 토치 ✓",
        "- yes",
        "- 'quoted: yes'",
        "- |",
        "- #",
        "- ---",
        "\t- tab",
        "- a\u2028b",
        "- \x85",
        "- \x07",
        "- null",
    ]
)
TEXT = st.lists(st.one_of(LINES, st.text(max_size=12)), max_size=14).map("\n".join)


WORDS = st.text(min_size=1, max_size=15).filter(
    lambda s: s.strip() and "\n" not in s and "\r" not in s
)


@st.composite
def quizzes(draw: st.DrawFn) -> str:
    """Mostly well-formed quizzes with arbitrary text in every part."""
    lines = [draw(WORDS), ""]
    for number in range(1, draw(st.integers(1, 3)) + 1):
        lines.append(f"{number}. {draw(WORDS)}")
        if draw(st.booleans()):  # a typed answer: one or more texts
            lines.append(f"Answer: {' | '.join(draw(st.lists(WORDS, min_size=1, max_size=3)))}")
            lines.append("")
            continue
        n = draw(st.integers(2, 4))
        style = draw(st.sampled_from(["   • {}", "- {}", "{L}. {}", "{l}) {}"]))
        checks = draw(st.booleans())
        for i in range(n):
            mark = " ✓" if checks and draw(st.booleans()) else ""
            lines.append(style.format(f"{i}{draw(WORDS)}{mark}", L="ABCD"[i], l="abcd"[i]))
        if not checks:
            lines.append(f"ANSWER: {draw(st.sampled_from(['A', 'B', '1, 2', 'b']))}")
        if draw(st.booleans()):
            lines.append(f"해설: {draw(WORDS)}")
        lines.append("")
    return "\n".join(lines)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.one_of(TEXT, quizzes()))
def test_any_text_gives_a_card_file_or_a_located_error(tmp_path: Path, text: str) -> None:
    """Arbitrary text never crashes the importer, and what it accepts loads back unchanged."""
    assert_imports_or_fails_cleanly(tmp_path, text, "quiz")
