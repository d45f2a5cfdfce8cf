"""The package writer's shortcuts keep its output: same bytes whatever order the rows come
in, and a package Anki reads as before (see tests/test_performance_export.py for the
database compared with the straightforward writer's)."""

from __future__ import annotations

import random
import runpy
import struct
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from zlib_ng import zlib_ng

from deckbuilder import export
from deckbuilder.pipeline import check
from deckbuilder.render import RenderedDeck

from .conftest import DATA, ROOT

generate_deck = runpy.run_path(str(ROOT / "benchmarks" / "bench_build.py"))["generate_deck"]


def _generated(tmp_path: Path, n: int) -> RenderedDeck:
    (tmp_path / "media").mkdir()
    generate_deck(n, tmp_path / "bench.yaml")
    return check([tmp_path / "bench.yaml"], tmp_path / "media")[0]


def _stamps(rd: RenderedDeck) -> export.Stamps:
    """Note ids against deck order, as a deck edited over time has them."""
    ids = [rn.note.id for rn in rd.notes]
    return export.Stamps(note_ids={i: 1_700_000_000_000 - 7 * k for k, i in enumerate(ids)})


@pytest.mark.parametrize("order", ["reversed", "shuffled", "halves swapped"])
def test_package_bytes_do_not_depend_on_the_order_rows_come_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    rd = _generated(tmp_path, 600)
    stamps = _stamps(rd)
    first = export.write_package(rd, tmp_path / "first.apkg", timestamp=1, stamps=stamps)
    rows = export._rows

    def reordered(*args: Any) -> tuple[list[Any], list[Any]]:
        notes, cards = rows(*args)
        for part in (notes, cards):
            if order == "reversed":
                part.reverse()
            elif order == "shuffled":
                random.Random(7).shuffle(part)
            else:  # as if written part by part, the later part first
                part[:] = part[len(part) // 2 :] + part[: len(part) // 2]
        return notes, cards

    monkeypatch.setattr(export, "_rows", reordered)
    second = export.write_package(rd, tmp_path / "second.apkg", timestamp=1, stamps=stamps)
    assert first.path.read_bytes() == second.path.read_bytes()


def test_package_bytes_are_the_same_each_time(tmp_path: Path) -> None:
    rd = check([DATA / "mixed.yaml"], DATA / "media")[0]
    packages = [
        export.write_package(rd, tmp_path / f"{n}.apkg", timestamp=1_700_000_000).path
        for n in range(3)
    ]
    assert len({p.read_bytes() for p in packages}) == 1


# --- the zip ---------------------------------------------------------------------------


def reference_zip(path: Path, members: list[tuple[str, bytes]]) -> None:
    """The package as zipfile.writestr writes it, with zipfile's own deflate (zlib)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)


def members(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def raw(path: Path, name: str) -> bytes:
    """A member's bytes as stored (compressed), after its local header."""
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(name)
    data = path.read_bytes()
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26 :][:4])
    start = info.header_offset + 30 + name_length + extra_length
    return data[start : start + info.compress_size]


def _package(tmp_path: Path, name: str) -> Path:
    rd = check([DATA / "mixed.yaml"], DATA / "media")[0]
    assert rd.media  # media members are written the same way
    return export.write_package(rd, tmp_path / name, timestamp=1_700_000_000).path


def test_without_zlib_ng_the_package_is_what_zipfile_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "zlib_ng", None)  # importing it fails
    ours = _package(tmp_path, "ours.apkg")
    reference_zip(tmp_path / "theirs.apkg", members(ours))
    assert ours.read_bytes() == (tmp_path / "theirs.apkg").read_bytes()


def test_members_are_deflated_by_zlib_ng_at_zipfiles_level(tmp_path: Path) -> None:
    ours = _package(tmp_path, "ours.apkg")
    reference_zip(tmp_path / "theirs.apkg", members(ours))
    theirs = tmp_path / "theirs.apkg"
    assert members(ours) == members(theirs)  # same names, order and contents
    with zipfile.ZipFile(ours) as a, zipfile.ZipFile(theirs) as b:
        fields = ("filename", "date_time", "compress_type", "external_attr", "CRC", "file_size")
        assert [[getattr(i, f) for f in fields] for i in a.infolist()] == [
            [getattr(i, f) for f in fields] for i in b.infolist()
        ]
    for name, data in members(ours):
        compressor = zlib_ng.compressobj(6, zlib_ng.DEFLATED, -15)
        assert raw(ours, name) == compressor.compress(data) + compressor.flush(), name
    # zlib and zlib-ng give different streams of about the same size.
    collection = raw(ours, "collection.anki2")
    assert collection != raw(theirs, "collection.anki2")
    assert len(collection) <= 1.01 * len(raw(theirs, "collection.anki2"))
