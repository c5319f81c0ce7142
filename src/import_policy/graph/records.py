"""Where the graph's per-file records are kept: the facts cache, or for one run `Memo`."""

from __future__ import annotations

from typing import Protocol

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.facts.records.model import FileFacts

# The cache mode of a file's graph records (a prefix: `plan.GraphPlan.cache_mode`), shared with the engine.
GRAPH_MODE = "graph"


class Records(Protocol):
    """Where the graph's per-file records are kept: the facts cache, or for one run `Memo`."""

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str: ...

    def key_of(self, content: str, path: str, module: str | None, is_package: bool, mode: str) -> str: ...

    def get(self, key: str) -> FileFacts | None: ...

    def put(self, key: str, facts: FileFacts) -> None: ...


class Memo:
    """The records of one run without a facts cache (`--no-cache`), so that every question
    asked of the graph parses a reached file once between them. Keyed by the bytes' digest:
    what a file held when read, as the facts cache keys it."""

    def __init__(self) -> None:
        self._records: dict[str, FileFacts] = {}

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return FactsCache.key_of(content_digest(source), path, module, is_package, mode)

    key_of = staticmethod(FactsCache.key_of)

    def get(self, key: str) -> FileFacts | None:
        return self._records.get(key)

    def put(self, key: str, facts: FileFacts) -> None:
        self._records[key] = facts


__all__ = ["GRAPH_MODE", "Memo", "Records"]
