"""Replacing a file whole or not at all: the package, lock files, pages, imported cards."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import OutputError

__all__ = ["atomic_write", "atomic_write_bytes"]


def atomic_write(target: Path, write: Callable[[Path], object]) -> None:
    """Call ``write(tmp_path)`` on a temporary file beside ``target``, then rename it
    into place. On any failure (or Ctrl-C) the previous ``target`` is left untouched."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        # mkstemp makes the file private; give it the mode an ordinary new file gets.
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write {target}: {reason}; the previous file was kept") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` (see :func:`atomic_write`)."""
    atomic_write(target, lambda tmp: tmp.write_bytes(data))
