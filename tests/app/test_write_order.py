"""A package and its lock file change together or not at all, and so do all the packages
of one build: whatever fails (a lock file that cannot be written, a rename refused, an
interrupt between two renames) leaves every package and lock file as it was, or the error
names exactly the files that are new. Temporary files never outlive a build, and those a
killed build left are removed by the next build writing the same files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckbuilder.app.packages import write_packages
from deckbuilder.errors import OutputError
from deckbuilder.files.atomic import Staging
from tests.app_calls import check_decks
from tests.conftest import Run

CliRun = Callable[..., Run]

KO_PACKAGE = Path("output/gradient-checkpointing.ko.apkg")
EN_PACKAGE = Path("output/gradient-checkpointing.en.apkg")
KO_LOCK = Path("cards/gradient-checkpointing.ko.lock")
EN_LOCK = Path("cards/gradient-checkpointing.en.lock")
ALL = (KO_LOCK, KO_PACKAGE, EN_LOCK, EN_PACKAGE)  # the order a build renames them in


def state(project: Path) -> dict[str, bytes]:
    """Every file and folder in the project's output/ and cards/ folders, temporary ones
    included."""
    return {
        str(path.relative_to(project)): path.read_bytes() if path.is_file() else b"(folder)"
        for folder in ("output", "cards")
        for path in sorted((project / folder).iterdir())
    }


@pytest.fixture
def changed(project: Path, cli: CliRun) -> dict[str, bytes]:
    """Both languages built once, then the card file edited so that the next build would
    replace both packages and both lock files; returns the files as they are then."""
    assert cli("build").code == 0
    source = project / "cards" / "gradient-checkpointing.yaml"
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace("무엇", "어떤 것").replace("What", "Which"), encoding="utf-8")
    return state(project)


def fail_renaming(
    monkeypatch: pytest.MonkeyPatch, target: Path, failure: BaseException
) -> list[Path]:
    """Make renaming a staged file onto ``target`` raise ``failure``; returns the targets
    renamed onto until then, in order."""
    real = os.replace
    renamed: list[Path] = []

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        staged = ".deckbuilder-" in Path(src).name and ".deckbuilder-" not in Path(dst).name
        if staged and target not in renamed:
            renamed.append(Path(dst))
            if renamed[-1] == target:
                raise failure
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    return renamed


def test_a_lock_file_that_cannot_be_written_keeps_the_previous_package(
    project: Path, cli: CliRun, changed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the new package was already in place when writing its lock file failed."""
    real = tempfile.mkstemp

    def mkstemp(*, prefix: str, suffix: str, dir: Path) -> tuple[int, str]:
        if prefix.startswith(".gradient-checkpointing.en.lock."):
            raise PermissionError(13, "Permission denied")
        return real(prefix=prefix, suffix=suffix, dir=dir)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    result = cli("build")
    assert result.code == 1
    assert result.err == (
        f"Error: cannot write {EN_LOCK}: Permission denied; no package or lock file was replaced\n"
    )
    assert state(project) == changed


@pytest.mark.parametrize("failing", ALL, ids=str)
def test_a_refused_rename_puts_back_every_file_already_renamed(
    project: Path,
    cli: CliRun,
    changed: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
    failing: Path,
) -> None:
    renamed = fail_renaming(monkeypatch, failing, OSError(1, "Operation not permitted"))
    result = cli("build")
    assert renamed == list(ALL[: ALL.index(failing) + 1])
    assert result.code == 1
    assert result.err == (
        f"Error: cannot write {failing}: Operation not permitted; the previous file was kept; "
        "no package or lock file was replaced\n"
    )
    assert state(project) == changed


@pytest.mark.parametrize("failing", ALL, ids=str)
def test_an_interrupt_between_renames_puts_back_every_file(
    project: Path,
    cli: CliRun,
    changed: dict[str, bytes],
    monkeypatch: pytest.MonkeyPatch,
    failing: Path,
) -> None:
    fail_renaming(monkeypatch, failing, KeyboardInterrupt())
    result = cli("build")
    assert result.code == 130
    assert result.err.endswith("Interrupted; nothing was replaced.\n")
    assert state(project) == changed


def test_files_that_cannot_be_put_back_are_named(
    project: Path, cli: CliRun, changed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last rename fails, and so does putting back the first lock file."""
    real = os.replace
    onto_ko_lock: list[str] = []

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == EN_PACKAGE.name and ".deckbuilder-" in Path(src).name:
            raise OSError(5, "Input/output error")
        if Path(dst).name == KO_LOCK.name:
            onto_ko_lock.append(str(src))
            if len(onto_ko_lock) == 2:  # the second rename onto it puts the previous one back
                raise OSError(5, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    result = cli("build")
    assert result.code == 1
    assert result.err == (
        f"Error: cannot write {EN_PACKAGE}: Input/output error; these files are new, as "
        f"their previous versions could not be put back: {KO_LOCK}\n"
    )
    after = state(project)
    assert after[str(KO_LOCK)] != changed[str(KO_LOCK)]  # new, as the message says
    assert {k: v for k, v in after.items() if k != str(KO_LOCK)} == {
        k: v for k, v in changed.items() if k != str(KO_LOCK)
    }


def test_a_deck_failing_to_write_replaces_no_other_deck(
    project: Path, cli: CliRun, changed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second package cannot be written (a full disk): the first, though complete,
    is not put in place either."""
    from deckbuilder.anki import package as export

    real = export._write_zip

    def write_zip(path: Path, *args: object, **kwargs: object) -> None:
        if EN_PACKAGE.name in path.name:
            raise OSError(28, "No space left on device")
        real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(export, "_write_zip", write_zip)
    result = cli("build")
    assert result.code == 1
    assert result.err == (
        f"Error: cannot write {EN_PACKAGE}: No space left on device; the previous file was "
        "kept; no package or lock file was replaced\n"
    )
    assert state(project) == changed


def test_without_hard_links_the_previous_files_are_still_put_back(
    project: Path, cli: CliRun, changed: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system without hard links (FAT, some network shares) the previous files
    are moved aside instead."""

    def no_link(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_link)
    with pytest.MonkeyPatch.context() as failing:
        fail_renaming(failing, EN_PACKAGE, OSError(1, "Operation not permitted"))
        assert cli("build").code == 1
    assert state(project) == changed
    assert cli("build").code == 0
    after = state(project)
    assert sorted(after) == sorted(changed)
    assert [path for path in ALL if after[str(path)] == changed[str(path)]] == []


def test_a_folder_where_a_package_goes_stays_where_it_is(
    project: Path, cli: CliRun, changed: dict[str, bytes]
) -> None:
    (project / EN_PACKAGE).unlink()
    (project / EN_PACKAGE).mkdir()
    (project / EN_PACKAGE / "mine.txt").write_text("my own work", encoding="utf-8")
    result = cli("build")
    assert result.code == 1
    assert result.err == (
        f"Error: cannot write {EN_PACKAGE}: Is a directory; the previous file was kept; "
        "no package or lock file was replaced\n"
    )
    assert (project / EN_PACKAGE / "mine.txt").read_text(encoding="utf-8") == "my own work"
    assert sorted(p.name for p in (project / "output").iterdir()) == sorted(
        [KO_PACKAGE.name, EN_PACKAGE.name]
    )


def test_a_lock_written_without_its_package_gives_that_package_next_build(
    project: Path,
) -> None:
    """A build killed between its two renames leaves the new lock file with the old
    package; the next build writes the package that lock file describes."""
    sources = [project / "cards"]
    write_packages(
        check_decks(sources, project / "media"), project / "output", timestamp=1_700_000_000
    )
    source = project / "cards" / "gradient-checkpointing.yaml"
    source.write_text(
        source.read_text(encoding="utf-8").replace("무엇", "어떤 것"), encoding="utf-8"
    )
    killed = project / "killed"
    write_packages(check_decks(sources, project / "media"), killed, timestamp=1_800_000_000)
    expected = notes_of(killed / KO_PACKAGE.name)
    # The state a kill between the renames leaves: the new lock, the old package.
    assert notes_of(project / KO_PACKAGE) != expected
    write_packages(
        check_decks(sources, project / "media"), project / "output", timestamp=1_900_000_000
    )
    assert notes_of(project / KO_PACKAGE) == expected


def notes_of(package: Path) -> list[tuple[object, ...]]:
    import sqlite3
    import zipfile

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "collection.anki2"
        with zipfile.ZipFile(package) as zf:
            db.write_bytes(zf.read("collection.anki2"))
        conn = sqlite3.connect(db)
        try:
            return conn.execute("SELECT id, guid, mod, flds FROM notes ORDER BY id").fetchall()
        finally:
            conn.close()


# --- temporary files left by a killed build ---------------------------------------------------


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    """``held(path)``: a live process holds ``path`` as a running build holds its
    temporary files, until the test ends."""
    holders: list[subprocess.Popen[str]] = []
    script = (
        "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY);"
        " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()"
    )

    def hold(path: Path) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        holders.append(proc)
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"

    yield hold
    for proc in holders:
        proc.communicate("")


@pytest.mark.skipif(sys.platform == "win32", reason="no flock")
def test_a_build_removes_the_temporary_files_a_killed_build_left(
    project: Path, cli: CliRun, changed: dict[str, bytes], held: Callable[[Path], None]
) -> None:
    left = [
        project / "output" / ".gradient-checkpointing.ko.apkg.deckbuilder-k1ll3d00.tmp",
        project / "output" / ".gradient-checkpointing.en.apkg.deckbuilder-abc_1234.tmp",
        project / "cards" / ".gradient-checkpointing.ko.lock.deckbuilder-k1ll3d00.tmp",
    ]
    running = project / "output" / ".gradient-checkpointing.ko.apkg.deckbuilder-running.tmp"
    others = [
        project / "output" / ".other-deck.apkg.deckbuilder-k1ll3d00.tmp",  # not written now
        project / "output" / ".gradient-checkpointing.ko.apkg.tmp",  # not ours
        project / "cards" / "gradient-checkpointing.ko.lock.deckbuilder-k1ll3d00.tmp",
    ]
    for path in [*left, running, *others]:
        path.write_bytes(b"half a file")
    scratch = project / "output" / ".gradient-checkpointing.en.apkg.deckbuilder-x7_scr4t.tmp"
    scratch.mkdir()
    (scratch / "collection.anki2").write_bytes(b"half a database")
    left.append(scratch)
    running_scratch = project / "output" / ".gradient-checkpointing.en.apkg.deckbuilder-run.tmp"
    running_scratch.mkdir()
    held(running)
    held(running_scratch)
    result = cli("build")
    assert result.code == 0, result.err
    after = state(project)
    for path in left:
        assert str(path.relative_to(project)) not in after
    for path in [running, *others]:
        assert after[str(path.relative_to(project))] == b"half a file"
    assert running_scratch.is_dir()


# --- property: any set of files is replaced whole or not at all -------------------------------

files = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d.lock", "e.apkg"]), st.booleans()),
    min_size=1,
    max_size=5,
    unique_by=lambda item: item[0],
)


@settings(max_examples=60, deadline=None)
@given(files=files, failing=st.integers(min_value=-1, max_value=4), interrupt=st.booleans())
def test_a_staged_change_replaces_every_file_or_none(
    files: list[tuple[str, bool]], failing: int, interrupt: bool
) -> None:
    """``files``: (name, whether it exists before); ``failing``: the rename that fails
    (-1: none), by an error or an interrupt. Nothing temporary is ever left."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, exists in files:
            if exists:
                (root / name).write_bytes(b"old " + name.encode())
        before = {p.name: p.read_bytes() for p in root.iterdir()}
        real = os.replace
        renames = 0

        def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
            nonlocal renames
            renames += 1
            if renames - 1 == failing:
                raise KeyboardInterrupt if interrupt else OSError(30, "Read-only file system")
            real(src, dst)

        try:
            with pytest.MonkeyPatch.context() as patch, Staging() as staging:
                for name, _ in files:
                    staging.stage_bytes(root / name, b"new " + name.encode())
                patch.setattr(os, "replace", replace)
                staging.commit()
        except (OutputError, KeyboardInterrupt):
            assert 0 <= failing < len(files)
            assert {p.name: p.read_bytes() for p in root.iterdir()} == before
        else:
            assert not 0 <= failing < len(files)
            assert {p.name: p.read_bytes() for p in root.iterdir()} == {
                name: b"new " + name.encode() for name, _ in files
            }
