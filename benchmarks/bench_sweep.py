"""By hand: the whole retention sweep (30 forecasts and the optimum's search) for 10,000
cards over 365 days, against one call of Anki's simulate_fsrs_workload for the same
workload. Issue 22 asks for at most twice Anki's time. Also the sweep of the bundled
21-card deck (10 new a day, review limit 100), simulated in copies: it should take no
longer than the large deck's.

    python3 benchmarks/bench_sweep.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deckbuilder.schedule import PreviewSettings
from deckbuilder.schedule.sweep import sweep
from tests.preview.test_sweep import anki_workload


def main() -> None:
    from anki.collection import Collection

    settings = PreviewSettings(new_per_day=100, review_limit=None)
    start = time.perf_counter()
    ours = sweep(10_000, settings, 365)
    ours_seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(str(Path(folder) / "collection.anki2"))
        start = time.perf_counter()
        anki_workload(col, 10_000, 100)
        anki_seconds = time.perf_counter() - start
        col.close()
    start = time.perf_counter()
    small = sweep(21, PreviewSettings(new_per_day=10, review_limit=100), 365)
    small_seconds = time.perf_counter() - start
    print(f"sweep (optimal {ours.optimal_retention:.2f}): {ours_seconds:.2f} s")
    print(f"sweep of 21 cards (optimal {small.optimal_retention:.2f}): {small_seconds:.2f} s")
    print(f"Anki simulate_fsrs_workload: {anki_seconds:.2f} s")
    print(f"ratio: {ours_seconds / anki_seconds:.2f} (at most 2)")


if __name__ == "__main__":
    main()
