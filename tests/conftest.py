"""Shared fixtures: run the CLI in-process, and import packages with the real Anki backend."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from deckbuilder.cli import main

# No deadline per example: the suite runs in parallel on busy machines, and time is
# measured in benchmarks/, never asserted in a property test.
settings.register_profile("deckbuilder", deadline=None)
settings.load_profile("deckbuilder")

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Run:
    code: int
    out: str
    err: str


def start_deckbuilder(
    args: list[str], cwd: Path, env: dict[str, str], ignore: tuple[int, ...] = ()
) -> subprocess.Popen[str]:
    """Start ``deckbuilder ARGS`` in ``cwd`` as a shell starts a command: Ctrl-C, SIGTERM
    and SIGHUP at their defaults (those in ``ignore`` ignored, as ``nohup`` does).

    A child inherits ignored signals and the blocked-signal mask across exec, and
    pytest-xdist's workers ignore SIGINT, so without this a watch started by a test
    would never see the Ctrl-C the test sends."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}

    def as_from_a_shell() -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
        for signum in held:
            signal.signal(signum, signal.SIG_IGN if signum in ignore else signal.SIG_DFL)

    return subprocess.Popen(
        [sys.executable, "-m", "deckbuilder", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_shell,
    )


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright, one per test process (see tests/browser.py).
    A module's tests share the browser contexts they give back (storage cleared, pages
    closed); each module's are closed when it ends."""
    from tests.browser import chromium

    with chromium() as b:
        yield b


@pytest.fixture(scope="module", autouse=True)
def _browser_contexts_closed_after_each_module() -> Iterator[None]:
    """The browser contexts a module's tests kept open for each other (tests/browser.py)
    are closed when it ends."""
    yield
    from tests.browser import close_kept

    close_kept()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """Run ``deckbuilder ARGS`` in-process, through the same error mapping as the console script."""

    def run(*args: str | os.PathLike[str]) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def copied(source: Path, tmp_path: Path) -> Path:
    """A copy of ``source`` in ``tmp_path``: building writes a lock file beside the sources,
    and tests must never write into the repository."""
    target = tmp_path / "src" / source.name
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return target


def _tree_state() -> dict[str, bytes]:
    state: dict[str, bytes] = {}
    for folder in ("cards", "media", "tests/data"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file():
                state[str(path.relative_to(ROOT))] = path.read_bytes()
    return state


@pytest.fixture(scope="session", autouse=True)
def _repository_stays_untouched() -> Iterator[None]:
    """Guard: no test may write lock files, packages or anything else into cards/, media/
    or tests/data/ of the repository (build from copies instead)."""
    before = _tree_state()
    yield
    after = _tree_state()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"tests changed files in the repository: {changed}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project folder (cards/, media/) holding a copy of the bundled deck, as cwd."""
    shutil.copytree(ROOT / "cards", tmp_path / "cards")
    shutil.copytree(ROOT / "media", tmp_path / "media")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def collection(tmp_path: Path) -> Iterator[object]:
    """A fresh, empty Anki collection (the real backend from the ``anki`` package)."""
    from anki.collection import Collection

    folder = tmp_path / "anki"
    folder.mkdir()
    col = Collection(str(folder / "collection.anki2"))
    yield col
    col.close()


def import_package(col: object, path: Path, **options: bool) -> object:
    """Import an .apkg the way Anki desktop does by default; return the import log."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    opts = {"merge_notetypes": True, "with_scheduling": False, "with_deck_configs": False}
    opts.update(options)
    request = ImportAnkiPackageRequest(
        package_path=str(path.resolve()), options=ImportAnkiPackageOptions(**opts)
    )
    return col.import_anki_package(request).log  # type: ignore[attr-defined]


def answer_good(col: object, cid: int) -> None:
    """Answer card ``cid`` "Good" through the collection's scheduler, as the reviewer does."""
    from anki.scheduler_pb2 import CardAnswer

    card = col.get_card(cid)  # type: ignore[attr-defined]
    card.start_timer()
    states = col._backend.get_scheduling_states(card.id)  # type: ignore[attr-defined]
    answer = col.sched.build_answer(card=card, states=states, rating=CardAnswer.GOOD)  # type: ignore[attr-defined]
    col.sched.answer_card(answer)  # type: ignore[attr-defined]


def assert_imports_or_fails_cleanly(tmp_path: Path, text: str, fmt: str) -> None:
    """The importers' property: any text gives either card files that pass ``check`` and
    load back with the notes the import planned, or errors located in the input; every
    question left out is named with its line."""
    from dataclasses import replace

    from deckbuilder.app.checking import check
    from deckbuilder.app.requests import CheckRequest, Selection
    from deckbuilder.errors import DeckError
    from deckbuilder.importers import ImportOptions, plan_import, read_source, write_import
    from tests.cardfile.loading import load_deck

    source = tmp_path / f"in.{fmt}"
    source.write_bytes(text.encode("utf-8"))
    target = tmp_path / "cards" / "out.yaml"
    try:
        plan = plan_import(read_source(source, fmt), ImportOptions(out=target))
    except DeckError as exc:
        assert exc.problems and all(p.file == str(source) for p in exc.problems)
        assert all(
            p.line or "binary file" in p.message or "no notes" in p.message for p in exc.problems
        )
        return
    assert all(s.line for s in plan.skipped)
    write_import(plan, force=True)
    # Loaded back, the card file holds exactly the notes planned (lines aside)...
    loaded = [replace(note, line=0) for note in load_deck(target).notes]
    assert loaded == [replace(note, line=0) for note in plan.decks[0].notes]
    # ... and passes check.
    checked = check(CheckRequest(Selection(sources=(target,), media_dir=None), lint=False))
    assert checked.notes == len(loaded)
