"""Hostile text to import: read or refused in one line naming the file, never exit 3,
never a hang (issue 37, items 4 and 5), and a Hypothesis fuzz of every text format."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.errors import DeckError
from deckbuilder.importers import ImportOptions, plan_import, read_text_source
from tests.conftest import Run

CliRun = Callable[..., Run]


def _notes(text: str, fmt: str) -> list[object]:
    plan = plan_import(
        read_text_source(text, Path("q.txt"), fmt), ImportOptions(out=Path("q.yaml"))
    )
    return [note for deck in plan.decks for note in deck.notes]


def _problems(text: str, fmt: str) -> list[str]:
    with pytest.raises(DeckError) as info:
        _notes(text, fmt)
    return [str(p) for p in info.value.problems]


def test_quiz_numbers_from_ten_thousand_are_questions() -> None:
    """'10000. Next?' was read as a line of question 9999 (numbers had at most 4 digits)."""
    text = "".join(
        f"{n}. Question {n}?\nA. x\nB. y\nAnswer: A\n\n" for n in (9999, 10000, 123456789)
    )
    notes = _notes(text, "quiz")
    assert [note.line for note in notes] == [1, 6, 11]  # type: ignore[attr-defined]


def test_a_five_thousand_digit_quiz_number_is_text() -> None:
    """A 5,000-digit number before '. ' ended in exit 3 (Python's int() limit)."""
    problems = _problems("9" * 5000 + ". What?\nA. x\nB. y\nAnswer: A\n", "quiz")
    assert problems == [
        "q.txt:1: no numbered questions found (expected lines like '1. What is ...?' or '1) ...')"
    ]


@pytest.mark.parametrize("name", ["big.csv", "big.txt"])
def test_a_field_over_the_csv_readers_limit_is_one_line(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A CSV field over 128 KB (Python csv's limit; a quote never closed, often) ended in
    exit 3 with csv.Error."""
    monkeypatch.chdir(tmp_path)
    header = "#separator:comma\n" if name.endswith(".txt") else "front,back\n"
    (tmp_path / name).write_text(f'{header}q,a\n"{"x" * 200_000},b\nq2,a2\n', encoding="utf-8")
    run = cli("import", name)
    assert run.code == 1 and "Traceback" not in run.err
    assert run.err.splitlines()[0] == (
        f"{name}:3: the row starting here has a field over 131,072 characters (field larger "
        "than field limit (131072)); a quote never closed takes in the rows after it"
    )


def test_a_gift_matching_question_of_more_pairs_than_choices_is_refused() -> None:
    """A matching question of 6,000 pairs became 6,000 cards of 6,000 choices (34 s)."""
    pairs = " ".join(f"=a{i} -> b{i}" for i in range(6000))
    problems = _problems("::Q:: Match {" + pairs + "}\n", "gift")
    assert (
        "q.txt:1: matching question has 6,000 different answers; a card shows at most 26 "
        "choices: split it into questions of 26 pairs"
    ) in problems


def test_a_line_separator_in_imported_text_keeps_line_numbers() -> None:
    """U+2028 inside a question is not a line break to the importers: the next
    question's line is its line in an editor."""
    text = "1. One\u2028two?\nA. x\nB. y\nAnswer: A\n\n2. Next?\nA. x\nB. y\nAnswer: B\n"
    notes = _notes(text, "quiz")
    assert [note.line for note in notes] == [1, 6]  # type: ignore[attr-defined]


# --- fuzz -------------------------------------------------------------------------------
FORMATS = ["anki-text", "quiz", "aiken", "gift"]
_SYNTAX = st.sampled_from(
    [
        "\n",
        "\t",
        ",",
        ";",
        '"',
        "#",
        "::",
        "=",
        "~",
        "->",
        "{",
        "}",
        "%50%",
        "#html:true",
        "#separator:comma",
        "#columns:front,back",
        "#tags column:3",
        "#deck column:1",
        "#notetype column:2",
        "#guid column:1",
        "1.",
        "10000.",
        "A.",
        "B)",
        "ANSWER: A",
        "Answer: 3.14 ± 0.1",
        "Answer: 1..2",
        "✓",
        "[",
        "](",
        "<b>",
        "</div>",
        "\\[",
        "\u2028",
        "\u200b",
        "\ufeff",
        "\x1b[2J",
        "x::",
        "Foo",
        "foo",
        "9" * 40,
        "con",
        "{{c1::",
        "}}",
        "$CATEGORY: a/b",
        "[markdown]",
        "::Q::",
        "T",
        "F",
        "#",
    ]
)
_TEXTS = st.lists(st.one_of(_SYNTAX, st.text(max_size=6)), max_size=60).map("".join)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=_TEXTS, fmt=st.sampled_from([*FORMATS, "csv"]))
def test_any_text_imports_or_is_refused_in_lines_naming_the_file(
    tmp_path_factory: pytest.TempPathFactory, cli: CliRun, text: str, fmt: str
) -> None:
    """Every text format: the CLI exits 0 or 1, never 3 and never with a traceback,
    within seconds and a bounded memory."""
    folder = tmp_path_factory.mktemp("fuzz")
    source = folder / ("in.csv" if fmt == "csv" else "in.txt")
    source.write_bytes(text.encode("utf-8", "surrogatepass"))
    args = ["import", str(source), "--out", str(folder / "cards" / "out.yaml")]
    if fmt != "csv":
        args += ["--format", fmt]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    run = cli(*args)
    assert run.code in (0, 1), (run, text)
    assert "Traceback" not in run.err and "Internal error" not in run.err, run.err
    assert time.process_time() - start < 10
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 300_000


def test_deck_names_that_differ_in_case_import_as_one_spelling(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decks 'con' and 'CON' in one text file were written as two card files that check
    then refused (Anki makes them one deck); tags 'x::' and '::y' as Anki keeps them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text(
        "#separator:comma\n#tags column:3\n#deck column:4\nq1,a1,x::,con\nq2,a2,::y,CON\n",
        encoding="utf-8",
    )
    assert cli("import", "t.txt").code == 0
    written = sorted((tmp_path / "cards").glob("*.yaml"))
    assert [p.name for p in written] == ["con-deck-2.yaml", "con-deck.yaml"]  # not con.yaml
    texts = [p.read_text(encoding="utf-8") for p in written]
    assert all("\ndeck: con\n" in text for text in texts)
    assert "tags: [x]" in texts[1] and "tags: [y]" in texts[0]
    assert cli("check").code == 0


BIG = "9" * 5000  # past the 4,300 digits Python's int() reads
BIG_SHOWN = "'" + "9" * 57 + "...'"


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "sheet.csv",
            f"question,a,b,answer\nWhat?,x,y,{BIG}\n",
            f"sheet.csv:2: answer {BIG_SHOWN} is not one of the choices (A-B)",
        ),
        (
            "quiz.md",
            f"1. What?\nA) x\nB) y\nAnswer: {BIG}\n",
            f"quiz.md:4: answer {BIG_SHOWN} is not one of the choices (A-B)",
        ),
        (
            "aiken.txt",
            f"What?\nA. x\nB. y\nANSWER: {BIG}\n",
            f"aiken.txt:4: cannot read answer {BIG_SHOWN}; write a letter (B)",
        ),
        (
            "header.csv",
            f"question,choice {BIG},answer\nWhat?,x,A\n",
            "header.csv:1: the header row names question, choice " + "9" * 50 + "..., answer; "
            "expected the columns ",
        ),
    ],
)
def test_a_five_thousand_digit_number_is_refused_in_one_line(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, name: str, text: str, problem: str
) -> None:
    """A 5,000-digit answer ended in exit 3 at Python's int() limit (issue 45); refused,
    it is shown cut."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    run = cli("import", name)
    assert run.code == 1
    assert any(line.startswith(problem) for line in run.err.splitlines()), run.err
    assert all(len(line) < 300 for line in run.err.splitlines())


def test_a_five_thousand_digit_column_number_is_ignored_as_anki_does(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anki reads a header's column number as a 32-bit one and ignores a line whose
    number is not; int() ended in exit 3 (issue 45)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text(
        f"#separator:tab\n#deck column:{BIG}\n#tags column:0{'0' * 5000}3\nfront\tback\tt\n",
        encoding="utf-8",
    )
    run = cli("import", "notes.txt")
    assert run.code == 0, run.err
    assert "tags: [t]" in next((tmp_path / "cards").glob("*.yaml")).read_text(encoding="utf-8")


def test_a_five_thousand_digit_number_in_a_packages_json_is_one_line(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as its digits, refused where a number is needed, by name."""
    from tests.anki.anki_files import collection, package

    monkeypatch.chdir(tmp_path)
    decks = '{"1": {"id": ' + BIG + ', "name": "Default"}}'
    db = collection(tmp_path / "c.anki2", decks=decks)
    run = cli("import", package(Path("big.apkg"), db, media={}))
    assert run.code == 1
    assert run.err.splitlines() == [
        f"big.apkg: deck 'Default': its id is {BIG_SHOWN}, not a number",
        "1 problem found; nothing was written.",
    ]


def test_a_cloze_number_of_five_thousand_digits_is_text_as_in_anki(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anki reads a deletion number above 16 bits as text; int() ended in exit 3."""
    monkeypatch.chdir(tmp_path)
    card = f"deck: D\nid: d\nnotes:\n  - id: a\n    type: cloze\n    text: '{{{{c1::a}}}} {{{{c{BIG}::b}}}}'\n"
    (tmp_path / "d.yaml").write_text(card, encoding="utf-8")
    run = cli("check", "d.yaml")
    assert run.code == 0, run.err
    assert "1 card" in run.out
