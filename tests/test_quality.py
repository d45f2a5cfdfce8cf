"""The code stays formatted, linted and type-checked (ruff and strict mypy, CLI included)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib.metadata import packages_distributions

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


def test_the_package_imports_only_what_it_declares() -> None:
    """Every library the package imports is one of pyproject's dependencies (or Python's
    own): `import click`, which the venv had through the test tools, broke a fresh
    install once typer 0.29 stopped depending on click."""
    project = (ROOT / "pyproject.toml").read_text("utf-8")
    listed = re.search(r"^dependencies = \[(.*?)^\]", project, re.M | re.S)
    assert listed is not None
    declared = {
        re.split(r"[<>=!~ \[;]", spec, maxsplit=1)[0].lower().replace("_", "-")
        for spec in re.findall(r'^\s*"([^"]+)",', listed.group(1), re.M)
    }
    assert {"genanki", "typer", "rich", "pyyaml"} <= declared
    providers = packages_distributions()
    used: dict[str, str] = {}
    for path in sorted((ROOT / "deckbuilder").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                used.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    undeclared = {
        top: where
        for top, where in used.items()
        if top != "deckbuilder"
        and top not in sys.stdlib_module_names
        and not {d.lower().replace("_", "-") for d in providers.get(top, [top])} & declared
    }
    assert not undeclared, undeclared
