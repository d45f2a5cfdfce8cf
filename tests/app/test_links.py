"""Nothing is written through a link that leaves the project unless the user names the
target (issue "Hostile input, round 3", 2): a shared repository can carry
``output -> /somewhere/else``; `build` wrote its packages there without a word."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Run

CliRun = Callable[..., Run]


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    shutil.copytree(ROOT / "cards", project / "cards")
    shutil.copytree(ROOT / "media", project / "media")
    (project / "output").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(project)
    return project, outside


def test_build_writes_no_package_through_a_linked_output(
    linked: tuple[Path, Path], cli: CliRun
) -> None:
    project, outside = linked
    result = cli("build", "--no-preview")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        f"output: a link to '{outside}', outside the project; no package is written through it"
    )
    assert list(outside.iterdir()) == []
    assert not list((project / "cards").glob("*.lock.new"))


def test_a_folder_named_with_out_is_the_users_choice(
    linked: tuple[Path, Path], cli: CliRun
) -> None:
    _, outside = linked
    result = cli("build", "--no-preview", "--out", "output")
    assert result.code == 0, result.err
    assert sorted(p.name for p in outside.iterdir()) == [
        "gradient-checkpointing.en.apkg",
        "gradient-checkpointing.ko.apkg",
    ]
