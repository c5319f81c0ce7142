"""Modules reached through a link inside the project root, as the files they lead to.

Python imports a link by its own path (`pkg/fast.py -> heavy_impl.py` is the module
`pkg.fast`, a linked folder holds modules of their own), so the graph reads it there and its
sites stand there. A walk lists such a path as a file (`discovery.files`); where a run names
only the file a link leads to (a hook run), the link's path counts as named too: its findings
are reported at the link's path, as Python runs it.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from pathlib import Path


class Resolved:
    """The files passed, by real path, asked only for a path outside them (a few per run)."""

    def __init__(self, root: Path, passed: Collection[str]) -> None:
        self.root = os.path.abspath(root)
        self.passed = passed
        self._real: dict[str, str] | None = None
        self._asked: dict[str, str | None] = {}

    def target(self, path: str) -> str | None:
        """The file passed that `path` leads to through a link, or None."""
        if path in self.passed:
            return None
        if path not in self._asked:
            where = os.path.join(self.root, path)
            real = os.path.realpath(where)
            found: str | None = None
            if real != os.path.normpath(where):  # a link on its way
                if self._real is None:
                    self._real = {os.path.realpath(os.path.join(self.root, p)): p for p in self.passed}
                found = self._real.get(real)
            self._asked[path] = found
        return self._asked[path]


class Standing(Collection[str]):
    """`paths`, and every path that leads to one of them through a link inside the root."""

    def __init__(self, paths: Collection[str], resolved: Resolved) -> None:
        self.paths = paths
        self.resolved = resolved

    def __contains__(self, path: object) -> bool:
        if path in self.paths:
            return True
        if not isinstance(path, str):
            return False
        target = self.resolved.target(path)
        return target is not None and target in self.paths

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)
