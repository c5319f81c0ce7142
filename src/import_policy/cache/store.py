"""Sealed entries of any record type, through a codec: the cache knows nothing of what it keeps.

A `Codec` names its record type, says its format version and turns a record into plain JSON
values and back (raising ValueError, TypeError, KeyError or IndexError on anything it cannot
read). An entry's key digests the tool's version, the codec's name and version, the caller's
`settings` (every configuration input the record was derived from) and the record's `name`;
so a codec or a setting that changes makes old entries miss, never misread. Entries are
sealed like every cache here (cache.seal): missing, corrupt, foreign or forged is a miss.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from import_policy import __version__
from import_policy.cache.key import cache_key
from import_policy.facts import EXTRACTION
from import_policy.cache.seal import FOLDER, read_entry, seal, write_entry

T = TypeVar("T")
_PURPOSE = b"records"


class Codec(Protocol[T]):
    name: str
    version: int

    def encode(self, record: T) -> Any: ...

    def decode(self, data: Any) -> T: ...


class Store(Generic[T]):
    """The entries of one record type under the project's cache folder."""

    def __init__(self, root: Path, codec: Codec[T]) -> None:
        self.folder = root / FOLDER
        self.codec = codec
        self.secret = cache_key(root)
        self.hits = 0
        self.misses = 0

    def key(self, settings: str, name: str) -> str:
        digest = hashlib.blake2b(digest_size=20)
        digest.update(f"{__version__}\0{EXTRACTION}\0{self.codec.name}\0{self.codec.version}\0{settings}\0{name}".encode())
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / self.codec.name / f"{key}.json"

    def get(self, settings: str, name: str) -> T | None:
        key = self.key(settings, name)
        try:
            if self.secret is None:
                raise ValueError("no cache key")
            data = read_entry(self._entry(key), self.secret, _PURPOSE, key)
            if data is None:
                raise ValueError("an entry that does not verify, or a foreign one")
            record = self.codec.decode(data["record"])
        except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
            self.misses += 1
            return None
        self.hits += 1
        return record

    def put(self, settings: str, name: str, record: T) -> None:
        """Best effort: a cache that cannot be written only costs speed."""
        if self.secret is None:
            return
        key = self.key(settings, name)
        try:
            text = json.dumps({"key": key, "record": self.codec.encode(record)}, separators=(",", ":"))
        except (ValueError, TypeError, RecursionError):
            return
        write_entry(self.folder, self._entry(key), seal(text, self.secret, _PURPOSE))
