"""The layers hold (issue 31): the import rules of docs/development.md, written as
import-linter contracts in pyproject.toml, are all kept; an import inside a function is
only of a heavy library listed below, so that no import hides a layering break or a cycle.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "deckbuilder"

# The libraries a function may import when it first needs them, and why: each costs more
# than `deckbuilder check` of a small deck would notice, and most runs never use it. Every
# other import (our own modules, the standard library, markdown-it, nh3, YAML, NumPy) sits
# at the top of its module. Start-up (`--help`) and `check` imports: tests/cli/test_startup.py.
LAZY_LIBRARIES = {
    "matplotlib": "the preview's charts",
    "latex2mathml": "the preview page's math",
    "pygments": "highlighting code blocks, which most notes do not hold",
    "rich": "progress bars on a terminal",
    "genanki": "writing a package (check loads the package writer but never writes)",
    "fsrs": "py-fsrs's defaults and bounds, for a study block that gives parameters",
    "google.protobuf": "decoding what an Anki package holds, on import or --history",
}


def _function_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, module) of every import statement inside a function of ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    yield from ((inner.lineno, alias.name) for alias in inner.names)
                elif isinstance(inner, ast.ImportFrom):
                    module = "." * inner.level + (inner.module or "")
                    yield inner.lineno, module


def _is_lazy_library(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in LAZY_LIBRARIES)


def _sources() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_every_import_contract_is_kept() -> None:
    """The layering rules of docs/development.md: the engine imports no files or reports,
    the loader neither the engine nor lint, importers never the package writer, the
    command line only the application layer (import-linter; it reads the imports inside
    functions too)."""
    # Python 3.10 has no TOML reader: each contract is a [[tool.importlinter.contracts]] table.
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contracts = config.count("\n[[tool.importlinter.contracts]]\n")
    lint_imports = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(lint_imports), "--config", "pyproject.toml", "--no-cache"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),  # this checkout's package, not another
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Contracts: {contracts} kept, 0 broken." in proc.stdout, proc.stdout


def test_functions_import_only_the_listed_heavy_libraries() -> None:
    """59 imports inside functions hid three import cycles and four layering breaks
    (issue 31): an import inside a function is only of a library in LAZY_LIBRARIES."""
    found = [
        f"{path}:{line}: {module}"
        for path, tree in _sources()
        for line, module in _function_imports(tree)
        if not _is_lazy_library(module)
    ]
    assert found == [], "move these imports to the top of their module:\n" + "\n".join(found)


def test_every_listed_library_is_imported_inside_a_function() -> None:
    """The list names only libraries that are loaded late somewhere: one imported at the
    top everywhere is taken off it."""
    imported = {module for _, tree in _sources() for _, module in _function_imports(tree)}
    unused = [
        name
        for name in LAZY_LIBRARIES
        if not any(module == name or module.startswith(f"{name}.") for module in imported)
    ]
    assert unused == []


def test_modules_load_their_own_parts_lazily_only_through_module_getattr() -> None:
    """``importlib.import_module`` hides an import like one inside a function; it is only
    for a package that loads its parts when first used (a module ``__getattr__``, as
    ``deckbuilder.app`` does so that ``--help`` stays fast), naming our own modules."""
    found = []
    for path, tree in _sources():
        allowed = {
            id(call)
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
            for call in ast.walk(node)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, (ast.Name, ast.Attribute))
                and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
                in ("import_module", "__import__")
                and id(node) not in allowed
            ):
                found.append(f"{path}:{node.lineno}")
    assert found == []


@pytest.mark.parametrize(
    "source", ["def f():\n    import yaml\n", "def f():\n    from . import x\n"]
)
def test_the_import_check_sees_an_import_inside_a_function(source: str) -> None:
    """The check above cannot pass by seeing nothing."""
    imports = list(_function_imports(ast.parse(source)))
    assert len(imports) == 1 and not _is_lazy_library(imports[0][1])
