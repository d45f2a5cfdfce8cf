"""What the command line prints cannot break the terminal or end in a traceback (issue
"Hostile input, round 3", items 4, 5 and 8): standard output that is closed, full or in
an encoding that cannot write Korean ends with one clear line and exit 1; names carrying
terminal escape sequences are shown escaped; a flood of problems is capped per file with
a count; a value pasted whole into a message is shortened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.cli.output import MAX_LINE, printable
from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]
KOREAN = "deck: 한국어 덱\nid: ko\nnotes:\n  - id: a\n    front: 질문\n    back: 답\n"


def _project(tmp_path: Path, text: str = KOREAN) -> Path:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "ko.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def _deckbuilder(
    cwd: Path, *args: str, stdout: object, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deckbuilder", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )


def test_closed_standard_output_is_one_line_and_exit_1(tmp_path: Path) -> None:
    project = _project(tmp_path)
    # Descriptor 1 closed before the program starts, as `deckbuilder list >&-` leaves it.
    proc = subprocess.run(
        [sys.executable, "-m", "deckbuilder", "list"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "Error: standard output is closed\n"


def test_full_standard_output_is_one_line_and_exit_1(tmp_path: Path) -> None:
    project = _project(tmp_path)
    with open("/dev/full", "w") as full:
        proc = _deckbuilder(project, "list", stdout=full)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "Error: cannot write to standard output: No space left on device\n"


def test_an_encoding_that_cannot_write_korean_is_one_line_and_exit_1(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc = _deckbuilder(project, "list", stdout=subprocess.PIPE, PYTHONIOENCODING="latin-1")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert "encoding (iso8859-1) cannot write this text" in proc.stderr
    assert "PYTHONIOENCODING=utf-8" in proc.stderr


def test_escape_sequences_in_names_are_shown_escaped(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A media file named to retitle the terminal and clear the screen."""
    project = _project(tmp_path)
    (project / "media").mkdir()
    hostile = "\x1b]0;owned\x07\x1b[2J.png"
    (project / "media" / hostile).write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(project)
    result = cli("check")
    assert result.code == 0, result.err
    assert "\x1b" not in result.err and "\x07" not in result.err
    assert "\\x1b]0;owned\\x07\\x1b[2J.png" in result.err


def test_a_flood_of_problems_is_capped_per_file_with_a_count(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = "".join(f"  - id: n{i}\n    front: q\n    bogus: {i}\n" for i in range(250))
    project = _project(tmp_path, "deck: Flood\nnotes:\n" + notes)
    monkeypatch.chdir(project)
    result = cli("check")
    assert result.code == 1
    lines = result.err.splitlines()
    assert len(lines) == 102, lines[-3:]  # 100 problems, the count left out, the total
    assert lines[-2] == "cards/ko.yaml: 400 more problems not shown"
    assert lines[-1] == "500 problems found; nothing was written."


def test_the_count_left_out_follows_its_own_files_problems(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "N more problems not shown" closes its file's list, before the next file's
    # problems, in the text and in the JSON alike.
    notes = "".join(f"  - id: n{i}\n    front: q\n" for i in range(150))
    project = _project(tmp_path, "deck: Flood\nnotes:\n" + notes)
    (project / "cards" / "other.yaml").write_text("deck: O\nnotes:\n  - id: a\n    front: q\n")
    monkeypatch.chdir(project)
    lines = cli("check").err.splitlines()
    assert lines[99].startswith("cards/ko.yaml:") and lines[101].startswith("cards/other.yaml:3:")
    assert lines[100] == "cards/ko.yaml: 50 more problems not shown"
    problems = json.loads(cli("check", "--json").out)["problems"]
    assert problems[100] == {"file": "cards/ko.yaml", "more_problems": 50}
    assert problems[101]["file"] == "cards/other.yaml" and len(problems) == 102


def test_long_values_are_shortened_and_controls_escaped() -> None:
    shown = printable("x" * (MAX_LINE + 500) + "\nshort \x9b line")
    first, second = shown.split("\n")
    assert first == "x" * MAX_LINE + "... (500 more characters)"
    assert second == "short \\x9b line"
    assert printable("file\udcff.png") == "file?.png"


FORGED = "a\n    nid:1700000000000 delete.png"  # would print a line of its own
REVERSED = "photo\u202egnp.exe"  # U+202E shows the rest backwards: "photoexe.png"


def _no_forged_line(run: Run) -> None:
    text = run.out + run.err
    assert not any(line.lstrip().startswith("nid:") for line in text.splitlines()), text
    assert "\u202e" not in text


@pytest.mark.parametrize("command", ["check", "build"])
def test_line_breaks_and_direction_controls_in_file_names_are_shown_escaped(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Media files named with a line break (printing a forged "nid:" line like the one a
    learner searches to delete notes) and with a right-to-left override (issue 45)."""
    project = _project(tmp_path)
    (project / "media").mkdir()
    for name in (FORGED, REVERSED):
        (project / "media" / name).write_bytes(b"x")
    monkeypatch.chdir(project)
    result = cli(command)
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    for name in ("a\\n    nid:1700000000000 delete.png", "photo\\u202egnp.exe"):
        assert (
            f"media/{name}: warning [unused-media]: no card uses this file; it is not packaged"
            in lines
        )
    _no_forged_line(result)


def test_a_missing_media_name_with_a_line_break_is_one_line(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference whose address decodes to a line break names the file escaped."""
    card = "deck: D\nid: d\nnotes:\n  - id: a\n    front: '![](a%0Anid:1.png)'\n    back: b\n"
    monkeypatch.chdir(_project(tmp_path, card))
    result = cli("check")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "cards/ko.yaml:5: note 'a': media file 'a\\nnid:1.png' not found in media/ or cards/"
    )
    _no_forged_line(result)


def test_a_card_file_named_with_a_line_break_is_shown_escaped(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card file's own name, in build's lines and in a problem's place."""
    project = _project(tmp_path)
    named = project / "cards" / "ko\n    nid:1 \u202e.yaml"
    (project / "cards" / "ko.yaml").rename(named)
    monkeypatch.chdir(project)
    built = cli("build")
    assert built.code == 0, built.err
    assert "한국어 덱  (cards/ko\\n    nid:1 \\u202e.yaml)" in built.out.splitlines()
    _no_forged_line(built)
    named.write_text(KOREAN + "    bogus: 1\n", encoding="utf-8")
    failed = cli("check")
    assert failed.code == 1
    assert failed.err.startswith("cards/ko\\n    nid:1 \\u202e.yaml:7: note 'a': ")
    _no_forged_line(failed)
