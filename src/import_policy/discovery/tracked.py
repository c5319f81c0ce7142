"""The files git tracks under the project root: `.gitignore` rules never hide them (as in git).

Read from git's index with `git ls-files -z` (the index is the list of tracked files; no
file's content is read), once per run and only when some `.gitignore` rule has matched a
path. Without a `.git` above the root, or where git is not installed or refuses the
repository, nothing counts as tracked: then `.gitignore` applies to every file, as it
would to an untracked tree. `index_stat` lets the walk cache see the index change.
"""

from __future__ import annotations

import os
from pathlib import Path

from import_policy.cache.stat import Stat, stat_of


def _git_entry(root: Path) -> Path | None:
    """The `.git` folder or file of the work tree holding `root`."""
    for folder in (root, *root.parents):
        entry = folder / ".git"
        if os.path.lexists(entry):
            return entry
    return None


def index_stat(root: Path) -> Stat | None:
    """The stat data of the index of the repository holding `root` (None without one)."""
    entry = _git_entry(root)
    if entry is None:
        return None
    if entry.is_file():  # a linked work tree or a submodule: `gitdir: PATH`
        try:
            text = entry.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        entry = (entry.parent / text[len("gitdir:") :].strip()).resolve()
    return stat_of(entry / "index")


class Tracked:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: frozenset[str] | None = None
        self._folders: frozenset[str] = frozenset()
        # How many answers depended on the index: a lookup that asked changes with it.
        self.asked = 0

    def _load(self) -> frozenset[str]:
        if self._files is None:
            self._files = frozenset(self._ls_files())
            self._folders = frozenset(
                path[:cut] for path in self._files for cut in _slashes(path)
            )
        return self._files

    def _ls_files(self) -> list[str]:
        if _git_entry(self.root) is None:
            return []
        import subprocess  # only a run where a .gitignore rule matched asks git

        try:
            done = subprocess.run(
                ["git", "-c", "core.fsmonitor=false", "ls-files", "-z", "--cached"],
                cwd=self.root, capture_output=True, timeout=60, check=False,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
            )
        except (OSError, subprocess.SubprocessError):
            return []
        if done.returncode != 0:
            return []
        return [os.fsdecode(name) for name in done.stdout.split(b"\0") if name]

    def file(self, relative: str) -> bool:
        self.asked += 1
        return relative in self._load()

    def holds(self, relative: str) -> bool:
        """A folder with a tracked file somewhere below it."""
        self.asked += 1
        self._load()
        return relative in self._folders


def _slashes(path: str) -> list[int]:
    return [at for at, char in enumerate(path) if char == "/"]
