"""The facts cache as the editor server uses it: an open buffer's facts stay in memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from import_policy.cache.facts import FactsCache
from import_policy.facts.records.model import FileFacts


class BufferCache(FactsCache):
    """The facts cache, but an open buffer's facts are kept in memory (its latest few
    entries) and never written: a keystroke is not worth a file in the cache."""

    KEPT = 4  # entries per buffer: its facts, its uses, the pass's record, one more

    def __init__(self, root: Path, is_buffer: Callable[[str], bool]) -> None:
        super().__init__(root)
        self._is_buffer = is_buffer
        self._memory: dict[str, FileFacts] = {}
        self._by_path: dict[str, list[str]] = {}

    def get(self, key: str) -> FileFacts | None:
        found = self._memory.get(key)
        return found if found is not None else super().get(key)

    def put(self, key: str, facts: FileFacts) -> None:
        if not self._is_buffer(facts.path):
            super().put(key, facts)
            return
        keys = self._by_path.setdefault(facts.path, [])
        if key not in self._memory:
            keys.append(key)
        self._memory[key] = facts
        while len(keys) > self.KEPT:
            self._memory.pop(keys.pop(0), None)


__all__ = ["BufferCache"]
