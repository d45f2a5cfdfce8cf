"""Importing Moodle's Aiken format."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from tests.conftest import DATA, assert_imports_or_fails_cleanly
from tests.importers.reading import card_text, import_file, import_text

AIKEN = DATA / "import" / "moodle.aiken"
# Moodle's own test file, question/format/aiken/tests/fixtures/aiken_errors.txt (GPL v3+,
# see tests/data/import/README.md), and the errors its aikenformat_test.php expects.
MOODLE_ERRORS = DATA / "import" / "moodle-aiken-errors.txt"
MOODLE_ERROR_LINES = [3, 5, 7, 18]
# Moodle's fixture has since gained a third good question at its end; with it the file is
# byte for byte today's aiken_errors.txt.
MOODLE_THIRD_QUESTION = (
    "\n\nA third good question with HTML chars such as > < &\n"
    "A) Correct (< > &)\nB) Incorrect (< > &)\nANSWER: A"
)
# question/format/aiken/tests/fixtures/questions.aiken.txt, which Moodle's
# aiken_import.feature imports: "Importing 2 questions from file".
MOODLE_IMPORT_FEATURE = (
    "The Moodle project was started by:\nA) Petr Skoda\nB) Martin Dougiamas\n"
    "C) Eloy Lafuente\nD) Tim Hunt\nANSWER: B\n\n"
    "Moodle's abilities include handling user input that includes "
    '<html class="cool"> & images:\nA) True\nB) False\nANSWER: A\n'
)


def moodle_fixture(version: str) -> str:
    """aiken_errors.txt as Moodle's test reads it: the 2018 file, or today's."""
    text = MOODLE_ERRORS.read_text(encoding="utf-8")
    return text + MOODLE_THIRD_QUESTION if version == "today" else text


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
        ("Q?\nA. a\nANSWER: A\n", "q.txt:3: the question at line 1 has 1 choice; a card needs"),
        (
            "Q?\nA. a\nB. b\nNext?\nA. c\nB. d\nANSWER: A\n",
            "q.txt:4: the question at line 1 was not completed before the next question starts",
        ),
        ("Q?\nA. a\nB. b\n", "q.txt:1: the question at line 1 was not completed at the end"),
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


@pytest.mark.parametrize("version", ["2018", "today"])
def test_moodles_error_file_gives_the_lines_moodles_tests_expect(version: str) -> None:
    """aikenformat_test.php: 'Error importing question A question with too few answers',
    'Question must have at least 2 answers on line 3', 'Question not started on line 5'
    and 'on line 7', 'Error importing question A question started but not finished',
    'Question not completed before next question start on line 18'."""
    with pytest.raises(DeckError) as info:
        import_text(moodle_fixture(version), "aiken_errors.txt", "aiken")
    problems = info.value.problems
    assert [p.line for p in problems] == MOODLE_ERROR_LINES, problems
    too_few, not_started, answer_alone, not_finished = (p.message for p in problems)
    assert "the question at line 1 has 1 choice" in too_few  # 'A question with too few...'
    assert "a choice before any question text" in not_started  # 'A) Question not started'
    assert "'ANSWER:' line before any choice" in answer_alone  # 'ANSWER: Question not started'
    assert "the question at line 14 was not completed before the next question" in not_finished


@pytest.mark.parametrize("version", ["2018", "today"])
def test_moodles_error_file_keeps_the_questions_moodle_keeps(version: str) -> None:
    """Without the broken questions (lines 1-7 and 14-16), what Moodle's test checks of
    the good ones: 'A)Incorrect' without a space is a choice, and '< > &' is text
    (escaped in the card file's Markdown)."""
    lines = moodle_fixture(version).split("\n")
    kept = "\n".join(lines[8:13] + lines[16:])
    got = [(q.question, q.choices, q.answer) for q in import_text(kept, "q.txt", "aiken").questions]
    third = (
        "A third good question with HTML chars such as \\> \\< \\&",
        ["Correct (\\< \\> \\&)", "Incorrect (\\< \\> \\&)"],
        [0],
    )
    assert got == [
        ("A good question", ["Correct", "Incorrect"], [0]),
        ("A second good question", ["Incorrect (No space)", "Correct (No space)"], [1]),
        *([third] if version == "today" else []),
    ]


def test_html_characters_show_as_moodle_shows_them(tmp_path: Path) -> None:
    """Moodle's test expects the choice 'Correct (&lt; &gt; &amp;)': the characters are
    text on the card, not markup."""
    from deckbuilder.render.deck import render_deck
    from tests.cardfile.loading import load_deck

    result = import_text(MOODLE_THIRD_QUESTION + "\n", "q.txt", "aiken")
    target = tmp_path / "third.yaml"
    target.write_text(card_text(result), encoding="utf-8")
    (note,) = render_deck(load_deck(target)).notes
    assert "Correct (&lt; &gt; &amp;)<" in note.fields[1]
    assert "Incorrect (&lt; &gt; &amp;)<" in note.fields[1]


def _rendered_note(tmp_path: Path, text: str) -> tuple[str, str]:
    """The question and choices fields Anki gets from importing ``text`` as Aiken."""
    from deckbuilder.render.deck import render_deck
    from tests.cardfile.loading import load_deck

    target = tmp_path / "aiken.yaml"
    result = import_text(text, "q.txt", "aiken")
    target.write_text(card_text(result), encoding="utf-8")
    (note,) = render_deck(load_deck(target)).notes
    return note.fields[0], note.fields[1]


def test_html_tags_are_text_as_in_moodle(tmp_path: Path) -> None:
    """Moodle reads Aiken as plain text: 'A) <b>x</b>' is a choice showing the tags, not
    a bold x, and Markdown in the question is not formatting either."""
    question, choices = _rendered_note(
        tmp_path, "Is *this* <i>it</i>?\nA) <b>x</b>\nB) [y](z)\nANSWER: A\n"
    )
    assert "Is *this* &lt;i&gt;it&lt;/i&gt;?" in question
    assert "<i>" not in question and "<em>" not in question
    assert ">&lt;b&gt;x&lt;/b&gt;<" in choices and "<b>" not in choices
    assert ">[y](z)<" in choices and "<a " not in choices


def test_a_dollar_sign_is_text(tmp_path: Path) -> None:
    """A dollar sign opens math in card text ($x$): Aiken's plain text escapes it."""
    (q,) = import_text("Costs $5?\nA) $10 and $20\nB) no\nANSWER: A\n", "q.txt", "aiken").questions
    assert (q.question, q.choices[0]) == (r"Costs \$5?", r"\$10 and \$20")
    question, choices = _rendered_note(tmp_path, "Costs $5?\nA) $10 and $20\nB) no\nANSWER: A\n")
    assert "Costs $5?" in question and ">$10 and $20<" in choices


# What an Aiken line may hold after its letter (no leading space or '#', which the line
# reader strips or takes for something else, and no blank or lone marker).
SHOWN_TEXT = st.text(alphabet=st.sampled_from(list("ab1 .)*_`[]()<>!#-+=~|&\\;:/x한")), max_size=20)


@settings(max_examples=150, deadline=None)
@given(choice=SHOWN_TEXT.map(str.strip).filter(lambda t: t and t[0].isalpha()))
def test_choices_show_exactly_as_typed(choice: str) -> None:
    import html
    import re

    from deckbuilder.render.markdown import render_markdown

    (q,) = import_text(f"Q?\nA) {choice}\nB) other\nANSWER: A\n", "q.txt", "aiken").questions
    shown = html.unescape(re.sub(r"<[^>]+>", " ", render_markdown(q.choices[0]).html))
    assert " ".join(shown.split()) == " ".join(choice.split())


def test_moodles_import_feature_file_gives_two_questions() -> None:
    """aiken_import.feature: 'Importing 2 questions from file', the first being 'The
    Moodle project was started by:'; the second's '<html class="cool">' stays text."""
    result = import_text(MOODLE_IMPORT_FEATURE, "questions.aiken.txt", "aiken")
    got = [(q.question, q.choices, q.answer) for q in result.questions]
    assert got == [
        (
            "The Moodle project was started by:",
            ["Petr Skoda", "Martin Dougiamas", "Eloy Lafuente", "Tim Hunt"],
            [1],
        ),
        (
            "Moodle's abilities include handling user input that includes "
            '\\<html class="cool"\\> \\& images:',
            ["True", "False"],
            [0],
        ),
    ]


def test_a_line_like_a_choice_without_space_starts_a_question() -> None:
    (q,) = import_text("A.I. or not?\nA. yes\nB. no\nANSWER: A\n", "q.txt", "aiken").questions
    assert q.question == "A.I. or not?"


def test_missing_answers_can_be_let_through_and_filled_in_later() -> None:
    """As for GIFT and quiz files: --allow-missing-answers writes 'answer:' empty."""
    text = "What is NaCl?\nA. Water\nB. Salt\n\nWhat is O2?\nA. Oxygen\nB. Ozone\nANSWER: a\n"
    with pytest.raises(DeckError) as info:
        import_text(text, "q.txt", "aiken")
    (problem,) = info.value.problems
    assert problem.line == 5 and "--allow-missing-answers" in problem.message
    result = import_text(text, "q.txt", "aiken", allow_missing_answers=True)
    assert [(q.question, q.answer) for q in result.questions] == [
        ("What is NaCl?", []),
        ("What is O2?", [0]),
    ]
    one_choice = "Q?\nA. a\n\nNext?\nA. c\nB. d\nANSWER: A\n"
    with pytest.raises(DeckError):  # no card could hold it: not let through
        import_text(one_choice, "q.txt", "aiken", allow_missing_answers=True)


def test_a_format_suffix_in_the_file_name_is_no_part_of_the_deck_name(tmp_path: Path) -> None:
    """Moodle's own fixtures are named like questions.aiken.txt."""
    from deckbuilder.importers import ImportOptions, plan_import, read_source

    source = tmp_path / "unit2.aiken.txt"
    source.write_text("Q?\nA. a\nB. b\nANSWER: A\n", encoding="utf-8")
    (deck,) = plan_import(read_source(source, "aiken"), ImportOptions()).decks
    assert (deck.name, deck.out.name) == ("unit2", "unit2.yaml")
