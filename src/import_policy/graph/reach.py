"""The project's eager import graph on ROCm, its heavy sites, and shortest chains (contract section 4).

Built from the facts of every project file, never by importing anything.
Nodes are project modules; an edge is an import that runs on ROCm when its
module is imported (`judge.Judge` decides what runs). A heavy site is, in
code that runs at import time on ROCm: an import of a heavy module, a call of a
probe on one (or `find_spec("a.b")` with `a` heavy), a call of a project
function that (through other project functions, across modules) imports or
probes one, or a decorator from a heavy module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, Union

from import_policy.config.model import RocmSafety
from import_policy.facts.model import CallFact, FileFacts, ImportFact, Leaf, ReadFact, ScanFact, Span, SyntaxErrorFact
from import_policy.patterns import prefixes
from import_policy.graph.chains import Chain, ImportGraph, Link
from import_policy.project.modules import modules_of
from import_policy.graph.judge import Judge
from import_policy.graph.sites import find_spec_of, is_heavy, probe_of, through_gateway

# The kinds of link this pass's edges make (`Link.kind`): "import", "package", "probe",
# "call", "scan", "jit".
SiteKind = Literal["import", "probe", "call", "jit"]
# How deep calls through project functions are followed; real wrappers are two or three deep.
MAX_CALL_DEPTH = 32
# PEP 810: the first Python that runs `lazy import` and `__lazy_modules__` lazily.
LAZY_PYTHON = (3, 15)


@dataclass(frozen=True)
class HeavySite:
    """Where a module imports a heavy module at import time."""

    path: str
    module: str | None
    heavy: str
    span: Span
    statement_line: int
    kind: SiteKind
    detail: str  # `import tilelang`, `_has_module("tilelang")`, `has_x() -> _has_module("x")`, `@tilelang.jit`
    trial: bool = False  # an inline probe: a `try:` imports the module only to see whether it can
    # A lazy import that stays eager: an older Python the project supports runs it eagerly.
    eager_lazy: bool = False
    loaded_by: str | None = None  # a lazy import loaded where this name is read at import time

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.path, self.span.line, self.span.column)


_Witness = tuple[str, tuple[str, ...]]  # heavy module, call steps (`has_x()`, `_has_module("x")`)
_BodyFact = Union[ImportFact, CallFact]
FunctionKey = tuple[str, str]  # file, dotted function name in it


class Project:
    """The graph, built lazily: a file is parsed only when a chain or a call reaches it.

    `modules` maps every project module to its file (from the file walk, no
    reading); `load` gives a file's facts (None: unreadable). With pre-commit
    passing a few files, only the part of the project the entry modules reach,
    and the functions the passed files call, is ever parsed.
    """

    def __init__(
        self, rocm: RocmSafety, modules: Mapping[str, str], load: Callable[[str], FileFacts | None],
        exports: Mapping[str, str] | None = None,
    ) -> None:
        self.rocm = rocm
        self.module_path = modules  # looked up, never walked unless a package walk asks
        self.exports = dict(exports or {})
        self.judge = Judge(rocm, self)
        self._load = load
        self._files: dict[str, _File | None] = {}
        # Files loaded that do not parse: what the graph could not see.
        self.unparsed: dict[str, SyntaxErrorFact] = {}
        self._sites: dict[str, list[HeavySite]] = {}
        self._edges: dict[str, list[Link]] = {}
        self._witnesses: dict[FunctionKey, _Witness | None] = {}
        self._scans: dict[FunctionKey, tuple[str, ...]] = {}
        self._body_imports: dict[FunctionKey, tuple[str, ...]] = {}
        self._children: dict[str, tuple[str, ...]] = {}
        self.graph = ImportGraph(modules, self.edges)
        self._in_progress: set[object] = set()

    @classmethod
    def from_facts(cls, rocm: RocmSafety, files: Iterable[FileFacts], exports: Mapping[str, str] | None = None) -> Project:
        by_path = {facts.path: facts for facts in files}
        return cls(rocm, modules_of(by_path.values()), by_path.get, exports)

    def _file(self, path: str) -> _File | None:
        if path not in self._files:
            facts = self._load(path)
            if facts is not None and facts.syntax_error is not None:
                self.unparsed[path] = facts.syntax_error  # a gap in the graph: the run reports it
            ok = facts is not None and facts.syntax_error is None and not path.endswith(".pyi")
            self._files[path] = _File(facts) if ok and facts is not None else None  # stubs never run
        return self._files[path]

    def facts(self, path: str) -> FileFacts | None:
        file = self._file(path)
        return file.facts if file is not None else None

    # --- calls through project functions ------------------------------------------

    def resolve(self, callee: str, path: str, within: str | None = None, depth: int = 0) -> FunctionKey | None:
        """The project function a callee names: (file, dotted name in it), following re-exports,
        `self.m()` within a class, and `obj.m()` on a module-level instance of a local class."""
        if depth > 8:
            return None
        here = self._file(path)
        if here is not None:
            if callee in here.functions:
                return path, callee
            if f"{callee}.__init__" in here.functions:  # `Registry()` runs `Registry.__init__`
                return path, f"{callee}.__init__"
            root, _, rest = callee.partition(".")
            if rest and root in ("self", "cls") and within is not None and "." in within:
                method = f"{within.rpartition('.')[0]}.{rest}"
                return (path, method) if method in here.functions else None
            owner = here.instances.get(root)
            if rest and owner is not None and f"{owner}.{rest}" in here.functions:
                return path, f"{owner}.{rest}"
        parts = callee.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            target = self.module_path.get(".".join(parts[:cut]))
            if target is None:
                continue
            rest_parts = parts[cut:]
            there = self._file(target)
            if there is None:
                return None
            if ".".join(rest_parts) in there.functions:
                return target, ".".join(rest_parts)
            if ".".join([*rest_parts, "__init__"]) in there.functions:
                return target, ".".join([*rest_parts, "__init__"])
            alias = there.aliases.get(rest_parts[0])
            if alias is not None:  # `from .import_utils import has_x` in a package __init__
                return self.resolve(".".join([alias, *rest_parts[1:]]), target, None, depth + 1)
            for star in there.stars:  # `from .common import *` in a package __init__
                found = self.resolve(".".join([star, *rest_parts]), target, None, depth + 1)
                if found is not None:
                    return found
            return None
        return None

    def witness(self, key: FunctionKey, depth: int = 0) -> _Witness | None:
        """Whether calling the function imports a heavy module on ROCm, and through which calls."""
        if key in self._witnesses:
            return self._witnesses[key]
        if key in self._in_progress or depth > MAX_CALL_DEPTH:
            return None  # recursion: the first visit decides
        self._in_progress.add(key)
        found: _Witness | None = None
        path = key[0]
        file = self._file(path)
        for fact in file.bodies.get(key[1], ()) if file is not None else ():
            if not self.judge.runs(fact.context, path):
                continue
            if isinstance(fact, ImportFact):
                if is_heavy(self.rocm, fact.name):
                    # `from aiter.ops import mhc` imports `aiter.ops`; `mhc` may be a function in it.
                    name = fact.module if fact.kind == "from" and is_heavy(self.rocm, fact.module) else fact.name
                    found = (name, (f"try: import {name}" if fact.probe else f"import {name}",))
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
        parent = find_spec_of(self.rocm, call)
        if parent is not None:
            return parent, (f'{call.tail}("{call.first_string}")',)
        key = self.resolve(call.callee, path, call.context.function)
        if key is None:
            return None
        inner = self.witness(key, depth)
        if inner is None:
            return None
        return inner[0], (f"{call.tail}()", *inner[1])

    def scanned(self, key: FunctionKey, depth: int = 0) -> tuple[str, ...]:
        """Packages whose every module calling the function imports (a `pkgutil` walk)."""
        if key in self._scans:
            return self._scans[key]
        if ("scan", key) in self._in_progress or depth > MAX_CALL_DEPTH:
            return ()
        self._in_progress.add(("scan", key))
        found: list[str] = []
        path = key[0]
        file = self._file(path)
        if file is not None:
            for scan in file.scans.get(key[1], ()):
                if scan.package is not None and self.judge.runs(scan.context, path):
                    found.append(scan.package)
            for fact in file.bodies.get(key[1], ()):
                if isinstance(fact, CallFact) and self.judge.runs(fact.context, path):
                    found.extend(self._call_scans(fact, path, depth + 1))
        self._in_progress.discard(("scan", key))
        self._scans[key] = tuple(dict.fromkeys(found))
        return self._scans[key]

    def body_imports(self, key: FunctionKey, depth: int = 0) -> tuple[str, ...]:
        """What calling the function imports that runs on ROCm (its body, and the project
        functions it calls): `def _register(): from . import models` called at import time."""
        if key in self._body_imports:
            return self._body_imports[key]
        if ("imports", key) in self._in_progress or depth > MAX_CALL_DEPTH:
            return ()
        self._in_progress.add(("imports", key))
        found: list[str] = []
        path = key[0]
        file = self._file(path)
        for fact in file.bodies.get(key[1], ()) if file is not None else ():
            if not self.judge.runs(fact.context, path):
                continue
            if isinstance(fact, ImportFact):
                found.append(_imported(fact))
                if fact.kind == "from" and fact.member != "*":
                    found.append(fact.name)  # the submodule, when it is one (judged by the caller)
            else:
                inner = self.resolve(fact.callee, path, fact.context.function)
                if inner is not None:
                    found.extend(self.body_imports(inner, depth + 1))
        self._in_progress.discard(("imports", key))
        self._body_imports[key] = tuple(dict.fromkeys(found))
        return self._body_imports[key]

    def _call_scans(self, call: CallFact, path: str, depth: int) -> list[str]:
        key = self.resolve(call.callee, path, call.context.function)
        if key is None:
            return []
        found = list(self.scanned(key, depth))
        callee = self._file(key[0])
        # `import_model_classes("pkg.models")`: the walk's package is the literal argument.
        if call.first_string is not None and callee is not None and any(
            scan.package is None for scan in callee.scans.get(key[1], ())
        ):
            found.append(call.first_string)
        return found

    def children(self, package: str) -> tuple[str, ...]:
        """The modules directly in a project package (what `pkgutil.iter_modules` lists)."""
        if package not in self._children:
            prefix = package + "."
            self._children[package] = tuple(
                sorted(m for m in self.module_path if m.startswith(prefix) and "." not in m[len(prefix):])
            )
        return self._children[package]

    # --- sites and edges ----------------------------------------------------------

    def sites(self, path: str) -> list[HeavySite]:
        """The heavy sites of one file, in source order (decorators included)."""
        if path not in self._sites:
            file = self._file(path)
            found = list(self._find_sites(file.facts)) if file is not None else []
            self._sites[path] = sorted(found, key=lambda s: (s.span.line, s.span.column))
        return self._sites[path]

    def edges(self, module: str) -> list[Link]:
        if module not in self._edges:
            file = self._file(self.module_path[module]) if module in self.module_path else None
            self._edges[module] = self._find_edges(file.facts) if file is not None else []
        return self._edges[module]

    def eager(self, facts: FileFacts, fact: ImportFact | CallFact) -> bool:
        return self.judge.eager(fact.context, facts.path)

    def lazy(self, fact: ImportFact) -> bool:
        """A lazy import every Python the project supports runs lazily (PEP 810)."""
        return bool(fact.lazy) and self.rocm.python >= LAZY_PYTHON

    def loaded(self, facts: FileFacts, fact: ImportFact) -> ReadFact | None | bool:
        """Where an import runs on ROCm at import time: True at its statement, a read of the
        name a lazy import bound (the first that runs on ROCm), or None: it does not."""
        if not self.judge.eager(fact.context, facts.path):
            return None
        if not self.lazy(fact):
            return True
        at = (fact.span.line, fact.span.column)
        for read in facts.reads:
            if read.name == fact.bound and (read.span.line, read.span.column) > at and self.judge.eager(read.context, facts.path):
                return read
        return None

    def _find_sites(self, facts: FileFacts) -> Iterator[HeavySite]:
        seen_statements: set[int] = set()
        loads: dict[int, ReadFact] = {}  # a lazy `from` statement of a heavy module: its first read
        for fact in facts.imports:
            if not is_heavy(self.rocm, fact.name):
                continue
            where = self.loaded(facts, fact)
            whole = fact.kind == "from" and is_heavy(self.rocm, fact.module)
            if isinstance(where, ReadFact) and whole:
                first = loads.get(fact.statement)
                if first is None or (where.span.line, where.span.column) < (first.span.line, first.span.column):
                    loads[fact.statement] = where
                continue
            if where is None:
                continue
            # A `from` statement of a heavy module counts once, at its module.
            if whole:
                if fact.statement in seen_statements:
                    continue
                seen_statements.add(fact.statement)
            heavy = fact.module if whole else fact.name
            span = fact.module_span if whole else fact.span
            detail = f"import {heavy}" if fact.kind != "dynamic" else f'import_module("{heavy}")'
            if isinstance(where, ReadFact):
                yield self._lazy_site(facts, heavy, where, f"lazy {detail}")
                continue
            yield HeavySite(
                facts.path, facts.module, heavy, span, fact.statement_line, "import",
                f"lazy {detail}" if fact.lazy else detail, trial=fact.probe, eager_lazy=bool(fact.lazy),
            )
        for fact in facts.imports:
            read = loads.pop(fact.statement, None)
            if read is not None:
                yield self._lazy_site(facts, fact.module, read, f"lazy import {fact.module}")
        for call in facts.calls:
            if not self.judge.eager(call.context, facts.path):
                continue
            found = self._call_witness(call, facts.path, 0)
            if found is not None:
                # One step is the probe itself; more is a call of a project function.
                kind: SiteKind = "probe" if len(found[1]) == 1 else "call"
                yield HeavySite(
                    facts.path, facts.module, found[0], call.span, call.statement_line, kind, " -> ".join(found[1])
                )
        file = self._file(facts.path)
        for decorator in facts.decorators:
            if not self.judge.eager(decorator.context, facts.path):
                continue
            for name in decorator.qualified_names:
                if file is not None and not file.imported(name):
                    continue  # `tilelang = _LazyTilelang()`: a local object that shares the name
                real = through_gateway(name, self.exports)
                if is_heavy(self.rocm, real):
                    yield HeavySite(
                        facts.path, facts.module, real.split(".")[0], decorator.span, decorator.statement_line,
                        "jit", f"@{real}",
                    )
                    break

    def _lazy_site(self, facts: FileFacts, heavy: str, read: ReadFact, detail: str) -> HeavySite:
        return HeavySite(
            facts.path, facts.module, heavy, read.span, read.statement_line, "import", detail, loaded_by=read.name,
        )

    def _find_edges(self, facts: FileFacts) -> list[Link]:
        assert facts.module is not None
        seen: set[str] = set()
        links: list[Link] = []

        def add(target: str, line: int, kind: str, detail: str) -> None:
            if target != facts.module and target not in seen and target in self.module_path:
                seen.add(target)
                links.append(Link(facts.module or "", target, facts.path, line, kind, detail))

        for fact in facts.imports:
            where = self.loaded(facts, fact)
            if where is None:
                continue
            # A lazy import runs where its name is first read at import time.
            line, detail = (where.span.line, f"{_spelled(fact)}, loaded by reading `{where.name}`") \
                if isinstance(where, ReadFact) else (fact.span.line, _spelled(fact))
            named = fact.module if fact.kind == "from" and fact.member != "*" else fact.name
            for prefix in reversed(prefixes(named)):
                add(prefix, line, "import", detail)
            if fact.kind == "from" and fact.member != "*" and fact.name in self.module_path:
                # `from pkg import name` imports the submodule only when pkg/__init__ does not bind it.
                init = self._file(self.module_path[fact.module]) if fact.module in self.module_path else None
                if init is None or fact.member not in init.bound:
                    add(fact.name, line, "import", detail)
        file = self._file(facts.path)
        for scan in file.scans.get(None, ()) if file is not None else ():
            if scan.package is not None and self.judge.eager(scan.context, facts.path):
                for child in self.children(scan.package):
                    add(child, scan.line, "scan", f"walks {scan.package} and imports each module")
        for call in facts.calls:
            if not self.judge.eager(call.context, facts.path):
                continue
            for package in self._call_scans(call, facts.path, 0):
                for child in self.children(package):
                    add(child, call.span.line, "scan", f"{call.tail}() imports every module of {package}")
            key = self.resolve(call.callee, facts.path, call.context.function)
            for name in self.body_imports(key) if key is not None else ():
                for prefix in reversed(prefixes(name)):
                    add(prefix, call.span.line, "call", f"{call.tail}() imports {name}")
        return links

    # --- chains -------------------------------------------------------------------

    def reach(self, entry: str) -> dict[str, Link | None]:
        """Every module that importing `entry` runs, with the link it was first reached by (BFS)."""
        return self.graph.reach(entry)

    chain = staticmethod(ImportGraph.chain)

    def reachable_sites(self, entry: str) -> Iterator[tuple[Chain, HeavySite]]:
        """Each heavy site `entry` reaches, with the shortest chain to it."""
        parents = self.reach(entry)
        for module in parents:
            for site in self.sites(self.module_path[module]):
                yield with_site(self.chain(entry, parents, module), site), site

    def first_reached(self, entries: Iterable[str]) -> Iterator[tuple[Chain, HeavySite]]:
        return first_reached(entries, self.reachable_sites)

    def why(self, entry: str, target: str) -> Chain | None:
        """The shortest eager chain from `entry` to a project module or a heavy module."""
        found = self.why_all(entry, target)
        return min(found, key=lambda chain: len(chain.links)) if found else None

    def why_all(self, entry: str, target: str) -> list[Chain]:
        """Every route to `target`, one chain per last two links: each import of the module that
        holds the site (or of `target`, a project module) by each module `entry` reaches, then
        the site, each chain the shortest that ends with those links."""
        parents = self.reach(entry)
        into = self.graph.into(entry)

        def routes(module: str) -> list[Chain]:
            """Chains to `module`, one per import of it (the entry itself, or a parent package
            of the entry, by its own link)."""
            link = parents[module]
            found = [Chain(entry, (*self.chain(entry, parents, l.source).links, l)) for l in into.get(module, ())]
            if link is None or link.kind == "package":
                found.insert(0, self.chain(entry, parents, module))
            return found

        chains: list[Chain] = []
        if target in self.module_path:
            if target in parents:
                chains = routes(target)
        else:
            for module in parents:
                sites = [
                    site for site in self.sites(self.module_path[module])
                    if site.heavy == target or site.heavy.startswith(target + ".")
                ]
                for prefix in routes(module) if sites else ():
                    chains.extend(with_site(prefix, site) for site in sites)
        chains.sort(key=lambda chain: len(chain.links))
        return chains


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
        self.stars = [i.module for i in facts.imports if i.member == "*" and i.context.function is None]
        # Every name the module binds at module level other than to its own submodule of that
        # name (for `from pkg import name`; `from . import name` in pkg/__init__ is the submodule).
        self.bound = {
            *(a.name for a in facts.assigns), *(f.name for f in facts.functions if "." not in f.name),
            *(
                i.bound for i in facts.imports
                if i.bound is not None and i.context.function is None and i.name != f"{facts.module}.{i.bound}"
            ),
        }
        # `registry = Registry()` with `Registry` a local class: `registry.m()` is `Registry.m`.
        counts: dict[str, int] = {}
        for assign in facts.assigns:
            counts[assign.name] = counts.get(assign.name, 0) + 1
        self.instances = {
            a.name: a.value.qualified for a in facts.assigns
            if counts[a.name] == 1 and isinstance(a.value, Leaf) and a.value.call and "." not in a.value.qualified
            and a.value.qualified in self.bound
        }
        self.bodies: dict[str, list[_BodyFact]] = {}
        body_facts: list[_BodyFact] = [*facts.imports, *facts.calls]
        for fact in body_facts:
            if fact.context.function is not None:
                self.bodies.setdefault(fact.context.function, []).append(fact)
        for body in self.bodies.values():
            body.sort(key=lambda f: (f.span.line, f.span.column))
        self.scans: dict[str | None, list[ScanFact]] = {}
        for scan in facts.scans:
            self.scans.setdefault(scan.context.function, []).append(scan)


    def imported(self, qualified: str) -> bool:
        """Whether a qualified name was reached through a module-level import (`import tilelang`
        then `@tilelang.jit`; a `tilelang = None` fallback beside it does not change that)."""
        for target in self.aliases.values():
            if qualified == target or qualified.startswith(target + "."):
                return True
        return False


def first_reached(
    entries: Iterable[str], reachable_sites: Callable[[str], Iterable[tuple[Chain, HeavySite]]]
) -> Iterator[tuple[Chain, HeavySite]]:
    """Each heavy site any entry reaches, once: with the shortest chain from the first entry
    (in the order given) that reaches it."""
    seen: set[tuple[str, int, int]] = set()
    for entry in entries:
        for chain, site in reachable_sites(entry):
            if site.key not in seen:
                seen.add(site.key)
                yield chain, site


def with_site(chain: Chain, site: HeavySite) -> Chain:
    """The chain to the module holding a site, with the site as its last link."""
    source = chain.modules[-1]
    kind: str = "import" if site.kind == "import" else site.kind
    return Chain(chain.entry, (*chain.links, Link(source, site.heavy, site.path, site.span.line, kind, site.detail)))


def _imported(fact: ImportFact) -> str:
    """The module an import runs: `from m import x` runs `m` (and `m.x` if a submodule)."""
    return fact.module if fact.kind == "from" and fact.member != "*" else fact.name


def _spelled(fact: ImportFact) -> str:
    lazy = "lazy " if fact.lazy else ""
    if fact.kind == "from":
        return f"{lazy}from {fact.module} import {fact.member}"
    if fact.kind == "dynamic":
        return f'import_module("{fact.name}")'
    return f"{lazy}import {fact.name}"
