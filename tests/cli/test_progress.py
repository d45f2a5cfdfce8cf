"""Progress bar of long builds: on a terminal's stderr only, never in pipes, -q or --json."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from deckbuilder.cli.progress import TerminalProgress, terminal_progress
from deckbuilder.progress import reporting, step

ROOT = Path(__file__).resolve().parents[2]
# The real CLI, with the bar's one-second delay and its time between draws set to zero, so
# that a small deck shows every stage.
NO_DELAY = (
    "import deckbuilder.cli.progress as p; p.DELAY = p.INTERVAL = 0; "
    "from deckbuilder.cli import run; run()"
)


def _deck(tmp_path: Path, notes: int = 600) -> Path:
    (tmp_path / "cards").mkdir()
    lines = ["deck: Progress", "id: progress", "notes:"]
    for i in range(notes):
        lines += [f"  - id: n{i}", f"    front: Question **{i}**", f"    back: Answer {i}"]
    (tmp_path / "cards" / "progress.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def _run(tmp_path: Path, *args: str, terminal: bool) -> tuple[str, str]:
    """Run ``deckbuilder build`` in ``tmp_path``: stdout to a pipe, stderr to a pseudo
    terminal (``terminal``) or a pipe. Returns (stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-c", NO_DELAY, *args]
    if not terminal:
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout, proc.stderr
    master, slave = pty.openpty()
    chunks = []
    try:
        with subprocess.Popen(
            cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=slave, text=True
        ) as proc2:
            os.close(slave)
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            out, _ = proc2.communicate()
        assert proc2.returncode == 0, b"".join(chunks)
    finally:
        os.close(master)
    return out, b"".join(chunks).decode("utf-8")


def test_build_on_a_terminal_shows_a_bar_on_stderr(tmp_path: Path) -> None:
    out, err = _run(_deck(tmp_path), "build", "--no-preview", terminal=True)
    assert "rendering" in err
    assert "/600" in err
    assert "\x1b[2K" in err  # the bar's line is erased once the build is done
    assert "\r" not in out and "\x1b" not in out  # stdout stays clean
    assert "wrote output/progress.apkg" in out


def test_build_into_a_pipe_has_no_bar(tmp_path: Path) -> None:
    out, err = _run(_deck(tmp_path), "build", "--no-preview", terminal=False)
    assert "rendering" not in err and "\r" not in err
    assert "wrote output/progress.apkg" in out


@pytest.mark.parametrize("args", [("-q", "build"), ("build", "--json")])
def test_quiet_and_json_builds_have_no_bar_even_on_a_terminal(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    _, err = _run(_deck(tmp_path), *args, "--no-preview", terminal=True)
    assert "rendering" not in err and "\x1b" not in err


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_waits_for_the_delay_then_draws_each_stage_and_erases_itself() -> None:
    clock, stream = _Clock(), _Terminal()
    bar = TerminalProgress(stream, clock=clock)
    clock.now += 0.5
    bar("rendering", 10, 100)
    assert stream.getvalue() == ""  # short builds stay silent
    clock.now += 0.6
    bar("rendering", 50, 100)
    assert "rendering" in stream.getvalue() and "50/100" in stream.getvalue()
    clock.now += 0.2
    bar("writing", 2_000, 4_000)
    assert "writing" in stream.getvalue() and "2000/4000" in stream.getvalue()
    drawn = len(stream.getvalue())
    bar.close()
    assert "\x1b[2K" in stream.getvalue()[drawn:]  # the bars are erased


def test_a_bar_never_drawn_writes_nothing_when_closed() -> None:
    stream = _Terminal()
    bar = TerminalProgress(stream)
    bar("rendering", 1, 2)
    bar.close()
    assert stream.getvalue() == ""


def test_steps_reach_only_the_installed_reporter() -> None:
    seen: list[tuple[str, int, int]] = []
    step("rendering", 1, 2)  # nobody listens: nothing happens
    with reporting(lambda *report: seen.append(report)):
        step("rendering", 3, 4)
    step("rendering", 5, 6)
    assert seen == [("rendering", 3, 4)]


@pytest.mark.parametrize(("stream", "enabled"), [(io.StringIO(), True), (_Terminal(), False)])
def test_terminal_progress_reports_to_nobody_off_a_terminal_or_when_disabled(
    stream: io.StringIO, enabled: bool
) -> None:
    with terminal_progress(stream, enabled=enabled) as bar:
        assert bar is None
    assert stream.getvalue() == ""
