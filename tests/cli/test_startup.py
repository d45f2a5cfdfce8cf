"""Start-up stays light: the CLI module and --help import no heavy library; each command
imports what it needs when it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ["genanki", "numpy", "markdown_it", "pygments", "nh3", "anki", "fsrs", "yaml", "rich"]

PROBE = """
import json, sys
sys.argv = ["deckbuilder", *json.loads(sys.argv[1])]
import deckbuilder.cli
if sys.argv[1:]:
    try:
        deckbuilder.cli.main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
"""


def _modules_after(*args: str, cwd: Path = ROOT) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [(), ("--help",), ("build", "--help"), ("--version",)])
def test_cli_and_help_import_no_heavy_module(args: tuple[str, ...]) -> None:
    assert _modules_after(*args) & set(HEAVY) == set()


def test_check_imports_only_what_checking_needs() -> None:
    loaded = _modules_after("check")
    assert {"yaml", "markdown_it"} <= loaded  # the probe sees real imports
    assert loaded & {"genanki", "numpy", "anki", "fsrs"} == set()
