"""The build and check commands as a user runs them."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import DATA, ROOT, Run

CliRun = Callable[..., Run]


def test_build_bundled_deck_from_a_fresh_project(project: Path, cli: CliRun) -> None:
    """The bundled deck declares languages: [ko, en]; build makes one package each."""
    result = cli("build")
    assert result.code == 0, result.err
    for lang in ("ko", "en"):
        package = project / "output" / f"gradient-checkpointing.{lang}.apkg"
        assert package.is_file() and package.stat().st_size > 1000
        assert f"wrote {Path('output') / package.name} (" in result.out
    assert sorted(p.name for p in (project / "output").iterdir()) == [
        "gradient-checkpointing.en.apkg",
        "gradient-checkpointing.ko.apkg",
    ]
    assert "ML 시스템::그래디언트 체크포인팅  (" in result.out
    assert "ML Systems::Gradient Checkpointing  (" in result.out
    assert len(re.findall(r"mcq\s+8 notes\s+8 cards", result.out)) == 2
    assert len(re.findall(r"cloze\s+6 notes\s+13 cards", result.out)) == 2
    assert len(re.findall(r"media\s+1 file", result.out)) == 2
    assert result.err == ""


def test_build_one_language(project: Path, cli: CliRun) -> None:
    result = cli("build", "--lang", "en")
    assert result.code == 0, result.err
    assert sorted(p.name for p in (project / "output").iterdir()) == [
        "gradient-checkpointing.en.apkg"
    ]
    assert "ML Systems::Gradient Checkpointing  (" in result.out and "시스템" not in result.out


def test_build_to_another_folder(project: Path, cli: CliRun) -> None:
    shutil.copyfile(DATA / "mixed.yaml", project / "mixed.yaml")
    result = cli("build", "mixed.yaml", "--out", "elsewhere", "--media", DATA / "media")
    assert result.code == 0, result.err
    assert (project / "elsewhere" / "mixed.apkg").is_file()
    assert (project / "mixed.lock").is_file()
    assert not (project / "output").exists()


def test_check_writes_nothing(project: Path, cli: CliRun) -> None:
    result = cli("check")
    assert result.code == 0
    assert result.out.strip() == "ok: 2 decks, 28 notes, 42 cards"  # ko and en
    assert not (project / "output").exists()


def test_invalid_input_lists_every_problem_and_keeps_the_old_package(
    project: Path, cli: CliRun
) -> None:
    assert cli("build").code == 0
    package = project / "output" / "gradient-checkpointing.ko.apkg"
    before = package.read_bytes()
    source = project / "cards" / "gradient-checkpointing.yaml"
    text = source.read_text(encoding="utf-8")
    text = text.replace("    answer: A\n", "    answr: A\n", 1).replace("answer: D", "answer: E", 1)
    source.write_text(text, encoding="utf-8")
    result = cli("build")
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert any(
        re.match(
            r"cards/gradient-checkpointing\.yaml:\d+: note 'tradeoff': unknown key 'answr' in a mcq note; did you mean 'answer'\?",
            line,
        )
        for line in lines
    ), lines
    numbers = [int(line.split(":")[1]) for line in lines[:-1]]
    assert numbers == sorted(numbers)  # in the order of the file
    assert any("note 'tradeoff': 'answer' is required" in line for line in lines)
    assert any(
        "note 'runtime-overhead': answer 'E' is not one of the choices (A-D)" in line
        for line in lines
    )
    assert lines[-1] == "3 problems found; nothing was written."
    assert "Traceback" not in result.err and result.out == ""
    assert package.read_bytes() == before


def test_missing_media_is_an_error_with_the_note(project: Path, cli: CliRun) -> None:
    (project / "media" / "checkpoint-chain.svg").unlink()
    result = cli("build")
    assert result.code == 1
    assert "note 'cloze-sqrt': media file 'checkpoint-chain.svg' not found" in result.err
    assert not (project / "output").exists()


def test_help_and_version(cli: CliRun) -> None:
    result = cli("--help")
    assert result.code == 0 and "build" in result.out and "check" in result.out
    assert "Example: deckbuilder build" in cli("build", "--help").out
    assert cli("--version").out.startswith("deckbuilder ")


def test_usage_error_exits_2(cli: CliRun) -> None:
    result = cli("build", "--no-such-option")
    assert result.code == 2
    assert "No such option" in result.err


@pytest.mark.parametrize(
    "args",
    [
        ["-q", "check"],
        ["check", "-q"],
        ["check", "--quiet", "cards/"],
        ["check", "cards/", "-q"],
        ["check", "--media", "media", "-q"],
        ["-v", "check", "--debug", "-q"],
    ],
)
def test_shared_options_go_before_or_after_the_command(
    project: Path, cli: CliRun, args: list[str]
) -> None:
    """Issue 44: ``check -q`` was refused with "No such option" and no hint."""
    result = cli(*args)
    assert result.code == 0, result.err
    assert result.out == "" and result.err == ""


def test_a_shared_option_after_the_command_does_what_it_does_before(
    project: Path, cli: CliRun
) -> None:
    assert cli("check", "-v").out == cli("-v", "check").out
    assert "cards/gradient-checkpointing.yaml: ML" in cli("check", "-v").out
    assert cli("build", "--version").out.startswith("deckbuilder ")


def test_the_value_of_the_commands_own_option_stays_its_value(project: Path, cli: CliRun) -> None:
    """``build --out -q`` writes to the folder '-q': the word is the option's value, not
    the shared -q (typer 0.29 made its options no click.Option, and the test for one
    stopped matching any)."""
    result = cli("build", "--no-preview", "--out", "-q")
    assert result.code == 0, result.err
    assert (project / "-q" / "gradient-checkpointing.ko.apkg").is_file()
    assert "wrote -q/gradient-checkpointing.ko.apkg" in result.out


def test_a_word_after_double_dash_stays_an_argument(project: Path, cli: CliRun) -> None:
    """Only options are moved: after ``--`` a word is a file name, even '-q'."""
    result = cli("check", "--", "-q")
    assert result.code == 1 and result.err.startswith("-q: no such file or folder")


def test_console_script_writes_all_its_output_before_it_exits(tmp_path: Path) -> None:
    """Everything is written, to a file (20 KB, more than one buffer), and a reader that
    leaves early (``| head``) gets no complaint about a broken pipe."""
    target = tmp_path / "schema.json"
    with target.open("w", encoding="utf-8") as out:
        proc = subprocess.run(
            [sys.executable, "-m", "deckbuilder", "schema"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            check=False,
        )
    assert proc.returncode == 0 and proc.stderr == ""
    text = target.read_text(encoding="utf-8")
    assert len(text) > 16_384 and json.loads(text)["title"]
    closed = subprocess.run(
        f"{shlex.quote(sys.executable)} -m deckbuilder schema | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert closed.stdout == text[:10] and closed.stderr == ""


def test_console_script_runs_without_traceback(tmp_path: Path) -> None:
    """The installed entry point maps errors the same way (exit 1, no traceback)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("deck: D\nnotes: []\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "deckbuilder", "check", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{bad}:2: 'notes' is empty")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--media", "{long}"),
        ("check", "{long}.yaml"),
        ("list", "{long}"),
        ("preview", "--html-out", "{long}.html"),
        ("build", "--out", "{long}"),
    ],
)
def test_a_path_the_file_system_refuses_is_a_one_line_error(
    project: Path, cli: CliRun, args: tuple[str, ...]
) -> None:
    """A name longer than the file system allows is the user's to fix: exit 1, no bug."""
    long = "a" * 300
    result = cli(*(a.format(long=long) for a in args))
    assert result.code == 1, result.err
    assert result.err.startswith("Error: ") and len(result.err.splitlines()) == 1
    assert "Internal error" not in result.err
