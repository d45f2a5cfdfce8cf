"""Lock files as they are found (issue "Hostile input, round 3", 3 and 8): one saved with a
byte order mark (Notepad does) was refused; a named pipe in its place hung `build`."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Run

CliRun = Callable[..., Run]
LOCK = Path("cards/gradient-checkpointing.ko.lock")


def test_a_lock_file_with_a_byte_order_mark_is_read(project: Path, cli: CliRun) -> None:
    plain = (project / LOCK).read_bytes()
    (project / LOCK).write_bytes(b"\xef\xbb\xbf" + plain)
    result = cli("build", "--no-preview", "--lang", "ko")
    assert result.code == 0, result.err
    assert "0 added, 0 changed, 0 removed" in result.out


def test_a_named_pipe_as_lock_file_is_refused_without_waiting(project: Path, cli: CliRun) -> None:
    (project / LOCK).unlink()
    os.mkfifo(project / LOCK)
    done = threading.Event()
    result: list[Run] = []

    def build() -> None:
        result.append(cli("build", "--no-preview", "--lang", "ko"))
        done.set()

    threading.Thread(target=build, daemon=True).start()
    assert done.wait(60), "build waited on the named pipe"
    (run,) = result
    assert run.code == 1
    assert run.err.startswith(f"{LOCK}: is a named pipe (FIFO), not a file")
