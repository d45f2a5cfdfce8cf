"""Build throughput and start-up, measured against a bare genanki script.

Run by hand (not a test):  python benchmarks/bench_build.py [--sizes 1000,10000,50000]

For each size it generates a deck of mixed mcq/cloze/basic notes with Markdown text,
then times, in the same run and on the same machine:
  - `deckbuilder build` end to end (a fresh process: parse, validate, render, package);
  - a bare genanki script writing the same notes with no parsing, validation or rendering;
and prints notes per second, the ratio between the two and deckbuilder's peak memory
(max RSS of the child process). Start-up: `deckbuilder --help` and `deckbuilder check`
of the bundled deck. Machines are noisy: compare the ratios, which are measured in one
run, rather than absolute times across runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time of a fresh process, and its peak RSS in KiB (this child only)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(after, before)


def best_of(runs: int, cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    return min(timed(cmd, cwd, env)[0] for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--startup-runs", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="1700000000")
    py = sys.executable
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"
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
    header = f"{'notes':>7} {'deckbuilder':>12} {'notes/s':>9} {'genanki':>9} {'notes/s':>9} {'ratio':>6} {'peak MB':>8}"
    print(
        "build throughput (one fresh process each; ratio = deckbuilder notes/s / bare genanki notes/s)"
    )
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "cards").mkdir()
        (work / "media").mkdir()
        for n in sizes:
            deck = work / "cards" / "bench.yaml"
            generate_deck(n, deck)
            db_time, rss = (
                timed([py, "-m", "deckbuilder", "-q", "build", "--no-preview"], work, env)
                if _has_no_preview(py, env)
                else timed([py, "-m", "deckbuilder", "-q", "build"], work, env)
            )
            ga_time, _ = timed([py, "-c", BARE_GENANKI, str(n), str(work / "bare.apkg")], work, env)
            rows.append((n, db_time, ga_time))
            print(
                f"{n:>7} {db_time:>10.2f} s {n / db_time:>9.0f} {ga_time:>7.2f} s {n / ga_time:>9.0f} "
                f"{(n / db_time) / (n / ga_time):>6.2f} {rss / 1024:>8.0f}"
            )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = last[0] / first[0]
        print()
        print(
            f"scaling {first[0]} -> {last[0]} notes (x{scale:.0f}): deckbuilder time x{last[1] / first[1]:.1f}, "
            f"genanki time x{last[2] / first[2]:.1f} (linear would be x{scale:.0f})"
        )
    print(
        "peak MB is the maximum RSS of any child process so far, so it only grows down the table."
    )


def _has_no_preview(py: str, env: dict[str, str]) -> bool:
    proc = subprocess.run(
        [py, "-m", "deckbuilder", "build", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    return "--no-preview" in proc.stdout


if __name__ == "__main__":
    main()
