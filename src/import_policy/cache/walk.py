"""What each folder held at the last walk, so an unchanged tree is listed without `.gitignore` matching.

A folder's entry is its mtime (which changes whenever an entry is added, removed or
renamed in it), the stat data of its own `.gitignore`, and the names the walk kept (files
of a checked language, and subfolders). It is reused while both stay the same and no
`.gitignore` above it changed; otherwise the folder is scanned again. Like git's
untracked cache. The whole file is keyed by the tool version, `exclude` and the languages
walked; it is JSON, sealed with a MAC under the user's cache key, and best effort like the
other caches. A link is kept as kind "l" and looked at again on every walk: where it leads
can change without its folder's mtime changing.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.cache.seal import FOLDER, read_regular, seal, unseal, write_entry

Kind = Literal["d", "python", "c", "l"]
GitIgnoreStat = tuple[int, int, int] | None
_FORMAT = 2
_PURPOSE = b"walk"


def gitignore_stat(folder: Path) -> GitIgnoreStat:
    try:
        data = os.lstat(folder / ".gitignore")  # a linked .gitignore is not read (as git)
    except OSError:
        return None
    return (data.st_mtime_ns, data.st_size, data.st_ino)


class WalkCache:
    def __init__(self, root: Path, setting: str) -> None:
        digest = hashlib.blake2b(f"{_FORMAT}\0{__version__}\0{setting}".encode(), digest_size=12).hexdigest()
        self.cache_folder = root / FOLDER
        self.file = self.cache_folder / "walk" / f"{digest}.json"
        self.folders: dict[str, tuple[int, GitIgnoreStat, list[tuple[str, Kind]]]] = {}
        self.changed = False
        self.secret = cache_key(root)
        try:
            if self.secret is None:
                raise ValueError("no cache key")
            text = unseal(read_regular(self.file), self.secret, _PURPOSE)
            if text is None:
                raise ValueError("an entry that does not verify")
            data = json.loads(text)
            for relative, (mtime, ignore, entries) in data["folders"].items():
                self.folders[str(relative)] = (
                    int(mtime),
                    None if ignore is None else (int(ignore[0]), int(ignore[1]), int(ignore[2])),
                    [(str(name), kind) for name, kind in entries if kind in ("d", "python", "c", "l")],
                )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
            self.folders = {}

    def get(self, relative: str, mtime: int, ignore: GitIgnoreStat) -> list[tuple[str, Kind]] | None:
        found = self.folders.get(relative)
        if found is None or found[0] != mtime or found[1] != ignore:
            return None
        return found[2]

    def put(self, relative: str, mtime: int, ignore: GitIgnoreStat, entries: list[tuple[str, Kind]]) -> None:
        if self.folders.get(relative) != (mtime, ignore, entries):
            self.folders[relative] = (mtime, ignore, entries)
            self.changed = True

    def save(self) -> None:
        if not self.changed or self.secret is None:
            return
        data = {"folders": {k: [m, list(i) if i else None, e] for k, (m, i, e) in self.folders.items()}}
        text = json.dumps(data, separators=(",", ":"))
        write_entry(self.cache_folder, self.file, seal(text, self.secret, _PURPOSE))
