"""What each folder held at the last walk, so an unchanged tree is listed without `.gitignore` matching.

A folder's entry is its stat data (its mtime changes whenever an entry is added, removed or
renamed in it), the stat data of its own `.gitignore`, and the names the walk kept (files
of a checked language, and subfolders). It is reused while both stay the same, neither is
racily clean (cache.stat: git's rule, against the second the cache was saved) and no
`.gitignore` above it changed; otherwise the folder is scanned again. Like git's
untracked cache. The whole file is keyed by the tool version, `exclude` and the languages
walked; it is JSON, sealed with a MAC under the user's cache key, and best effort like the
other caches. A link is kept as kind "l" and looked at again on every walk: where it leads
can change without its folder's mtime changing. A file that may hold a configuration
(`import-policy.yaml`, `pyproject.toml`) is kept as kind "p": a walk tells which folders
may hold a project of their own.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, read_regular, seal, unseal, write_entry
from import_policy.cache.racy import now_ns, racy, trusted
from import_policy.cache.stat import Stat, as_stat, stat_of

Kind = Literal["d", "python", "c", "l", "p"]  # "p": a file that may hold a configuration
GitIgnoreStat = Stat | None
_FORMAT = 4
_PURPOSE = b"walk"


def gitignore_stat(folder: Path) -> GitIgnoreStat:
    return stat_of(folder / ".gitignore", follow=False)  # a linked .gitignore is not read (as git)


class WalkCache:
    def __init__(self, root: Path, setting: str, index: Stat | None = None) -> None:
        """`index`: the stat data of git's index now. A listing that a `.gitignore` rule
        shaped depends on which files git tracks (discovery.tracked): it is reused only
        while the index is the one recorded."""
        digest = hashlib.blake2b(f"{_FORMAT}\0{__version__}\0{setting}".encode(), digest_size=12).hexdigest()
        self.cache_folder = root / FOLDER
        self.file = self.cache_folder / "walk" / f"{digest}.json"
        self.folders: dict[str, tuple[Stat, GitIgnoreStat, list[tuple[str, Kind]]]] = {}
        self.shaped: set[str] = set()  # folders whose listing a .gitignore rule changed
        self.changed = False
        self.since = 0  # when the listings kept began to be made (cache.racy)
        self.started = now_ns()  # this walk's: before any listing it makes
        self.listed: set[str] = set()  # folders this walk listed (or found unchanged)
        self.index = index
        # Why git could not say what it tracks when the listings were made (said again by a
        # run that reuses them): kept while the index and git's standing are the same.
        self.refused: str | None = None
        recorded_index: object = None
        self.secret = cache_key(root)
        try:
            if self.secret is None:
                raise ValueError("no cache key")
            text = unseal(read_regular(self.file), self.secret, _PURPOSE)
            if text is None:
                raise ValueError("an entry that does not verify")
            data = json.loads(text)
            self.since = int(data["since"])
            recorded_index = None if data["index"] is None else as_stat(data["index"])
            self.shaped = {str(relative) for relative in data["shaped"]}
            refused = data.get("refused")
            self.refused = refused if isinstance(refused, str) and recorded_index == index else None
            for relative, (folder, ignore, entries) in data["folders"].items():
                self.folders[str(relative)] = (
                    as_stat(folder),
                    None if ignore is None else as_stat(ignore),
                    [(str(name), kind) for name, kind in entries if kind in ("d", "python", "c", "l", "p")],
                )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
            self.folders = {}
            self.shaped = set()
            self.refused = None
        if recorded_index != index:  # which files git tracks may have changed
            for relative in self.shaped:
                self.folders.pop(relative, None)
            self.shaped = set()
            self.changed = True

    def get(self, relative: str, folder: Stat, ignore: GitIgnoreStat) -> list[tuple[str, Kind]] | None:
        found = self.folders.get(relative)
        if found is None or not trusted(folder, found[0], self.since):
            return None
        if found[1] != ignore or (ignore is not None and not trusted(ignore, ignore, self.since)):
            return None
        self.listed.add(relative)
        return found[2]

    def put(
        self, relative: str, folder: Stat, ignore: GitIgnoreStat, entries: list[tuple[str, Kind]], shaped: bool = False,
    ) -> None:
        if shaped != (relative in self.shaped):
            (self.shaped.add if shaped else self.shaped.discard)(relative)
            self.changed = True
        self.listed.add(relative)
        found = self.folders.get(relative)
        if found != (folder, ignore, entries) or not trusted(folder, folder, self.since):
            # Saved again even when unchanged if it was racily clean: then it no longer is.
            self.folders[relative] = (folder, ignore, entries)
            self.changed = True

    def save(self) -> None:
        if not self.changed or self.secret is None:
            return
        # Saved under this walk's moment: a listing it did not confirm stays only where its
        # stat data was not racily clean at its own.
        for relative in [r for r, (f, i, _) in self.folders.items() if r not in self.listed and (
            racy(f, self.since) or i is not None and racy(i, self.since)
        )]:
            del self.folders[relative]
        data = {
            "since": self.started,
            "index": list(self.index) if self.index is not None else None,
            "shaped": sorted(self.shaped),
            "refused": self.refused,
            "folders": {k: [list(m), list(i) if i else None, e] for k, (m, i, e) in self.folders.items()},
        }
        text = json.dumps(data, separators=(",", ":"))
        write_entry(self.cache_folder, self.file, seal(text, self.secret, _PURPOSE))
