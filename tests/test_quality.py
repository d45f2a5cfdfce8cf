"""The code stays formatted, linted and type-checked (ruff and strict mypy, CLI included)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

CODE = [p for p in ("deckbuilder", "tests", "benchmarks") if (ROOT / p).is_dir()]


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_lint_and_format() -> None:
    lint = run(sys.executable, "-m", "ruff", "check", *CODE)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = run(sys.executable, "-m", "ruff", "format", "--check", *CODE)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict() -> None:
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr
