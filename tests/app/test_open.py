"""`build --open` (issue "The authoring loop", 3): the built packages go to Anki desktop as
a double-click on them would. On Linux that is xdg-open, after asking xdg-mime whether an
application (Anki's desktop entry) takes application/x-apkg; here both are small scripts
on PATH that record what they were given, since no desktop runs in the test."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from deckbuilder import app
from tests.conftest import Run

CliRun = Callable[..., Run]


def _script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """xdg-open and xdg-mime stand-ins first on PATH; the log of what xdg-open got."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "opened.log"
    _script(bin_dir, "xdg-open", f'echo "$1" >> "{log}"')
    _script(bin_dir, "xdg-mime", 'echo "anki.desktop"')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_build_open_hands_each_package_to_the_desktop(
    project: Path, cli: CliRun, desktop: Path
) -> None:
    result = cli("build", "--no-preview", "--open")
    assert result.code == 0, result.err
    opened = desktop.read_text(encoding="utf-8").splitlines()
    assert opened == [
        str((project / "output" / f"gradient-checkpointing.{lang}.apkg").resolve())
        for lang in ("ko", "en")
    ]
    assert "opened output/gradient-checkpointing.ko.apkg in Anki" in result.out
    assert '"Merge note types"' in result.out


def test_without_anki_the_build_stands_and_says_what_to_do(
    project: Path, cli: CliRun, desktop: Path
) -> None:
    _script(Path(os.environ["PATH"].split(os.pathsep)[0]), "xdg-mime", "true")  # nothing registered
    result = cli("build", "--no-preview", "--open")
    # Issue 44: it exited 1 after a successful build; scripts saw a failure.
    assert result.code == 0
    assert (project / "output" / "gradient-checkpointing.ko.apkg").is_file()
    assert "wrote output/gradient-checkpointing.ko.apkg" in result.out
    assert not desktop.exists()
    (line,) = result.err.splitlines()
    assert line.startswith(
        "Warning: Anki did not open it (no application is registered for application/x-apkg)"
    )
    assert "https://apps.ankiweb.net" in line and "File > Import" in line


@pytest.mark.parametrize(("platform", "command"), [("darwin", ["open"]), ("linux", ["xdg-open"])])
def test_each_system_is_asked_its_own_way(
    tmp_path: Path, platform: str, command: list[str], desktop: Path
) -> None:
    seen: list[list[str]] = []

    def run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        seen.append(list(args))
        return subprocess.CompletedProcess(args, 0, "anki.desktop\n", "")

    package = tmp_path / "deck.apkg"
    opened = app.open_packages([package], platform=platform, run=run)
    assert opened.problem is None and opened.opened == (package,)
    assert seen[-1] == [*command, str(package.resolve())]


@pytest.mark.parametrize("name", ["collection.apkg", "Backup-2026.apkg"])
def test_a_package_anki_takes_for_a_collection_is_never_opened(
    tmp_path: Path, name: str, desktop: Path
) -> None:
    """Anki desktop opens collection.apkg and backup-*.apkg as whole collections and asks
    to replace the learner's own (aqt import_export/importing.py, ColpkgImporter)."""
    opened = app.open_packages([tmp_path / name])
    assert opened.opened == () and opened.problem is not None
    assert "replace yours" in opened.problem and "another id" in opened.problem
    assert not desktop.exists()
