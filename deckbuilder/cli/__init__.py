"""The command line (the ``deckbuilder`` console script is :func:`run`).

The commands live in the modules imported here, which register them on :data:`app`.
"""

from __future__ import annotations

from deckbuilder.cli import authoring, importing, linting, previewing, pulling, watching  # noqa: F401 - they register the commands
from deckbuilder.cli.app import app, main, run

__all__ = ["app", "main", "run"]
