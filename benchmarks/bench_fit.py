"""By hand: fitting FSRS parameters from a generated history of about 4,000 reviews,
against Anki's own fit (compute_fsrs_params) of the same collection. Issue 22 asks for
at most twice Anki's time.

    python3 benchmarks/bench_fit.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from deckbuilder.preview.settings import fit_history
from tests.anki.test_history import anki_fit, make_history


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        col = make_history(Path(folder) / "profile", cards=520, per_day=10)
        reviews = col.db.scalar("select count() from revlog")
        start = time.perf_counter()
        anki, items = anki_fit(col)
        anki_seconds = time.perf_counter() - start
        col.close()
        start = time.perf_counter()
        fitted = fit_history(Path(folder) / "profile" / "collection.anki2")
        ours_seconds = time.perf_counter() - start
    print(f"{reviews} reviews, {items} training items (ours {fitted.reviews})")
    print(f"ours (read a copy + fsrs-rs-python): {ours_seconds:.2f} s")
    print(f"Anki compute_fsrs_params: {anki_seconds:.2f} s")
    print(f"ratio: {ours_seconds / anki_seconds:.2f} (at most 2)")
    gap = max(abs(a - b) for a, b in zip(fitted.parameters, anki, strict=True))
    print(f"largest parameter difference from Anki's fit: {gap:.4f}")


if __name__ == "__main__":
    main()
