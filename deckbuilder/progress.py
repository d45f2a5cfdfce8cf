"""Progress of long builds: library code reports steps, the CLI decides whether to show them.

Library code calls :func:`step` ("rendering", 500, 10_000) and never prints; it costs a
context variable lookup when nobody listens. The CLI installs a :class:`ProgressBar` with
:func:`reporting` around a build; the bar draws on stderr only when stderr is a terminal,
only once the build has run for :data:`DELAY` seconds (short builds stay silent), at most
:data:`INTERVAL` apart, and erases itself when done so the build's summary reads as
before. Output that is not a terminal (a pipe, a file, CI logs) never gets a bar.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

__all__ = [
    "DELAY",
    "INTERVAL",
    "ProgressBar",
    "Reporter",
    "reporting",
    "step",
    "terminal_bar",
]

# (stage, done, total): total 0 means the size is not known.
Reporter = Callable[[str, int, int], None]

DELAY = 1.0  # seconds before the first draw
INTERVAL = 0.1  # seconds between draws
WIDTH = 30  # characters of the bar itself

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


class ProgressBar:
    """One line, redrawn in place: ``rendering  [#######-------]  4,000/10,000``."""

    def __init__(
        self,
        stream: TextIO,
        *,
        delay: float | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        start: float | None = None,
    ) -> None:
        self.stream = stream
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        self.clock = clock
        self.start = clock() if start is None else start
        self.last_draw: float | None = None
        self.width = 0  # characters on screen now

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.start < self.delay:
            return
        if self.last_draw is not None and now - self.last_draw < self.interval:
            return
        self.last_draw = now
        if total > 0:
            filled = min(WIDTH, WIDTH * done // total)
            line = f"{stage:<10} [{'#' * filled}{'-' * (WIDTH - filled)}] {done:,}/{total:,}"
        else:
            line = f"{stage:<10} {done:,}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        """Erase the bar (if it was ever drawn)."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


@contextmanager
def terminal_bar(
    stream: TextIO, *, enabled: bool = True, since: float | None = None
) -> Iterator[None]:
    """Show a :class:`ProgressBar` on ``stream`` inside the block if ``enabled`` and the
    stream is a terminal; otherwise report to nobody. ``since`` (``time.monotonic()``):
    when the work started, if before the block (the delay counts from then)."""
    isatty = getattr(stream, "isatty", None)
    if not enabled or isatty is None or not isatty():
        yield
        return
    bar = ProgressBar(stream, start=since)
    try:
        with reporting(bar):
            yield
    finally:
        bar.close()
