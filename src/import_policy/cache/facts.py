"""Per-file facts on disk, so an unchanged file is never parsed (or syntax-checked) twice.

An entry is keyed by a hash of the file's bytes, its path and module, the
tool's version and how the facts were extracted (`mode`: syntax check only,
facts, or facts with the uses some rules could judge). Entries are JSON; a
missing, corrupt, truncated or foreign entry is a miss and is rewritten.
Writes go to a temporary file renamed into place, so concurrent runs (pre-commit
runs hooks in parallel) only ever see whole entries.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from import_policy import __version__
from import_policy.facts.model import FileFacts
from import_policy.facts.serial import from_json, to_json

FOLDER = ".import_policy_cache"
# Bumped whenever extraction changes what it records for the same bytes, so old entries miss.
_FORMAT = 5


class FactsCache:
    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER
        self.hits = 0
        self.misses = 0

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        digest = hashlib.blake2b(digest_size=20)
        head = f"{_FORMAT}\0{__version__}\0{mode}\0{path}\0{module}\0{is_package}\0"
        digest.update(head.encode())
        digest.update(source)
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key[2:]}.json"

    def get(self, key: str) -> FileFacts | None:
        try:
            data = json.loads(self._entry(key).read_bytes())
            if not isinstance(data, dict) or data.get("key") != key:
                raise ValueError("a foreign entry")
            facts = from_json(data["facts"])
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.misses += 1
            return None
        self.hits += 1
        return facts

    def put(self, key: str, facts: FileFacts) -> None:
        """Best effort: a cache that cannot be written only costs speed."""
        try:
            text = json.dumps({"key": key, "facts": to_json(facts)}, separators=(",", ":"))
        except (ValueError, RecursionError):
            return
        write_entry(self.folder, self._entry(key), text)


_prepared: set[Path] = set()  # cache folders this process made sure of


def write_entry(folder: Path, entry: Path, text: str) -> None:
    """Write one entry of the cache folder `folder` (created with its `.gitignore` when
    missing) whole or not at all: a temporary file renamed into place, so concurrent runs
    only ever see complete entries. Best effort: a cache that cannot be written only costs
    speed."""
    import tempfile  # only a run with something to write pays for it

    try:
        if folder not in _prepared:
            folder.mkdir(exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by import-policy\n*\n", encoding="utf-8")
            _prepared.add(folder)
        entry.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, entry)
        except BaseException:
            _remove(temporary)
            raise
    except OSError:
        pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
