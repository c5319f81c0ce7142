"""Per-file facts on disk, so an unchanged file is never parsed twice.

An entry is keyed by a hash of the file's bytes, its path and module, the
tool's version and how the facts were extracted (`mode`: the ROCm pass's graph facts,
facts, or facts with the uses some rules could judge). Entries are JSON, sealed
with a MAC under the user's cache key (cache.seal): a missing, corrupt, truncated,
foreign or forged entry is a miss and is rewritten. Writes go to a temporary file
renamed into place, so concurrent runs (pre-commit runs hooks in parallel) only
ever see whole entries. Without a cache key the cache is off: every get misses and
nothing is written.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from import_policy import __version__
from import_policy.facts.records.model import FileFacts
from import_policy.facts.records.serial import from_json, to_json
from import_policy.cache.key import cache_key
from import_policy.facts import EXTRACTION
from import_policy.cache.seal import FOLDER, read_entry, seal, write_entry

_FORMAT = EXTRACTION
_PURPOSE = b"facts"


def content_digest(source: bytes) -> str:
    """What a file's bytes are known by, in every cache key and the module graph's log."""
    return hashlib.blake2b(source, digest_size=16).hexdigest()


class FactsCache:
    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER
        self.secret = cache_key(root)
        self.hits = 0
        self.misses = 0

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return self.key_of(content_digest(source), path, module, is_package, mode)

    @staticmethod
    def key_of(content: str, path: str, module: str | None, is_package: bool, mode: str) -> str:
        """The key of a file whose bytes have this `content_digest`: a caller that knows it
        (the module graph's inputs log) finds the entry without reading the file."""
        head = f"{_FORMAT}\0{__version__}\0{mode}\0{path}\0{module}\0{is_package}\0{content}"
        return hashlib.blake2b(head.encode(), digest_size=20).hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key[2:]}.json"

    def get(self, key: str) -> FileFacts | None:
        try:
            if self.secret is None:
                raise ValueError("no cache key")
            data = read_entry(self._entry(key), self.secret, _PURPOSE, key)
            if data is None:
                raise ValueError("an entry that does not verify, or a foreign one")
            facts = from_json(data["facts"])
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.misses += 1
            return None
        self.hits += 1
        return facts

    def put(self, key: str, facts: FileFacts) -> None:
        """Best effort: a cache that cannot be written only costs speed."""
        if self.secret is None:
            return
        try:
            text = json.dumps({"key": key, "facts": to_json(facts)}, separators=(",", ":"))
        except (ValueError, RecursionError):
            return
        write_entry(self.folder, self._entry(key), seal(text, self.secret, _PURPOSE))
