"""`deckbuilder import` as a user runs it: where it writes, what it refuses, what it says."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.writer import card_file_text
from deckbuilder.model import BasicNote, Deck
from tests.cardfile.loading import parse_yaml
from tests.conftest import DATA, Run

CliRun = Callable[..., Run]
IMPORT = DATA / "import"
SEED = IMPORT / "gradient-checkpointing-quiz.txt"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("gradient-checkpointing-quiz.txt", "moodle.gift", "moodle.aiken", "marked.txt"):
        shutil.copy(IMPORT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_seed_imports_into_cards_and_checks_clean(workdir: Path, cli: CliRun) -> None:
    result = cli("import", "gradient-checkpointing-quiz.txt")
    assert result.code == 0, result.err
    # The deck's Korean name is the file's name; its id is romanised, with a hash.
    target = Path("cards") / "그라데이션-체크포인트-퀴즈.yaml"
    assert result.out.strip() == (
        f"wrote {target}: 8 questions imported, 0 skipped "
        "(quiz format, deck '그라데이션 체크포인트 퀴즈')"
    )
    assert result.err == ""
    text = (workdir / target).read_text(encoding="utf-8")
    assert "deck: 그라데이션 체크포인트 퀴즈\nid: geuladeisyeon-chekeupointeu-kwijeu-bc81\n" in text
    assert "\\u" not in text and "    - torch.cuda.empty_cache\n" in text
    assert cli("check", target).out.strip() == "ok: 1 deck, 8 notes, 8 cards"


def test_output_is_block_style_in_source_order(workdir: Path, cli: CliRun) -> None:
    assert cli("import", "marked.txt", "--out", "cards/m.yaml").code == 0
    text = (workdir / "cards" / "m.yaml").read_text(encoding="utf-8")
    assert "{" not in text
    assert text.index("closest") < text.index("prime") < text.index("서울은")
    assert "    question: |-\n      Which planet is closest\n      to the Sun?\n" in text
    assert "    answer: [A, C]\n" in text
    data = yaml.safe_load(text)
    assert data["deck"] == "Mixed markers" and data["id"] == "m"
    ids = [n["id"] for n in data["notes"]]
    assert re.fullmatch(r"which-planet-is-closest-to-the-sun-[0-9a-f]{6}", ids[0]), ids
    assert re.fullmatch(r"which-of-these-are-prime-[0-9a-f]{6}", ids[1]), ids
    assert re.fullmatch(r"q-[0-9a-f]{6}", ids[2]), ids  # Korean only: the hash alone


def test_ids_are_stable_and_the_same_bytes_come_out_twice(workdir: Path, cli: CliRun) -> None:
    assert cli("import", "marked.txt", "--out", "a.yaml").code == 0
    assert cli("import", "marked.txt", "--out", "b.yaml").code == 0
    a = (workdir / "a.yaml").read_text(encoding="utf-8")
    b = (workdir / "b.yaml").read_text(encoding="utf-8")
    assert a.replace("id: a\n", "id: b\n") == b
    ids = re.findall(r"  - id: (\S+)", a)
    assert len(ids) == 3 and len(set(ids)) == 3
    assert ids[2].startswith("q-")  # Korean-only question: a hash-only id
    # Editing a question changes only that question's id.
    source = workdir / "marked.txt"
    source.write_text(source.read_text(encoding="utf-8").replace("prime", "odd"), encoding="utf-8")
    assert cli("import", "marked.txt", "--out", "c.yaml").code == 0
    c_ids = re.findall(r"  - id: (\S+)", (workdir / "c.yaml").read_text(encoding="utf-8"))
    assert c_ids[0] == ids[0] and c_ids[2] == ids[2] and c_ids[1] != ids[1]


def test_duplicate_questions_get_distinct_ids(workdir: Path, cli: CliRun) -> None:
    (workdir / "dup.txt").write_text(
        "1. Same?\n- a ✓\n- b\n2. Same?\n- c ✓\n- d\n3. Same?\n- e ✓\n- f\n", encoding="utf-8"
    )
    assert cli("import", "dup.txt", "--out", "dup.yaml").code == 0
    ids = re.findall(r"  - id: (\S+)", (workdir / "dup.yaml").read_text(encoding="utf-8"))
    assert ids[1] == ids[0] + "-2" and ids[2] == ids[0] + "-3"


def test_refuses_to_overwrite_without_force(workdir: Path, cli: CliRun) -> None:
    target = workdir / "cards" / "quiz.yaml"
    target.parent.mkdir()
    target.write_text("keep me\n", encoding="utf-8")
    result = cli("import", "marked.txt", "--out", target)
    assert result.code == 1
    assert result.err.strip() == (
        f"Error: {target} already exists; use --force to replace it, or --out to write another file"
    )
    assert target.read_text(encoding="utf-8") == "keep me\n"
    forced = cli("import", "marked.txt", "--out", target, "--force")
    assert forced.code == 0, forced.err
    assert target.read_text(encoding="utf-8").startswith("# Imported by 'deckbuilder import'")


def test_questions_without_answers_are_skipped_and_listed(workdir: Path, cli: CliRun) -> None:
    """Note by note: the questions without a marked answer are listed with their lines,
    the others come in; --strict refuses the file."""
    source = workdir / "open.txt"
    source.write_text("Quiz\n\n1. One?\n- a\n- b\n\n2. Two?\n- c ✓\n- d\n\n3. Three?\n- e\n- f\n")
    strict = cli("import", source, "--strict")
    assert strict.code == 1
    lines = strict.err.strip().splitlines()
    assert lines[0].startswith(f"{source}:3: skipped: question 1 has no marked answer")
    assert lines[1].startswith(f"{source}:11: skipped: question 3 has no marked answer")
    assert lines[-1] == "2 problems found; nothing was written."
    assert not (workdir / "cards").exists()
    result = cli("import", source)
    assert result.code == 0, result.err
    assert [line.split(": warning: ")[0] for line in result.err.splitlines()] == [
        f"{source}:3",
        f"{source}:11",
    ]
    assert "1 question imported, 2 skipped" in result.out


def test_allow_missing_answers_leaves_them_for_check(workdir: Path, cli: CliRun) -> None:
    source = workdir / "open.txt"
    source.write_text("Quiz\n\n1. One?\n- a\n- b\n\n2. Two?\n- c ✓\n- d\n\n3. Three?\n- e\n- f\n")
    result = cli("import", source, "--allow-missing-answers", "--out", "cards/open.yaml")
    assert result.code == 0, result.err
    assert result.err.splitlines() == [
        f"{source}:3: warning: no answer marked; 'answer:' left empty",
        f"{source}:11: warning: no answer marked; 'answer:' left empty",
    ]
    assert result.out.strip().endswith("; 2 without an answer")
    written = (workdir / "cards" / "open.yaml").read_text(encoding="utf-8").splitlines()
    answer_lines = [i for i, line in enumerate(written, start=1) if line.startswith("    answer:")]
    assert "# 2 notes have no answer yet ('answer: []'): write it in before you build." in written
    check = cli("check", "cards/open.yaml")
    assert check.code == 1
    errors = check.err.strip().splitlines()
    assert len(errors) == 3 and errors[-1] == "2 problems found; nothing was written."
    # check points at the empty 'answer:' lines of questions 1 and 3
    for answer_line, error in zip([answer_lines[0], answer_lines[2]], errors, strict=False):
        assert re.fullmatch(
            rf"cards/open\.yaml:{answer_line}: note '[a-z0-9-]+': 'answer' is empty; .*", error
        ), error


def test_gift_warns_about_skipped_questions(workdir: Path, cli: CliRun) -> None:
    result = cli("import", "moodle.gift", "--deck", "Quiz Bank")
    assert result.code == 0, result.err
    assert result.out.strip() == (
        f"wrote {Path('cards') / 'quiz-bank.yaml'}: 16 questions imported, 2 skipped "
        "(1 essay, 1 description) (gift format, deck 'Quiz Bank')"
    )
    assert result.err.splitlines() == [
        "moodle.gift:50: warning: skipped an essay question (an essay has no answer to check)",
        "moodle.gift:52: warning: skipped a description question (it is text without a question)",
    ]
    assert cli("check", "cards/quiz-bank.yaml").code == 0


@pytest.mark.parametrize(
    ("name", "fmt", "expected"),
    [
        ("moodle.aiken", "auto", "aiken"),
        ("moodle.gift", "auto", "gift"),
        ("marked.txt", "auto", "quiz"),
        ("marked.txt", "quiz", "quiz"),
    ],
)
def test_format_detection(workdir: Path, cli: CliRun, name: str, fmt: str, expected: str) -> None:
    plain = workdir / f"renamed-{expected}.txt"  # no telling suffix: detected by content
    shutil.copy(workdir / name, plain)
    result = cli("import", plain, "--format", fmt, "--out", "x.yaml")
    assert result.code == 0, result.err
    assert f"({expected} format," in result.out


@pytest.mark.parametrize(
    "start", ['<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n<!-- question: 0  -->\n', "<quiz>\n"]
)
def test_a_moodle_xml_bank_is_refused_with_how_to_export_it_as_gift(
    workdir: Path, cli: CliRun, start: str
) -> None:
    """A Moodle XML export was "cannot tell the format ... give --format quiz, aiken, gift
    or anki-text"; as Anki text it became notes of its XML lines."""
    question = (
        '<question type="multichoice"><name><text>capital</text></name>\n'
        '<questiontext format="html"><text><![CDATA[<p>Capital of France?</p>]]></text>'
        '</questiontext>\n<answer fraction="100"><text>Paris</text></answer>\n'
        '<answer fraction="0"><text>Lyon</text></answer></question>\n</quiz>\n'
    )
    (workdir / "bank.xml").write_text(start + question, encoding="utf-8")
    result = cli("import", "bank.xml")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "bank.xml: a Moodle XML question bank, which deckbuilder does not read: in Moodle, "
        "export the questions in GIFT format (Question bank > Export > GIFT format), then "
        "import that file"
    )
    assert not (workdir / "cards").exists()


def test_wrong_format_and_unknown_text_are_errors(workdir: Path, cli: CliRun) -> None:
    (workdir / "notes.txt").write_text("just some notes\nnothing else\n", encoding="utf-8")
    result = cli("import", "notes.txt")
    assert result.code == 1
    assert result.err.startswith("notes.txt: cannot tell the format")
    bad = cli("import", "marked.txt", "--format", "csv")
    assert bad.code == 1
    assert bad.err.strip() == (
        "Error: --format: must be one of auto, quiz, aiken, gift, anki-text, not 'csv'"
    )
    as_aiken = cli("import", "marked.txt", "--format", "aiken")
    assert as_aiken.code == 1 and "marked.txt:" in as_aiken.err
    assert not (workdir / "cards").exists()


def test_help_ends_with_an_example(cli: CliRun) -> None:
    result = cli("import", "--help")
    assert result.code == 0
    assert "Example: deckbuilder import quiz.csv --out cards/quiz.yaml" in result.out
    for option in ("--format", "--out", "--deck", "--allow-missing-answers", "--force"):
        assert option in result.out


YAML_TRICKY = st.text(
    alphabet=st.sampled_from(
        list("yesnoYNtrufalsNU~019.:-#?! '\"&*[]{},|>%@`<=_\t\n\x85\u2028\ufeff")
    ),
    max_size=8,
)


@settings(max_examples=500)
@given(st.one_of(st.text(), YAML_TRICKY))
def test_any_text_survives_the_yaml_writer(text: str) -> None:
    """Whatever the text, the card file's reader gets back exactly that string."""
    note = BasicNote(id="n", line=0, front="f", back=text)
    written = card_file_text(Deck(key="d", name="D", source=Path("d.yaml"), notes=(note,)))
    assert yaml.safe_load(written)["notes"][0]["back"] == text
    tree = parse_yaml(written, "x.yaml")
    value = tree.entries["notes"].items[0].entries["back"]  # type: ignore[union-attr]
    assert (value.raw, value.kind) == (text, "str")  # type: ignore[union-attr]


@pytest.mark.parametrize("fmt", ["auto", "quiz", "aiken", "gift", "anki-text"])
def test_a_named_pipe_or_device_to_import_is_refused_without_waiting(
    workdir: Path, cli: CliRun, fmt: str
) -> None:
    """A named pipe (FIFO) as the source blocked import until a writer came, and a device
    (/dev/zero) was read without end (issue 37, item 2): each is refused in one line, for
    every format, without opening it for reading."""
    os.mkfifo(workdir / "quiz.csv")
    for source, kind in (("quiz.csv", "a named pipe (FIFO)"), ("/dev/zero", "a character device")):
        run = cli("import", source, "--format", fmt)
        assert run.code == 1, run
        assert run.err.splitlines()[0] == (
            f"{source}: is {kind}, not a file; only regular files are read"
        ), run.err
        assert not (workdir / "cards").exists()


def test_missing_input_and_bad_out_are_one_line_errors(workdir: Path, cli: CliRun) -> None:
    missing = cli("import", "nope.txt")
    assert missing.code == 1
    assert missing.err.startswith("nope.txt: cannot be read: No such file or directory")
    folder = cli("import", ".")
    assert folder.code == 1 and folder.err.startswith(".: is a folder, not a file")
    txt = cli("import", "marked.txt", "--out", "cards/quiz.txt")
    assert txt.code == 1
    assert txt.err.strip() == (
        "Error: --out: must name a .yaml file (build and check look for *.yaml), not cards/quiz.txt"
    )
    shutil.copy(workdir / "marked.txt", workdir / "marked.yaml")
    same = cli("import", "marked.yaml", "--format", "quiz", "--out", "marked.yaml", "--force")
    assert same.code == 1
    assert (
        same.err.strip() == "Error: --out: marked.yaml is the file being imported; choose another"
    )
    assert (workdir / "marked.yaml").read_bytes() == (workdir / "marked.txt").read_bytes()
    assert not (workdir / "cards").exists()


def test_gift_feedback_warnings_are_printed(workdir: Path, cli: CliRun) -> None:
    (workdir / "q.gift").write_text("Q? {=a#Good ~b#No, 1 = 2 ~c}\n", encoding="utf-8")
    result = cli("import", "q.gift")
    assert result.code == 0, result.err
    line, several = result.err.splitlines()
    assert line.startswith("q.gift:1: warning: the '=' after the feedback")
    assert line.endswith("write \\=")
    assert several.startswith("q.gift:1: warning: 2 answers are marked '='")


def test_a_missing_image_is_a_warning_and_check_asks_for_it(workdir: Path, cli: CliRun) -> None:
    """Note by note: a picture nobody has keeps its reference, with a warning saying where
    to put it; the card file lists it as missing_media, so check passes and reminds of it
    there until it is (issue 33: what import writes passes check); an unanswered question
    is listed."""
    (workdir / "q.txt").write_text(
        "1. What is shown in ![fig](missing.png)?\nA. a cat\nB. a dog\nAnswer: B\n\n"
        "2. Second question\nA. x\nB. y\n",
        encoding="utf-8",
    )
    result = cli("import", "q.txt", "--out", "cards/q.yaml")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert lines[0].startswith("q.txt:6: warning: skipped: question 2 has no marked answer")
    assert lines[1].startswith("q.txt:1: warning: media file 'missing.png' is in neither")
    assert "put the file in media/" in lines[1]
    check = cli("check", "cards/q.yaml")
    assert check.code == 0 and "media file 'missing.png' is still missing" in check.err
    (workdir / "media").mkdir(exist_ok=True)
    shutil.copyfile(DATA / "media" / "square.png", workdir / "media" / "missing.png")
    assert cli("check", "cards/q.yaml").code == 0


def test_names_from_a_package_are_shown_escaped_and_kept_out_of_file_names(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deck named with a right-to-left override and a line break, and a note type named
    with a line break: the card file's name holds neither, and the report and the
    refusal show them escaped, each on its own line (issue 45)."""
    import copy

    from tests.anki.anki_files import BASIC, collection, package

    monkeypatch.chdir(tmp_path)
    decks = {"1": {"id": 1, "name": "Default"}, "2": {"id": 2, "name": "Evil\u202egnp.exe\nnid:1"}}
    notes = [(100, "g1", 1, 1_700_000_000, "", "front\x1fback")]
    db = collection(tmp_path / "c.anki2", decks=decks, notes=notes, cards=[(1000, 100, 2, 0)])
    result = cli("import", package(tmp_path / "evil.apkg", db, media={}))
    assert result.code == 0, result.err
    assert [p.name for p in (tmp_path / "cards").glob("*.yaml")] == ["evilgnp-exe-nid-1.yaml"]
    assert "(Anki package, deck 'Evil\\u202egnp.exe nid:1')" in result.out
    assert "\u202e" not in result.out + result.err

    renamed = copy.deepcopy(BASIC) | {"name": "Basic\nnid:1 delete"}
    db = collection(
        tmp_path / "d.anki2", models={"1": renamed}, notes=notes, cards=[(1, 100, 1, 0)]
    )
    refused = cli("import", package(Path("bad.apkg"), db, media={}))
    assert refused.code == 1
    first = refused.err.splitlines()[0]
    assert first.startswith("bad.apkg: no notes to import; Basic\\nnid:1 delete: 1 note -> ")
    assert not any(line.startswith("nid:") for line in refused.err.splitlines())


@pytest.mark.parametrize("same_bytes", [False, True])
def test_media_names_differing_only_in_unicode_form_are_refused_with_both_names(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, same_bytes: bool
) -> None:
    """'café.png' composed (NFC) and decomposed (NFD): Anki stores both as the NFC name,
    and importing the package into Anki keeps one file for both notes (measured with
    Anki 26.9.3 on a legacy package; a current package with a name not in NFC is refused
    as corrupt). The import showed one note the other's picture; it is refused, naming
    both. Two such files with the same bytes come in as one."""
    import unicodedata

    from tests.anki.anki_files import collection, package

    monkeypatch.chdir(tmp_path)
    nfc, nfd = (unicodedata.normalize(form, "café.png") for form in ("NFC", "NFD"))
    notes = [
        (100, "g1", 1, 1_700_000_000, "", f'<img src="{nfc}">\x1fone'),
        (101, "g2", 1, 1_700_000_000, "", f'<img src="{nfd}">\x1ftwo'),
    ]
    db = collection(tmp_path / "c.anki2", notes=notes)
    second = b"\x89PNG first" if same_bytes else b"\x89PNG second"
    media = {"0": nfc, "1": nfd}
    run = cli(
        "import",
        package(Path("nfc.apkg"), db, media=media, files={"0": b"\x89PNG first", "1": second}),
    )
    if same_bytes:
        assert run.code == 0, run.err
        return
    assert run.code == 1
    assert run.err.splitlines() == [
        f"nfc.apkg: the package holds two media files named '{nfc}' and '{nfd}', one name in "
        "Unicode's two forms ('caf\\xe9.png' and 'cafe\\u0301.png'): Anki stores both under one "
        "name (the composed form, NFC), so one note would show the other's file; rename one "
        "in Anki and export again",
        "1 problem found; nothing was written.",
    ]
