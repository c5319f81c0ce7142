"""The module graph of a run: what the stores kept of it while its inputs hold, the rest
derived (`derive.project`); the check of its inputs log against the tree as it is now
(`_Tree`), and where the graph is kept between runs (`GraphStores`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from import_policy.cache.facts import FactsCache
from import_policy.cache.store import Store
from import_policy.discovery.files import SourceFile
from import_policy.discovery.overlay import Overlay
from import_policy.facts.records.model import FileFacts
from import_policy.cache.racy import kept, now_ns
from import_policy.cache.stat import Stat, stat_of
from import_policy.graph.codec import EdgesCodec, GraphCodec, StoredEdges
from import_policy.graph.derive import Modules, Reader, graph_settings, project, project_modules
from import_policy.graph.plan import GraphPlan
from import_policy.graph.reach import Project
from import_policy.graph.records import Records
from import_policy.graph.store import (
    Inputs, ModuleGraph, digest, folder_stat, index_of, listing_digest, listing_of,
)

# The module graph's one entry per question (the question and the plan are in the store's key).
GRAPH_NAME = "graph"


class KeptGraphs(Protocol):
    """Module graphs a long-lived process keeps in memory between runs (a language server),
    each told of every file that changes; a run then neither builds nor stores one."""

    def graph(self, plan: GraphPlan, read: Reader, records: Records | None) -> ModuleGraph: ...


class GraphStores:
    """Where the module graph is kept: its index and its links, beside the facts cache."""

    def __init__(self, root: Path) -> None:
        self.index = Store(root, GraphCodec())
        self.edges = Store(root, EdgesCodec())


def graph_stores(cache: FactsCache | None) -> GraphStores | None:
    return GraphStores(cache.folder.parent) if cache is not None else None


def module_graph(
    plan: GraphPlan, known: Mapping[str, FileFacts], read: Reader, cache: Records | None = None,
    stores: GraphStores | None = None, overlay: Overlay | None = None, since: int = 0, any_facts: bool = False,
) -> ModuleGraph:
    """The module graph for this run: what `stores` kept of it while its inputs hold, the rest
    derived (through `project`, reading per-file records from `cache`). `any_facts`: a file
    the log says the engine's facts were read for stands as a read one when its bytes are
    the same (a language server, which passes no facts, loading what `check` stored)."""
    layout = plan.layout
    modules = project_modules(plan, known, stores is not None)
    settings = graph_settings(plan) if stores is not None else None
    stored = stores.index.get(settings, GRAPH_NAME) if stores is not None and settings is not None else None

    since = since or now_ns()
    tree = _Tree(plan, known, modules, read, since, overlay, any_facts)

    def make(logged: Mapping[str, str], inputs: Inputs) -> Project:
        return project(plan, known, reread, cache, logged, inputs)

    def reread(file: SourceFile) -> bytes:
        """A file the check found changed is not read a second time."""
        source = tree.sources.pop(file.relative, None)
        return source if source is not None else read(file)

    def load_edges() -> StoredEdges | None:
        return stores.edges.get(settings, GRAPH_NAME) if stores is not None and settings is not None else None

    return ModuleGraph(layout.root, modules, make, stored, tree, load_edges, modules.known, layout.roots, since)


def save_graph(plan: GraphPlan, graph: ModuleGraph, stores: GraphStores | None) -> None:
    settings = graph_settings(plan) if stores is not None else None
    if stores is None or settings is None or not graph.changed:
        return
    if graph.unparsed:
        return  # a graph with a gap is never kept: each run derives it again, and reports the gap
    index, edges = graph.stored()
    if edges is not None:  # written first: an index is never read with links older than itself
        stores.edges.put(settings, GRAPH_NAME, edges)
    stores.index.put(settings, GRAPH_NAME, index)


class _Tree:
    """The tree as it is now, for the module graph to check its log against."""

    def __init__(
        self, plan: GraphPlan, known: Mapping[str, FileFacts], modules: Modules, read: Reader, since: int,
        overlay: Overlay | None = None, any_facts: bool = False,
    ) -> None:
        self.overlay = overlay
        # The engine's facts and the graph's own record of the same bytes derive the same
        # items (the graph keeps every fact that can make one: `GraphPlan.slim`, `record`).
        self.any_facts = any_facts
        self.root = plan.layout.root
        self.since = since  # when the engine started reading the files passed
        self.known = known
        self.modules = modules
        self.read = read
        self.sources: dict[str, bytes] = {}  # files found changed: their bytes, read once

    def file(self, path: str, how: str, stat: Stat | None, hashed: str | None) -> bool | Stat:
        facts = self.known.get(path) if how != "g" else None  # a `.gitignore` is the same whoever reads it
        logged = "r" if how == "s" or (how == "e" and self.any_facts) else how
        if how != "g" and ("e" if facts is not None and facts.parsed else "r") != logged:
            return False
        held = self.overlay.bytes_of(self.root / path) if self.overlay else None
        if held is not None:  # a buffer: its bytes decide, whatever the file on disk is
            if hashed is not None and digest(held) == hashed:
                return True
            self.sources[path] = held
            return False
        now = stat_of(os.path.join(self.root, path))  # a followed dependency's path is absolute
        if hashed is None or now is None:
            return hashed is None and now is None
        if stat is not None and now == stat:
            return True
        if facts is not None and facts.content:
            # What the engine parsed this run is what counts, whatever the file holds now; its
            # new stat data stands for those bytes only if no change after the engine's read
            # could have left it as it is (cache.racy).
            if facts.content != hashed:
                return False
            return kept(now, self.since) or True
        try:
            source = self.read(SourceFile(self.root / path, path, "python"))
        except OSError:
            return False
        if digest(source) != hashed:
            self.sources[path] = source
            return False
        return kept(now, self.since) or True  # racily clean: the bytes are compared again next time

    def folder(self, folder: str) -> Stat | None:
        return folder_stat(f"{self.root}/{folder}" if folder else str(self.root))

    def names(self, folder: str) -> str:
        return listing_of(f"{self.root}/{folder}" if folder else str(self.root))

    def passed(self) -> Mapping[str, str]:
        return self.modules.known

    def lookup(self, module: str, path: str | None) -> bool:
        return bool(self.modules.get(module) == path)

    def listing(self, hashed: str) -> bool:
        return listing_digest(self.modules) == hashed

    def index(self) -> Stat | None:
        return index_of(self.root)


__all__ = ["GRAPH_NAME", "GraphStores", "KeptGraphs", "graph_stores", "module_graph", "save_graph"]
