"""``build --open``: hand a package to Anki desktop as a double-click on it would.

Each system opens a file with the application registered for its type: ``xdg-open`` on
Linux (Anki's desktop entry registers ``application/x-apkg``), ``open`` on macOS,
``os.startfile`` on Windows. Anki then shows its import dialog. Whether an application
is registered is asked first where the system can say (``xdg-mime``), so that a machine
without Anki gets advice instead of some other program.

Anki desktop takes a package named ``collection.apkg`` or ``backup-*.apkg`` for a whole
collection, and offers to replace the learner's collection with it (aqt
``import_export/importing.py``, ``ColpkgImporter.can_import``): such a package is never
opened.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

APKG_TYPE = "application/x-apkg"  # the MIME type Anki's desktop entry claims
_TIMEOUT = 20  # seconds a system's opener may take to hand the file over


@dataclass(frozen=True)
class Opened:
    """What became of the request to open the packages: ``opened`` those handed over,
    ``problem`` why the rest were not (None: all were)."""

    opened: tuple[Path, ...]
    problem: str | None = None


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=_TIMEOUT, check=False)


def open_packages(
    paths: Sequence[Path], *, platform: str = sys.platform, run: Runner = _run
) -> Opened:
    """Open each package with the application the system gives ``.apkg`` files."""
    opened: list[Path] = []
    for path in paths:
        problem = _open(path.resolve(), platform, run)
        if problem is not None:
            return Opened(tuple(opened), problem)
        opened.append(path)
    return Opened(tuple(opened))


def _open(path: Path, platform: str, run: Runner) -> str | None:
    name = path.name.lower()
    if name == "collection.apkg" or (name.startswith("backup-") and name.endswith(".apkg")):
        return (
            f"not opened: Anki desktop takes a package named {path.name} for a whole "
            "collection and offers to replace yours with it; give the deck another id"
        )
    try:
        if platform == "win32":
            os.startfile(str(path))  # type: ignore[attr-defined]  # Windows only
            return None
        if platform == "darwin":
            done = run(["open", str(path)])
            return None if done.returncode == 0 else _no_anki(done.stderr)
        if shutil.which("xdg-open") is None:
            return "no xdg-open on this system to hand the package to a desktop application"
        if shutil.which("xdg-mime") is not None:
            handler = run(["xdg-mime", "query", "default", APKG_TYPE]).stdout.strip()
            if not handler:
                return _no_anki(f"no application is registered for {APKG_TYPE}")
        done = run(["xdg-open", str(path)])
        return None if done.returncode == 0 else _no_anki(done.stderr)
    except (OSError, subprocess.SubprocessError) as exc:
        return _no_anki(str(exc))


def _no_anki(reason: str) -> str:
    reason = " ".join(reason.split()) or "the system could not open it"
    return (
        f"Anki did not open it ({reason}); is Anki desktop installed? Install it from "
        "https://apps.ankiweb.net, or import the package in Anki with File > Import."
    )
