"""Build time, peak memory and start-up against the budgets of issue 31, with a bare genanki
script as the yardstick.

Run by hand (not a test):  python benchmarks/bench_build.py [--sizes 500,5000,50000]

For each size it generates a deck of mixed mcq/cloze/basic notes with Markdown text, then
times, each in a fresh process and interleaved over `--repeat` rounds (best round shown;
on a shared machine one run can be 40% slower than the next):
  - `deckbuilder build` end to end (parse, validate, render, preview forecast, package,
    lock file, lint count), the same with `--no-preview`, and with `-q` (which prints no
    lint count, so lint does not run);
  - a bare genanki script writing the same notes with no parsing, validation or rendering;
  - `deckbuilder check` of the file, and of the same file with one error in its middle
    note (an answer letter with no choice), and with one YAML mistake there (an unquoted
    ': ', which the reader reads past): one error must not make checking slower.
It prints wall and CPU seconds, notes per second and the process's peak memory (max RSS).
Start-up: `deckbuilder --help` and `deckbuilder check` of the bundled deck, beside
`python -c pass`. Forecast: the build's FSRS forecast (365 days, default settings) for as
many cards, in this process. Compare figures measured in one run, not across runs.

Budgets (2-core machine): 5,000 notes build in 1.0 s or less; 50,000 in 6 s or less with
the lint count (`build`, not `-q build`); peak memory 300 MB or less; `--help` under 0.25 s beyond Python's own start-up; `check` with one
error at most 1.3 times `check` without.
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


def with_one_error(deck: Path, target: Path) -> None:
    """The deck with its middle multiple-choice note answering a letter it has no choice for."""
    lines = deck.read_text(encoding="utf-8").splitlines()
    answers = [i for i, line in enumerate(lines) if line.startswith("    answer: ")]
    lines[answers[len(answers) // 2]] = "    answer: Z"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def with_one_yaml_mistake(deck: Path, target: Path) -> None:
    """The deck with the front of its middle basic note holding an unquoted ': '."""
    lines = deck.read_text(encoding="utf-8").splitlines()
    fronts = [i for i, line in enumerate(lines) if line.startswith("    front: ")]
    middle = fronts[len(fronts) // 2]
    lines[middle] = "    front: Note: " + lines[middle].removeprefix("    front: ")
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


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


def timed(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, expect: int = 0
) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS in KiB of one fresh process
    that must exit with status ``expect``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = proc.stdout.read() if proc.stdout else "", proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode != expect:
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
    parser.add_argument("--sizes", default="500,5000,50000")
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
    print(f"start-up (best of {args.startup_runs} runs)")
    bare = best_of(args.startup_runs, [py, "-c", "pass"], ROOT, env)
    helps = best_of(args.startup_runs, [py, "-m", "deckbuilder", "--help"], ROOT, env)
    check = best_of(args.startup_runs, [py, "-m", "deckbuilder", "check"], ROOT, env)
    print(f"  python -c pass              {bare:7.3f} s")
    print(
        f"  deckbuilder --help          {helps:7.3f} s   ({helps - bare:.3f} s beyond Python; budget 0.25)"
    )
    print(f"  deckbuilder check (bundled) {check:7.3f} s")
    print()
    print(f"fresh process each, first build (no lock file), best of {args.repeat} rounds")
    header = (
        f"{'notes':>7}  {'command':<24} {'wall s':>7} {'cpu s':>7} {'notes/s':>8} {'peak MB':>8}"
    )
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "cards").mkdir()
        (work / "media").mkdir()
        (work / "bad").mkdir()
        (work / "yaml").mkdir()
        for n in sizes:
            deck = work / "cards" / "bench.yaml"
            generate_deck(n, deck)
            bad = work / "bad" / "bench.yaml"
            with_one_error(deck, bad)
            mistake = work / "yaml" / "bench.yaml"
            with_one_yaml_mistake(deck, mistake)
            deckbuilder = [py, "-m", "deckbuilder"]
            runs: dict[str, tuple[list[str], int]] = {
                "bare genanki": ([py, "-c", BARE_GENANKI, str(n), str(work / "bare.apkg")], 0),
                "build": ([*deckbuilder, "build"], 0),
                "build --no-preview": ([*deckbuilder, "build", "--no-preview"], 0),
                "-q build (no lint)": ([*deckbuilder, "-q", "build"], 0),
                "check": ([*deckbuilder, "check"], 0),
                "check, one error": ([*deckbuilder, "check", str(bad)], 1),
                "check, one YAML mistake": ([*deckbuilder, "check", str(mistake)], 1),
            }
            # Rounds interleave the commands, so a busy spell hits them alike.
            measured: dict[str, tuple[float, float, int]] = {}
            for _ in range(args.repeat):
                for name, (cmd, expect) in runs.items():
                    (work / "cards" / "bench.lock").unlink(missing_ok=True)
                    got = timed(cmd, work, env, expect)
                    if name not in measured or got[0] < measured[name][0]:
                        measured[name] = got
            for name, (wall, cpu, rss) in measured.items():
                print(
                    f"{n:>7}  {name:<24} {wall:>7.2f} {cpu:>7.2f} {n / wall:>8.0f} "
                    f"{rss / 1024:>8.0f}"
                )
            for name in ("check, one error", "check, one YAML mistake"):
                ratio = measured[name][0] / measured["check"][0]
                print(f"{'':>9}{name} / check: {ratio:.2f} (budget 1.30)")
    print()
    print("forecast (365 days, default settings; best of 3, in this process)")
    forecast_seconds(1000, runs=1)  # warm-up: imports
    for n in sizes:
        print(f"  {n:>7} cards {forecast_seconds(n):8.3f} s")


if __name__ == "__main__":
    main()
