"""Progress of long work: library code reports steps; whoever asked decides what to show.

Library code calls :func:`step` ("rendering", 500, 10_000) and never prints; it costs a
context variable lookup when nobody listens. The application layer installs the
request's reporter with :func:`reporting` around a command (the CLI's draws a bar).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# (stage, done, total): total 0 means the size is not known.
Reporter = Callable[[str, int, int], None]

_current: ContextVar[Reporter | None] = ContextVar("deckbuilder_progress", default=None)


def step(stage: str, done: int, total: int) -> None:
    """Report that ``done`` of ``total`` units of ``stage`` are finished."""
    reporter = _current.get()
    if reporter is not None:
        reporter(stage, done, total)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Send :func:`step` reports to ``reporter`` inside the block (None: to nobody)."""
    token = _current.set(reporter)
    try:
        yield
    finally:
        _current.reset(token)
