"""The package writer's shortcuts keep its output: same bytes whatever order the rows come
in, and a package Anki reads as before (see tests/test_performance_export.py for the
database compared with the straightforward writer's)."""

from __future__ import annotations

import random
import runpy
from pathlib import Path
from typing import Any

import pytest

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
