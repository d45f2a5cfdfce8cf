"""Time the preview's forecast beside fsrs-rs-python's and Anki's simulators; print ratios.

Run by hand (not a test):
``PYTHONPATH=. python benchmarks/bench_forecast.py [--repeat N] [--days 365,3650]``.
Workload: 10,000 new cards, 100 a day, retention 0.9, FSRS-6 default parameters, no
review limit, 2 learning steps and 1 relearning step, Anki's load balancer on (as in a
fresh collection) unless the row says off; once for each number of days. Each simulator
runs ``--repeat`` times after one warm-up run, in turns (one run of each simulator per
round, so that a busy spell on a shared machine slows them alike); each one's best time
counts. Issue 35 asks for the forecast to be level with fsrs-rs-python at 3,650 days.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deckbuilder.model import StudySettings
from deckbuilder.schedule import DEFAULT_PARAMETERS, PreviewSettings, forecast

CARDS, NEW_PER_DAY, RETENTION = 10_000, 100, 0.9


Runner = Callable[[], tuple[float, float]]


def best_of(repeat: int, runs: list[Runner]) -> list[tuple[float, float, float]]:
    """(best seconds, total reviews, memorized at the end) of each runner, timed in turns."""
    results = [run() for run in runs]  # warm-up: imports, caches
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, run in enumerate(runs):
            start = time.perf_counter()
            results[i] = run()
            best[i] = min(best[i], time.perf_counter() - start)
    return [(b, *r) for b, r in zip(best, results, strict=True)]


def ours_runner(days: int, load_balancer: bool) -> Runner:
    settings = PreviewSettings(
        StudySettings(new_per_day=NEW_PER_DAY, desired_retention=RETENTION, review_limit=None),
        load_balancer=load_balancer,
    )

    def run() -> tuple[float, float]:
        fc = forecast(CARDS, settings, days)
        return sum(fc.reviews), fc.memorized[-1]

    return run


def fsrs_rs_runner(days: int) -> Runner:
    import fsrs_rs_python

    config = fsrs_rs_python.default_simulator_config()
    config.deck_size = CARDS
    config.learn_span = days
    config.learn_limit = NEW_PER_DAY
    config.max_cost_perday = 1e12  # no time limit, as Anki's simulator

    def run() -> tuple[float, float]:
        result = fsrs_rs_python.simulate(list(DEFAULT_PARAMETERS), RETENTION, config, 42)
        return float(sum(result.review_cnt_per_day)), float(result.memorized_cnt_per_day[-1])

    return run


def anki_runner(folder: Path, days: int, load_balancer: bool) -> Runner:
    from anki.collection import Collection
    from anki.config import Config
    from anki.scheduler_pb2 import SimulateFsrsReviewRequest

    col: Any = Collection(str(folder / f"lb-{load_balancer}-{days}.anki2"))
    col.set_config_bool(Config.Bool.LOAD_BALANCER_ENABLED, load_balancer)
    request = SimulateFsrsReviewRequest(
        params=list(DEFAULT_PARAMETERS),
        desired_retention=RETENTION,
        deck_size=CARDS,
        days_to_simulate=days,
        new_limit=NEW_PER_DAY,
        review_limit=9_999_999,
        max_interval=36500,
        search="cid:1",  # matches no card: deck_size is added on top of the matches
        easy_days_percentages=[1.0] * 7,
        historical_retention=0.9,
        learning_step_count=2,
        relearning_step_count=1,
    )

    def run() -> tuple[float, float]:
        r = col._backend.simulate_fsrs_review(request)
        return float(sum(r.daily_review_count)), float(r.accumulated_knowledge_acquisition[-1])

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--days", default="365,3650", help="comma-separated horizons")
    args = parser.parse_args()
    for days in (int(d) for d in args.days.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            named = [
                ("deckbuilder forecast (NumPy)", ours_runner(days, True)),
                ("fsrs-rs-python simulate", fsrs_rs_runner(days)),
                ("Anki simulate_fsrs_review", anki_runner(Path(tmp), days, True)),
                ("Anki, load balancer off", anki_runner(Path(tmp), days, False)),
                ("deckbuilder, balancer off", ours_runner(days, False)),
            ]
            timed = best_of(args.repeat, [run for _, run in named])
        rows = [(name, result) for (name, _), result in zip(named, timed, strict=True)]
        print(f"{CARDS:,} cards, {NEW_PER_DAY}/day, {days} days, best of {args.repeat}")
        print(
            f"{'simulator':<30} {'seconds':>8} {'reviews':>9} {'memorized':>10} {'ours/this':>10}"
        )
        base = rows[0][1][0]
        for name, (seconds, reviews, memorized) in rows:
            print(
                f"{name:<30} {seconds:>8.3f} {reviews:>9,.0f} {memorized:>10.1f} "
                f"{base / seconds:>10.2f}"
            )
        print()
    print("ours/this < 1 means the deckbuilder forecast is faster.")


if __name__ == "__main__":
    main()
