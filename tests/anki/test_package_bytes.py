"""The package is reproducible: the same deck gives the same bytes, whatever the order of
its notes in the card file, and the collection inside holds nothing from its making."""

from __future__ import annotations

import random
import sqlite3
import zipfile
from pathlib import Path

import yaml

from tests.app_calls import build_packages
from tests.conftest import DATA, copied


def _built(source: Path, out: Path, timestamp: int) -> bytes:
    (result,) = build_packages([source], out, timestamp=timestamp, media_dir=DATA / "media")
    return result.path.read_bytes()


def test_package_bytes_are_the_same_each_time(tmp_path: Path) -> None:
    source = copied(DATA / "mixed.yaml", tmp_path)
    packages = [_built(source, tmp_path / str(n), 1_700_000_000) for n in range(3)]
    assert len(set(packages)) == 1


def test_fresh_builds_at_the_same_time_give_the_same_bytes(tmp_path: Path) -> None:
    """As with SOURCE_DATE_EPOCH fixed: no lock file, the same clock, the same package."""
    source = copied(DATA / "mixed.yaml", tmp_path)
    first = _built(source, tmp_path / "a", 1_700_000_000)
    source.with_suffix(".lock").unlink()
    assert _built(source, tmp_path / "b", 1_700_000_000) == first


def test_moving_notes_around_in_the_card_file_keeps_the_package(tmp_path: Path) -> None:
    """With the lock file from the first build, the same notes in another order give the
    same package, later and whatever the clock: same ids and times, rows stored in id order.
    (The note types are stored in the order of their first note, so the notes moved here
    are all of one type.)"""
    notes = [{"id": f"n{k:02}", "front": f"question {k}", "back": f"answer {k}"} for k in range(40)]
    source = tmp_path / "cards" / "moved.yaml"
    source.parent.mkdir()

    def write(notes: list[dict[str, str]]) -> None:
        deck = {"deck": "Moved", "id": "moved", "notes": notes}
        source.write_text(yaml.safe_dump(deck, sort_keys=False), encoding="utf-8")

    write(notes)
    first = _built(source, tmp_path / "first", 1_700_000_000)
    random.Random(7).shuffle(notes)
    write(notes)
    assert _built(source, tmp_path / "second", 1_800_000_000) == first


def test_zip_members_have_fixed_names_order_and_dates(tmp_path: Path) -> None:
    source = copied(DATA / "mixed.yaml", tmp_path)
    (result,) = build_packages(
        [source], tmp_path, timestamp=1_700_000_000, media_dir=DATA / "media"
    )
    with zipfile.ZipFile(result.path) as zf:
        assert zf.testzip() is None
        infos = zf.infolist()
        assert [i.filename for i in infos] == ["collection.anki2", "media", "0"]
        assert zf.read("media") == b'{"0": "square.png"}'
        assert zf.read("0") == (DATA / "media" / "square.png").read_bytes()
    assert {(i.date_time, i.compress_type, i.external_attr >> 16) for i in infos} == {
        ((1980, 1, 1, 0, 0, 0), zipfile.ZIP_DEFLATED, 0o644)
    }


def test_scratch_settings_do_not_stay_in_the_collection(tmp_path: Path) -> None:
    """The collection is written without a journal or fsync; those are settings of the
    connection, not of the file, which Anki opens as any other. It has no free pages."""
    source = copied(DATA / "mixed.yaml", tmp_path)
    (result,) = build_packages(
        [source], tmp_path, timestamp=1_700_000_000, media_dir=DATA / "media"
    )
    rd = result.rendered
    collection = tmp_path / "collection.anki2"
    with zipfile.ZipFile(result.path) as zf:
        collection.write_bytes(zf.read("collection.anki2"))
    conn = sqlite3.connect(collection)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
        assert conn.execute("SELECT count() FROM notes").fetchone() == (len(rd.notes),)
        assert conn.execute("SELECT count() FROM cards").fetchone() == (rd.deck.card_count,)
    finally:
        conn.close()
