"""Which configuration judges a file: the first found from the file's own folder upward.

ruff's resolver, asked once per folder: a walk over thousands of files in a few
hundred folders looks at each folder once, whatever it holds.
"""

from __future__ import annotations

import os
from pathlib import Path

from import_policy.policy.load import config_in

# (the configuration file, the folder it was found in); None: the built-in preset.
Found = tuple[Path, Path] | None


class Nearest:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._folders: dict[str, Found] = {}

    def of_folder(self, folder: Path | str) -> Found:
        """The configuration of the files in `folder` (absolute, or relative to the current
        folder); None where there is none above it: the file gets the built-in preset (the
        contract's rule; ruff would fall back to the current folder's configuration, which
        judges a file by a project it is not part of)."""
        return self._search(folder)

    def _search(self, folder: Path | str) -> Found:
        start = os.path.abspath(folder)
        seen: list[str] = []
        found: Found = None
        current = start
        while True:
            if current in self._folders:
                found = self._folders[current]
                break
            seen.append(current)
            held = config_in(current, self.cwd)
            if held is not None:
                found = (held, Path(current))
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for folder_seen in seen:
            self._folders[folder_seen] = found
        return found

    def of_path(self, path: Path) -> Found:
        """The configuration of a path named on the command line: a folder's own, or a file's folder's."""
        return self.of_folder(path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)))


def same(a: Found, b: Found) -> bool:
    """Whether two searches found the same configuration (the preset is one)."""
    if a is b:
        return True  # one search's answer, shared by every folder it passed
    if a is None or b is None:
        return False
    return a[0] == b[0] and a[1] == b[1]
