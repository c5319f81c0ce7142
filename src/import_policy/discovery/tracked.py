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


def say_refusal(root: Path, why: str) -> None:
    """The one stderr line of a run where git cannot say what it tracks under `root`."""
    if root not in _SAID:
        _SAID.add(root)
        print(
            f"import-policy: warning: git cannot say which files it tracks ({why}), "
            "so .gitignore is not applied: every file is checked",
            file=sys.stderr,
        )


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
    found = stat_of(entry / "index")
    if found is None:
        return None
    # Whether git answers at all decides what a `.gitignore` hides as much as the index does
    # (where it refuses, nothing is hidden): a cache saved while git answered must not be
    # reused once it refuses. Its standing (which git, the work tree's owner against ours:
    # "dubious ownership") is mixed into the inode field, so every cache keyed by the
    # index's stat data sees it change.
    return found._replace(inode=found.inode ^ _standing(entry))


def _standing(entry: Path) -> int:
    import hashlib
    import shutil

    try:
        owner = os.stat(entry.parent).st_uid
    except OSError:
        owner = -1
    said = f"{shutil.which('git') or ''}\0{owner}\0{getattr(os, 'geteuid', lambda: -1)()}"
    return int.from_bytes(hashlib.blake2b(said.encode(), digest_size=6).digest(), "big")


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
            if self.unknown is not None:
                say_refusal(self.root, self.unknown)
        return self._files

    @property
    def asked_git(self) -> bool:
        return self._files is not None

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


def tracked_links(root: Path) -> list[str]:
    """The symbolic links git tracks under `root` (mode 120000 in its index), relative to
    `root`; empty without a repository or where git cannot say. One `git ls-files`: how a
    run that names files finds the links that lead to them without walking the tree."""
    if _git_entry(root) is None:
        return []
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "ls-files", "-s", "-z", "--", "."],
            cwd=root, capture_output=True, timeout=60, check=False, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    links = []
    for record in done.stdout.split(b"\0"):
        head, _, name = record.partition(b"\t")
        if head.startswith(b"120000 ") and name:
            links.append(os.fsdecode(name))
    return links
