"""Reading files that may be hostile: regular files only, and never more than a limit.

A path named as a package or a review history may be a FIFO (a read blocks until a
writer comes), a device (``/dev/zero`` never ends) or a folder. Only regular files are
read, and the check is made on the opened file itself, so nothing can be swapped in
between; the file is opened without blocking, so even opening a FIFO cannot hang.
Streams are copied in chunks, counted as they come, and refused once they pass their
limit, so data that unpacks to gigabytes costs a chunk of memory, not gigabytes.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import IO

from deckbuilder.errors import DeckError

CHUNK_BYTES = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class LimitExceeded(ValueError):
    """A stream held more than it was allowed to."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit:,} bytes")
        self.limit = limit


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is ('a named pipe (FIFO)'), from its mode."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: Path) -> IO[bytes]:
    """``path`` opened for reading in binary; DeckError when it cannot be opened or is
    not a regular file (a folder, FIFO, device or socket)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise DeckError.single(path, f"cannot be read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:  # pragma: no cover - fstat of an open descriptor
        os.close(fd)
        raise DeckError.single(path, f"cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise DeckError.single(
            path, f"is {file_kind(mode)}, not a file; only regular files are read"
        )
    return os.fdopen(fd, "rb")


def copy_limited(source: IO[bytes], target: IO[bytes], limit: int) -> int:
    """Copy ``source`` to its end into ``target``, in chunks; the number of bytes copied.
    Raises LimitExceeded as soon as more than ``limit`` bytes have come."""
    copied = 0
    while chunk := source.read(CHUNK_BYTES):
        copied += len(chunk)
        if copied > limit:
            raise LimitExceeded(limit)
        target.write(chunk)
    return copied


def read_limited(source: IO[bytes], limit: int) -> bytes:
    """All of ``source``, read in chunks; LimitExceeded once more than ``limit`` bytes
    have come."""
    target = io.BytesIO()
    copy_limited(source, target, limit)
    return target.getvalue()


def contents_if_any(path: Path) -> bytes | None:
    """The bytes of ``path``; None when it cannot be read (it is not there yet)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (see :func:`open_regular`); DeckError when
    it cannot be read, is no regular file, or holds more than ``limit`` bytes."""
    try:
        with open_regular(path) as stream:
            return read_limited(stream, limit)
    except LimitExceeded:
        raise DeckError.single(path, f"file is longer than the limit of {limit:,} bytes") from None
    except OSError as exc:
        raise DeckError.single(path, f"cannot be read: {exc.strerror or exc}") from None
