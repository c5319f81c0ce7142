"""Writing a fixed file: whole or not at all, as the file it replaces was.

The new bytes go to a temporary file in the same folder, which takes the old file's mode
and owner, and is renamed over it: a reader (or a run killed half-way) sees the old file or
the new one, never a part. A read-only file is not rewritten (ruff and black refuse it too;
root could replace it all the same). A SIGTERM or SIGHUP during the write ends the run as
the signal would, after the temporary file is removed (SIGINT raises KeyboardInterrupt,
which removes it the same way).

What a rename cannot keep: the inode, so another hard link to the file keeps the old bytes
(a `cp -al` copy's fix never writes into the tree it was copied from); extended attributes
and ACLs. What it cannot close: the window between reading the file and renaming over it,
where a write by another program is lost (ruff's read-then-write has the same).
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

READ_ONLY = "the file is read-only"


class ReadOnly(PermissionError):
    def __init__(self, path: Path) -> None:
        super().__init__(errno.EACCES, READ_ONLY, str(path))


class _Stopped(BaseException):
    """A terminating signal arrived while a temporary file existed."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def write_atomic(path: Path, data: bytes) -> None:
    """Replace the file at `path` (through a symlink: the file it points to) by `data`,
    keeping its mode and owner. `ReadOnly` when no one may write it; OSError otherwise."""
    target = path.resolve()
    status = target.stat()
    if not status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        raise ReadOnly(target)
    with _cleaned_up_on_signals():
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".import-policy")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, stat.S_IMODE(status.st_mode))
            if not _same_owner(temporary, status):
                os.unlink(temporary)
                _write_in_place(target, data)  # an in-place write keeps the owner: ruff's way
                return
            os.replace(temporary, target)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise


def _same_owner(temporary: str, status: os.stat_result) -> bool:
    """Give the temporary file the old file's owner and group; False when that is not allowed."""
    made = os.stat(temporary)
    if (made.st_uid, made.st_gid) == (status.st_uid, status.st_gid):
        return True
    try:
        os.chown(temporary, status.st_uid, status.st_gid)
    except PermissionError:
        return False
    # chown clears the set-id bits: put the mode back.
    os.chmod(temporary, stat.S_IMODE(status.st_mode))
    return True


def _write_in_place(target: Path, data: bytes) -> None:
    with open(target, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


_TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _cleaned_up_on_signals() -> Iterator[None]:
    """While the block runs, a SIGTERM or SIGHUP left at its default (which would end the
    process with the temporary file still there) raises instead; once the block has cleaned
    up, the process ends by that signal as it would have."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for number in _TERMINATING:
        if signal.getsignal(number) == signal.SIG_DFL:
            previous[number] = signal.signal(number, _raise)
    try:
        yield
    except _Stopped as stopped:
        for number, handler in previous.items():
            signal.signal(number, handler)
        previous.clear()
        os.kill(os.getpid(), stopped.number)  # now at its default: the process ends here
        raise SystemExit(128 + stopped.number) from None  # where the signal is held off
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _raise(number: int, _frame: FrameType | None) -> None:
    raise _Stopped(number)
