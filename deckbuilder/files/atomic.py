"""Replacing files whole or not at all, alone or together: a package with its lock file,
pages, imported cards.

A new file is first written to a temporary file beside its target, named
``.NAME.deckbuilder-XXXXXXXX.tmp``, then renamed onto the target, so a reader sees the
old file or the new one, never a part of either. While its process lives, each temporary
file is held under an advisory lock (``flock``): a run killed outright (SIGKILL, power
loss) cannot remove its temporary files, and the next run writing the same target removes
those that nobody holds (:func:`remove_stale`), never one a running build is writing.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType

from deckbuilder.errors import OutputError

if sys.platform != "win32":
    import fcntl

_MARK = "deckbuilder-"  # every temporary file is named ".NAME.deckbuilder-XXXXXXXX.tmp"
_SUFFIX = ".tmp"
# What link() says on a file system that has no hard links.
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS}
# Opening a temporary file to lock it: never through a symbolic link, never waiting on a
# named pipe someone put there.
_OPEN_QUIETLY = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class PartlyReplaced(OutputError):
    """Some targets were replaced and could not be put back: ``replaced`` lists them."""

    def __init__(self, message: str, replaced: Sequence[Path]) -> None:
        super().__init__(message)
        self.replaced = tuple(replaced)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}.{_MARK}"


def _hold(fd: int) -> int:
    """Lock ``fd``'s file for as long as ``fd`` stays open, marking the file as in use;
    return the descriptor to keep open (-1: none)."""
    if sys.platform == "win32":
        os.close(fd)  # Windows renames no open file, and has no flock
        return -1
    # On a file system without locks another run cannot lock the file either, and so
    # leaves it alone (see _is_stale).
    with suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _is_stale(path: str) -> bool:
    """Whether nobody holds the temporary file at ``path``: its writer has died."""
    if sys.platform == "win32":
        return False  # no flock: whether a writer is alive cannot be told
    try:
        fd = os.open(path, _OPEN_QUIETLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held by a live writer, or a file system without locks
    finally:
        os.close(fd)
    return True


def _remove(path: str | Path) -> None:
    """Remove a temporary file or folder, as far as possible."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with suppress(OSError):
            os.unlink(path)


def remove_stale(target: Path) -> None:
    """Remove temporary files of ``target`` left by a run that was killed."""
    prefix = _temp_prefix(target)
    try:
        with os.scandir(target.parent) as entries:
            names = [
                entry.path
                for entry in entries
                if entry.name.startswith(prefix)
                and entry.name.endswith(_SUFFIX)
                and (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False))
            ]
    except OSError:
        return  # no folder yet, or one we cannot read: writing will say so
    for path in names:
        if _is_stale(path):
            _remove(path)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends (they are delivered then), so
    that no interrupt falls between two steps that belong together."""
    if sys.platform == "win32":
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Temp:
    """A temporary file or folder beside ``target``, held (see :func:`_hold`) while
    ``fd`` is open."""

    def __init__(self, target: Path, path: Path, fd: int) -> None:
        self.target = target
        self.path = path
        self.fd = fd

    def close(self) -> None:
        """Stop holding it (it stays where it is)."""
        fd, self.fd = self.fd, -1  # forgotten first: an interrupt must not close it twice
        if fd >= 0:
            os.close(fd)

    def discard(self) -> None:
        """Remove it and stop holding it. If it cannot be removed it is left unheld, and
        the next run writing the target removes it."""
        _remove(self.path)
        self.close()


def _not_a_folder(target: Path) -> Path | None:
    """The first of ``target``'s folders that is there as something else (``output`` a
    file); None when there is none."""
    for folder in reversed(target.parents):
        if os.path.lexists(folder) and not folder.is_dir():
            return folder
    return None


def _create(target: Path, *, folder: bool = False) -> _Temp:
    """An empty temporary file (or folder) in ``target``'s folder, made if missing."""
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            blocking = _not_a_folder(target)
            if blocking is None:
                raise
            raise OutputError(
                f"cannot write {target}: {blocking} is a file, not a folder; move it away "
                "or write somewhere else"
            ) from None
        if folder:
            name = tempfile.mkdtemp(prefix=_temp_prefix(target), suffix=_SUFFIX, dir=target.parent)
            fd = os.open(name, _OPEN_QUIETLY)
        else:
            fd, name = tempfile.mkstemp(
                prefix=_temp_prefix(target), suffix=_SUFFIX, dir=target.parent
            )
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from exc
    return _Temp(target, Path(name), _hold(fd))


def _keep_previous(target: Path) -> _Temp | None:
    """A second name beside ``target`` for the file there now (None if there is none), to
    put it back by."""
    if not os.path.lexists(target):
        return None
    if os.path.isdir(target) and not os.path.islink(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    while True:
        path = target.parent / f"{_temp_prefix(target)}{os.urandom(4).hex()}{_SUFFIX}"
        try:
            os.link(target, path, follow_symlinks=False)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            # A file system without hard links (FAT, some network shares): move the
            # previous file aside instead; the target is missing until the rename.
            os.replace(target, path)
            break
    try:
        fd = _hold(os.open(path, _OPEN_QUIETLY))
    except OSError:
        fd = -1  # a link to something we cannot open: it goes unheld
    return _Temp(target, path, fd)


def _put_back(done: Sequence[tuple[_Temp, _Temp | None]]) -> list[Path]:
    """Give each target in ``done`` its previous file again, last first; return the targets
    that could not be put back."""
    failed = []
    for temp, previous in reversed(done):
        renamed = not os.path.lexists(temp.path)  # the staged file went onto the target
        try:
            if previous is None:
                if renamed:
                    temp.target.unlink(missing_ok=True)
            else:
                # Moved aside (no hard links) and not yet replaced, the target is missing.
                if renamed or not os.path.lexists(temp.target):
                    os.replace(previous.path, temp.target)
                previous.discard()
        except OSError:
            failed.append(temp.target)
            if previous is not None and os.path.lexists(temp.target):
                previous.discard()  # the target holds its new file, whole
    return failed


class Staging:
    """One change to several files: :meth:`stage` writes each new file to a temporary
    file beside its target, :meth:`commit` renames them all into place together.

    Leaving the ``with`` block removes every temporary file still there, so a failure or
    an interrupt at any point before :meth:`commit` leaves every target as it was. Each
    temporary file is registered the moment it is made, with signals held in between, so
    an interrupt cannot fall between the two and leave one behind.
    """

    def __init__(self) -> None:
        self._staged: list[_Temp] = []
        self._scratch: list[_Temp] = []

    def __enter__(self) -> Staging:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with _signals_held():
            for temp in [*self._staged, *self._scratch]:
                temp.discard()

    def _make(self, target: Path, into: list[_Temp], *, folder: bool = False) -> _Temp:
        with _signals_held():
            temp = _create(target, folder=folder)
            into.append(temp)
        return temp

    def stage(self, target: Path, write: Callable[[Path], object]) -> Path:
        """Call ``write(tmp_path)`` on a new temporary file beside ``target``, to replace
        it on :meth:`commit`; return the temporary file's path."""
        temp = self._make(target, self._staged)
        try:
            write(temp.path)
            # mkstemp makes the file private; give it the mode an ordinary new file gets.
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
            os.chmod(temp.path, mode)
            with open(temp.path, "rb+") as fh:
                os.fsync(fh.fileno())
        except OSError as exc:
            raise OutputError(
                f"cannot write {target}: {_reason(exc)}; the previous file was kept"
            ) from exc
        return temp.path

    def stage_bytes(self, target: Path, data: bytes) -> Path:
        """:meth:`stage` ``data`` for ``target``."""
        return self.stage(target, lambda tmp: tmp.write_bytes(data))

    @contextmanager
    def scratch(self, target: Path) -> Iterator[Path]:
        """A temporary folder beside ``target`` for work files, removed when the block
        ends (found and removed with ``target``'s other temporary files if killed)."""
        temp = self._make(target, self._scratch, folder=True)
        try:
            yield temp.path
        finally:
            temp.discard()

    def commit(self, replaced: list[Path] | None = None) -> None:
        """Rename every staged file onto its target, in the order staged, as one change:
        if a rename fails, or the process is interrupted meanwhile, every target already
        replaced gets its previous file back.

        ``replaced`` gets each target as it is replaced (and loses it if it is put back),
        so that whoever reports an interrupt, whenever it comes, can say which files are
        new.

        A run killed outright (SIGKILL, power loss) between two renames leaves the earlier
        targets new and the later ones as they were: callers stage in an order that makes
        that state heal on the next run (see :func:`deckbuilder.app.packages.write_packages`).
        """
        done: list[tuple[_Temp, _Temp | None]] = []  # (staged file, previous target)
        new = [] if replaced is None else replaced
        before = len(new)
        target = None
        try:
            for temp in self._staged:
                target = temp.target
                # Recorded before the rename so that an interrupt just after it is undone.
                done.append((temp, _keep_previous(temp.target)))
                os.replace(temp.path, temp.target)
                new.append(temp.target)
        except BaseException as exc:
            with _signals_held():
                failed = _put_back(done)
                del new[before:]
                new.extend(failed)
            reason = _reason(exc) if isinstance(exc, OSError) else "interrupted"
            # Even after an interrupt: saying which files are new matters more than the
            # exit status of an interrupted command.
            if failed:
                names = ", ".join(str(path) for path in failed)
                raise PartlyReplaced(
                    f"cannot write {target}: {reason}; these files are new, as their "
                    f"previous versions could not be put back: {names}",
                    failed,
                ) from exc
            if isinstance(exc, OSError):
                raise OutputError(
                    f"cannot write {target}: {reason}; the previous file was kept"
                ) from exc
            raise
        # Every target is new; only the second names are left to remove. A signal arriving
        # now is delivered as this block ends: it interrupts a caller whose change is
        # complete.
        with _signals_held():
            for temp, previous in done:
                temp.close()
                if previous is not None:
                    previous.discard()
            self._staged.clear()


def atomic_write(
    target: Path, write: Callable[[Path], object], *, replaced: list[Path] | None = None
) -> None:
    """Call ``write(tmp_path)`` on a temporary file beside ``target``, then rename it
    into place. On any failure (or Ctrl-C) the previous ``target`` is left untouched.
    ``replaced``: see :meth:`Staging.commit`."""
    remove_stale(target)
    with Staging() as staging:
        staging.stage(target, write)
        staging.commit(replaced)


def atomic_write_bytes(target: Path, data: bytes, *, replaced: list[Path] | None = None) -> None:
    """Replace ``target`` with ``data`` (see :func:`atomic_write`)."""
    atomic_write(target, lambda tmp: tmp.write_bytes(data), replaced=replaced)
