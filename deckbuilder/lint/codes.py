"""Moved: the lint rules' codes are the model's (deckbuilder.model.LINT_RULES)."""

from deckbuilder.model import LINT_RULES as RULES

__all__ = ["RULES"]
