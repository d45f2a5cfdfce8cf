"""By hand: what `preview --sweep` costs beyond a plain preview, beside Anki's own workload
simulator (simulate_fsrs_workload, every retention 70% to 99% in one call) for the same
cards and settings.

    PYTHONPATH=. python benchmarks/bench_sweep.py [--repeat 3] [--large]

Rows, each timed ``--repeat`` times in turns after one warm-up run, so that a busy spell
on a shared machine slows them alike; the best time counts:

- ``preview`` and ``preview --sweep`` of the bundled deck (21 cards, 10 new a day, review
  limit 100, 365 days), each a fresh process; CPU time is the child's user + system;
- the sweep alone (``sweep()``) of those 21 cards, in this process;
- Anki's call for the 21 cards, and for as many cards as the sweep simulates per
  retention (the deck in copies: 10,017), with the deck's settings and Anki's defaults
  for the rest;
- with ``--large``: the sweep of 10,000 cards at 100 a day and Anki's call for them
  (issue 35 asks for at most 1.5 times Anki's call).

Anki's call runs on several threads, so its CPU time can exceed its wall time. Issue 46
asks for the sweep to cost at most 1.5 s beyond the preview, or no more than Anki's
simulator for the same cards.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deckbuilder.model import StudySettings  # noqa: E402
from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings  # noqa: E402
from deckbuilder.schedule.sweep import MIN_SWEEP_CARDS, sweep  # noqa: E402

DECK = "cards/gradient-checkpointing.yaml"
CARDS, NEW_PER_DAY, REVIEW_LIMIT, DAYS = 21, 10, 100, 365

Timing = tuple[float, float]  # wall, CPU seconds


def in_process(run: Callable[[], object]) -> Callable[[], Timing]:
    def timed() -> Timing:
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        return time.perf_counter() - wall, time.process_time() - cpu

    return timed


def fresh_process(*options: str) -> Callable[[], Timing]:
    command = [sys.executable, "-m", "deckbuilder", "preview", "--lang", "en", *options, DECK]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def timed() -> Timing:
        before = os.times()
        wall = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
        return time.perf_counter() - wall, cpu

    return timed


def anki_request(cards: int, new_per_day: int, review_limit: int) -> Any:
    """Anki's workload simulation of ``cards`` new cards, its defaults for the rest (two
    learning steps, one relearning step, load balancer on)."""
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    return SimulateFsrsReviewRequest(
        params=list(DEFAULT_PARAMETERS),
        desired_retention=0.9,
        deck_size=cards,
        days_to_simulate=DAYS,
        new_limit=new_per_day,
        review_limit=review_limit,
        max_interval=36500,
        search="cid:1",  # matches no card: the deck is deck_size new cards
        easy_days_percentages=[1.0] * 7,
        historical_retention=0.9,
        learning_step_count=2,
        relearning_step_count=1,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also 10,000 cards at 100 a day")
    args = parser.parse_args()
    from anki.collection import Collection

    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    copies = -(-MIN_SWEEP_CARDS // CARDS)
    deck = PreviewSettings(StudySettings(new_per_day=NEW_PER_DAY, review_limit=REVIEW_LIMIT))
    with tempfile.TemporaryDirectory() as folder:
        col: Any = Collection(str(Path(folder) / "collection.anki2"))
        workload = col._backend.simulate_fsrs_workload
        runs: dict[str, Callable[[], Timing]] = {
            "preview": fresh_process(),
            "preview --sweep": fresh_process("--sweep"),
            "sweep() of the 21 cards": in_process(lambda: sweep(CARDS, deck, DAYS)),
            "Anki, 21 cards": in_process(
                lambda: workload(anki_request(CARDS, NEW_PER_DAY, REVIEW_LIMIT))
            ),
            f"Anki, {CARDS * copies:,} cards": in_process(
                lambda: workload(anki_request(CARDS * copies, NEW_PER_DAY * copies, 10**7))
            ),
        }
        if args.large:
            large = PreviewSettings(StudySettings(new_per_day=100, review_limit=None))
            runs["sweep() of 10,000 cards"] = in_process(lambda: sweep(10_000, large, DAYS))
            runs["Anki, 10,000 cards"] = in_process(
                lambda: workload(anki_request(10_000, 100, 10**7))
            )
        for run in runs.values():
            run()  # warm-up: imports, caches
        best = {name: (float("inf"), float("inf")) for name in runs}
        for _ in range(args.repeat):
            for name, run in runs.items():
                wall, cpu = run()
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        col.close()
    print(f"load average at end:   {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    best["--sweep beyond the preview"] = (
        best["preview --sweep"][0] - best["preview"][0],
        best["preview --sweep"][1] - best["preview"][1],
    )
    print(f"{DAYS} days, best of {args.repeat}: {'wall s':>8} {'cpu s':>8}")
    for name, (wall, cpu) in best.items():
        print(f"  {name:<32} {wall:8.2f} {cpu:8.2f}")
    print("budget: --sweep beyond the preview at most 1.5 s, or no more than Anki's call")
    for anki in (name for name in best if name.startswith("Anki")):
        ours = "sweep() of 10,000 cards" if "10,000 cards" in anki else "--sweep beyond the preview"
        wall, cpu = (a / b for a, b in zip(best[ours], best[anki], strict=True))
        print(f"  {ours} / {anki}: wall {wall:.2f}, CPU {cpu:.2f}")


if __name__ == "__main__":
    main()
