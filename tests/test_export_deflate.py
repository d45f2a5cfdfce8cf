"""A package's collection is deflated in two halves at once (export._deflate): one valid
deflate stream of exactly the collection, the same bytes every time, in a zip that
zipfile, Info-ZIP's checks and Anki all read as before."""

from __future__ import annotations

import random
import runpy
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from zlib_ng import zlib_ng

from deckbuilder import export
from deckbuilder.pipeline import check
from deckbuilder.render import RenderedDeck

from .conftest import DATA, ROOT, import_package
from .test_export_speed import raw

generate_deck = runpy.run_path(str(ROOT / "benchmarks" / "bench_build.py"))["generate_deck"]

MODULES = [pytest.param(zlib, id="zlib"), pytest.param(zlib_ng, id="zlib-ng")]
SPLIT = export._SPLIT_AT


def sample(size: int, kind: str) -> bytes:
    """Data deflate finds matches in across the cut (text repeating every few KiB), or
    none at all (random bytes: stored blocks)."""
    rng = random.Random(size)
    if kind == "random":
        return rng.randbytes(size)
    words = [bytes(rng.choices(b"abcdefgh <>/=", k=rng.randint(1, 12))) for _ in range(500)]
    text = b" ".join(rng.choices(words, k=size // 4))
    return (text * (size // max(len(text), 1) + 1))[:size]


def inflate(stream: bytes) -> bytes:
    """The stream read by zlib (not zlib-ng) as one raw deflate stream, nothing after it."""
    reader = zlib.decompressobj(-15)
    data = reader.decompress(stream)
    assert reader.eof and reader.unused_data == b""
    return data


def reference_halves(zlib_module: Any, data: bytes) -> tuple[bytes, bytes]:
    """The two halves as pigz makes them: cut in the middle, the first ending in a sync
    flush, the second primed with the 32 KiB before the cut."""
    cut = len(data) // 2
    first = zlib_module.compressobj(6, zlib_module.DEFLATED, -15)
    head = first.compress(data[:cut]) + first.flush(zlib_module.Z_SYNC_FLUSH)
    second = zlib_module.compressobj(6, zlib_module.DEFLATED, -15, zdict=data[cut - 32768 : cut])
    return head, second.compress(data[cut:]) + second.flush()


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("kind", ["text", "random"])
@pytest.mark.parametrize("size", [0, 1, SPLIT - 1, SPLIT, SPLIT + 1, 3 * SPLIT + 7])
def test_deflate_gives_one_stream_of_the_data(module: Any, kind: str, size: int) -> None:
    data = sample(size, kind)
    assert inflate(export._deflate(module, data)) == data


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("size", [SPLIT, 3 * SPLIT + 7])
def test_big_data_is_two_halves_joined_at_the_middle(module: Any, size: int) -> None:
    data = sample(size, "text")
    head, tail = reference_halves(module, data)
    assert export._deflate(module, data) == head + tail
    # The first half is not the end of the stream: a reader goes on into the second.
    reader = zlib.decompressobj(-15)
    assert reader.decompress(head) == data[: size // 2] and not reader.eof
    # The dictionary pays: the second half refers back across the cut.
    alone = module.compressobj(6, module.DEFLATED, -15)
    assert len(tail) < len(alone.compress(data[size // 2 :]) + alone.flush())


@pytest.mark.parametrize("module", MODULES)
def test_small_data_is_one_ordinary_stream(module: Any) -> None:
    data = sample(SPLIT - 1, "text")
    whole = module.compressobj(6, module.DEFLATED, -15)
    assert export._deflate(module, data) == whole.compress(data) + whole.flush()


def test_deflate_gives_the_same_bytes_every_time() -> None:
    data = sample(2 * SPLIT + 3, "text")
    assert len({export._deflate(zlib_ng, data) for _ in range(8)}) == 1


class FailingSecondHalf:
    """zlib-ng, except that compressing with a dictionary (the second half) fails."""

    def __getattr__(self, name: str) -> Any:
        return getattr(zlib_ng, name)

    def compressobj(self, *args: Any, **kwargs: Any) -> Any:
        if "zdict" in kwargs:
            raise MemoryError("second half")
        return zlib_ng.compressobj(*args, **kwargs)


def test_a_failure_on_the_second_thread_is_raised_to_the_caller() -> None:
    with pytest.raises(MemoryError, match="second half"):
        export._deflate(FailingSecondHalf(), sample(SPLIT, "text"))


def test_a_member_is_deflated_in_one_write() -> None:
    compressor = export._Deflated(zlib_ng)
    assert inflate(compressor.compress(b"abc") + compressor.flush()) == b"abc"
    with pytest.raises(RuntimeError):
        compressor.compress(b"more")


# --- packages --------------------------------------------------------------------------------


def _generated(tmp_path: Path, n: int) -> RenderedDeck:
    (tmp_path / "media").mkdir()
    generate_deck(n, tmp_path / "bench.yaml")
    return check([tmp_path / "bench.yaml"], tmp_path / "media")[0]


def test_package_of_a_big_collection(tmp_path: Path, collection: object) -> None:
    """The default cut: a collection over 1 MiB is in two halves, zipfile and Anki read it."""
    rd = _generated(tmp_path, 2_500)
    package = export.write_package(rd, tmp_path / "big.apkg", timestamp=1_700_000_000).path
    with zipfile.ZipFile(package) as zf:
        assert zf.testzip() is None  # every member's CRC and size
        db = zf.read("collection.anki2")
    assert len(db) >= SPLIT
    assert raw(package, "collection.anki2") == b"".join(reference_halves(zlib_ng, db))

    col: Any = collection
    log: Any = import_package(col, package)
    assert len(log.new) == 2_500 and not log.duplicate and not log.conflicting
    cards = sum(
        len(export._card_ords(export._genanki_model(rn.spec))(rn.fields)) for rn in rd.notes
    )
    assert (col.note_count(), col.card_count()) == (2_500, cards)
    assert col.fix_integrity() == ("Database rebuilt and optimized.", True)


def test_split_package_imports_as_the_unsplit_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collection: object
) -> None:
    """The same package with its collection in one stream and in two: same members, and
    Anki sees the same notes, fields, tags and cards."""
    from anki.collection import Collection

    rd = check([DATA / "mixed.yaml"], DATA / "media")[0]
    assert rd.media
    whole = export.write_package(rd, tmp_path / "whole.apkg", timestamp=1_700_000_000).path
    monkeypatch.setattr(export, "_SPLIT_AT", 4096)  # every member over 4 KiB: the collection
    halves = export.write_package(rd, tmp_path / "halves.apkg", timestamp=1_700_000_000).path
    assert raw(whole, "collection.anki2") != raw(halves, "collection.anki2")
    with zipfile.ZipFile(whole) as a, zipfile.ZipFile(halves) as b:
        assert a.testzip() is None and b.testzip() is None
        assert [(i.filename, i.CRC, i.file_size) for i in a.infolist()] == [
            (i.filename, i.CRC, i.file_size) for i in b.infolist()
        ]
        assert [a.read(i) for i in a.infolist()] == [b.read(i) for i in b.infolist()]

    def seen(col: Any, package: Path) -> list[object]:
        import_package(col, package)
        assert col.fix_integrity() == ("Database rebuilt and optimized.", True)
        notes = [col.get_note(nid) for nid in sorted(col.find_notes(""))]
        return [
            (n.id, n.guid, n.fields, n.tags, sorted((c.id, c.ord) for c in n.cards()))
            for n in notes
        ]

    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other = Collection(str(other_dir / "collection.anki2"))
    try:
        expected = seen(other, whole)
    finally:
        other.close()
    got = seen(collection, halves)
    assert got == expected and len(got) == len(rd.notes)
