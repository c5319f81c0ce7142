"""The one stat record of every cache that reuses an answer by stat data (the walk, the run
cache, the module graph's inputs log, the editor server's configuration files): size, mtime,
ctime and inode, all of which must match. When matching stat data stands for the bytes is
`cache.racy`'s rule.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple


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
