"""Bad input never crashes and never loses work.

A corpus of bad card files (tests/data/bad/, each naming the line and message it must
produce in its first line), generated absurd inputs, Hypothesis fuzzing of the loader,
and builds interrupted while writing.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deckbuilder.cardfile.fields import MAX_FIELD_BYTES
from deckbuilder.cardfile.keys import MAX_NOTES
from deckbuilder.errors import DeckError
from deckbuilder.files.atomic import atomic_write
from tests.cardfile.loading import load_deck
from tests.conftest import DATA, Run

CliRun = Callable[..., Run]
BAD = DATA / "bad"
OLD_PACKAGE = b"previous package, must survive"


def expectation(path: Path) -> tuple[str, str]:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0] if path.stat().st_size else ""
    if not first:
        return "-", "the file is empty"
    assert first.startswith("# expect: "), f"{path.name} lacks its '# expect: LINE: message' line"
    line, message = first.removeprefix("# expect: ").split(": ", 1)
    return line, message


def setup_project(tmp_path: Path, source: Path) -> tuple[Path, Path]:
    (tmp_path / "cards").mkdir(parents=True)
    (tmp_path / "media").mkdir()
    (tmp_path / "output").mkdir()
    card = tmp_path / "cards" / source.name
    shutil.copyfile(source, card)
    old = tmp_path / "output" / f"{source.stem}.apkg"
    old.write_bytes(OLD_PACKAGE)
    return card, old


def assert_reported(result: Run, card: Path, line: str, message: str) -> None:
    assert result.code == 1, (result.out, result.err)
    where = f"{card}:" if line == "-" else f"{card}:{line}:"
    first = result.err.splitlines()[0]
    assert first.startswith(where), result.err
    assert message in first, result.err
    assert "Traceback" not in result.err
    assert result.err.rstrip().endswith("nothing was written.")


@pytest.mark.parametrize("source", sorted(BAD.glob("*.yaml")), ids=lambda p: p.stem)
@pytest.mark.parametrize("command", ["build", "check"])
def test_bad_file_corpus(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, source: Path, command: str
) -> None:
    card, old = setup_project(tmp_path, source)
    monkeypatch.chdir(tmp_path)
    line, message = expectation(source)
    result = cli(command, card)
    assert_reported(result, card, line, message)
    assert old.read_bytes() == OLD_PACKAGE
    assert sorted(p.name for p in (tmp_path / "output").iterdir()) == [old.name]


def generated_cases() -> list[tuple[str, bytes, str, str]]:
    many = "deck: D\nnotes: [" + ", ".join(["{}"] * (MAX_NOTES + 1)) + "]\n"
    big = (
        "deck: D\nnotes:\n  - id: a\n    front: " + "x" * (MAX_FIELD_BYTES + 1) + "\n    back: b\n"
    )
    deep = "deck: D\nnotes: " + "[" * 100_000 + "]" * 100_000 + "\n"
    codes = ", ".join(f"x{n:03d}" for n in range(300))
    languages = f"deck: D\nlanguages: [{codes}]\nnotes: [{{id: a, front: f, back: b}}]\n"
    long_number = (
        "deck: D\nnotes:\n  - {id: a, type: typed, question: q,\n"
        f"     answer: {{number: {'9' * 5000}}}}}\n"
    )
    return [
        (
            "binary",
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "-",
            "this is a binary file, not UTF-8 text",
        ),
        ("latin1", "deck: Café\nnotes: []\n".encode("latin-1"), "1", "not valid UTF-8 (byte 0xe9)"),
        (
            "many-notes",
            many.encode(),
            "2",
            f"'notes' has {MAX_NOTES + 1:,} notes; the limit is {MAX_NOTES:,}",
        ),
        (
            "big-field",
            big.encode(),
            "4",
            f"note 'a': 'front' is {MAX_FIELD_BYTES + 1:,} bytes; the limit",
        ),
        ("deep", deep.encode(), "2", "YAML nesting is deeper than 100 levels"),
        # Issue 37: each language is a package; 300 of them from a 43 KB file took 12.7 s.
        ("many-languages", languages.encode(), "2", "'languages' lists 300 languages; a card"),
        # Issue 37: U+2028 is a line break to YAML, not to editors; the lines after it
        # were numbered wrongly and the advice quoted the wrong line.
        (
            "line-separator",
            "deck: D\nnotes:\n  - id: a\n    front: one\u2028two\n    back: b\n".encode(),
            "4",
            "U+2028 (LINE SEPARATOR): YAML reads it as a line break",
        ),
        # The first is named at its line, and the others of any of the three counted.
        (
            "line-breaks",
            "deck: D\nnotes:\n  - id: a\n    front: a\u0085b\u2029c\n    back: b\u2028c\n".encode(),
            "4",
            "U+0085 (NEXT LINE) (2 more after it): YAML reads it as a line break",
        ),
        # Issue 37: a 5,000-digit number was compared as a float and echoed whole.
        ("long-number", long_number.encode(), "4", "'answer.number' is 5,000 characters long"),
    ]


@pytest.mark.parametrize(
    ("name", "data", "line", "message"),
    generated_cases(),
    ids=[case[0] for case in generated_cases()],
)
def test_generated_bad_files(
    tmp_path: Path,
    cli: CliRun,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    data: bytes,
    line: str,
    message: str,
) -> None:
    source = tmp_path / f"{name}.yaml"
    source.write_bytes(data)
    card, old = setup_project(tmp_path / "project", source)
    monkeypatch.chdir(tmp_path / "project")
    assert_reported(cli("build", card), card, line, message)
    assert old.read_bytes() == OLD_PACKAGE


def test_unreadable_source(tmp_path: Path, cli: CliRun) -> None:
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "missing-target.yaml")
    result = cli("check", link)
    assert result.code == 1
    assert result.err.startswith(f"{link}: no such file or folder")


def test_problems_from_several_files_come_together(tmp_path: Path, cli: CliRun) -> None:
    for name in ("bad-answer.yaml", "duplicate-id.yaml", "unknown-key.yaml"):
        shutil.copyfile(BAD / name, tmp_path / name)
    result = cli("check", tmp_path)
    assert result.code == 1
    assert result.err.rstrip().endswith("3 problems found; nothing was written.")


# --- interrupted builds ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failure", "code", "message"),
    [
        (
            OSError(28, "No space left on device"),
            1,
            "cannot write output/gradient-checkpointing.ko.apkg: No space left on device; the previous file was kept",
        ),
        (KeyboardInterrupt(), 130, "Interrupted; nothing was replaced."),
    ],
)
def test_interrupted_build_leaves_previous_package_byte_identical(
    project: Path,
    cli: CliRun,
    monkeypatch: pytest.MonkeyPatch,
    failure: BaseException,
    code: int,
    message: str,
) -> None:
    assert cli("build", "--lang", "ko").code == 0
    package = project / "output" / "gradient-checkpointing.ko.apkg"
    before = package.read_bytes()
    (project / "cards" / "gradient-checkpointing.yaml").write_text(
        (project / "cards" / "gradient-checkpointing.yaml")
        .read_text(encoding="utf-8")
        .replace("무엇", "어떤 것"),
        encoding="utf-8",
    )
    calls = {"n": 0}
    real = zipfile.ZipFile.open

    def failing_open(self: zipfile.ZipFile, *args: Any, **kwargs: Any) -> Any:
        if self.mode == "r":  # the build reads the package it replaces (anki/built.py)
            return real(self, *args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 2:  # after the collection is in, before the media
            raise failure
        return real(self, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", failing_open)
    result = cli("build", "--lang", "ko")
    assert calls["n"] == 2
    assert result.code == code
    assert message in result.err and "Traceback" not in result.err
    assert package.read_bytes() == before
    assert sorted(p.name for p in package.parent.iterdir()) == ["gradient-checkpointing.ko.apkg"]


def test_atomic_write_cleans_up_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")

    def explode(tmp: Path) -> None:
        tmp.write_text("half", encoding="utf-8")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        atomic_write(target, explode)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


# --- property-based: anything in, a deck or a clean user error out ---------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
note_keys = st.sampled_from(
    [
        "id",
        "type",
        "tags",
        "question",
        "choices",
        "answer",
        "explanation",
        "shuffle",
        "text",
        "extra",
        "front",
        "back",
        "bogus",
    ]
)
note_values = st.one_of(
    values,
    st.sampled_from(
        ["mcq", "cloze", "basic", "A", "B", "z", "{{c1::x}}", "a-b", "![i](x.png)", "[A, C]"]
    ),
    st.lists(st.sampled_from(["A", "B", "C", "x", "y"]), max_size=4),
)
notes = st.lists(st.dictionaries(note_keys, note_values, max_size=8), max_size=4)
decks = st.fixed_dictionaries(
    {"deck": st.one_of(st.text(max_size=10), values), "notes": st.one_of(notes, values)},
    optional={"id": st.text(max_size=8), "tags": values, "description": values},
)


def load_text(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_deck(path)
    except DeckError as exc:
        assert exc.problems
        assert all(str(p).startswith(str(path)) for p in exc.problems)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=decks)
def test_loader_property_structured(tmp_path: Path, document: dict[str, Any]) -> None:
    load_text(tmp_path, yaml.safe_dump(document, allow_unicode=True))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=values)
def test_loader_property_any_yaml(tmp_path: Path, document: Any) -> None:
    load_text(tmp_path, yaml.safe_dump(document, allow_unicode=True))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_loader_property_any_text(tmp_path: Path, text: str) -> None:
    load_text(tmp_path, text)


def test_internal_errors_print_one_line_and_a_traceback_only_with_debug(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug is not the user's fault: one line asking for a report, no traceback..."""
    from deckbuilder.app import checking

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(checking, "load_decks", broken)
    result = cli("check")
    assert result.code == 3
    assert result.err.splitlines() == [
        "Internal error: ZeroDivisionError: simulated bug. This is a bug in deckbuilder; "
        "please report it with the output of the same command run with --debug."
    ]
    # ...and the whole traceback under --debug.
    with pytest.raises(ZeroDivisionError, match="simulated bug"):
        cli("--debug", "check")


# --- what Anki makes of what check refuses ---------------------------------------------------


@pytest.mark.anki
@pytest.mark.parametrize("deletion", ["{{c1::}}", "{{c1::::a hint}}", "{{c1:: }}"])
def test_empty_deletion_is_refused_for_the_card_anki_makes_of_it(
    tmp_path: Path, collection: Any, deletion: str
) -> None:
    """Anki makes a card for an empty deletion: its front hides nothing, and its back
    reveals nothing. check refuses the note, at its line, instead of counting that card."""
    text = f"The capital is {deletion}, of {{{{c2::Korea}}}}."
    note = collection.new_note(collection.models.by_name("Cloze"))
    note.fields[0] = text
    collection.add_note(note, 1)
    first, second = sorted(note.cards(), key=lambda card: card.ord)
    assert (first.ord, second.ord) == (0, 1)
    # Each card hides what its data-cloze holds: the first card, nothing but space.
    hidden = re.search(
        r'<span class="cloze" data-cloze="([^"]*)" data-ordinal="1">', first.question()
    )
    assert hidden is not None and hidden.group(1) in ("", "&#x20;")
    assert '<span class="cloze" data-cloze="Korea" data-ordinal="2">' in second.question()

    path = tmp_path / "empty.yaml"
    path.write_text(
        yaml.safe_dump({"deck": "D", "notes": [{"id": "a", "text": text}]}), encoding="utf-8"
    )
    with pytest.raises(DeckError) as info:
        load_deck(path)
    assert [str(p) for p in info.value.problems] == [
        f"{path}:4: note 'a': empty cloze deletion {{{{c1::}}}}: Anki would make a card that "
        "hides nothing; put the answer inside, as in {{c1::answer}}"
    ]


# --- every problem in one run (issue 32) ------------------------------------------------------
# A 15-note Korean/English deck with the mistakes a new teacher makes, each kind at least
# once: (line, what its message says).
FIFTEEN_NOTES = r"""deck: "한국어와 영어::실수 열다섯"
notes:
  - id: capital
    question: 한국의 수도는?
    choices: [서울, 부산, 대구]
    answer: A
  - id: hash
    front: 주석은 어떻게 씁니까?
    back: 줄 앞에 # 을 붙입니다
  - id: hit
    question: 가장 많이 팔린 곡은 #1 히트곡이다?
    choices: [맞다, 틀리다]
    answer: A
  - id: colon-one
    front: 정답: 서울
    back: Seoul
  - id: colon-two
    question: Note: which planet is the largest?
    choices: [목성, 토성]
    answer: C
  - id: colon-three
    front: 참고: 물의 화학식은?
    back: H2O
  - id: tabbed
	front: 탭으로 들여 쓴 줄
    back: tab
  - id: softmax
    text: '\(\sigma(z)_i = {{c1::\frac{e^{z_i}}{\sum_j e^{z_j}}}}\)'
  - id: picture
    front: 그림의 이름은?
    back: '![그림](내 그림.png)'
  - id: typo-key
    front: What is 2 + 2?
    back: four
    explantion: basic arithmetic
  - id: english
    front: What does "apple" mean?
    back: 사과
  - id: code
    text: '`{{c1::d = {"a": {"b": 1}}}}`'
  - id: missing-picture
    front: 지도
    back: '![지도](없는-지도.png)'
  - id: twice
    front: 중복
    back: 하나
    back: 둘
  - id: fine
    front: 마지막
    back: last
"""
FIFTEEN_MISTAKES = [
    (9, "text after ' #' would be left out", 'write back: "줄 앞에 # 을 붙입니다"'),
    (
        11,
        "text after ' #' would be left out",
        'write question: "가장 많이 팔린 곡은 #1 히트곡이다?"',
    ),
    (15, "text containing ': ' needs quotes", 'write front: "정답: 서울"'),
    (18, "text containing ': ' needs quotes", 'write question: "Note: which planet'),
    # Read as its fix writes it, the note is checked further in the same run.
    (20, "note 'colon-two': answer 'C' is not one of the choices (A-B)", ""),
    (22, "text containing ': ' needs quotes", 'write front: "참고: 물의 화학식은?"'),
    (25, "YAML indents with spaces, not tabs", ""),
    (
        28,
        "note 'softmax': Anki ends cloze deletion c1",
        r"{{c1::\frac{e^{z_i} }{\sum_j e^{z_j} } }}",
    ),
    (31, "note 'picture': '![그림](내 그림.png)' is shown as text", "![그림](<내 그림.png>)"),
    (35, "note 'typo-key': unknown key 'explantion'", ""),
    (40, "note 'code': Anki ends cloze deletion c1", '{{c1::`d = {"a": {"b": 1}}`}}'),
    (43, "note 'missing-picture': media file '없는-지도.png' not found", ""),
    (47, "duplicate key 'back' (first at line 46)", ""),
]
# A file indented with tabs on several lines: each is named.
TABBED = "deck: Tabs\nnotes:\n\t- id: a\n\t\tfront: 하나\n\t\tback: one\n  - id: b\n    front: 둘\n\tback: two\n"
TABBED_LINES = [3, 4, 5, 8]


def test_a_file_with_n_mistakes_lists_all_n_in_one_check(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: a file indented with tabs needed one run per tabbed line, three unquoted
    colons three runs, five deliberate mistakes four runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "내 그림.png").write_bytes((DATA / "media" / "square.png").read_bytes())
    (tmp_path / "cards" / "mistakes.yaml").write_text(FIFTEEN_NOTES, encoding="utf-8")
    (tmp_path / "cards" / "tabs.yaml").write_text(TABBED, encoding="utf-8")
    assert FIFTEEN_NOTES.count("  - id: ") == 15
    result = cli("check")
    assert result.code == 1
    # Each problem is one line, then (for YAML's) the source line it is about.
    located = [line for line in result.err.splitlines() if line.startswith("cards/")]
    expected = [("cards/mistakes.yaml", n, says, fix) for n, says, fix in FIFTEEN_MISTAKES]
    expected += [
        ("cards/tabs.yaml", n, "YAML indents with spaces, not tabs", "") for n in TABBED_LINES
    ]
    assert len(located) == len(expected), result.err
    for line, (file, number, says, fix) in zip(located, expected, strict=True):
        assert line.startswith(f"{file}:{number}: "), (line, number)
        assert says in line and fix in line, line
    assert result.err.rstrip().endswith(f"{len(expected)} problems found; nothing was written.")


def test_the_mistakes_fixed_as_their_messages_say_build(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixes the messages give (and the two content fixes), applied: the deck checks."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cards").mkdir()
    (tmp_path / "media").mkdir()
    for name in ("내 그림.png", "없는-지도.png"):
        (tmp_path / "media" / name).write_bytes((DATA / "media" / "square.png").read_bytes())
    replacements = {
        "    back: 줄 앞에 # 을 붙입니다": '    back: "줄 앞에 # 을 붙입니다"',
        "    question: 가장 많이 팔린 곡은 #1 히트곡이다?": '    question: "가장 많이 팔린 곡은 #1 히트곡이다?"',
        "    front: 정답: 서울": '    front: "정답: 서울"',
        "    question: Note: which planet is the largest?": '    question: "Note: which planet is the largest?"',
        "    answer: C": "    answer: A",
        "    front: 참고: 물의 화학식은?": '    front: "참고: 물의 화학식은?"',
        "\tfront: 탭으로 들여 쓴 줄": "    front: 탭으로 들여 쓴 줄",
        r"{{c1::\frac{e^{z_i}}{\sum_j e^{z_j}}}}": r"{{c1::\frac{e^{z_i} }{\sum_j e^{z_j} } }}",
        "'![그림](내 그림.png)'": "'![그림](<내 그림.png>)'",
        "    explantion: basic arithmetic\n": "",
        """'`{{c1::d = {"a": {"b": 1}}}}`'""": """'{{c1::`d = {"a": {"b": 1}}`}}'""",
        "    back: 하나\n    back: 둘": "    back: 하나",
    }
    fixed = FIFTEEN_NOTES
    for old, new in replacements.items():
        assert old in fixed, old
        fixed = fixed.replace(old, new)
    (tmp_path / "cards" / "mistakes.yaml").write_text(fixed, encoding="utf-8")
    result = cli("check")
    assert result.code == 0, result.err


@pytest.mark.parametrize("command", [("build",), ("preview", "--html")])
def test_output_that_is_a_file_is_one_clear_line(
    project: Path, cli: CliRun, command: tuple[str, ...]
) -> None:
    """With a file named 'output' where the output folder goes, build and preview --html
    printed the OS's bare 'File exists' (issue 37, item 7)."""
    (project / "output").write_text("not a folder", encoding="utf-8")
    run = cli(*command)
    assert run.code == 1 and "Traceback" not in run.err
    assert "output is a file, not a folder; move it away or write somewhere else" in run.err
    assert "File exists" not in run.err
    assert (project / "output").read_text(encoding="utf-8") == "not a folder"
