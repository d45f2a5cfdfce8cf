"""By hand: the preview page of a generated deck, written by `deckbuilder preview --html-out`
and opened in Chromium, against the budgets of issue 35.

    PYTHONPATH=. python benchmarks/bench_page.py [--sizes 500,2000,5000] [--repeat 3]

For each size it generates a deck of mixed multiple-choice, cloze and basic notes (the one
benchmarks/bench_build.py builds), then:
  - times the whole command in a fresh process (wall and CPU seconds, best of --repeat,
    interleaved with `deckbuilder check` of the same file, the loading part alone), and
    prints the page's size per card: it should stay flat as the deck grows;
  - opens the page in headless Chromium (tests/browser.py) and times, from navigation, the
    first card drawn (its front's frame has told the page it has loaded), DOMContentLoaded,
    every card of the first page drawn, then a search, and a jump to the last note.

Budgets (2-core machine): the page of 5,000 notes built within 3 s (whole command), its
first card drawn within 2 s of navigation; the time and size per card flat across sizes.
On a shared machine, compare figures of one run; CPU seconds move less than wall seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_build import generate_deck

from tests.browser import chromium

ROOT = Path(__file__).resolve().parent.parent
FIRST_CARD = """() => !!document.querySelector('#card-list .pv-card .front iframe[data-loaded]')"""
FOUND = "() => document.getElementById('found').textContent.includes('matching')"


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def in_chromium(page: Path, last_note: str, runs: int) -> dict[str, float]:
    """The best of ``runs`` openings of the page, each in a fresh tab."""
    best: dict[str, float] = {}
    with chromium() as browser:
        for _ in range(runs):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            tab = context.new_page()
            start = time.perf_counter()
            tab.goto(page.resolve().as_uri(), wait_until="commit")
            tab.wait_for_function(FIRST_CARD, polling=10, timeout=120_000)
            figures = {"first card": time.perf_counter() - start}
            navigation = tab.evaluate("performance.getEntriesByType('navigation')[0].toJSON()")
            figures["DOMContentLoaded"] = navigation["domContentLoadedEventEnd"] / 1000
            tab.wait_for_selector("html[data-cards-loaded=true]", state="attached", timeout=120_000)
            figures["first page"] = time.perf_counter() - start
            start = time.perf_counter()
            tab.fill("#find-text", "step 0")
            tab.wait_for_function(FOUND, timeout=120_000)
            figures["search"] = time.perf_counter() - start
            start = time.perf_counter()
            tab.fill("#goto-id", last_note)
            tab.click("#goto")
            tab.locator(f'#card-list .pv-card.target[data-note="{last_note}"]').wait_for(
                timeout=120_000
            )
            figures["jump"] = time.perf_counter() - start
            context.close()
            for name, value in figures.items():
                best[name] = min(best.get(name, value), value)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,5000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python = [sys.executable, "-m", "deckbuilder", "-q"]
    print(f"{'notes':>6} {'cards':>6} {'preview s':>9} {'cpu s':>6} {'check s':>8} "
          f"{'MB':>6} {'bytes/card':>10}  Chromium (s): first card, DOMContentLoaded, "
          "first page, search, jump")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for notes in (int(n) for n in args.sizes.split(",")):
            deck = work / f"deck-{notes}.yaml"
            generate_deck(notes, deck)
            page = work / f"page-{notes}.html"
            preview = [*python, "preview", str(deck), "--html-out", str(page)]
            check = [*python, "check", str(deck)]
            best = {"preview": (float("inf"), 0.0), "check": (float("inf"), 0.0)}
            for _ in range(args.repeat):  # in turns, so that a busy spell slows both
                for name, cmd in (("preview", preview), ("check", check)):
                    got = timed(cmd, work)
                    best[name] = min(best[name], got)
            cards = notes + notes // 3 + (1 if notes % 3 > 1 else 0)
            size = page.stat().st_size
            last = f"{'qcb'[(notes - 1) % 3]}{notes - 1}"
            browser = in_chromium(page, last, args.repeat)
            shown = ", ".join(f"{value:.2f}" for value in browser.values())
            print(
                f"{notes:>6} {cards:>6} {best['preview'][0]:>9.2f} {best['preview'][1]:>6.2f} "
                f"{best['check'][0]:>8.2f} {size / 1e6:>6.1f} {size / cards:>10.0f}  {shown}"
            )


if __name__ == "__main__":
    main()
