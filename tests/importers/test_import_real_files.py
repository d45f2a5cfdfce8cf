"""Discrepancies that benchmarks/corpus_check.py found on real files nobody here wrote
(issue 33, "Must hold"), each kept as a small file written by the test: what Anki itself
imports from the file comes in (or is named with a reason), nothing crashes, and what is
written passes ``check``, builds and round-trips through a real collection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Run, import_package

CliRun = Callable[..., Run]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.anki
def test_a_note_changed_in_milliseconds_imports_and_round_trips(here: Path, cli: CliRun) -> None:
    """A deck shared on GitHub (Alexuspo/MojeKarticky, Literatura-Test-karticky..apkg) was
    written by a generator that stored note modification times in milliseconds, which Anki
    imports as they are; the lock file's time of such a note (year 57127) crashed import
    with exit 3. It comes in, builds, and the built deck adds and changes nothing in the
    collection that holds the original."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    (here / "anki").mkdir()
    col = Collection(str(here / "anki" / "collection.anki2"))
    did = col.decks.id("Literatura")
    note = col.new_note(col.models.by_name("Basic"))  # type: ignore[arg-type]
    note["Front"], note["Back"] = "Kdo napsal Máj?", "Karel Hynek Mácha"
    col.add_note(note, did)
    col.db.execute("update notes set mod = ?", 1_740_592_010_890)
    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=True)
    package = here / "literatura.apkg"
    col.export_anki_package(out_path=str(package), options=options, limit=DeckIdLimit(deck_id=did))

    run = cli("import", package)
    assert run.code == 0, run.err
    assert cli("check").code == 0
    assert cli("build", "--no-preview").code == 0
    before = col.get_note(note.id).fields
    log = import_package(col, here / "output" / "literatura.apkg")
    assert (len(log.new), col.note_count()) == (0, 1)  # type: ignore[attr-defined]
    assert col.get_note(note.id).fields == before
    col.close()
