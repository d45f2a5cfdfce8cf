"""SIGTERM and SIGHUP stop a build as Ctrl-C does: temporary files removed, the previous
package and lock file untouched, the exit status a shell expects (128 + the signal). A
build killed outright (SIGKILL) leaves temporary files the next build removes.

Real processes: a build of a generated deck is signalled while it writes its package.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import pytest

from tests.app.test_write_order import notes_of
from tests.conftest import ROOT, Run, start_deckbuilder

CliRun = Callable[..., Run]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

NOTES = 6000  # enough for writing the package to take a good part of a second
PACKAGE = Path("output/bench.apkg")
LOCK = Path("cards/bench.lock")
TEMPORARY = re.compile(r"\..*\.deckbuilder-.*\.tmp")


def generate_deck(notes: int, path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "bench_build", ROOT / "benchmarks" / "bench_build.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.generate_deck(notes, path)


def files(project: Path) -> dict[str, bytes]:
    """Every file and folder in the project's output/ and cards/ folders."""
    return {
        str(path.relative_to(project)): path.read_bytes() if path.is_file() else b"(folder)"
        for folder in ("output", "cards")
        for path in sorted((project / folder).iterdir())
    }


def build(project: Path, epoch: int, ignore: tuple[int, ...] = ()) -> subprocess.Popen[str]:
    """Start ``deckbuilder build`` in ``project``, with a temporary folder of its own and
    the given signals ignored (as ``nohup`` ignores SIGHUP), all others as by default."""
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch), TMPDIR=str(project / "tmp"))
    (project / "tmp").mkdir(exist_ok=True)
    return start_deckbuilder(["build", "--no-preview"], project, env, ignore)


def signal_while_writing(proc: subprocess.Popen[str], project: Path, signum: int) -> None:
    """Send ``signum`` once the build has begun writing its package's collection."""
    deadline = time.monotonic() + 120
    while not list((project / "output").glob(".*.deckbuilder-*.tmp/collection.anki2")):
        assert proc.poll() is None, "the build ended before it wrote anything"
        assert time.monotonic() < deadline, "the build never started writing"
        time.sleep(0.002)
    proc.send_signal(signum)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with a generated deck, built once, then edited so that the next build
    replaces both its package and its lock file."""
    project = tmp_path_factory.mktemp("signals")
    (project / "output").mkdir()
    (project / "cards").mkdir()
    generate_deck(NOTES, project / "cards" / "big.yaml")
    first = build(project, 1_700_000_000)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    source = project / "cards" / "big.yaml"
    source.write_text(
        source.read_text(encoding="utf-8").replace("The *cached* value", "The *stored* value"),
        encoding="utf-8",
    )
    return project


@pytest.fixture
def project(built: Path, tmp_path: Path) -> Path:
    shutil.copytree(built, tmp_path / "project")
    return tmp_path / "project"


def assert_consistent(project: Path) -> None:
    """The package's notes have the ids and modification times its lock file gives them."""
    from deckbuilder.lock.format import read_manifest

    manifest = read_manifest(project / LOCK)
    assert manifest is not None
    in_lock = sorted((n.anki_id, n.changed) for n in manifest.notes.values())
    in_package = [(nid, mod) for nid, _, mod, _ in notes_of(project / PACKAGE)]
    assert in_package == in_lock


@pytest.mark.parametrize(
    ("signum", "status"),
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_a_signal_while_writing_replaces_nothing(project: Path, signum: int, status: int) -> None:
    before = files(project)
    proc = build(project, 1_800_000_000)
    signal_while_writing(proc, project, signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == status, err
    assert err.endswith("Interrupted; nothing was replaced.\n") and "Traceback" not in err
    assert files(project) == before
    assert os.listdir(project / "tmp") == []
    assert_consistent(project)


def test_sighup_ignored_by_nohup_stays_ignored(project: Path) -> None:
    before = files(project)
    proc = build(project, 1_800_000_000, ignore=(signal.SIGHUP,))
    signal_while_writing(proc, project, signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    after = files(project)
    assert sorted(after) == sorted(before)
    assert after[str(PACKAGE)] != before[str(PACKAGE)] and after[str(LOCK)] != before[str(LOCK)]
    assert_consistent(project)


def test_the_next_build_removes_what_a_killed_build_left(project: Path) -> None:
    before = files(project)
    proc = build(project, 1_800_000_000)
    signal_while_writing(proc, project, signal.SIGKILL)
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    left = files(project)
    leftovers = sorted(name for name in left if name not in before)
    assert leftovers and all(TEMPORARY.fullmatch(Path(name).name) for name in leftovers)
    assert {name: left[name] for name in before} == before  # the previous files, untouched
    assert os.listdir(project / "tmp") == []  # nothing outside the project either
    assert_consistent(project)

    again = build(project, 1_900_000_000)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    after = files(project)
    assert sorted(after) == sorted(before)
    assert after[str(PACKAGE)] != before[str(PACKAGE)] and after[str(LOCK)] != before[str(LOCK)]
    assert_consistent(project)


# --- in this process: the moment a signal arrives is chosen exactly ---------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_between_two_renames_puts_back_the_first(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """The lock file is in place, its package not yet: the lock file goes back."""
    before = files(project)
    real = os.replace

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == PACKAGE.name and ".deckbuilder-" in Path(src).name:
            assert files(project)[str(LOCK)] != before[str(LOCK)]  # the new lock is in place
            signal.raise_signal(signum)
        real(src, dst)

    monkeypatch.chdir(project)
    monkeypatch.setattr(os, "replace", replace)
    result = cli("build", "--no-preview")
    assert result.code == 128 + signum
    assert result.err.endswith("Interrupted; nothing was replaced.\n")
    assert files(project) == before
    assert signal.getsignal(signum) == signal.SIG_DFL  # the handler is gone with the command


def test_a_signal_after_writing_says_what_was_written(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deckbuilder.cli import output as console

    real = console.build_lines

    def interrupted(*args: object) -> list[str]:
        signal.raise_signal(signal.SIGTERM)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.chdir(project)
    monkeypatch.setattr("deckbuilder.cli.authoring.build_lines", interrupted)
    result = cli("build", "--no-preview")
    assert result.code == 143
    assert result.err.endswith(f"Interrupted; already written: {LOCK}, {PACKAGE}.\n")
    assert_consistent(project)


@pytest.fixture
def sigterm_after_renames(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM the moment a Staging has renamed all its files, before its caller returns."""
    from deckbuilder.files.atomic import Staging

    real = Staging.commit

    def interrupted(self: Staging, replaced: list[Path] | None = None) -> None:
        real(self, replaced)
        signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(Staging, "commit", interrupted)


@pytest.mark.usefixtures("sigterm_after_renames")
def test_a_signal_right_after_the_last_rename_says_what_was_written(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are new from the last rename on: an interrupt that comes before the
    build has even returned its results says so (the lock is renamed first)."""
    monkeypatch.chdir(project)
    before = files(project)
    result = cli("build", "--no-preview")
    assert result.code == 143
    assert result.err.endswith(f"Interrupted; already written: {LOCK}, {PACKAGE}.\n")
    assert files(project) != before
    assert_consistent(project)


@pytest.mark.usefixtures("sigterm_after_renames")
def test_an_import_interrupted_after_writing_says_what_was_written(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiz = tmp_path / "quiz.txt"
    quiz.write_text("1. What is 2 + 2?\nA. 3\nB. 4\nAnswer: B\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = cli("import", quiz, "--out", "cards/quiz.yaml")
    assert result.code == 143
    assert result.err.endswith("Interrupted; already written: cards/quiz.yaml.\n")
    assert (tmp_path / "cards" / "quiz.yaml").is_file()


@pytest.mark.usefixtures("sigterm_after_renames")
def test_init_interrupted_once_written_keeps_the_whole_project(
    tmp_path: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("init", "deck")
    assert result.code == 143
    assert result.err.endswith(
        f"Interrupted; already written: {Path('deck/cards/example.yaml')}.\n"
    )
    assert sorted(p.name for p in (tmp_path / "deck").iterdir()) == ["cards", "media", "output"]


def test_a_signal_whose_interrupt_was_lost_still_ends_the_command(
    project: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python drops an exception raised in a weak reference callback; the build then runs
    to its end, and says so."""
    from deckbuilder.app import packages as pipeline

    real = pipeline.remove_stale

    def lost(target: Path) -> None:
        # Dropped, as Python drops an exception in a weak reference callback.
        with suppress(KeyboardInterrupt):
            signal.raise_signal(signal.SIGHUP)
        real(target)

    monkeypatch.chdir(project)
    monkeypatch.setattr(pipeline, "remove_stale", lost)
    result = cli("build", "--no-preview")
    assert result.code == 129
    assert result.err.endswith(f"Interrupted; already written: {LOCK}, {PACKAGE}.\n")
    assert_consistent(project)
