"""Long forecasts and sweeps of a small deck run in bounded memory (issue 45).

A one-card deck is simulated in 10,000 copies (300,000 for a sweep); the load balancer's
counts of cards due per copy and day once took a table of all of them: 1.6 GB for the
default 365-day sweep, 14 GB for 3,650 days. The runs below are held under a cap on the
process's address space rather than timed."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CAP = 500 * 1024 * 1024  # address space: Python, NumPy and the CLI take about 250 MB


def _under_cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


@pytest.fixture
def one_card(tmp_path: Path) -> Path:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "one.yaml").write_text(
        "deck: One\nid: one\nnotes:\n  - id: q1\n    type: basic\n    front: One?\n    back: One.\n",
        encoding="utf-8",
    )
    return tmp_path


@pytest.mark.parametrize(
    "options",
    [
        ("--days", "3650"),  # the longest forecast: was 500 MB
        ("--days", "365", "--sweep"),  # the default sweep: was 1.6 GB
    ],
)
def test_a_one_card_deck_previews_under_a_memory_cap(
    one_card: Path, options: tuple[str, ...]
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "deckbuilder", "preview", "cards", "--json", *options],
        cwd=one_card,
        # One BLAS thread: its per-thread buffers would count against the cap on a
        # machine with many cores.
        env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        preexec_fn=_under_cap,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"forecast"' in run.stdout
