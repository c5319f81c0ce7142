"""The project's eager import graph, its heavy sites, and shortest chains (contract section 4).

Built from the facts of every project file, never by importing anything.
Nodes are project modules; an edge is an import that runs when its module is
imported (not in a function, not kept off ROCm by a guard). A heavy site is an
eager import of a heavy module, an eager call of a probe on one, or an eager
call of a project function that (through other project functions, across
modules) imports or probes one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, Union

from import_policy.rocm.predicates import eager, eager_heavy_imports, is_heavy, kept_off, probe_of
from import_policy.config.model import RocmSafety
from import_policy.facts.model import CallFact, FileFacts, ImportFact, Span
from import_policy.patterns import prefixes

LinkKind = Literal["import", "package", "probe", "call"]
# How deep calls through project functions are followed; real wrappers are two or three deep.
MAX_CALL_DEPTH = 32


@dataclass(frozen=True)
class Link:
    """One step of a chain: `source` running makes `target` run, at `path:line`."""

    source: str
    target: str
    path: str
    line: int
    kind: LinkKind
    detail: str


@dataclass(frozen=True)
class HeavySite:
    """Where a module imports a heavy module at import time."""

    path: str
    module: str | None
    heavy: str
    span: Span
    statement_line: int
    kind: Literal["import", "probe", "call"]
    detail: str  # `import tilelang`, `_has_module("tilelang")`, `has_x() -> _has_module("x")`


@dataclass(frozen=True)
class Chain:
    entry: str
    links: tuple[Link, ...]

    @property
    def modules(self) -> tuple[str, ...]:
        return (self.entry, *(link.target for link in self.links))


_Witness = tuple[str, tuple[str, ...]]  # heavy module, call steps (`has_x()`, `_has_module("x")`)
_BodyFact = Union[ImportFact, CallFact]


class Project:
    """The graph, built lazily: a file is parsed only when a chain or a call reaches it.

    `modules` maps every project module to its file (from the file walk, no
    reading); `load` gives a file's facts (None: unreadable). With pre-commit
    passing a few files, only the part of the project the entry modules reach,
    and the functions the passed files call, is ever parsed.
    """

    def __init__(self, rocm: RocmSafety, modules: Mapping[str, str], load: Callable[[str], FileFacts | None]) -> None:
        self.rocm = rocm
        self.module_path = modules  # looked up, never walked: it may find files lazily
        self._load = load
        self._files: dict[str, _File | None] = {}
        self._sites: dict[str, list[HeavySite]] = {}
        self._edges: dict[str, list[Link]] = {}
        self._witnesses: dict[tuple[str, str], _Witness | None] = {}
        self._in_progress: set[tuple[str, str]] = set()

    @classmethod
    def from_facts(cls, rocm: RocmSafety, files: Iterable[FileFacts]) -> Project:
        by_path = {facts.path: facts for facts in files}
        modules: dict[str, str] = {}
        for facts in by_path.values():
            if facts.module is not None and not facts.path.endswith(".pyi"):
                modules.setdefault(facts.module, facts.path)
        return cls(rocm, modules, by_path.get)

    def _file(self, path: str) -> _File | None:
        if path not in self._files:
            facts = self._load(path)
            ok = facts is not None and facts.syntax_error is None and not path.endswith(".pyi")
            self._files[path] = _File(facts) if ok and facts is not None else None  # stubs never run
        return self._files[path]

    # --- calls through project functions ------------------------------------------

    def resolve(self, callee: str, path: str, depth: int = 0) -> tuple[str, str] | None:
        """The project function a callee names: (file, dotted name in it), following re-exports."""
        if depth > 8:
            return None
        here = self._file(path)
        if here is not None and "." not in callee and callee in here.functions:
            return path, callee
        parts = callee.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            target = self.module_path.get(".".join(parts[:cut]))
            if target is None:
                continue
            rest = parts[cut:]
            there = self._file(target)
            if there is None:
                return None
            if ".".join(rest) in there.functions:
                return target, ".".join(rest)
            alias = there.aliases.get(rest[0])
            if alias is not None:  # `from .import_utils import has_x` in a package __init__
                return self.resolve(".".join([alias, *rest[1:]]), target, depth + 1)
            return None
        return None

    def witness(self, key: tuple[str, str], depth: int = 0) -> _Witness | None:
        """Whether calling the function imports a heavy module, and through which calls."""
        if key in self._witnesses:
            return self._witnesses[key]
        if key in self._in_progress or depth > MAX_CALL_DEPTH:
            return None  # recursion: the first visit decides
        self._in_progress.add(key)
        found: _Witness | None = None
        path = key[0]
        file = self._file(path)
        for fact in file.bodies.get(key[1], ()) if file is not None else ():
            if kept_off(self.rocm, fact.context):
                continue
            if isinstance(fact, ImportFact):
                if is_heavy(self.rocm, fact.name):
                    # `from aiter.ops import mhc` imports `aiter.ops`; `mhc` may be a function in it.
                    name = fact.module if fact.kind == "from" and is_heavy(self.rocm, fact.module) else fact.name
                    found = (name, (f"import {name}",))
            else:
                found = self._call_witness(fact, path, depth + 1)
            if found is not None:
                break
        self._in_progress.discard(key)
        self._witnesses[key] = found
        return found

    def _call_witness(self, call: CallFact, path: str, depth: int) -> _Witness | None:
        if probe_of(self.rocm, call) is not None and call.first_string is not None:
            return call.first_string, (f'{call.tail}("{call.first_string}")',)
        key = self.resolve(call.callee, path)
        if key is None:
            return None
        inner = self.witness(key, depth)
        if inner is None:
            return None
        return inner[0], (f"{call.tail}()", *inner[1])

    # --- sites and edges ----------------------------------------------------------

    def sites(self, path: str) -> list[HeavySite]:
        """The heavy sites of one file, in source order."""
        if path not in self._sites:
            file = self._file(path)
            self._sites[path] = list(self._find_sites(file.facts)) if file is not None else []
        return self._sites[path]

    def edges(self, module: str) -> list[Link]:
        if module not in self._edges:
            file = self._file(self.module_path[module]) if module in self.module_path else None
            self._edges[module] = self._find_edges(file.facts) if file is not None else []
        return self._edges[module]

    def _find_sites(self, facts: FileFacts) -> Iterator[HeavySite]:
        for fact in eager_heavy_imports(self.rocm, facts):
            whole = fact.kind == "from" and is_heavy(self.rocm, fact.module)
            heavy = fact.module if whole else fact.name
            span = fact.module_span if whole else fact.span
            detail = f"import {heavy}" if fact.kind != "dynamic" else f'import_module("{heavy}")'
            yield HeavySite(facts.path, facts.module, heavy, span, fact.statement_line, "import", detail)
        for call in facts.calls:
            if not eager(self.rocm, call.context):
                continue
            found = self._call_witness(call, facts.path, 0)
            if found is not None:
                # One step is the probe itself; more is a call of a project function.
                kind: Literal["probe", "call"] = "probe" if len(found[1]) == 1 else "call"
                yield HeavySite(
                    facts.path, facts.module, found[0], call.span, call.statement_line, kind, " -> ".join(found[1])
                )

    def _find_edges(self, facts: FileFacts) -> list[Link]:
        assert facts.module is not None
        seen: set[str] = set()
        links: list[Link] = []
        for fact in facts.imports:
            if not eager(self.rocm, fact.context):
                continue
            for prefix in reversed(prefixes(fact.name)):
                if prefix == facts.module or prefix in seen or prefix not in self.module_path:
                    continue
                seen.add(prefix)
                links.append(Link(facts.module, prefix, facts.path, fact.span.line, "import", _spelled(fact)))
        return links

    # --- chains -------------------------------------------------------------------

    def reach(self, entry: str) -> dict[str, Link | None]:
        """Every module that importing `entry` runs, with the link it was first reached by (BFS)."""
        if entry not in self.module_path:
            return {}
        parents: dict[str, Link | None] = {entry: None}
        queue = deque([entry])
        # Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first.
        for ancestor in reversed(prefixes(entry)[1:]):
            if ancestor in self.module_path and ancestor not in parents:
                parents[ancestor] = Link(
                    entry, ancestor, self.module_path[ancestor], 1, "package", f"parent package of {entry}"
                )
                queue.append(ancestor)
        while queue:
            module = queue.popleft()
            for link in self.edges(module):
                if link.target not in parents:
                    parents[link.target] = link
                    queue.append(link.target)
        return parents

    @staticmethod
    def chain(entry: str, parents: dict[str, Link | None], module: str) -> Chain:
        links: list[Link] = []
        current = parents[module]
        while current is not None:
            links.append(current)
            current = parents[current.source] if current.source != entry else None
        return Chain(entry, tuple(reversed(links)))

    def reachable_sites(self, entry: str) -> Iterator[tuple[Chain, HeavySite]]:
        """Each heavy site `entry` reaches, with the shortest chain to it."""
        parents = self.reach(entry)
        for module in parents:
            for site in self.sites(self.module_path[module]):
                yield _with_site(self.chain(entry, parents, module), site), site

    def why(self, entry: str, target: str) -> Chain | None:
        """The shortest eager chain from `entry` to a project module or a heavy module."""
        parents = self.reach(entry)
        if target in self.module_path:
            return self.chain(entry, parents, target) if target in parents else None
        best: Chain | None = None
        for module in parents:  # BFS order: the first hit is among the nearest
            for site in self.sites(self.module_path[module]):
                if site.heavy == target or site.heavy.startswith(target + "."):
                    chain = _with_site(self.chain(entry, parents, module), site)
                    if best is None or len(chain.links) < len(best.links):
                        best = chain
                    break
        return best


class _File:
    """One file's facts, indexed for call resolution."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.functions = {f.name for f in facts.functions}
        # Module-level bindings, for re-exports: `from .import_utils import has_x` binds `has_x`.
        self.aliases = {
            i.bound: i.name if i.kind == "from" or i.bound != i.name.split(".")[0] else i.bound
            for i in facts.imports
            if i.bound is not None and i.context.function is None
        }
        self.bodies: dict[str, list[_BodyFact]] = {}
        body_facts: list[_BodyFact] = [*facts.imports, *facts.calls]
        for fact in body_facts:
            if fact.context.function is not None:
                self.bodies.setdefault(fact.context.function, []).append(fact)
        for body in self.bodies.values():
            body.sort(key=lambda f: (f.span.line, f.span.column))


def _with_site(chain: Chain, site: HeavySite) -> Chain:
    source = chain.modules[-1]
    kind: LinkKind = "import" if site.kind == "import" else site.kind
    return Chain(chain.entry, (*chain.links, Link(source, site.heavy, site.path, site.span.line, kind, site.detail)))


def _spelled(fact: ImportFact) -> str:
    if fact.kind == "from":
        return f"from {fact.module} import {fact.member}"
    if fact.kind == "dynamic":
        return f'import_module("{fact.name}")'
    return f"import {fact.name}"
