"""The module graphs of one project, kept in memory between edits (a language server's).

Each graph is built once (per question asked of it: each project pass's, one per
`kind: import-time` rule), reading every file through the open buffers. A file that
changes (a buffer edited, opened or closed, a file changed on disk) is looked at again:

- where the record the graph keeps of it is the same as before (most keystrokes: a
  comment, a string, a function body the graph does not follow, a name it does not
  know), every item derived from it stands; only the digest its log holds is renewed;
- where it differs only in where its facts stand (a line inserted or removed above
  them: the same facts, in the same order relative to each other), only what holds
  those positions is derived again (`ModuleGraph.renew`);
- otherwise the graph `forget`s it: its inputs log is cut where the file was first read
  and only what came after is derived again, from the records kept here in memory.

Every item of the graph is derived from the files' records and module lookups (the log's
contract, graph/store.py), so an unchanged record changes no item.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import TypeVar

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.discovery.files import SourceFile
from import_policy.facts.records.model import FileFacts, Suppressions
from import_policy.facts.prefilter.pytext import python_text
from import_policy.project.modules import module_name
from import_policy.graph.build import module_graph
from import_policy.graph.derive import Reader, graph_settings
from import_policy.graph.plan import GraphPlan
from import_policy.graph.records import Records
from import_policy.graph.store import ModuleGraph

T = TypeVar("T", int, tuple[int, int])


class KeptRecords:
    """The graph's per-file records: in memory first, then the facts cache on disk.

    Keyed also by `settings` (what the graph's prefilter asks of a file: its tokens and
    import heads): a record is empty where the prefilter found nothing to parse, and the
    cache's own key for the graph's records holds only the project's top-level names, so a
    record written under other `heavy_modules` could stand empty for a file that now
    matters (`check` with the cache after such a change misses its findings)."""

    def __init__(self, cache: FactsCache | None, settings: str = "") -> None:
        self._cache = cache
        self._settings = settings
        self._kept: dict[str, FileFacts] = {}

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return self.key_of(content_digest(source), path, module, is_package, mode)

    def key_of(self, content: str, path: str, module: str | None, is_package: bool, mode: str) -> str:
        return FactsCache.key_of(content, path, module, is_package, f"{mode}:{self._settings}")

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
    """`graph.build.KeptGraphs` for one project: a graph per settings digest."""

    read: Reader
    records: KeptRecords
    _graphs: dict[str, tuple[GraphPlan, ModuleGraph]] = field(default_factory=dict)
    built: int = 0  # graphs built from nothing (a test hook: an edit must not build one)
    kept: int = 0  # changes whose record was unchanged, so nothing was derived again (a test hook)
    moved: int = 0  # changes whose record only moved (a test hook)
    unread: int = 0  # changes in names nothing else reads (a test hook)
    # Per cache mode, per file: the digest of the record read and every name it spells.
    _tokens: dict[str, dict[str, tuple[str, frozenset[str]]]] = field(default_factory=dict)

    def graph(self, plan: GraphPlan, read: Reader, records: Records | None) -> ModuleGraph:
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
                graph.forget(path, others_unchanged=True)

    def _same_record(self, plan: GraphPlan, graph: ModuleGraph, path: str, made: dict[str, FileFacts | None]) -> bool:
        """Whether the file's record, as the graph's derivations read it, is what it was; if
        so the log is told its new digest (and the record kept under it)."""
        logged = graph.inputs.log.files.get(path)
        if logged is None:
            return True  # never read: nothing was derived from it
        _, how, _, hashed = logged
        if how != "r" or hashed is None:
            return False
        module, is_package = module_name(path, plan.layout.roots)
        mode = plan.cache_mode
        before = self.records.get(self.records.key_of(hashed, path, module, is_package, mode))
        if before is None:
            return False
        try:
            source = self.read(SourceFile(plan.layout.root / path, path, "python"))
        except OSError:
            return False
        if mode not in made:
            made[mode] = record(plan, source, path, module, is_package)
        now = made[mode]
        if now is None:
            return False
        moved = now != before
        names = rebound(before, now) if moved else frozenset()
        if names:
            # New facts: the file's own items only, where nothing else can read the difference.
            if module is None or not only_names(before, now, names) or not self._unread_elsewhere(plan, graph, path, names):
                return False
            self.unread += 1
        elif moved:
            if not moved_only(before, now):
                return False
            self.moved += 1
        else:
            self.kept += 1
        self.records.put(self.records.key(source, path, module, is_package, mode), now)
        graph.renew(path, content_digest(source), module if moved and module is not None else None)
        return True

    def _unread_elsewhere(self, plan: GraphPlan, graph: ModuleGraph, path: str, names: frozenset[str]) -> bool:
        """Whether no other file the graph read spells any of `names` anywhere in its record
        (`only_names`: then no derivation but the file's own links and sites reads them)."""
        mode = plan.cache_mode
        tokens = self._tokens.setdefault(mode, {})
        for other, (_, how, _, hashed) in graph.inputs.log.files.items():
            if other == path or how == "s" or (how == "r" and hashed is None):
                continue  # turned down by the prefilter, or unreadable: no facts to name anything
            if how != "r" or hashed is None:
                return False  # facts the engine gave: not kept here, so not known
            found = tokens.get(other)
            if found is None or found[0] != hashed:
                module, is_package = module_name(other, plan.layout.roots)
                facts = self.records.get(self.records.key_of(hashed, other, module, is_package, mode))
                if facts is None:
                    return False
                found = tokens[other] = (hashed, spelled(facts))
            if not names.isdisjoint(found[1]):
                return False
        return True

    def clear(self) -> None:
        """A module appeared or went away: every lookup may differ, so build afresh."""
        self._graphs.clear()


def prefilter_settings(plan: GraphPlan | None) -> str:
    """What decides which files the graph parses, as a digest (`KeptRecords`)."""
    if plan is None:
        return ""
    heads = sorted(plan.import_heads) if plan.import_heads is not None else None
    return hashlib.blake2b(repr((plan.tokens, heads, plan.heavy_heads)).encode(), digest_size=8).hexdigest()


def record(plan: GraphPlan, source: bytes, path: str, module: str | None, is_package: bool) -> FileFacts:
    """The record the graph keeps of a file (as `graph.derive.project` derives it for a file read)."""
    if not plan.wants_parse(python_text(source), path):
        return FileFacts(path, module, is_package)
    return plan.extract(source, path, module, is_package)


# Fields that hold a line (or a column) of the file, in the records' dataclasses.
_LINES = frozenset({"line", "end_line", "statement_line"})
_COLUMNS = {"column": "line", "end_column": "end_line"}
_PLAIN = (str, int, float, bool, type(None), frozenset)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    found = _FIELD_NAMES.get(cls)
    if found is None:
        found = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return found


def _blanked(facts: FileFacts) -> tuple[object, list[int], list[tuple[int, int]]]:
    """The record with its lines and columns taken out (in walk order), and those taken out."""
    lines: list[int] = []
    points: list[tuple[int, int]] = []

    def walk(value: object) -> object:
        if isinstance(value, _PLAIN):
            return value
        if isinstance(value, (tuple, list)):
            return tuple(walk(item) for item in value)
        if isinstance(value, Suppressions):
            lines.extend(number for number, _ in value.lines)
            return ("suppressions", value.file, tuple(rules for _, rules in value.lines))
        if is_dataclass(value) and not isinstance(value, type):
            out: list[object] = [type(value)]
            for name in _names(type(value)):
                item = getattr(value, name)
                if name in _LINES and type(item) is int:
                    lines.append(item)
                    out.append(None)
                elif name in _COLUMNS and type(item) is int:
                    points.append((getattr(value, _COLUMNS[name]), item))
                    out.append(None)
                else:
                    out.append(walk(item))
            return tuple(out)
        return value

    return walk(facts), lines, points


def _same_order(before: list[T], now: list[T]) -> bool:
    """Whether one strictly increasing map takes each of `before` to the one of `now` at the
    same place: every comparison between them comes out the same."""
    if len(before) != len(now):
        return False
    pairs = sorted(set(zip(before, now)))
    return all(a[0] < b[0] and a[1] < b[1] for a, b in zip(pairs, pairs[1:]))


def moved_only(before: FileFacts, now: FileFacts) -> bool:
    """Whether two records hold the same facts in the same order, wherever they stand: their
    lines and columns differ by one order-keeping relabelling. Every derivation compares
    positions only within one file (a read after a binding, the first site of a statement),
    so such records decide the same graph but for the positions it reports."""
    shape_before, lines_before, points_before = _blanked(before)
    shape_now, lines_now, points_now = _blanked(now)
    return (
        shape_before == shape_now and _same_order(lines_before, lines_now) and _same_order(points_before, points_now)
    )


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def spelled(value: object) -> frozenset[str]:
    """Every identifier a record's strings spell (`a.b.c` spells `a`, `b` and `c`): a name
    a derivation looks up in another file comes from one of these."""
    found: set[str] = set()

    def walk(item: object) -> None:
        if isinstance(item, str):
            found.update(_IDENTIFIER.findall(item))
        elif isinstance(item, (tuple, list, frozenset, set)):
            for inner in item:
                walk(inner)
        elif is_dataclass(item) and not isinstance(item, type):
            for name in _names(type(item)):
                walk(getattr(item, name))

    walk(value)
    return frozenset(found)


def rebound(before: FileFacts, now: FileFacts) -> frozenset[str]:
    """The names whose assignments differ between two records (one added, removed or given
    another value or condition; where they stand aside)."""
    old = Counter((a.name, a.value, a.context) for a in before.assigns)
    new = Counter((a.name, a.value, a.context) for a in now.assigns)
    return frozenset(key[0] for key in (old - new) + (new - old))


def only_names(before: FileFacts, now: FileFacts, names: frozenset[str]) -> bool:
    """Whether the two records differ only in the assignments of `names` (but for where the
    other facts stand), and the rest of the record never spells those names.

    Another file's derivation reads a file's bindings only by name (`from m import x`, the
    flag `m.x`, `m.x()` resolved, `from m import *` then `x`), so such a change reaches no
    item but the module's own links and sites (and every reach, which holds its links)
    unless another record spells one of the names (`Graphs._unread_elsewhere`)."""
    rest_before = replace(before, assigns=tuple(a for a in before.assigns if a.name not in names))
    rest_now = replace(now, assigns=tuple(a for a in now.assigns if a.name not in names))
    if rest_before != rest_now and not moved_only(rest_before, rest_now):
        return False
    # Moved or not, the two rests hold the same strings.
    return names.isdisjoint(spelled(rest_now))
