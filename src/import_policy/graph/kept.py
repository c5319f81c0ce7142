"""The module graphs of one project, kept in memory between edits (a language server's).

Each graph is built once (per question asked of it: each project pass's, one per
`kind: import-time` rule): loaded from the graph `check` stored while its inputs log holds
(the open buffers standing for their files), the rest derived, reading every file through
the open buffers. A file that changes (a buffer edited, opened or closed, a file changed on
disk) is looked at again:

- where the record the graph keeps of it is the same as before (most keystrokes: a
  comment, a string, a function body the graph does not follow, a name it does not
  know), every item derived from it stands; only the digest its log holds is renewed;
- where it differs only in where its facts stand (a line inserted or removed above
  them: the same facts, in the same order relative to each other), only what holds
  those positions is derived again (`ModuleGraph.renew`);
- where it differs only in facts another file reads by names no other record spells (a
  new module-level import or call, a new name: graph/local_change.py), the same: only the
  module's links, its sites and the reaches are derived again;
- otherwise the graph `forget`s it: its inputs log is cut where the file was first read
  and only what came after is derived again, from the records kept here in memory.

Every item of the graph is derived from the files' records and module lookups (the log's
contract, graph/store.py), so an unchanged record changes no item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.discovery.files import SourceFile
from import_policy.discovery.overlay import Overlay
from import_policy.facts.records.model import FileFacts
from import_policy.facts.prefilter.pytext import python_text
from import_policy.project.modules import module_name
from import_policy.graph.build import GraphStores, module_graph
from import_policy.graph.derive import Reader, graph_settings
from import_policy.graph.plan import GraphPlan
from import_policy.graph.records import Records
from import_policy.graph.local_change import IDENTIFIER, local_change, moved_only
from import_policy.graph.store import ModuleGraph



class KeptRecords:
    """The graph's per-file records: in memory first, then the facts cache on disk, under the
    keys `check` keeps them by (so a server takes the records a `check` left).

    A record the prefilter turned down (no facts: `record`) is kept in memory only: the
    cache's key for the graph's records holds only the project's top-level names, so on disk
    it could stand empty for a file that matters under other `heavy_modules`."""

    def __init__(self, cache: FactsCache | None) -> None:
        self._cache = cache
        self._kept: dict[str, FileFacts] = {}

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return self.key_of(content_digest(source), path, module, is_package, mode)

    key_of = staticmethod(FactsCache.key_of)

    def get(self, key: str) -> FileFacts | None:
        found = self._kept.get(key)
        if found is None and self._cache is not None:
            found = self._cache.get(key)
            if found is not None:
                self._kept[key] = found
        return found

    def put(self, key: str, facts: FileFacts, shared: bool = True) -> None:
        """`shared`: a parse's record, kept in the facts cache too (else in memory only)."""
        self._kept[key] = facts
        if self._cache is not None and shared:
            self._cache.put(key, facts)


@dataclass
class Graphs:
    """`graph.build.KeptGraphs` for one project: a graph per settings digest.

    `stores`: where `check` keeps its graphs: a graph is first loaded from there (its log
    checked against the tree, `buffers` standing for their files), so opening a file in a
    warm project derives nothing; None: built from nothing."""

    read: Reader
    records: KeptRecords
    stores: GraphStores | None = None
    buffers: Callable[[], Mapping[Path | str, bytes]] | None = None  # the open buffers' bytes, by path
    _graphs: dict[str, tuple[GraphPlan, ModuleGraph]] = field(default_factory=dict)
    built: int = 0  # graphs built (loaded or derived: a test hook: an edit must not build one)
    kept: int = 0  # changes whose record was unchanged, so nothing was derived again (a test hook)
    moved: int = 0  # changes whose record only moved (a test hook)
    unread: int = 0  # changes in facts nothing else reads (a test hook)
    cut: int = 0  # changes that cut a graph's inputs log (`ModuleGraph.forget`; a test hook)
    # Per file: the digest of the bytes the log holds, and their text as Python reads it.
    _texts: dict[str, tuple[str, bytes]] = field(default_factory=dict)

    def graph(self, plan: GraphPlan, read: Reader, records: Records | None) -> ModuleGraph:
        settings = graph_settings(plan)
        if settings is None:  # settings with no stable form: a graph per run, as `check` does
            return module_graph(plan, {}, self.read, self.records)
        found = self._graphs.get(settings)
        if found is None:
            # No files passed: the graph reads every file itself, the edited one included,
            # so it never holds the facts of a run that is over.
            overlay = Overlay(self.buffers()) if self.buffers is not None else None
            found = (plan, module_graph(plan, {}, self.read, self.records, self.stores, overlay, any_facts=True))
            self._graphs[settings] = found
            self.built += 1
        return found[1]

    def forget(self, path: str) -> None:
        """`path` (root-relative) changed: what was derived from it is derived again on next need."""
        made: dict[str, tuple[FileFacts, bool]] = {}  # the new record by cache mode: parsed once for every graph
        for plan, graph in self._graphs.values():
            if not self._same_record(plan, graph, path, made):
                graph.forget(path, others_unchanged=True)
                self.cut += 1

    def _same_record(self, plan: GraphPlan, graph: ModuleGraph, path: str, made: dict[str, tuple[FileFacts, bool]]) -> bool:
        """Whether what the graph's derivations read of the file is what it was, or differs
        only where no item but the module's own links and sites (and the reaches) reads it;
        if so the log is told its new digest (and the record kept under it)."""
        logged = graph.inputs.log.files.get(path)
        if logged is None:
            return True  # never read: nothing was derived from it
        _, how, _, hashed = logged
        if hashed is None:
            return False
        module, is_package = module_name(path, plan.layout.roots)
        before = self._logged_record(plan, path, how, hashed, module, is_package)
        if before is None:
            return False
        try:
            source = self.read(SourceFile(plan.layout.root / path, path, "python"))
        except OSError:
            return False
        mode = plan.cache_mode
        if mode not in made:
            made[mode] = parsed_record(plan, source, path, module, is_package)
        now, parsed = made[mode]
        moved = now != before
        if moved and not self._local(plan, graph, path, module, before, now):
            return False
        self.kept += not moved
        self.records.put(self.records.key(source, path, module, is_package, mode), now, shared=parsed)
        graph.renew(path, content_digest(source), module if moved and module is not None else None, "r" if parsed else "s")
        return True

    def _local(
        self, plan: GraphPlan, graph: ModuleGraph, path: str, module: str | None, before: FileFacts, now: FileFacts,
    ) -> bool:
        """Whether two records of the file differ only where the module's own items read them
        (counted in `moved` or `unread`)."""
        change = local_change(before, now)
        if change is None or module is None:
            return False
        if not change.names and not change.free:
            if not moved_only(before, now):
                return False
            self.moved += 1
            return True
        if change.names and not self._unread_elsewhere(plan, graph, path, change.names):
            return False
        self.unread += 1
        return True

    def _logged_record(
        self, plan: GraphPlan, path: str, how: str, hashed: str, module: str | None, is_package: bool,
    ) -> FileFacts | None:
        """The record of the bytes the log holds for the file: none for bytes the prefilter
        turned down; kept, or made again from the file on disk when it still holds those bytes
        (facts the engine gave: its record of the same bytes derives the same items)."""
        if how == "s":
            return FileFacts(path, module, is_package)
        if how not in ("r", "e"):
            return None
        mode = plan.cache_mode
        found = self.records.get(self.records.key_of(hashed, path, module, is_package, mode))
        if found is not None or how != "e":
            return found
        try:
            source = (plan.layout.root / path).read_bytes()
        except OSError:
            return None
        if content_digest(source) != hashed:
            return None
        facts, parsed = parsed_record(plan, source, path, module, is_package)
        self.records.put(self.records.key_of(hashed, path, module, is_package, mode), facts, shared=parsed)
        return facts

    def _unread_elsewhere(self, plan: GraphPlan, graph: ModuleGraph, path: str, names: frozenset[str]) -> bool:
        """Whether no other file the graph read spells any of `names` (`local_change`: then no
        derivation but the file's own links and sites reads them). Looked for in each file's
        text as Python reads it, and its path: a record spells only names its text spells,
        or its module's path does (a relative import's name)."""
        if not all(IDENTIFIER.fullmatch(name) for name in names):
            return False  # a name the search below cannot find
        wanted = [name.encode("ascii") for name in names]
        for other, (_, how, _, hashed) in graph.inputs.log.files.items():
            if other == path or how == "s" or (how == "r" and hashed is None):
                continue  # turned down by the prefilter, or unreadable: no facts to name anything
            if how not in ("r", "e") or hashed is None:
                return False  # facts given without their bytes: not known here
            if not names.isdisjoint(IDENTIFIER.findall(other)):
                return False
            text = self._text(plan, other, hashed)
            if text is None or any(name in text for name in wanted):
                return False
        return True

    def _text(self, plan: GraphPlan, path: str, hashed: str) -> bytes | None:
        """The file's text as Python reads it (`python_text`), of the bytes the log holds
        (kept by their digest); None when the file holds other bytes now."""
        found = self._texts.get(path)
        if found is not None and found[0] == hashed:
            return found[1]
        try:
            source = self.read(SourceFile(plan.layout.root / path, path, "python"))
        except OSError:
            return None
        if content_digest(source) != hashed:
            return None
        text = python_text(source)
        self._texts[path] = (hashed, text)
        return text

    def clear(self) -> None:
        """A module appeared or went away: every lookup may differ, so build afresh."""
        self._graphs.clear()


def parsed_record(plan: GraphPlan, source: bytes, path: str, module: str | None, is_package: bool) -> tuple[FileFacts, bool]:
    """The record the graph keeps of a file (as `graph.derive.project` derives it for a file
    read), and whether it is a parse's (else the prefilter turned the bytes down: no facts)."""
    if not plan.wants_parse(python_text(source), path):
        return FileFacts(path, module, is_package), False
    from import_policy.facts.cpython.from_ast import graph_facts

    return graph_facts(source, path, module, is_package, plan.keeps), True
