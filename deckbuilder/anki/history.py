"""A learner's review history, read from an Anki collection for fitting FSRS parameters.

PATH may be a collection file (``collection.anki2`` in an Anki profile folder), a
``.colpkg`` backup or an ``.apkg`` exported with scheduling; each is read by
:func:`deckbuilder.anki.package_reader.read_collection`, with its limits, and never
written. The fit itself is :mod:`deckbuilder.schedule.fit`'s.
"""

from __future__ import annotations

import time
from pathlib import Path

from deckbuilder.anki.package_reader import read_collection
from deckbuilder.errors import DeckError
from deckbuilder.schedule.fit import FittedParameters, ReviewLog, fit_log

__all__ = ["FittedParameters", "HistoryError", "fit_history", "read_reviews", "too_few_reviews"]


class HistoryError(ValueError):
    """A review history that cannot be read: not a collection or package, or no revlog."""


def read_reviews(path: Path) -> tuple[ReviewLog, int]:
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


def fit_history(path: Path, utc_offset: int | None = None) -> FittedParameters:
    """FSRS parameters fitted from the review log at ``path``; the defaults (with
    ``fitted=False``) when it holds too few long-term reviews for the optimizer.

    Days are counted in the time zone ``utc_offset`` seconds east of UTC; by default
    this computer's, as Anki counts them on the computer it runs on."""
    if utc_offset is None:
        utc_offset = time.localtime().tm_gmtoff
    log, rollover = read_reviews(path)
    return fit_log(log, rollover, utc_offset)


def too_few_reviews(fitted: FittedParameters, path: Path) -> str:
    """Why no parameters were fitted from the history at ``path``, and what is used
    instead, in words (the caller names the file). A package exported without
    scheduling holds no review log at all; Anki's export dialog names the box that
    puts it in."""
    if fitted.logged == 0:
        if path.suffix.lower() == ".apkg":
            text = (
                "the package holds no review history; export the deck again with "
                '"Include scheduling information" checked'
            )
        else:
            text = "no review history in it"
    else:
        text = (
            f"only {fitted.reviews} long-term reviews, too few for FSRS's optimizer to fit "
            "parameters (Anki keeps the defaults too)"
        )
    return text + "; the default parameters are used"
