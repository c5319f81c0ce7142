"""The ROCm pass's module graphs of one project, kept in memory between edits.

Each graph is built once (per set of pass settings: the pass's own, and one per
`kind: import-time` rule), reading every file through the open buffers; a file that
changes (a buffer edited, opened or closed, a file changed on disk) is `forget`-ten:
the graph cuts its inputs log where that file was first read and derives again only
what came after, from the records kept here in memory (the rest from the facts cache).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.facts.model import FileFacts
from import_policy.rocm.modulegraph import ModuleGraph
from import_policy.rocm.run import Reader, Records, RocmPlan, graph_settings, module_graph


class KeptRecords:
    """The pass's per-file records: in memory first, then the facts cache on disk."""

    def __init__(self, cache: FactsCache | None) -> None:
        self._cache = cache
        self._kept: dict[str, FileFacts] = {}

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return FactsCache.key_of(content_digest(source), path, module, is_package, mode)

    key_of = staticmethod(FactsCache.key_of)

    def get(self, key: str) -> FileFacts | None:
        found = self._kept.get(key)
        if found is None and self._cache is not None:
            found = self._cache.get(key)
            if found is not None:
                self._kept[key] = found
        return found

    def put(self, key: str, facts: FileFacts) -> None:
        self._kept[key] = facts
        if self._cache is not None:
            self._cache.put(key, facts)


@dataclass
class Graphs:
    """`rocm.run.KeptGraphs` for one project: a graph per settings digest."""

    read: Reader
    records: KeptRecords
    _graphs: dict[str, ModuleGraph] = field(default_factory=dict)
    built: int = 0  # graphs built from nothing (a test hook: an edit must not build one)

    def graph(self, plan: RocmPlan, read: Reader, records: Records | None) -> ModuleGraph:
        settings = graph_settings(plan)
        if settings is None:  # settings with no stable form: a graph per run, as `check` does
            return module_graph(plan, {}, self.read, self.records)
        found = self._graphs.get(settings)
        if found is None:
            # No files passed: the graph reads every file itself, the edited one included,
            # so it never holds the facts of a run that is over.
            found = module_graph(plan, {}, self.read, self.records)
            self._graphs[settings] = found
            self.built += 1
        return found

    def forget(self, path: str) -> None:
        """`path` (root-relative) changed: what was derived from it is derived again on next need."""
        for graph in self._graphs.values():
            graph.forget(path)

    def clear(self) -> None:
        """A module appeared or went away: every lookup may differ, so build afresh."""
        self._graphs.clear()
