"""Nothing is written through a link that leaves the project unless the user names the
target (issue "Hostile input, round 3", 2): a shared repository can carry
``output -> /somewhere/else``; `build` wrote its packages there without a word."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder import app
from deckbuilder.errors import DeckError
from tests.conftest import ROOT, Run, start_deckbuilder

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


def test_preview_writes_no_page_through_a_linked_output(
    linked: tuple[Path, Path], cli: CliRun
) -> None:
    """preview --html wrote its pages through a linked output/ (issue 37, item 2)."""
    _, outside = linked
    result = cli("preview", "--html")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        f"output: a link to '{outside}', outside the project; no page is written through it"
    )
    assert list(outside.iterdir()) == []
    named = cli("preview", "--html-out", "output/page.html", "--lang", "en")
    assert named.code == 0, named.err
    assert [p.name for p in outside.iterdir()] == ["page.html"]


def _history_deck(project: Path, history: str) -> Path:
    card = project / "cards" / "h.yaml"
    card.write_text(
        f"deck: H\nstudy:\n  history: {history}\nnotes:\n  - {{id: a, front: f, back: b}}\n",
        encoding="utf-8",
    )
    return card


def test_a_study_block_reads_no_history_outside_the_project(
    linked: tuple[Path, Path], cli: CliRun
) -> None:
    """A card file's study block 'history:' read a collection anywhere on the disk, also
    through a linked folder (issue 37, item 2): refused at its line; the same file named
    with preview --history is read."""
    project, outside = linked
    (outside / "collection.anki2").write_bytes(b"")
    (project / "stats").symlink_to(outside, target_is_directory=True)
    for written, why in (
        ("../stats/collection.anki2", "goes through 'stats', a link to"),
        (str(outside / "collection.anki2"), f"is outside the project ({project})"),
    ):
        card = _history_deck(project, written)
        run = cli("check", "cards/h.yaml")
        assert run.code == 1
        assert run.err.startswith("cards/h.yaml:3: 'history' "), run.err
        assert why in run.err and "name the file with preview --history" in run.err
    card.unlink()
    named = cli("preview", "--history", outside / "collection.anki2")
    assert "outside the project" not in named.err  # read (an empty file is no collection)


def test_a_history_that_is_a_named_pipe_is_refused(linked: tuple[Path, Path], cli: CliRun) -> None:
    """A FIFO as the review history would block preview."""
    project, _ = linked
    os.mkfifo(project / "cards" / "reviews.anki2")
    _history_deck(project, "reviews.anki2")
    run = cli("check", "cards/h.yaml")
    assert run.code == 1
    assert "'history' 'cards/reviews.anki2' is a named pipe (FIFO), not a file" in run.err
    run = cli("preview", "--history", "cards/reviews.anki2", "cards/gradient-checkpointing.yaml")
    assert run.code == 1 and "is a named pipe (FIFO), not a file" in run.err


def test_a_lock_file_linked_out_of_the_project_is_not_read(
    linked: tuple[Path, Path], cli: CliRun
) -> None:
    """A shared deck's 'cards/x.lock -> /elsewhere' was read and parsed (found by the
    adversarial pass of issue 37): refused, and the file it points at left alone."""
    project, outside = linked
    secret = outside / "secret"
    secret.write_text("root:x:0:0\n", encoding="utf-8")
    lock = project / "cards" / "gradient-checkpointing.en.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(secret)
    run = cli("build", "--no-preview", "--out", "output")
    assert run.code == 1
    assert run.err.splitlines()[0] == (
        f"cards/gradient-checkpointing.en.lock: a link to '{secret}', outside the card file's "
        "folder; it is not read"
    )
    assert secret.read_text(encoding="utf-8") == "root:x:0:0\n"


def _watch_request(project: Path, stop: threading.Event) -> app.WatchRequest:
    return app.WatchRequest(
        clock=lambda: 1_800_000_000,
        selection=app.Selection(sources=(Path("cards"),), media_dir=Path("media")),
        out_dir=project / "out",
        lint=False,
        stop=stop,
    )


@pytest.mark.parametrize("folder", ["media", "cards"])
def test_watch_refuses_a_folder_linked_out_of_the_project(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch` with 'media -> /proc/1' watched that tree and exited 3 (issue 45): a folder
    it would watch that is a link out of the project is refused, in one line, before
    anything is watched or built."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    shutil.copytree(ROOT / "cards", project / "cards")
    shutil.copytree(ROOT / "media", outside)
    shutil.rmtree(project / folder, ignore_errors=True)
    if folder == "cards":
        shutil.copytree(ROOT / "cards", outside, dirs_exist_ok=True)
    (project / folder).symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(project)
    stop = threading.Event()
    stop.set()  # were it to start watching, it would stop at once
    with pytest.raises(DeckError) as caught:
        list(app.watch(_watch_request(project, stop)))
    assert [str(p) for p in caught.value.problems] == [
        f"{folder}: a link to '{outside}', outside the project; it is not watched"
    ]
    assert not (project / "out").exists()


def test_the_watch_command_refuses_a_linked_media_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "cards", project / "cards")
    (project / "media").symlink_to("/proc/1", target_is_directory=True)
    proc = start_deckbuilder(["watch"], project, dict(os.environ))
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 1, err
    assert err.splitlines() == [
        "media: a link to '/proc/1', outside the project; it is not watched",
        "1 problem found; nothing was written.",
    ]


def test_init_writes_nothing_through_a_cards_folder_linked_out(tmp_path: Path, cli: CliRun) -> None:
    """`init` wrote example.yaml through 'cards -> elsewhere' (issue 45)."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "cards").symlink_to(outside, target_is_directory=True)
    result = cli("init", project)
    assert result.code == 1
    assert result.err.splitlines() == [
        f"Error: {project / 'cards'} is a link to '{outside}', outside the project; "
        "nothing was changed"
    ]
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in project.iterdir()) == ["cards"]
