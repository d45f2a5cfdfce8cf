"""The progress bar of long commands: on a terminal's stderr only, drawn by rich.

The library reports steps (:class:`deckbuilder.app.requests.Progress`); this decides
whether anyone sees them: only when stderr is a terminal, only once the command has run
for :data:`DELAY` seconds (short builds stay silent), at most every :data:`INTERVAL`
seconds, and the bar is erased when done so that the command's summary reads as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

DELAY = 1.0  # seconds before the first draw
INTERVAL = 0.1  # seconds between draws


class TerminalProgress:
    """A progress reporter drawing one bar per stage (``rendering  ━━━━━━  4,000/10,000``)."""

    def __init__(self, stream: TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.start = clock()
        self.last_draw: float | None = None
        self.bars: Progress | None = None
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.start < DELAY:
            return
        bars = self.bars or self._open()
        task = self.tasks.get(stage)
        if task is None:
            task = self.tasks[stage] = bars.add_task(stage, total=total or None)
        bars.update(task, completed=done, total=total or None)
        if self.last_draw is None or now - self.last_draw >= INTERVAL:
            self.last_draw = now
            bars.refresh()

    def _open(self) -> Progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        console = Console(file=self.stream, force_terminal=True, highlight=False)
        self.bars = Progress(
            TextColumn("{task.description:<10}"),
            BarColumn(bar_width=30),
            MofNCompleteColumn(),
            console=console,
            auto_refresh=False,
            transient=True,
        )
        self.bars.start()
        return self.bars

    def close(self) -> None:
        """Erase the bars (if they were ever drawn)."""
        if self.bars is not None:
            self.bars.stop()
            self.bars = None


@contextmanager
def terminal_progress(stream: TextIO, *, enabled: bool = True) -> Iterator[TerminalProgress | None]:
    """A :class:`TerminalProgress` on ``stream`` inside the block if ``enabled`` and the
    stream is a terminal; otherwise None (nobody is told)."""
    isatty = getattr(stream, "isatty", None)
    if not enabled or isatty is None or not isatty():
        yield None
        return
    bar = TerminalProgress(stream)
    try:
        yield bar
    finally:
        bar.close()
