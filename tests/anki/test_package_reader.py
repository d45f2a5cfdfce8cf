"""Reading Anki's files with limits ("Hostile input, round 3", items 3 and 5): packages
and collections that are bombs, endless reads or malformed are refused in one line that
names the file and the fault (exit 1, never 3), in bounded time and memory; a note that
cannot be read is left out with a warning while the others are imported."""

from __future__ import annotations

import json
import os
import sqlite3
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import zstandard

from deckbuilder.anki import collection as collection_module
from deckbuilder.anki import package_reader
from deckbuilder.anki.history import read_reviews
from deckbuilder.anki.package_reader import read_package
from deckbuilder.errors import DeckError
from tests.anki.anki_files import (
    BASIC,
    MODELS,
    TABLES,
    collection,
    media_entries,
    package,
    time_limit,
    zstd_zeros,
)
from tests.conftest import Run

CliRun = Callable[..., Run]
RECURSIVE = (
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS {columns} FROM r"
)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refusal(run: Run, source: Path | str) -> str:
    """The one problem line of a refused command, checked to name ``source``."""
    assert run.code == 1, (run.code, run.err)
    assert "Traceback" not in run.err
    lines = [line for line in run.err.splitlines() if "problem found" not in line]
    assert len(lines) == 1, run.err
    assert lines[0].startswith(f"{source}: ") or lines[0].startswith("Error: --history:")
    return lines[0]


@contextmanager
def peak_memory(limit_mb: float) -> Iterator[None]:
    """Fail when the block's Python allocations ever reach ``limit_mb`` megabytes."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    assert peak < limit_mb, f"peak {peak:.0f} MB"


def current_package(path: Path, tmp_path: Path, **options: Any) -> Path:
    """A package in Anki's current layout (zstd collection, protobuf media list)."""
    db = collection(tmp_path / "current.anki2")
    return package(path, db, member="collection.anki21b", **options)


# -- only regular files ------------------------------------------------------------------
def test_a_fifo_named_as_a_package_or_history_is_refused_without_blocking(
    here: Path, cli: CliRun
) -> None:
    os.mkfifo(here / "pipe.apkg")
    collection(here / "deck.anki2")
    (here / "deck.yaml").write_text(
        "deck: D\nstudy:\n  history: pipe.apkg\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    with time_limit(20):
        line = refusal(cli("import", "pipe.apkg"), "pipe.apkg")
        preview = cli("preview", "deck.yaml", "--history", "pipe.apkg")
        checked = cli("check", "deck.yaml")
    assert "is a named pipe (FIFO), not a file" in line
    assert "is a named pipe (FIFO)" in refusal(preview, "pipe.apkg")
    assert checked.code == 1 and "'history'" in checked.err


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_named_as_a_history_is_refused(
    here: Path, cli: CliRun, project: Path, device: str
) -> None:
    with time_limit(20):
        line = refusal(cli("preview", "cards/", "--history", device), device)
    assert "is a character device, not a file" in line


# -- bombs ---------------------------------------------------------------------------------
def test_zstd_media_that_unpack_to_a_gigabyte_are_refused_in_bounded_memory(
    here: Path, cli: CliRun
) -> None:
    """A 244 KB package whose zstd media expand to gigabytes ended in MemoryError (exit 3)
    at 2.5 GB."""
    bomb = current_package(
        here / "bomb.apkg",
        here,
        media=media_entries(["big.png"]),
        files={"0": zstd_zeros(2**30)},
        compression=zipfile.ZIP_STORED,
    )
    assert bomb.stat().st_size < 300_000
    with time_limit(60), peak_memory(150):
        line = refusal(cli("import", "bomb.apkg"), "bomb.apkg")
    assert "the package unpacks to more than" in line and "far more than a real package" in line
    assert not (here / "media").exists()


def test_a_zstd_collection_bomb_is_refused_before_it_is_read_whole(here: Path, cli: CliRun) -> None:
    """A 212 KB zstd collection was unpacked whole into memory (2 GB) before being found
    broken; now it is unpacked to disk in chunks and stopped at the package's allowance."""
    package(here / "bomb.colpkg", None, files={"collection.anki21b": zstd_zeros(2**30)})
    with time_limit(60), peak_memory(20):
        line = refusal(cli("import", "bomb.colpkg"), "bomb.colpkg")
    assert "the package unpacks to more than" in line


def test_a_deflated_collection_bomb_is_refused_before_unpacking(here: Path, cli: CliRun) -> None:
    """A 995 KB deflated collection was unpacked whole into memory before being found
    broken; its declared size is checked first."""
    with (
        zipfile.ZipFile(here / "bomb.apkg", "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open("collection.anki2", "w", force_zip64=True) as member,
    ):
        for _ in range(256):
            member.write(bytes(1 << 20))
    assert (here / "bomb.apkg").stat().st_size < 1_000_000
    with time_limit(20), peak_memory(20):
        line = refusal(cli("import", "bomb.apkg"), "bomb.apkg")
    assert "the package unpacks to more than" in line


def test_a_media_file_over_its_own_limit_is_refused(
    here: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(package_reader, "MAX_MEDIA_FILE_BYTES", 1000)
    package(
        here / "big.apkg",
        collection(here / "c.anki2"),
        media={"0": "a.png"},
        files={"0": bytes(1001)},
    )
    line = refusal(cli("import", "big.apkg"), "big.apkg")
    assert "its media file 'a.png' unpacks to more than 1,000 bytes; it is not read" in line


# -- SQLite --------------------------------------------------------------------------------
def test_a_recursive_cards_view_does_not_hang_import(here: Path, cli: CliRun) -> None:
    tables = dict(
        TABLES, cards=f"CREATE VIEW cards AS {RECURSIVE.format(columns='nid, 1 AS did, 0 AS ord')}"
    )
    package(here / "view.apkg", collection(here / "c.anki2", tables=tables))
    with time_limit(20):
        line = refusal(cli("import", "view.apkg"), "view.apkg")
    assert "its cards table is a view, which Anki never writes; it is not read" in line


def test_a_recursive_revlog_view_does_not_hang_check_build_or_preview(
    here: Path, cli: CliRun
) -> None:
    columns = "cid, n AS id, 3 AS ease, 1 AS type, 0 AS factor"
    tables = dict(TABLES, revlog=f"CREATE VIEW revlog AS {RECURSIVE.format(columns=columns)}")
    collection(here / "history.anki2", tables=tables)
    (here / "deck.yaml").write_text(
        "deck: D\nstudy:\n  history: history.anki2\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    with time_limit(60):
        checked = cli("check", "deck.yaml")
        built = cli("build", "deck.yaml", "--out", "out")
        previewed = cli("preview", "deck.yaml")
    for run in (checked, built):
        assert run.code == 0, run.err
        assert "its revlog table is a view" in run.err
    assert previewed.code == 1 and "its revlog table is a view" in previewed.err


def test_a_computed_column_is_refused(here: Path, cli: CliRun) -> None:
    tables = dict(
        TABLES, notes="CREATE TABLE notes (id, guid, mid, mod, tags, raw, flds AS (raw || raw))"
    )
    db = collection(here / "c.anki2", tables=tables, notes=[])
    package(here / "computed.apkg", db)
    line = refusal(cli("import", "computed.apkg"), "computed.apkg")
    assert "its notes table computes column 'flds'" in line


def test_reading_stops_at_its_step_allowance(
    here: Path, cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allowance is what stops any query that runs away; here it is set to nothing."""
    monkeypatch.setattr(collection_module, "BASE_STEPS", 0)
    monkeypatch.setattr(collection_module, "STEPS_PER_BYTE", 0)
    notes = [(i, f"g{i}", 1, 0, "", "a\x1fb") for i in range(2000)]
    package(here / "deck.apkg", collection(here / "c.anki2", notes=notes, cards=[]))
    line = refusal(cli("import", "deck.apkg"), "deck.apkg")
    assert "reading the collection took more than 0 steps" in line


# -- histories -----------------------------------------------------------------------------
def test_a_card_reviewed_12000_times_is_read_and_fitted_in_linear_memory(tmp_path: Path) -> None:
    """It took 48 s and 1.8 GB in preview --history: every item held the card's whole
    history up to it. Now an item longer than the optimizer trains on is a stand-in."""
    from deckbuilder.preview.settings import fit_history
    from deckbuilder.schedule.fit import ReviewLog, training_items

    day, start = 86_400_000, 600_000_000_000  # 1989: the last of 12,000 days is before today
    log = [(start, 5, 3, 0, 0)]
    log += [(start + k * day, 5, 1 if k % 7 == 0 else 3, 1, 2500) for k in range(1, 12_000)]
    path = collection(tmp_path / "long.anki2", revlog=log)
    with time_limit(60), peak_memory(100):
        revlog, rollover = read_reviews(path)
        items = training_items(ReviewLog(*revlog), rollover)
        assert len(items) == 11_999
        assert sum(map(len, items)) <= 258 * len(revlog.cards)
        assert fit_history(path).reviews == 11_999


@pytest.mark.parametrize(
    ("row", "what"),
    [
        ((1, 5, "three", 1, 2500), "entry 1 whose ease is 'three'"),
        ((2, "five", 3, 1, 2500), "entry 2 whose card id is 'five'"),
        ((3, 5, 3, b"\x01", 0), "entry 3 whose type is"),
    ],
)
def test_a_review_log_entry_that_is_not_numbers_is_one_line(
    here: Path, cli: CliRun, row: tuple[object, ...], what: str
) -> None:
    """A study block's history with a text ease ended in exit 3."""
    collection(here / "history.anki2", revlog=[row])
    (here / "deck.yaml").write_text(
        "deck: D\nstudy:\n  history: history.anki2\nnotes: [{id: a, front: f, back: b}]\n",
        encoding="utf-8",
    )
    checked = cli("check", "deck.yaml")
    assert checked.code == 0, checked.err
    assert f"its review log holds an {what}" in checked.err
    line = refusal(cli("preview", "deck.yaml", "--history", "history.anki2"), "history.anki2")
    assert f"its review log holds an {what}" in line


def test_a_mnemosyne_database_is_not_called_an_anki_collection(here: Path, cli: CliRun) -> None:
    db = sqlite3.connect(here / "default.db")
    db.execute("CREATE TABLE facts (_id INTEGER PRIMARY KEY, id TEXT)")
    db.execute("CREATE TABLE cards (_id INTEGER PRIMARY KEY, id TEXT, _fact_id INTEGER)")
    db.execute("CREATE TABLE log (_id INTEGER PRIMARY KEY, event_type INTEGER)")
    db.commit()
    db.close()
    line = refusal(cli("import", "default.db"), "default.db")
    assert "a database, but not an Anki collection" in line
    assert "Anki collection, not an export" not in line
    history = refusal(cli("preview", "default.db", "--history", "default.db"), "default.db")
    assert "not an Anki collection: it has no revlog table" in history


# -- malformed packages --------------------------------------------------------------------
NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"models": "not json"}, "its note types (col.models) are not JSON"),
        ({"models": [BASIC]}, "its note types (col.models) are not a JSON object"),
        ({"models": NESTED}, "its note types (col.models) are JSON nested too deeply"),
        ({"models": b"\xff\xfe"}, "its note types (col.models) are not JSON"),
        ({"models": 7}, "its note types (col.models) are not JSON text"),
        (
            {"models": {"1": {k: v for k, v in BASIC.items() if k != "flds"}}},
            "note type 'Basic': its fields ('flds') are not a list",
        ),
        (
            {"models": {"1": dict(BASIC, tmpls=[{"name": "Card 1", "ord": 0}])}},
            "note type 'Basic': its templates ('tmpls') hold one without text under name, qfmt, afmt",
        ),
        ({"models": {"1": dict(BASIC, id="x")}}, "note type 'Basic': its id is 'x', not a number"),
        ({"models": {"1": dict(BASIC, id=10**30)}}, "note type 'Basic': its id is"),
        ({"models": {"1": dict(BASIC, name=None)}}, "note type '1': its name is not text"),
        (
            {"decks": {"1": {"id": "one", "name": "Default"}}},
            "deck 'Default': its id is 'one', not a number",
        ),
        ({"decks": "{"}, "its decks (col.decks) are not JSON"),
        ({"decks": None}, "its decks (col.decks) are not JSON text"),
        (
            {"tables": {k: v for k, v in TABLES.items() if k != "notes"}},
            "not an Anki collection: it has no notes table",
        ),
    ],
)
def test_a_malformed_collection_is_one_line(
    here: Path, cli: CliRun, options: dict[str, Any], expected: str
) -> None:
    package(here / "bad.apkg", collection(here / "c.anki2", **options))
    assert expected in refusal(cli("import", "bad.apkg"), "bad.apkg")


@pytest.mark.parametrize(
    ("media", "expected"),
    [
        ([], "the package's media list is a list, not a JSON object of file names"),
        (None, "the package's media list is null"),
        ({"0": "a\x00b.png"}, "names a media file 'a\\x00b.png' holding a control character"),
        (
            {"0": "\x1b]0;owned\x07\x1b[2J.png"},
            "names a media file '\\x1b]0;owned\\x07\\x1b[2J.png'",
        ),
        (b'{"0": "\\ud800.png"}', "names a media file '\\ud800.png' that is not valid Unicode"),
        ({"0": "../outside.png"}, "names a media file '../outside.png' with a folder"),
        ({"0": "x" * 300}, "longer than a file name may be (255 bytes)"),
        ({"zero": "a.png"}, "the package's media list maps 'zero' to 'a.png'"),
        ({"0": 5}, "the package's media list maps '0' to '5'"),
        (b"[" * 100_000, "the package's media list is JSON nested too deeply"),
        (b"\xff", "cannot read the package's media list"),
    ],
)
def test_a_malformed_media_list_is_one_line(
    here: Path, cli: CliRun, media: object, expected: str
) -> None:
    files = {"0": b"picture"}
    media_bytes = b"null" if media is None else media
    package(here / "bad.apkg", collection(here / "c.anki2"), media=media_bytes, files=files)
    line = refusal(cli("import", "bad.apkg"), "bad.apkg")
    assert expected in line
    assert "\x1b" not in line and "\x00" not in line
    assert not (here / "media").exists()


@pytest.mark.parametrize(
    ("media", "expected"),
    [
        (
            zstandard.ZstdCompressor().compress(b"\x0a\x05\x0a\x03\xff\xfe\xfd"),
            "cannot read the package's media list",
        ),
        (
            zstandard.ZstdCompressor().compress(b"\xff\xff\xff"),
            "cannot read the package's media list",
        ),
        (b"\x28\xb5\x2f\xfd broken", "cannot read the package"),
    ],
)
def test_a_malformed_protobuf_media_list_is_one_line(
    here: Path, cli: CliRun, media: bytes, expected: str
) -> None:
    current_package(here / "bad.apkg", here, media=media, files={"0": b"x"})
    assert expected in refusal(cli("import", "bad.apkg"), "bad.apkg")


def test_protobuf_media_names_are_checked_as_json_ones(here: Path, cli: CliRun) -> None:
    current_package(here / "bad.apkg", here, media=media_entries(["ok.png", "b\x00d.png"]))
    assert "names a media file 'b\\x00d.png' holding a control character" in refusal(
        cli("import", "bad.apkg"), "bad.apkg"
    )


def _flag(path: Path, member: str, local: int, value: bytes) -> None:
    """Overwrite the bytes at offset ``local`` of ``member``'s local header, and the same
    field of its central directory record (two bytes further on)."""
    data = bytearray(path.read_bytes())
    info = zipfile.ZipFile(path).getinfo(member)
    name = member.encode()
    central = next(
        at
        for at in range(len(data))
        if data.startswith(b"PK\x01\x02", at) and data[at + 46 : at + 46 + len(name)] == name
    )
    for start in (info.header_offset + local, central + local + 2):
        data[start : start + len(value)] = value
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("encrypted", "its collection is encrypted, which Anki never does"),
        ("method", "its collection is compressed with method 99, which Anki never uses"),
        ("no collection", "not an Anki package: it holds no collection"),
        ("not sqlite", "cannot read the collection: file is not a database"),
        ("truncated", "cannot read the package"),
    ],
)
def test_a_damaged_zip_is_one_line(here: Path, cli: CliRun, damage: str, expected: str) -> None:
    path = here / "bad.apkg"
    if damage == "no collection":
        package(path, None, files={"readme": b"hello"})
    elif damage == "not sqlite":
        package(path, b"not a database at all " * 100)
    else:
        package(path, collection(here / "c.anki2"))
    if damage == "encrypted":
        _flag(path, "collection.anki2", 6, b"\x01\x00")
    elif damage == "method":
        _flag(path, "collection.anki2", 8, b"\x63\x00")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:-30])
    assert expected in refusal(cli("import", "bad.apkg"), "bad.apkg")


# -- notes read one by one -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ((102, "g3", 1, 1_700_000_000, "", b"\xff\xfe\x1fback"), "its fields are not text"),
        ((102, "g3", 1, "yesterday", "", "front\x1fback"), "its modification time is not a number"),
        (
            (102, "g3", "Basic", 1_700_000_000, "", "front\x1fback"),
            "its note type id is not a number",
        ),
        ((102, None, 1, 1_700_000_000, "", "front\x1fback"), "its guid is not text"),
        (("x", "g3", 1, 1_700_000_000, "", "front\x1fback"), "its id is not a number"),
    ],
)
def test_a_note_that_cannot_be_read_is_left_out_with_a_warning(
    here: Path, cli: CliRun, bad: tuple[object, ...], reason: str
) -> None:
    """Issue 33 wants note-by-note import: one bad note no longer refuses the package."""
    from tests.anki.anki_files import NOTES

    package(here / "deck.apkg", collection(here / "c.anki2", notes=[*NOTES, bad]))
    read = read_package(here / "deck.apkg")
    assert [n.guid for n in read.notes] == ["guid-one", "guid-two"]
    assert [u.reason[: len(reason)] for u in read.unreadable] == [reason]
    run = cli("import", "deck.apkg")
    assert run.code == 0, run.err
    assert "2 notes imported" in run.out
    who = "note ?" if bad[0] == "x" else "note 102"
    assert f"warning: skipped {who}: {reason}" in run.err


def test_a_package_deckbuilder_built_reads_back_whole(
    tmp_path: Path, cli: CliRun, project: Path
) -> None:
    """genanki writes a note type's id as JSON text ("1607392319"): read as a number, as
    before the reader checked its JSON."""
    built = cli("build", "cards/", "--lang", "en", "--out", tmp_path / "out", "--no-preview")
    assert built.code == 0, built.err
    (path,) = (tmp_path / "out").glob("*.apkg")
    read = read_package(path)
    assert read.notes and not read.unreadable
    assert {note.type_id for note in read.notes} <= set(read.note_types)
    assert all(isinstance(type_id, int) for type_id in read.note_types)


def test_note_fields_stored_as_utf8_blobs_are_read_as_text(tmp_path: Path) -> None:
    notes = [(100, "g", 1, 0, "", b"front\x1fback")]
    package(tmp_path / "deck.apkg", collection(tmp_path / "c.anki2", notes=notes))
    assert read_package(tmp_path / "deck.apkg").notes[0].fields == ("front", "back")


def test_the_reader_errors_are_deck_errors_naming_the_file(tmp_path: Path) -> None:
    package(tmp_path / "bad.apkg", collection(tmp_path / "c.anki2", models=json.dumps([])))
    with pytest.raises(DeckError) as caught:
        read_package(tmp_path / "bad.apkg")
    (problem,) = caught.value.problems
    assert problem.file == str(tmp_path / "bad.apkg") and problem.line is None
    assert MODELS  # the well-formed default is a JSON object


def test_a_note_without_cards_goes_with_the_deck_most_notes_are_in(here: Path, cli: CliRun) -> None:
    """Found by the package fuzz test: a card naming no note left the other note without a
    card, and a nameless deck of its own made ``--out`` refuse a one-deck package."""
    cards = [(0, 0, 1, 0), (1001, 101, 1, 0)]
    package(here / "deck.apkg", collection(here / "c.anki2", cards=cards))
    run = cli("import", "deck.apkg", "--out", "cards/deck.yaml")
    assert run.code == 0, run.err
    text = (here / "cards" / "deck.yaml").read_text(encoding="utf-8")
    assert "front one" in text and "front two" in text
