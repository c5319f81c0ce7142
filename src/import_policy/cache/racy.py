"""When stat data may stand for what a file (or a folder's listing) held: git's racy-clean
rule, the one rule of every cache that reuses an answer by stat data (the walk, the run
cache, the module graph's inputs log, the followed distributions' stamp, the editor
server's configuration files).

An answer is recorded with the stat data of what it was read from (`cache.stat.Stat`) and a
moment `since` no later than that read. Later, equal stat data stands for the same bytes
unless an edit after `since` could have left it as it was: one in the same tick of the
file system's clock. Every edit sets the ctime to that clock's now (no user call sets it;
`touch -r`, `cp -p`, `rsync -a` and `tar` restore the mtime, never the ctime), and an
ordinary write sets the mtime too, so an edit after `since` lands at or after
`since - WINDOW_NS` on both: stat data whose mtime or ctime falls there is racily clean, and
the cache compares the bytes (or lists the folder again). Stat data older than that moves
with any later edit.

`WINDOW_NS` is 2 s: the coarsest timestamps a file system keeps (FAT's mtime counts even
seconds; ext3, HFS+ and many network mounts whole ones) plus the lag of the kernel's coarse
clock behind `time.time_ns()`. git compares the mtime with its index file's own mtime, on
one clock; a cache of ours may live on another file system than what it watches, so the
window stands for that.
"""

from __future__ import annotations

import time

from import_policy.cache.stat import Stat

WINDOW_NS = 2_000_000_000

# The clock `since` is read from. Tests that date a tree in the past with `os.utime` move it
# ahead instead: no call sets a ctime, so only a later moment makes such a tree as old to the
# caches as a checkout made an hour ago.
_clock = time.time_ns


def now_ns() -> int:
    """The moment to record as `since`: taken before the stat data and the bytes it stands for."""
    return _clock()


def racy(stat: Stat, since: int) -> bool:
    """Whether an edit after `since` could leave `stat` as it is (then it cannot stand for the bytes)."""
    return max(stat.mtime_ns, stat.ctime_ns) >= since - WINDOW_NS


def trusted(now: Stat | None, recorded: Stat, since: int) -> bool:
    """Whether `now` (the file's stat data) lets an answer recorded with `recorded` at `since` stand
    without its bytes: the same stat data, not racily clean."""
    return now is not None and now == recorded and not racy(recorded, since)


def kept(stat: Stat | None, since: int) -> Stat | None:
    """Stat data as a log keeps it: None where it is racily clean (the bytes are compared next time)."""
    return None if stat is None or racy(stat, since) else stat
