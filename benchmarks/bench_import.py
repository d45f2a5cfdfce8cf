"""How long `deckbuilder import` takes on a large quiz, relative to loading its result.

Run by hand:  PYTHONPATH=. python benchmarks/bench_import.py [QUESTIONS]
Prints seconds and the ratio import/load: the import reads the questions, checks and
renders them in memory and writes the card file; loading reads that file once.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from deckbuilder.importers import ImportOptions, plan_import, read_text_source
from tests.cardfile.loading import load_deck


def quiz(n: int) -> str:
    parts = ["Benchmark quiz", ""]
    for i in range(1, n + 1):
        parts += [
            f"{i}. Question {i}: what does gradient checkpointing (체크포인트) trade?",
            f"   • Extra computation {i}",
            "   • Model accuracy: less",
            f"   • 디스크 공간 {i}",
            "   • Nothing ✓",
            f"해설: Activations are recomputed {i}.",
            "They are not stored.",
        ]
    return "\n".join(parts) + "\n"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    text = quiz(n)
    start = time.perf_counter()
    read = read_text_source(text, Path("bench.txt"), "quiz")
    parsed = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        plan = plan_import(read, ImportOptions(out=path))
        yaml_text = plan.files[path].decode("utf-8")
        written = time.perf_counter()
        path.write_text(yaml_text, encoding="utf-8")
        before = time.perf_counter()
        deck = load_deck(path)
        loaded = time.perf_counter()
    assert len(deck.notes) == n
    imp = written - start
    load = loaded - before
    print(f"{n} questions, {len(text) / 1e6:.1f} MB of quiz text")
    print(f"  parse {parsed - start:.2f} s, check, render and write {written - parsed:.2f} s")
    print(f"  load the card file {load:.2f} s; import/load ratio {imp / load:.2f}")


if __name__ == "__main__":
    main()
