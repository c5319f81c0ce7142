"""When stat data may stand for a file's bytes: the one stat record of every cache that
reuses an answer by stat (the walk, the run cache, the module graph's inputs log, the editor
server's configuration files), and git's racy-clean rule.

A cached answer is reused for a file (or a folder's listing) only where the file's size,
mtime, ctime and inode all equal what the entry recorded, and its mtime does not fall in (or
after) the second the entry was written. An edit that keeps the size and restores
the mtime still moves the ctime (which no user call sets); an edit in the same second as the
entry was written, on a file system whose timestamps are coarse, moves none of them, which is
why such an entry is treated as unknown (git calls it racily clean): the cache then confirms
the bytes, or reads the folder again. (The module graph's log applies the same rule with a
window of its own, `graph.store.RACY_NS`, taken from when the bytes were read.)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

_SECOND = 1_000_000_000


class Stat(NamedTuple):
    mtime_ns: int
    ctime_ns: int
    size: int
    inode: int


def stat_of(path: Path | str, follow: bool = True) -> Stat | None:
    try:
        return stat_or_raise(path, follow)
    except OSError:
        return None


def stat_or_raise(path: Path | str, follow: bool = True) -> Stat:
    return of_result(os.stat(path) if follow else os.lstat(path))


def of_result(data: os.stat_result) -> Stat:
    return Stat(data.st_mtime_ns, data.st_ctime_ns, data.st_size, data.st_ino)


def as_stat(value: object) -> Stat:
    """A stat record read back from a cache entry's JSON (ValueError/TypeError if it is not one)."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise ValueError("not a stat record")
    mtime, ctime, size, inode = (int(part) for part in value)
    return Stat(mtime, ctime, size, inode)


def trusted(now: Stat | None, recorded: Stat, written_ns: int) -> bool:
    """Whether `now` (the file's stat data) lets the entry's answer stand without its bytes."""
    if now is None or now != recorded:
        return False
    written_second = written_ns - written_ns % _SECOND
    return now.mtime_ns < written_second
