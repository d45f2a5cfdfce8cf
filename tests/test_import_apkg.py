"""Reading Anki packages: the current (zstd, schema 18) and legacy layouts and a
collection package give the same notes; note types deckbuilder cannot build are counted
in the report, never dropped silently; a bad package writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deckbuilder.importers.anki_package import package_notes, read_package

from .conftest import Run

pytestmark = pytest.mark.anki


def _collection_with(tmp_path: Path) -> tuple[object, int]:
    from anki.collection import Collection

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    did = col.decks.id("Verbs")
    for type_name, fields in [
        ("Basic", ["ser", "to be"]),
        ("Basic (optional reversed card)", ["ir", "to go", "y"]),
        ("Basic (optional reversed card)", ["ver", "to see", ""]),
    ]:
        note = col.new_note(col.models.by_name(type_name))  # type: ignore[arg-type]
        for i, text in enumerate(fields):
            note.fields[i] = text
        col.add_note(note, did)
    return col, did


def _export(col: object, did: int, path: Path, legacy: bool) -> Path:
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, legacy=legacy)
    col.export_anki_package(out_path=str(path), options=options, limit=DeckIdLimit(deck_id=did))  # type: ignore[attr-defined]
    return path


def test_current_legacy_and_collection_packages_read_alike(tmp_path: Path) -> None:
    col, did = _collection_with(tmp_path)
    current = _export(col, did, tmp_path / "current.apkg", legacy=False)
    legacy = _export(col, did, tmp_path / "legacy.apkg", legacy=True)
    colpkg = tmp_path / "all.colpkg"
    col.export_collection_package(str(colpkg), True, False)  # type: ignore[attr-defined]
    read = [read_package(path) for path in (current, legacy, colpkg)]
    assert read[0].notes == read[1].notes == read[2].notes
    assert [n.fields for n in read[0].notes] == [
        ("ser", "to be"),
        ("ir", "to go", "y"),
        ("ver", "to see", ""),
    ]
    types = [
        {k: v for k, v in r.note_types.items() if k in {n.type_id for n in r.notes}} for r in read
    ]
    assert types[0] == types[1] == types[2]


def test_other_note_types_are_counted_not_dropped(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    col, did = _collection_with(tmp_path)
    package = _export(col, did, tmp_path / "verbs.apkg", legacy=False)
    col.close()  # type: ignore[attr-defined]
    result = package_notes(read_package(package), str(package))
    assert [(r.name, r.count, r.imported) for r in result.report] == [
        ("Basic (optional reversed card)", 2, False),
        ("Basic", 1, True),
    ]
    monkeypatch.chdir(tmp_path)
    run = cli("import", package)
    assert run.code == 0, run.err
    assert "Basic (optional reversed card): 2 notes -> not imported" in run.out
    assert "1 note imported" in run.out


def test_not_a_package_writes_nothing(
    tmp_path: Path, cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.apkg").write_bytes(b"not a zip")
    run = cli("import", "x.apkg")
    assert run.code == 1 and "x.apkg: cannot read the package" in run.err
    assert not (tmp_path / "cards").exists()


def test_source_package_is_never_written(tmp_path: Path) -> None:
    col, did = _collection_with(tmp_path)
    package = _export(col, did, tmp_path / "verbs.apkg", legacy=False)
    before = package.read_bytes()
    read_package(package)
    assert package.read_bytes() == before
