"""The ROCm pass's module graphs of one project, kept in memory between edits.

Each graph is built once (per set of pass settings: the pass's own, and one per
`kind: import-time` rule), reading every file through the open buffers. A file that
changes (a buffer edited, opened or closed, a file changed on disk) is looked at again:

- where the record the pass keeps of it is the same as before (most keystrokes: a
  comment, a string, a function body the pass does not follow, a name it does not
  know), every item derived from it stands; only the digest its log holds is renewed;
- where it differs only in where its facts stand (a line inserted or removed above
  them: the same facts, in the same order relative to each other), only what holds
  those positions is derived again (`ModuleGraph.renew`);
- otherwise the graph `forget`s it: its inputs log is cut where the file was first read
  and only what came after is derived again, from the records kept here in memory.

Every item of the graph is derived from the files' records and module lookups (the log's
contract, rocm/modulegraph.py), so an unchanged record changes no item.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.discovery.files import SourceFile
from import_policy.facts.model import FileFacts, Suppressions
from import_policy.facts.pytext import python_text
from import_policy.project.modules import module_name
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
    _graphs: dict[str, tuple[RocmPlan, ModuleGraph]] = field(default_factory=dict)
    built: int = 0  # graphs built from nothing (a test hook: an edit must not build one)
    kept: int = 0  # changes whose record was unchanged, so nothing was derived again (a test hook)
    moved: int = 0  # changes whose record only moved (a test hook)

    def graph(self, plan: RocmPlan, read: Reader, records: Records | None) -> ModuleGraph:
        settings = graph_settings(plan)
        if settings is None:  # settings with no stable form: a graph per run, as `check` does
            return module_graph(plan, {}, self.read, self.records)
        found = self._graphs.get(settings)
        if found is None:
            # No files passed: the graph reads every file itself, the edited one included,
            # so it never holds the facts of a run that is over.
            found = (plan, module_graph(plan, {}, self.read, self.records))
            self._graphs[settings] = found
            self.built += 1
        return found[1]

    def forget(self, path: str) -> None:
        """`path` (root-relative) changed: what was derived from it is derived again on next need."""
        made: dict[str, FileFacts | None] = {}  # the new record by cache mode: parsed once for every graph
        for plan, graph in self._graphs.values():
            if not self._same_record(plan, graph, path, made):
                graph.forget(path)

    def _same_record(self, plan: RocmPlan, graph: ModuleGraph, path: str, made: dict[str, FileFacts | None]) -> bool:
        """Whether the file's record, as the graph's derivations read it, is what it was; if
        so the log is told its new digest (and the record kept under it)."""
        logged = graph.inputs.log.files.get(path)
        if logged is None:
            return True  # never read: nothing was derived from it
        _, how, _, hashed = logged
        if how != "r" or hashed is None:
            return False
        module, is_package = module_name(path, plan.policy.roots)
        mode = plan.cache_mode
        before = self.records.get(self.records.key_of(hashed, path, module, is_package, mode))
        if before is None:
            return False
        try:
            source = self.read(SourceFile(plan.policy.root / path, path, "python"))
        except OSError:
            return False
        if mode not in made:
            made[mode] = record(plan, source, path, module, is_package)
        now = made[mode]
        if now is None:
            return False
        moved = now != before
        if moved and ranked(now) != ranked(before):
            return False
        self.records.put(self.records.key(source, path, module, is_package, mode), now)
        graph.renew(path, content_digest(source), module if moved and module is not None else None)
        if moved:
            self.moved += 1
        else:
            self.kept += 1
        return True

    def clear(self) -> None:
        """A module appeared or went away: every lookup may differ, so build afresh."""
        self._graphs.clear()


def record(plan: RocmPlan, source: bytes, path: str, module: str | None, is_package: bool) -> FileFacts:
    """The record the pass keeps of a file (as `rocm.run.project` derives it for a file read)."""
    if not plan.wants_parse(python_text(source), path):
        return FileFacts(path, module, is_package)
    from import_policy.facts.from_ast import graph_facts

    return graph_facts(source, path, module, is_package, plan.keeps)


# Fields that hold a line (or a column) of the file, in the records' dataclasses.
_LINES = frozenset({"line", "end_line", "statement_line"})
_COLUMNS = {"column": "line", "end_column": "end_line"}


def ranked(facts: FileFacts) -> object:
    """The record with every line and column replaced by its rank among the file's own: two
    records rank alike when they hold the same facts in the same order, wherever they stand.
    Every derivation compares positions only within one file (a read after a binding, the
    first site of a statement), so the ranks decide what it derives but the positions it
    reports."""
    lines: set[int] = set()
    points: set[tuple[int, int]] = set()

    def collect(value: object) -> None:
        if isinstance(value, Suppressions):
            lines.update(number for number, _ in value.lines)
        elif is_dataclass(value) and not isinstance(value, type):
            held = {f.name: getattr(value, f.name) for f in fields(value)}
            for name, item in held.items():
                if name in _LINES and isinstance(item, int):
                    lines.add(item)
                elif name in _COLUMNS and isinstance(item, int):
                    points.add((held.get(_COLUMNS[name], 0), item))
                else:
                    collect(item)
        elif isinstance(value, (tuple, list)):
            for item in value:
                collect(item)

    collect(facts)
    line_rank = {number: rank for rank, number in enumerate(sorted(lines))}
    point_rank = {point: rank for rank, point in enumerate(sorted(points))}

    def rebuild(value: object) -> object:
        if isinstance(value, Suppressions):
            return ("suppressions", value.file, tuple((line_rank[n], rules) for n, rules in value.lines))
        if is_dataclass(value) and not isinstance(value, type):
            held = {f.name: getattr(value, f.name) for f in fields(value)}
            out: list[object] = [type(value).__name__]
            for name, item in held.items():
                if name in _LINES and isinstance(item, int):
                    out.append(line_rank[item])
                elif name in _COLUMNS and isinstance(item, int):
                    out.append(point_rank[(held.get(_COLUMNS[name], 0), item)])
                else:
                    out.append(rebuild(item))
            return tuple(out)
        if isinstance(value, (tuple, list)):
            return tuple(rebuild(item) for item in value)
        return value

    return rebuild(facts)
