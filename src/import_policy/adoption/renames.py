"""Files git sees as renamed since the last commit, matched by content as git matches them.

A baseline entry keyed by a path that is gone follows the file to its new path,
when git says where it went (`git mv`, or a rename staged or committed after the
baseline was written: since the commit that last wrote the baseline file, so a
committed rename keeps its entries in CI too); git's own rename detection decides,
so what counts as "the same file" is what `git log --follow` and `git status` say.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def written_in(root: Path, baseline: Path) -> str:
    """The commit that last wrote `baseline` (`git log -1 -- BASELINE`); HEAD where none did
    (a baseline not committed yet was written against the work tree of HEAD)."""
    try:
        done = subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", str(baseline.absolute())],
            cwd=root, capture_output=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return "HEAD"
    commit = done.stdout.decode("ascii", "replace").strip()
    return commit if done.returncode == 0 and commit else "HEAD"


def renamed(root: Path, baseline: Path | None = None) -> dict[str, str]:
    """Old path -> new path (both relative to `root`, with `/`) of the files git sees as
    renamed between the commit that last wrote `baseline` (HEAD without one) and the work
    tree; empty where git cannot say."""
    base = written_in(root, baseline) if baseline is not None else "HEAD"
    try:
        done = subprocess.run(
            ["git", "diff", "--name-status", "-z", "-M", "--relative", base, "--"],
            cwd=root, capture_output=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode != 0:
        return {}
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, str] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")) and index + 2 < len(fields):
            if status.startswith("R"):
                found[fields[index + 1]] = fields[index + 2]
            index += 3
        else:
            index += 2
    return found
