"""Spreadsheets with a header row become card files whose notes, explanations and tags
arrive in Anki (checked with the real backend)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deckbuilder.importers import ImportOptions, plan_import, read_source
from deckbuilder.importers.html_markdown import hard_breaks
from deckbuilder.model import BasicNote
from deckbuilder.render.markdown import render_markdown
from tests.conftest import Run, import_package

CliRun = Callable[..., Run]

MCQ_CSV = (
    "question,A,B,C,D,answer,explanation,tags\n"
    'What is 2+2?,3,4,5,6,B,"Because 2+2=4.",math arithmetic\n'
    "Capital of France?,Paris,Rome,Berlin,Madrid,A,,geo\n"
)
BASIC_TSV = "front\tback\ttags\nhola\thello\tspanish greetings\nadiós\tbye\tspanish\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.anki
def test_csv_and_tsv_build_into_anki_with_explanations_and_tags(
    here: Path, cli: Callable[..., Run], collection: object
) -> None:
    (here / "quiz.csv").write_text(MCQ_CSV, encoding="utf-8")
    (here / "words.tsv").write_bytes(b"\xef\xbb\xbf" + BASIC_TSV.encode("utf-8"))  # Excel's BOM
    assert cli("import", "quiz.csv").code == 0
    assert cli("import", "words.tsv").code == 0
    # A spreadsheet has no GUIDs: the card file's header speaks of ids only.
    assert "# The notes' ids identify them in Anki" in (here / "cards" / "quiz.yaml").read_text(
        encoding="utf-8"
    )
    run = cli("build", "cards", "--out", "output")
    assert run.code == 0, run.err
    for package in ("quiz", "words"):
        log = import_package(collection, here / "output" / f"{package}.apkg")
        assert len(log.new) == 2  # type: ignore[attr-defined]
    col = collection
    notes = [col.get_note(nid) for nid in col.find_notes("")]  # type: ignore[attr-defined]
    by_first = {note.fields[0]: note for note in notes}
    mcq = by_first["What is 2+2?"]
    assert mcq.fields[2] == "B" and mcq.fields[3] == "Because 2+2=4."
    assert sorted(mcq.tags) == ["arithmetic", "math"]
    assert by_first["adiós"].fields[1] == "bye" and by_first["adiós"].tags == ["spanish"]
    assert sorted(by_first["hola"].tags) == ["greetings", "spanish"]


def test_header_matching_nothing_names_the_expected_columns(
    here: Path, cli: Callable[..., Run]
) -> None:
    (here / "bad.csv").write_text("front,bogus\nx,y\n", encoding="utf-8")
    run = cli("import", "bad.csv")
    assert run.code == 1
    assert (
        "bad.csv:1: the header row names front, bogus; expected the columns front, back" in run.err
    )
    assert not (here / "cards").exists()


def test_bad_rows_are_listed_and_the_good_ones_come_in(here: Path, cli: Callable[..., Run]) -> None:
    (here / "q.csv").write_text(
        "question,A,B,answer\nq1,a,b,C\nq2,a,,A\nq3,a,b,A\n", encoding="utf-8"
    )
    run = cli("import", "q.csv")
    assert run.code == 0, run.err
    assert run.err.splitlines() == [
        "q.csv:2: warning: skipped: answer 'C' is not one of the choices (A-B)",
        "q.csv:3: warning: skipped: give at least 2 choices",
    ]
    assert "1 note imported, 2 skipped" in run.out
    strict = cli("import", "q.csv", "--out", "cards/strict.yaml", "--strict")
    assert strict.code == 1 and not (here / "cards" / "strict.yaml").exists()


def test_duplicate_choices_are_reported_with_the_other_rows_problems(
    here: Path, cli: Callable[..., Run]
) -> None:
    """A repeated choice was reported only once every other row had been fixed."""
    (here / "q.csv").write_text(
        "question,A,B,C,answer\nq1,a,b,c,E\nq3,a,a,c,A\nq4,a,b,c,\n", encoding="utf-8"
    )
    run = cli("import", "q.csv")
    assert run.code == 1
    assert "q.csv: no notes to import" in run.err
    assert "q.csv:2: answer 'E' is not one of the choices (A-C)" in run.err
    assert "q.csv:3: choice B repeats choice A" in run.err
    assert "q.csv:4: the answer is empty" in run.err


def test_line_breaks_in_quoted_cells_are_kept(here: Path) -> None:
    """A cell over two lines was read as one line ("line oneline two"), and the rows
    after it at the wrong lines."""
    (here / "nl.csv").write_text(
        'front,back\r\n"line one\nline two","- item1\n- item2"\r\n,a\r\n', encoding="utf-8"
    )
    plan = plan_import(read_source(here / "nl.csv"), ImportOptions())
    # line 5: the row before spans lines 2 to 4
    assert [(s.line, s.reason) for s in plan.skipped] == [(5, "'front' is empty")]
    (note,) = plan.decks[0].notes
    assert isinstance(note, BasicNote)
    # A hard break where the lines would otherwise run together; a list stays a list.
    assert (note.front, note.back) == ("line one\\\nline two", "- item1\n- item2")
    assert render_markdown(note.front, resolve=lambda s, k: s).html == "line one<br>\nline two"


@pytest.mark.parametrize(
    ("cell", "markdown"),
    [
        ("a\nb\nc", "a\\\nb\\\nc"),
        ("a\n\nb", "a\n\nb"),
        ("q\n- x", "q\n- x"),
        ("```\ncode\nmore\n```", "```\ncode\nmore\n```"),
        ("# title\ntext", "# title\ntext"),
    ],
)
def test_hard_breaks_where_lines_would_run_together(cell: str, markdown: str) -> None:
    assert hard_breaks(cell) == markdown


# Code fences load syntax highlighters (and their plugins) on first use: left to the
# examples above.
@given(st.lists(st.text(alphabet="ab *-#>\\1.", min_size=1, max_size=6), min_size=2, max_size=4))
def test_hard_breaks_only_turn_spaces_into_line_breaks(lines: list[str]) -> None:
    text = "\n".join(lines)
    before = render_markdown(text, resolve=lambda s, k: s).html
    after = render_markdown(hard_breaks(text), resolve=lambda s, k: s).html
    assert after.replace("<br>\n", "\n") == before.replace("<br>\n", "\n")


@pytest.mark.parametrize(
    ("data", "delimiter"),
    [
        (b"front;back\nuno;one\n", ";"),
        ("front,back\nniño,child\n".encode("cp1252"), ","),
        ("front\tback\nuno\tone\n".encode("utf-16"), "\t"),
    ],
)
def test_delimiter_and_encoding_are_detected(
    here: Path, cli: Callable[..., Run], data: bytes, delimiter: str
) -> None:
    from deckbuilder.importers.spreadsheet import read_spreadsheet

    (here / "w.csv").write_bytes(data)
    result = read_spreadsheet(here / "w.csv")
    (note,) = result.notes
    assert isinstance(note, BasicNote)
    assert note.front in ("uno", "niño") and note.back in ("one", "child")


def test_a_korean_excel_csv_is_read_as_korean(here: Path, cli: CliRun) -> None:
    """Korean Excel saves "CSV (쉼표로 분리)" in CP949: read as Windows-1252 it came out
    garbled, with exit 0."""
    rows = "front,back,tags\r\n촉매,반응 속도를 높이는 물질,화학\r\n산화,전자를 잃는 것,화학\r\n"
    (here / "korean.csv").write_bytes(rows.encode("cp949"))
    run = cli("import", "korean.csv")
    assert run.code == 0, run.err
    assert "read as CP949" in run.err
    written = (here / "cards" / "korean.yaml").read_text(encoding="utf-8")
    assert "front: 촉매" in written and "반응 속도를 높이는 물질" in written and "화학" in written


def test_a_western_excel_csv_is_still_read_as_windows_1252(here: Path, cli: CliRun) -> None:
    rows = "front,back\r\ncafé,\u201cquoted\u201d \u2013 dash\r\nÀ la carte,ÉÈ\r\n"
    (here / "western.csv").write_bytes(rows.encode("cp1252"))
    run = cli("import", "western.csv")
    assert run.code == 0 and "read as Windows-1252" in run.err
    written = (here / "cards" / "western.yaml").read_text(encoding="utf-8")
    assert "café" in written and "\u201cquoted\u201d \u2013 dash" in written
    assert "À la carte" in written


def test_question_and_answer_columns_make_basic_notes(here: Path, cli: CliRun) -> None:
    (here / "qa.csv").write_text("Question,Answer\nWhat is H2O?,Water\n", encoding="utf-8")
    run = cli("import", "qa.csv")
    assert run.code == 0, run.err
    written = (here / "cards" / "qa.yaml").read_text(encoding="utf-8")
    assert "front: What is H2O?" in written and "back: Water" in written


@pytest.mark.parametrize("name", ["grades.xlsx", "grades.ods"])
def test_a_workbook_is_refused_with_how_to_save_it_as_csv(
    here: Path, cli: CliRun, name: str
) -> None:
    (here / name).write_bytes(b"PK\x03\x04 not really a workbook")
    run = cli("import", name)
    assert run.code == 1
    assert f"{name}: a workbook is not read as it is: save the sheet as CSV UTF-8" in run.err


@pytest.mark.parametrize("name", ["collection.anki2", "backup.db"])
def test_an_anki_collection_is_refused_with_how_to_export_it(
    here: Path, cli: CliRun, name: str
) -> None:
    """`preview --history` reads a collection; import asks for an export, and says so
    (before: 'this is a binary file, not UTF-8 text')."""
    import sqlite3

    conn = sqlite3.connect(here / name)
    conn.execute("CREATE TABLE notes (id INTEGER)")
    conn.commit()
    conn.close()
    run = cli("import", name)
    assert run.code == 1
    # A database with Anki's notes table is Anki's, whatever its name (a Mnemosyne
    # database is not: tests/anki/test_package_reader.py).
    said = "this is an Anki collection"
    assert f"{name}: {said}, not " in run.err and "export the deck" in run.err


def test_an_answer_may_be_the_right_choice_written_out(here: Path, cli: CliRun) -> None:
    (here / "q.csv").write_text(
        "question,A,B,C,answer\nWhich gas?,Iron,Oxygen,Gold,oxygen\n", encoding="utf-8"
    )
    run = cli("import", "q.csv")
    assert run.code == 0, run.err
    assert "answer: B" in (here / "cards" / "q.yaml").read_text(encoding="utf-8")


def test_empty_choice_cells_are_named_not_shifted(here: Path, cli: CliRun) -> None:
    """An empty cell before a filled one would move the later choices up a letter, and
    the answer letter onto another choice."""
    (here / "q.csv").write_text(
        "question,A,B,C,D,answer\nGap?,x,,z,w,C\nShort?,x,y,,,C\n", encoding="utf-8"
    )
    run = cli("import", "q.csv")
    assert run.code == 1
    assert "q.csv:2: choice B is empty but a later choice is not" in run.err
    assert "q.csv:3: choice C, the answer, is empty" in run.err


def test_a_number_that_is_also_another_choice_s_text_is_not_guessed(
    here: Path, cli: CliRun
) -> None:
    """'2' answering "What is 1+1?" with the choices 3, 1, 2 was read as choice 2 (B,
    the text '1'): the card marked 1 as right. Where the number and the text name
    different choices, the row is named and left out; where they agree, it comes in."""
    (here / "q.csv").write_text(
        "question,A,B,C,answer\nWhat is 1+1?,3,1,2,2\nWhat is 2+2?,3,4,5,2\n", encoding="utf-8"
    )
    run = cli("import", "q.csv")
    assert run.code == 0, run.err
    assert run.err.splitlines() == [
        "q.csv:2: warning: skipped: answer '2' is choice B ('1') by its number but the "
        "text of choice C; write the right choice's letter"
    ]
    written = (here / "cards" / "q.yaml").read_text(encoding="utf-8")
    assert "What is 1+1?" not in written and "answer: B" in written


@pytest.mark.parametrize("choice", ["Option", "Choice", "보기"])
def test_choice_columns_may_be_lettered_as_well_as_numbered(
    here: Path, cli: CliRun, choice: str
) -> None:
    """'Option A', 'Option B' named no column, and the whole sheet was refused, though
    'Option 1' was read."""
    header = ",".join(f"{choice} {c}" for c in "ABC")
    (here / "q.csv").write_text(f"Question,{header},Answer\nWhat?,x,y,z,B\n", encoding="utf-8")
    run = cli("import", "q.csv")
    assert run.code == 0, run.err
    written = (here / "cards" / "q.yaml").read_text(encoding="utf-8")
    assert "choices:\n    - x\n    - y\n    - z\n    answer: B" in written


def test_columns_no_layout_reads_are_named_and_the_rows_come_in(here: Path, cli: CliRun) -> None:
    """A numbering column and a difficulty column beside question, choices and answer
    refused the whole sheet, without saying which columns were at fault."""
    (here / "q.csv").write_text(
        "No.,Question,A,B,Answer,Difficulty\n1,What?,x,y,B,easy\n2,Who?,p,q,A,hard\n",
        encoding="utf-8",
    )
    run = cli("import", "q.csv")
    assert run.code == 0, run.err
    assert run.err.splitlines() == [
        "q.csv:1: warning: not imported: the columns No., Difficulty, which no layout "
        "reads (expected the columns front, back[, tags]; question, A, B, ...[, "
        "explanation][, tags] with answer; or text[, extra][, tags])"
    ]
    assert "2 notes imported" in run.out
    written = (here / "cards" / "q.yaml").read_text(encoding="utf-8")
    assert "question: What?" in written and "easy" not in written
