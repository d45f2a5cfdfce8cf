"""deckbuilder: quiz questions in YAML -> Anki packages, with an FSRS workload preview."""

from __future__ import annotations

__version__ = "0.1.0"
