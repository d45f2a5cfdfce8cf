"""The rough edges a new user meets in card files (issue 44, item 3): each mistake gets
one message, on its line, that names the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import Run


def _check(tmp_path: Path, cli: object, body: str) -> tuple[Path, list[str], Run]:
    source = tmp_path / "cards" / "deck.yaml"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(f"deck: Pharmacology\nnotes:\n{body}", encoding="utf-8")
    run: Run = cli("check", source, "--media", tmp_path)  # type: ignore[operator]
    lines = [line for line in run.err.splitlines() if not line.endswith("nothing was written.")]
    return source, lines, run


@pytest.mark.parametrize(
    "answer",
    ["500 mg", "'0'", "[nobody, no one]", "{number: 3.14, tolerance: 0.01}", "Seoul"],
)
def test_a_question_with_an_answer_and_no_choices_is_told_to_say_type_typed(
    tmp_path: Path, cli: object, answer: str
) -> None:
    """Issue 44: it got "'choices' is required" and "not a choice letter (a choice
    letter)", never "add type: typed"."""
    source, lines, run = _check(
        tmp_path, cli, f"  - id: dose\n    question: Adult dose?\n    answer: {answer}\n"
    )
    assert run.code == 1
    assert lines == [
        f"{source}:3: note 'dose': this note has a 'question' and an 'answer' but no "
        "'choices': for an answer the learner types, add 'type: typed' to it (a "
        "multiple-choice note lists 'choices' and answers with their letters)"
    ]


def test_such_a_note_is_read_as_typed_and_its_other_problems_are_told(
    tmp_path: Path, cli: object
) -> None:
    _, lines, _ = _check(
        tmp_path, cli, "  - id: dose\n    question: Adult dose?\n    answer: [nobody, Nobody]\n"
    )
    assert len(lines) == 2 and "answer[1] repeats answer[0]" in lines[1]


def test_letters_without_choices_still_ask_for_the_choices(tmp_path: Path, cli: object) -> None:
    source, lines, _ = _check(tmp_path, cli, "  - id: q\n    question: Which?\n    answer: B\n")
    assert lines == [f"{source}:3: note 'q': 'choices' is required: a list of 2 to 26 answers"]


@pytest.mark.parametrize(
    ("written", "rewrite"),
    [
        ("Ramipril, Losartan", "[Ramipril, Losartan]"),
        ("Ramipril, Losartan, Amlodipine", "[Ramipril, Losartan, Amlodipine]"),
        ("'Yes: maybe, No #1, [x]'", "['Yes: maybe', 'No #1', '[x]']"),
        ("심장, 신장", "[심장, 신장]"),
    ],
)
def test_choices_written_as_one_text_get_the_line_rewritten(
    tmp_path: Path, cli: object, written: str, rewrite: str
) -> None:
    """Issue 44: "'choices' must be a list, not text", without the rewritten line that
    YAML errors get."""
    source, lines, run = _check(
        tmp_path,
        cli,
        f"  - id: ace\n    question: Which is an ACE inhibitor?\n    choices: {written}\n"
        "    answer: A\n",
    )
    assert run.code == 1
    assert lines == [
        f"{source}:5: note 'ace': 'choices' must be a list, not text; write choices: {rewrite}"
    ]
    # The rewrite is YAML that reads as the choices meant.
    assert yaml.safe_load(f"choices: {rewrite}")["choices"] == [
        part.strip() for part in yaml.safe_load(f"x: {written}")["x"].split(",")
    ]
