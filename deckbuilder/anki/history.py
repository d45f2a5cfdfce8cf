"""A learner's review history, read from an Anki collection or package.

PATH may be a collection file (``collection.anki2`` in an Anki profile folder), a
``.colpkg`` backup or an ``.apkg`` exported with scheduling; each is read by
:func:`deckbuilder.anki.package_reader.read_collection`, with its limits, and never
written. What the history is used for, the fit of FSRS parameters, is
:mod:`deckbuilder.schedule.fit`'s.
"""

from __future__ import annotations

from pathlib import Path

from deckbuilder.anki.collection import Revlog
from deckbuilder.anki.package_reader import read_collection
from deckbuilder.errors import DeckError


class HistoryError(ValueError):
    """A review history that cannot be read: not a collection or package, or no revlog."""


def read_reviews(path: Path) -> tuple[Revlog, int]:
    """Every entry in the review log at ``path``, by card then time, and the hour the
    collection's days start. Raises HistoryError, naming ``path`` and the fault, for
    anything that is not a readable collection or package."""
    if path.is_dir():
        raise HistoryError(f"{path} is a folder; name the collection file or package in it")
    try:
        with read_collection(path) as collection:
            return collection.review_log(), collection.rollover()
    except DeckError as exc:
        raise HistoryError("; ".join(str(problem) for problem in exc.problems)) from None
