"""Build throughput, start-up and forecast scaling, measured against a bare genanki script.

Run by hand (not a test):  python benchmarks/bench_build.py [--sizes 1000,10000,50000]

For each size it generates a deck of mixed mcq/cloze/basic notes with Markdown text,
then times, in the same run and on the same machine, each in a fresh process:
  - `deckbuilder build` end to end (parse, validate, render, preview forecast, package,
    lock file) on one core (`-j 1`) and on every core (the default: a big card file is
    read in parts, one per core), and the same with `--no-preview`;
  - a bare genanki script writing the same notes with no parsing, validation or rendering;
and prints notes per second, the ratio between them and the deckbuilder process's own
peak memory (max RSS; worker processes not included). Times are wall clock and CPU (user +
system) of the child and the processes it started. Each size runs `--repeat` rounds that
interleave the commands, and each command's best round is shown: on a shared machine one
run can be 40% slower than the next. Start-up: `deckbuilder --help` and
`deckbuilder check` of the bundled deck. Forecast: the build's FSRS forecast (365 days,
default settings) for as many cards, in this process. Compare ratios measured in one run
rather than absolute times across runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent

BARE_GENANKI = r"""
import sys, genanki
n = int(sys.argv[1]); out = sys.argv[2]
model = genanki.Model(1607392319, "Bare", fields=[{"name": "Q"}, {"name": "A"}],
    templates=[{"name": "Card 1", "qfmt": "{{Q}}", "afmt": "{{FrontSide}}<hr id=answer>{{A}}"}])
cloze = genanki.Model(1607392320, "BareCloze", fields=[{"name": "Text"}, {"name": "Extra"}],
    templates=[{"name": "Cloze", "qfmt": "{{cloze:Text}}", "afmt": "{{cloze:Text}}<br>{{Extra}}"}],
    model_type=genanki.Model.CLOZE)
deck = genanki.Deck(2059400110, "Bench")
for i in range(n):
    if i % 3 == 1:
        deck.add_note(genanki.Note(model=cloze, fields=[f"Fact {i}: {{{{c1::answer {i}}}}} and {{{{c2::more}}}}", "extra"]))
    else:
        deck.add_note(genanki.Note(model=model, fields=[f"Question {i}?", f"Answer {i}"]))
genanki.Package(deck).write_to_file(out, timestamp=1_700_000_000)
"""


def generate_deck(n: int, path: Path) -> None:
    lines = ['deck: "Bench::Generated"', "id: bench", "tags: [bench]", "notes:"]
    for i in range(n):
        kind = i % 3
        if kind == 0:
            lines += [
                f"  - id: q{i}",
                f"    question: What does **step {i}** of `pipeline_{i % 17}` return?",
                "    choices:",
                f"      - The *cached* value {i}",
                f"      - A fresh `tensor` of size {i % 97}",
                "      - Nothing at all",
                "      - An error",
                f"    answer: {'ABCD'[i % 4]}",
                f"    explanation: Step {i} returns the cached value; see the _docs_ for details.",
            ]
        elif kind == 1:
            lines += [
                f"  - id: c{i}",
                f"    text: Fact {i} says {{{{c1::answer {i}}}}} is stored as {{{{c2::`value_{i}`}}}}.",
                "    extra: Remember the **second** part.",
            ]
        else:
            lines += [
                f"  - id: b{i}",
                f"    front: Term number {i} with a [link](https://example.com/{i})",
                f"    back: Definition {i} is a *short* explanation.",
            ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS in KiB of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = proc.stdout.read() if proc.stdout else "", proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out}\n{err}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def best_of(runs: int, cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    return min(timed(cmd, cwd, env)[0] for _ in range(runs))


def forecast_seconds(cards: int, runs: int = 3) -> float:
    from deckbuilder.schedule import PreviewSettings, forecast

    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        forecast(cards, PreviewSettings(), 365, seed=0)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--startup-runs", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="rounds per size (best shown)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="1700000000")
    py = sys.executable
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.platform()}"
    )
    print()
    print(f"startup (best of {args.startup_runs} runs)")
    bare = best_of(args.startup_runs, [py, "-c", "pass"], ROOT, env)
    helps = best_of(args.startup_runs, [py, "-m", "deckbuilder", "--help"], ROOT, env)
    check = best_of(args.startup_runs, [py, "-m", "deckbuilder", "check"], ROOT, env)
    print(f"  python -c pass              {bare:7.3f} s")
    print(f"  deckbuilder --help          {helps:7.3f} s   (target < 0.25 s)")
    print(f"  deckbuilder check (bundled) {check:7.3f} s")
    print()
    print(f"build throughput (fresh process each, first build, best of {args.repeat} rounds;")
    print("ratio = deckbuilder notes/s divided by bare genanki notes/s, by wall time and by")
    print("CPU time, which counts every process of a build)")
    header = (
        f"{'notes':>7}  {'command':<22} {'wall s':>7} {'cpu s':>7} {'notes/s':>8} "
        f"{'ratio':>6} {'ratio cpu':>9} {'peak MB':>8}"
    )
    print(header)
    rows: dict[str, list[tuple[int, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "cards").mkdir()
        (work / "media").mkdir()
        for n in sizes:
            deck = work / "cards" / "bench.yaml"
            generate_deck(n, deck)
            runs = {
                "bare genanki": [py, "-c", BARE_GENANKI, str(n), str(work / "bare.apkg")],
                "build -j 1": [py, "-m", "deckbuilder", "-q", "build", "-j", "1"],
                "build --no-preview": [py, "-m", "deckbuilder", "-q", "build", "--no-preview"],
                "build": [py, "-m", "deckbuilder", "-q", "build"],
            }
            # Rounds interleave the commands, so a busy spell hits them alike; each
            # command's best round (least wall time) is shown.
            measured: dict[str, tuple[float, float, int]] = {}
            for _ in range(args.repeat):
                for name, cmd in runs.items():
                    (work / "cards" / "bench.lock").unlink(missing_ok=True)
                    got = timed(cmd, work, env)
                    if name not in measured or got[0] < measured[name][0]:
                        measured[name] = got
            for name in runs:
                rows.setdefault(name, []).append((n, *measured[name][:2]))
            ga_wall, ga_cpu, _ = measured["bare genanki"]
            for name, (wall, cpu, rss) in measured.items():
                print(
                    f"{n:>7}  {name:<22} {wall:>7.2f} {cpu:>7.2f} {n / wall:>8.0f} "
                    f"{ga_wall / wall:>6.2f} {ga_cpu / cpu:>9.2f} {rss / 1024:>8.0f}"
                )
    if len(sizes) > 1:
        print()
        first, last = sizes[0], sizes[-1]
        print(f"scaling {first} -> {last} notes (x{last / first:.0f}; linear: time grows as much)")
        for name, points in rows.items():
            (_, w0, c0), (_, w1, c1) = points[0], points[-1]
            print(f"  {name:<22} wall x{w1 / w0:5.1f}   cpu x{c1 / c0:5.1f}")
    print()
    print("forecast (365 days, default settings; best of 3, in this process)")
    forecast_seconds(1000, runs=1)  # warm-up: imports
    base = None
    for n in sizes:
        seconds = forecast_seconds(n)
        base = base or (n, seconds)
        growth = seconds / base[1]
        print(f"  {n:>7} cards {seconds:8.3f} s   x{growth:5.1f} for x{n / base[0]:.0f} cards")


if __name__ == "__main__":
    main()
