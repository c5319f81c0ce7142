"""The files git tracks under the project root: `.gitignore` rules never hide them (as in git).

Read from git's index with `git ls-files -z` (the index is the list of tracked files; no
file's content is read), once per run and only when some `.gitignore` rule has matched a
path. Without a `.git` above the root nothing counts as tracked: `.gitignore` applies to
every file, as it would to an untracked tree. Where there is a repository but git cannot
say what it tracks (not installed, or refusing it: "dubious ownership" in a CI container),
every file counts as tracked, so `.gitignore` hides nothing (a file it hides might be
tracked), and one stderr line says why. `index_stat` lets the walk cache see the index change.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from import_policy.cache.stat import Stat, stat_of
from import_policy.quoting import escape_controls

# The roots whose refusal was said: one line per run, however many walks and lookups ask.
_SAID: set[Path] = set()


def _git_entry(root: Path) -> Path | None:
    """The `.git` folder or file of the work tree holding `root`."""
    for folder in (root, *root.parents):
        entry = folder / ".git"
        if os.path.lexists(entry):
            return entry
    return None


def new_run() -> None:
    """Forget which refusals were said (a process may hold several runs: tests, a server)."""
    _SAID.clear()


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
        self.unknown: str | None = None  # why git could not say what it tracks
        # How many answers depended on the index: a lookup that asked changes with it.
        self.asked = 0

    def _load(self) -> frozenset[str]:
        if self._files is None:
            self._files = frozenset(self._ls_files())
            self._folders = frozenset(
                path[:cut] for path in self._files for cut in _slashes(path)
            )
            if self.unknown is not None and self.root not in _SAID:
                _SAID.add(self.root)
                print(
                    f"import-policy: warning: git cannot say which files it tracks ({self.unknown}), "
                    "so .gitignore is not applied: every file is checked",
                    file=sys.stderr,
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
        except FileNotFoundError:
            self.unknown = "git is not installed"
            return []
        except (OSError, subprocess.SubprocessError) as error:
            self.unknown = f"git could not be run: {escape_controls(str(error))}"
            return []
        if done.returncode != 0:
            said = os.fsdecode(done.stderr).strip().splitlines()
            self.unknown = escape_controls(said[0]) if said else f"git ls-files exited with {done.returncode}"
            return []
        return [os.fsdecode(name) for name in done.stdout.split(b"\0") if name]

    def file(self, relative: str) -> bool:
        self.asked += 1
        files = self._load()
        return self.unknown is not None or relative in files

    def holds(self, relative: str) -> bool:
        """A folder with a tracked file somewhere below it."""
        self.asked += 1
        self._load()
        return self.unknown is not None or relative in self._folders


def _slashes(path: str) -> list[int]:
    return [at for at, char in enumerate(path) if char == "/"]
