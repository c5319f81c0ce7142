"""The ROCm-safety pass as the engine runs it: project facts -> graph -> diagnostics.

The graph covers every Python file under the project root, whichever files
were passed (pre-commit passes only the changed ones); diagnostics are only
for the files passed, but for a reached file that does not parse (`gaps`: the
graph has a hole there, whoever was passed). A file outside those passed is parsed only when a chain
from an entry module or a call from a passed file reaches it, and not even
then when it cannot matter: a file that names no heavy module, no probe, no
top-level project package and has no relative import has no edge, no heavy
site and no function that reaches one.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from import_policy.cache.facts import FactsCache, content_digest
from import_policy.rocm.predicates import (
    EAGER_HEAVY_IMPORT,
    HEAVY_IMPORT_REACHABLE,
    IMPORT_TIME_JIT,
    RULE_IDS,
    TRIAL_IMPORT_PROBE,
    gateway_exports,
    trial_import_probes,
)
from import_policy.config.model import Origin, Policy, RocmSafety, RuleBase
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.discovery.overlay import Overlay
from import_policy.project.layout import top_level_names
from import_policy.project.modules import ProjectModules, module_name
from import_policy.facts.records.kept import kept_calls
from import_policy.facts.shared.comments import suppressions
from import_policy.facts.records.model import FileFacts, Suppressions
from import_policy.facts.shared.walkstate import DYNAMIC_IMPORTERS
from import_policy.graph.chains import Chain
from import_policy.graph import hook, through
from import_policy.graph.distributions import Followed
from import_policy.graph.once_per_link import in_dependencies
from import_policy.graph.through import Availability
from import_policy.rocm import gaps, links
from import_policy.kinds import import_time as import_time_kind
from import_policy.kinds.import_time import ImportTimeRule, rules_of as import_time_rules
from import_policy.kinds.contracts.common import ContractRule, rules_of as contract_rules
from import_policy.graph.reach import HeavySite, Project
from import_policy.graph.scoped import Scope, ScopedProject
from import_policy.graph.codec import EdgesCodec, GraphCodec, StoredEdges
from import_policy.graph.store import (
    RACY_NS, Inputs, ModuleGraph, digest, folder_stat, index_of, listing_digest, listing_of,
)
from import_policy.cache.stat import Stat, stat_of
from import_policy.cache.store import Store
from pathlib import Path
from import_policy.facts.prefilter.literal_imports import literal_imports
from import_policy.facts.prefilter.prefilter import RELATIVE_IMPORT
from import_policy.facts.prefilter.pytext import python_text

Reader = Callable[[SourceFile], bytes]


class Records(Protocol):
    """Where the pass's per-file records are kept: the facts cache, or for one run `Memo`."""

    def key(self, source: bytes, path: str, module: str | None, is_package: bool, mode: str) -> str: ...

    def key_of(self, content: str, path: str, module: str | None, is_package: bool, mode: str) -> str: ...

    def get(self, key: str) -> FileFacts | None: ...

    def put(self, key: str, facts: FileFacts) -> None: ...


class Memo:
    """The records of one run without a facts cache (`--no-cache`), so that the pass and every
    `import-time` rule parse a reached file once between them. Keyed by the bytes' digest:
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
# The cache mode of a file's graph facts (facts.fast), shared with the engine.
GRAPH_MODE = "graph"
# The module graph's one entry per configuration (its settings are in the store's key).
GRAPH_NAME = "graph"


@dataclass(frozen=True)
class RocmPlan:
    policy: Policy
    rocm: RocmSafety
    rules: frozenset[str]
    exports: dict[str, str] = field(compare=False)
    # One of these must occur in a file for it to matter to the pass; None: every file matters.
    tokens: tuple[bytes, ...] | None
    # Top-level modules and packages of the project: a call can reach project code only through one.
    project_names: frozenset[str] = frozenset()
    # The configured entry modules, else the project's top-level packages.
    entries: tuple[str, ...] = ()
    # Top-level names an import must start with to be an edge, a site or a platform test's
    # source (project, heavy, gateway, dotted guards); None: every import may be.
    import_heads: frozenset[str] | None = None
    # `kind: import-time` rules in force: users of the same engine, each with its own question.
    import_time: tuple[ImportTimeRule, ...] = ()
    # The top-level names of the heavy modules: an inline probe's file spells one and `try`.
    heavy_heads: tuple[bytes, ...] = ()
    # Installed distributions the graph reads through (`follow:`); their top-level names are
    # among `project_names`, so their imports and calls are kept as the project's are.
    followed: Followed | None = field(default=None, compare=False)
    # `installed: environment`: whether a module is installed in the project's environment.
    installed: Availability | None = field(default=None, compare=False)
    # An architecture contract's reading of an import (`graph.scoped`): (scope, type_checking);
    # None: the pass's own graph.
    reading: tuple[Scope, bool] | None = None
    # Architecture contracts in force (`kind: layers`, ...): their own graphs, asked in the
    # project phase (`pipeline.contracts`).
    contracts: tuple[ContractRule, ...] = ()

    @property
    def cache_mode(self) -> str:
        """The facts cache mode of the pass's own records: what `slim` keeps depends on the
        project's top-level names, so they are part of the key."""
        names = ",".join(sorted(self.project_names))
        return f"{GRAPH_MODE}:{hashlib.blake2b(names.encode(), digest_size=8).hexdigest()}"

    @property
    def needs_project(self) -> bool:
        return bool(self.rules & {EAGER_HEAVY_IMPORT, HEAVY_IMPORT_REACHABLE, IMPORT_TIME_JIT}) or bool(self.import_time)

    def wants_file_parse(self, source: bytes, path: str) -> bool:
        """Whether the engine must parse a checked file for the pass's per-file rules: for
        `eager-heavy-import`, any file that may hold a site; for `trial-import-probe` alone,
        a file that spells a probe (the reachability rules load what a chain reaches)."""
        if EAGER_HEAVY_IMPORT in self.rules:
            return self.wants_parse(source, path)
        if TRIAL_IMPORT_PROBE in self.rules and not path.endswith(".pyi"):
            return (
                self.tokens is None or any(probe.rpartition(".")[2].encode() in source for probe, _ in self.rocm.probes)
                or b"try" in source and any(head in source for head in self.heavy_heads)
            )
        return False

    def slim(self, facts: FileFacts) -> FileFacts:
        """What the pass keeps of a file: calls that may be probes (a string argument), walk a
        package (a computed dynamic import) or reach a project function (this file's, a method
        of one of its classes, or one under a project package). A whole project's calls would
        not fit in the memory budget."""
        return kept_calls(facts, self.keeps)

    def keeps(self, facts: FileFacts) -> Callable[[str], bool]:
        """Which callees of the file `slim` keeps (with a string argument, every call is kept);
        the extractor asks it before it places the calls (`facts.from_ast.CallFilter`)."""
        local = {function.name for function in facts.functions}
        methods = {name.rpartition(".")[2] for name in local if "." in name}
        local |= {c.name for c in facts.classes}  # `Loader()`, and `Loader.m()` through a base
        instances = {assign.name for assign in facts.assigns}
        project_names = self.project_names
        # A class with a base of the project's: `self.m()` may find `m` in that base's file.
        inherits = any(
            base in local or base.partition(".")[0] in project_names for c in facts.classes for base in c.bases
        )

        def kept(callee: str) -> bool:
            root, _, rest = callee.partition(".")
            owner = callee.rpartition(".")[0]
            return (
                callee in local or owner in local or root in project_names or callee in DYNAMIC_IMPORTERS
                # `self.m()`, `cls._instance.m()`, `super().m()`
                or (root in ("self", "cls", "super") and bool(rest) and (inherits or rest.rpartition(".")[2] in methods))
                or (bool(rest) and root in instances)
            )

        return kept

    def record(self, facts: FileFacts) -> FileFacts:
        """What the pass holds of a checked file until the whole run is read: no uses (the
        import rules are done with them), and only the imports that can be an edge or a site
        (of a project module, a heavy module or a gateway), so a big tree fits the budget."""
        heads = self.import_heads
        imports = facts.imports
        if heads is not None:
            imports = tuple(
                fact for fact in imports
                if fact.level or fact.kind == "dynamic" or fact.name.partition(".")[0] in heads
            )
        if not facts.uses and not facts.escapes and len(imports) == len(facts.imports):
            return facts
        return replace(facts, uses=(), escapes=(), imports=imports)

    def wants_parse(self, source: bytes, path: str) -> bool:
        """`source`: the file's text as `pytext.python_text` gives it (facts.prefilter says why
        that is Python's reading); a dynamic import whose name the text does not spell may be
        of anything, so that file is parsed."""
        if path.endswith(".pyi"):
            return True  # stubs never run, but `attach_stub` reads its table from one
        if self.tokens is None or path.endswith("__init__.py"):
            return True  # what a package binds decides whether `from pkg import name` is the submodule
        if any(token in source for token in self.tokens) or RELATIVE_IMPORT.search(source) is not None:
            return True
        return (b"import_module" in source or b"__import__" in source) and literal_imports(source).unknown


def make_plan(
    policy: Policy, wants: Callable[[str], bool], prefilter: bool = True, rules: Sequence[RuleBase] = (),
) -> RocmPlan | None:
    """The pass for this run, None when none of its rules is selected and no `import-time`
    rule is among `rules` (the Python rules in force). `prefilter=False` reads every file
    (the soundness checks compare that with a run)."""
    import_time = import_time_rules(rules)
    contracts = contract_rules(rules)
    rocm = policy.rocm_safety
    selected = frozenset(rule for rule in RULE_IDS if wants(rule)) if rocm is not None else frozenset()
    if not selected and not import_time and not contracts:
        return None
    if rocm is None:
        rocm = RocmSafety(
            heavy_modules=(), probes=(), guards=(), files=(), entry_modules=(), origin=Origin("built-in", 0),
            python=policy.python,
        )
    exports = gateway_exports(policy)
    top = [(name, package) for name, _, package in top_level_names(policy.root, policy.roots)]
    followed = through.dependencies(policy)
    project_names = frozenset(name for name, _ in top) | (followed.names if followed is not None else frozenset())
    entries = rocm.entry_modules or default_entries(top)
    plain = RocmPlan(
        policy, rocm, selected, exports, None, project_names, entries, import_time=import_time, followed=followed,
        installed=through.availability(policy, followed, frozenset(name for name, _ in top)), contracts=contracts,
    )
    if not prefilter:
        return plain
    heads: set[str] = set()
    for pattern in (*rocm.heavy_modules, *(p for rule in import_time for p in rule.forbid)):
        head = pattern.literal_head
        if head is None:
            return plain
        heads.add(head)
    # The names each graph rule's platform tests read, besides the pass's own.
    profiles = [rocm, *(import_time_kind.settings(rule, policy) for rule in import_time)]
    guards = [name for each in profiles for name in (*each.guards, *each.rocm)]
    values = [name for each in profiles for name, _ in each.values]
    import_heads = frozenset(
        heads | {gateway.split(".")[0] for gateway in exports} | project_names
        | {name.split(".")[0] for name in (*guards, *values) if "." in name}
    )
    heavy_heads = tuple(sorted(h.encode() for h in heads if h))
    heads.update(probe.rpartition(".")[2] for probe, _ in rocm.probes)
    heads.update(gateway.split(".")[0] for gateway in exports)
    heads.update(project_names)
    # Platform tests and package walks: a file defining `def supported(): return is_cuda()`
    # or walking a package matters even when it imports nothing of the project.
    heads.update(name.lstrip("_") for name in guards if name != "TYPE_CHECKING")
    # `DEVICE_TYPE == "cuda"` in a platform test; `env["has_te"]` spells `env`
    heads.update(name.partition("[")[0].rpartition(".")[2] for name in values)
    heads.update(("find_spec", "iter_modules", "walk_packages"))
    # A lazy loader: `from module import name` may import what its table names.
    heads.update(("__getattr__", "_LazyModule"))
    # A class's method may run a subclass's override through `self` (a base in a file that
    # imports nothing of the project still runs a subclass's heavy import).
    heads.add("class")
    tokens = tuple(sorted(h.encode() for h in heads if h))
    return replace(plain, tokens=tokens, import_heads=import_heads, heavy_heads=heavy_heads)


def rule_plan(plan: RocmPlan, rule: ImportTimeRule) -> RocmPlan:
    """The pass's plan asking an `import-time` rule's question: the same files, prefilter and
    records, the rule's settings (`import_time.settings`) and entries. Its graph is kept apart
    (the settings are part of the store's key)."""
    return replace(
        plan, rocm=import_time_kind.settings(rule, plan.policy), entries=rule.entry,
        rules=frozenset(), import_time=(),
    )


# Top-level packages that hold no code a process runs: never default entry modules.
NOT_RUNTIME = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "benchmarks", "scripts", "tools"})


def default_entries(top: Iterable[tuple[str, bool]]) -> tuple[str, ...]:
    """The project's top-level packages (not plain modules, not tests or docs), sorted."""
    return tuple(sorted(name for name, package in top if package and name not in NOT_RUNTIME))


def project(
    plan: RocmPlan, known: Mapping[str, FileFacts], read: Reader, cache: Records | None = None,
    modules: Mapping[str, str] | None = None, inputs: Inputs | None = None,
) -> Project:
    """The whole project's graph: `known` facts as given, other files read and parsed (or
    taken from the cache) when reached. `inputs`, when given, logs every file it reads and
    `modules` is the module map to use (the module graph's logged one)."""
    policy = plan.policy

    def load(path: str) -> FileFacts | None:
        facts = known.get(path)
        file = SourceFile(policy.root / path, path, "python")
        if facts is not None and facts.parsed:
            if inputs is not None and inputs.content(path) is None:
                stat = inputs.stat(path)
                if facts.content:  # the digest of the bytes the engine parsed
                    inputs.file(path, "e", stat, facts.content)
                else:
                    try:  # facts from elsewhere: their bytes read again, only to be hashed
                        inputs.file(path, "e", stat, digest(read(file)))
                    except OSError:
                        inputs.file(path, "e", stat, None)
            return facts  # the engine parsed it, for a rule or for this pass
        module, is_package = (
            plan.followed.module_of(path) if plan.followed is not None and plan.followed.owns(path)
            else module_name(file.relative, policy.roots)
        )
        content = inputs.content(path) if inputs is not None else None
        if content is not None and inputs is not None and inputs.how(path) == "s":
            # The prefilter turned these bytes down under these settings (the store's key holds
            # its tokens): nothing to read. No record is kept for it, so none can stand for a
            # parse once a policy change makes the file matter.
            return FileFacts(file.relative, module, is_package)
        if content is not None and cache is not None:
            # Unchanged since the log read it (checked this run): its record, without reading it.
            facts = cache.get(cache.key_of(content, file.relative, module, is_package, plan.cache_mode))
            if facts is not None:
                return facts
        stat = inputs.stat(path) if inputs is not None else None
        try:
            source = read(file)
        except OSError:
            if inputs is not None:
                inputs.file(path, "r", stat, None)
            return None  # an unreadable file outside the ones passed is not this run's business
        wanted = plan.wants_parse(python_text(source), file.relative)
        if inputs is not None:
            inputs.file(path, "r" if wanted else "s", stat, digest(source))
        if not wanted:
            return FileFacts(file.relative, module, is_package)
        key = cache.key(source, file.relative, module, is_package, plan.cache_mode) if cache is not None else ""
        # Cached as the pass keeps them (slimmed): what a batch decodes for every reached module.
        facts = cache.get(key) if cache is not None else None
        if facts is None:
            from import_policy.facts.cpython.from_ast import graph_facts  # a warm batch parses nothing: never loaded

            facts = graph_facts(source, file.relative, module, is_package, plan.keeps)
            if cache is not None:
                cache.put(key, facts)
        return facts

    def text(path: str) -> bytes | None:
        """A file's bytes for a lazy loader's table read as text (transformers' exports): logged
        as read, so a warm run checks it as it checks a parsed file."""
        stat = inputs.stat(path) if inputs is not None else None
        try:
            source: bytes | None = read(SourceFile(policy.root / path, path, "python"))
        except OSError:
            source = None
        if inputs is not None:
            inputs.file(path, "r", stat, digest(source) if source is not None else None)
        return source

    found = modules if modules is not None else _modules(plan, known, cache is not None)
    if plan.reading is not None:
        made: Project = ScopedProject(plan.rocm, found, load, plan.exports, plan.installed, *plan.reading)
    else:
        made = Project(plan.rocm, found, load, plan.exports, plan.installed)
    made.read_text = text
    return made


def graph_settings(plan: RocmPlan) -> str | None:
    """Every configuration input the module graph's items are derived from, as a digest; None
    when part of it has no stable form (then the graph is not kept)."""
    described = repr((
        plan.rocm, sorted(plan.exports.items()), sorted(plan.project_names), plan.entries, plan.policy.roots,
        plan.policy.exclude,
        plan.tokens, sorted(plan.import_heads) if plan.import_heads is not None else None, plan.cache_mode,
        plan.followed.identity if plan.followed is not None else None,
        plan.installed.identity if plan.installed is not None else None, plan.reading,
    ))
    if " at 0x" in described:
        return None
    return hashlib.blake2b(described.encode(), digest_size=20).hexdigest()


class _Tree:
    """The tree as it is now, for the module graph to check its log against."""

    def __init__(
        self, plan: RocmPlan, known: Mapping[str, FileFacts], modules: Modules, read: Reader, since: int,
        overlay: Overlay | None = None,
    ) -> None:
        self.overlay = overlay
        self.root = plan.policy.root
        self.since = since  # when the engine started reading the files passed
        self.known = known
        self.modules = modules
        self.read = read
        self.sources: dict[str, bytes] = {}  # files found changed: their bytes, read once

    def file(self, path: str, how: str, stat: Stat | None, hashed: str | None) -> bool | Stat:
        facts = self.known.get(path) if how != "g" else None  # a `.gitignore` is the same whoever reads it
        if how != "g" and ("e" if facts is not None and facts.parsed else "r") != ("r" if how == "s" else how):
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
            # new stat data stands for those bytes only if it predates the engine's read.
            if facts.content != hashed:
                return False
            return now if max(now.mtime_ns, now.ctime_ns) < self.since - RACY_NS else True
        try:
            source = self.read(SourceFile(self.root / path, path, "python"))
        except OSError:
            return False
        if digest(source) != hashed:
            self.sources[path] = source
            return False
        return now

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


class KeptGraphs(Protocol):
    """Module graphs a long-lived process keeps in memory between runs (a language server),
    each told of every file that changes; the pass then neither builds nor stores one."""

    def graph(self, plan: RocmPlan, read: Reader, records: Records | None) -> ModuleGraph: ...


class GraphStores:
    """Where the module graph is kept: its index and its links, beside the facts cache."""

    def __init__(self, root: Path) -> None:
        self.index = Store(root, GraphCodec())
        self.edges = Store(root, EdgesCodec())


def graph_stores(cache: FactsCache | None) -> GraphStores | None:
    return GraphStores(cache.folder.parent) if cache is not None else None


def module_graph(
    plan: RocmPlan, known: Mapping[str, FileFacts], read: Reader, cache: Records | None = None,
    stores: GraphStores | None = None, overlay: Overlay | None = None, since: int = 0,
) -> ModuleGraph:
    """The module graph for this run: what `stores` kept of it while its inputs hold, the rest
    derived (through `project`, reading per-file records from `cache`)."""
    policy = plan.policy
    modules = _modules(plan, known, stores is not None)
    settings = graph_settings(plan) if stores is not None else None
    stored = stores.index.get(settings, GRAPH_NAME) if stores is not None and settings is not None else None

    since = since or time.time_ns()
    tree = _Tree(plan, known, modules, read, since, overlay)

    def make(logged: Mapping[str, str], inputs: Inputs) -> Project:
        return project(plan, known, reread, cache, logged, inputs)

    def reread(file: SourceFile) -> bytes:
        """A file the check found changed is not read a second time."""
        source = tree.sources.pop(file.relative, None)
        return source if source is not None else read(file)

    def load_edges() -> StoredEdges | None:
        return stores.edges.get(settings, GRAPH_NAME) if stores is not None and settings is not None else None

    return ModuleGraph(policy.root, modules, make, stored, tree, load_edges, modules.known, policy.roots, since)


Modules = ProjectModules | through.Modules


def _modules(plan: RocmPlan, known: Mapping[str, FileFacts], remember: bool) -> Modules:
    """The project's module map, then the followed dependencies' modules."""
    found = ProjectModules(plan.policy, known, remember=remember)
    return through.Modules(found, plan.followed) if plan.followed is not None else found


def save_graph(plan: RocmPlan, graph: ModuleGraph, stores: GraphStores | None) -> None:
    settings = graph_settings(plan) if stores is not None else None
    if stores is None or settings is None or not graph.changed:
        return
    if graph.unparsed:
        return  # a graph with a gap is never kept: each run derives it again, and reports the gap
    index, edges = graph.stored()
    if edges is not None:  # written first: an index is never read with links older than itself
        stores.edges.put(settings, GRAPH_NAME, edges)
    stores.index.put(settings, GRAPH_NAME, index)


def check(
    plan: RocmPlan, passed: Mapping[str, FileFacts], read: Reader, cache: FactsCache | None = None,
    named: Collection[str] = (),
    stores: GraphStores | None = None,
    exempted: Callable[[Sequence[Diagnostic]], None] | None = None,
    overlay: Overlay | None = None, since: int = 0,
    graphs: KeptGraphs | None = None,
) -> list[Diagnostic]:
    """The pass's diagnostics for the files passed (already parsed by the engine); `named`:
    those named on the command line, where a reachability finding whose chain passes
    through one is reported too (`hook`).

    A site is reported under one rule only: a reached site as `heavy-import-reachable` or
    `import-time-jit`, else a probe as `trial-import-probe`, else `eager-heavy-import`.
    A file a graph read and could not parse is a `syntax-error` (`gaps`), checked or not,
    unless the engine parsed it (it has reported it); nothing silences it.
    `exempted` (stale-allowlist tracking) sees the `import-time` findings an `allow_in` keeps out.
    `overlay`: buffers that stand for their files (`read` reads through it); a kept graph
    compares them by their bytes, never by the stat data of the file on disk.
    `since`: when the engine began reading the files passed (their facts' bytes).
    A module reached through a link inside the root is reported at the link's path, where
    Python imports it, as the file it leads to would be (`links`).
    `graphs`: the graphs a long-lived process holds (read through `read`, never from `passed`),
    used instead of building and storing one per run."""
    rocm = plan.rocm
    parsed = {
        path: facts for path, facts in passed.items() if facts.syntax_error is None and not path.endswith(".pyi")
    }
    applies = {path: facts for path, facts in parsed.items() if rocm.applies_to(path)}
    if not applies and not (plan.import_time and parsed):
        return []
    quiet: dict[str, Suppressions] = {}

    def comments(path: str) -> Suppressions:
        if path not in quiet:
            # A file the engine did not parse has its comments read only where a finding stands.
            facts = parsed.get(path)
            quiet[path] = facts.suppressions if facts is not None and facts.parsed else _comments(plan, path, read)
        return quiet[path]

    probes: dict[tuple[str, int, int], Diagnostic] = {}
    if TRIAL_IMPORT_PROBE in plan.rules:
        for facts in applies.values():
            for diagnostic in trial_import_probes(rocm, facts):
                probes.setdefault((diagnostic.path, diagnostic.line, diagnostic.column), diagnostic)
    found: list[Diagnostic] = []
    asked: list[gaps.Asked] = []
    if plan.needs_project:
        records: Records | None = cache if cache is not None or not plan.import_time else Memo()
        graph = (
            graphs.graph(plan, read, records) if graphs is not None
            else module_graph(plan, passed, read, records, stores, overlay, since)
        )
        resolved = links.Resolved(plan.policy.root, parsed)
        reported: set[tuple[str, int, int]] = set()
        reached: list[hook.Finding] = []
        walked = bool(applies and plan.rules & {HEAVY_IMPORT_REACHABLE, IMPORT_TIME_JIT})  # else nowhere to report
        # A gap's chain is looked up only in a reach this run derived anyway.
        asked.append((graph, plan.entries if walked else ()))
        if walked:
            for chain, site in graph.first_reached(plan.entries):
                rule = IMPORT_TIME_JIT if site.kind == "jit" else HEAVY_IMPORT_REACHABLE
                if rule not in plan.rules:
                    continue
                reported.add(site.key)
                diagnostic = _reached(rule, rocm, chain, site)
                probe = probes.pop(site.key, None) if site.path in applies else None
                if probe is not None and probe.fix is not None:  # the probe's fix comes along
                    diagnostic = replace(diagnostic, fixable=True, fix=probe.fix)
                reached.append(hook.Finding(diagnostic, chain, site.detail if site.kind == "jit" else site.heavy))
        lines: dict[str, list[str] | None] = {}

        def lines_of(path: str) -> list[str] | None:
            if path not in lines:
                lines[path] = _lines(plan, path, read)
            return lines[path]

        reached = in_dependencies(through.at_links(reached, plan.followed, lines_of), plan.followed, rocm.heavy_modules)

        def where(reports_in: Callable[[str], bool], graph: ModuleGraph) -> hook.Where:
            checked = links.Standing({path for path in parsed if reports_in(path)}, resolved)
            return hook.Where(
                named=links.Standing(named, resolved), checked=checked, reports_in=reports_in,
                facts=lambda path: graph.project.facts(path), lines=lines_of, quiet=comments,
            )

        found.extend(hook.reports(reached, where(_reports_in(rocm.applies_to), graph)))
        for declared in plan.import_time:
            rule_asked = rule_plan(plan, declared)
            answer = (
                graphs.graph(rule_asked, read, records) if graphs is not None
                else module_graph(rule_asked, passed, read, records, stores, overlay, since)
            )
            findings = in_dependencies(
                through.at_links(import_time_kind.findings(declared, answer), plan.followed, lines_of),
                plan.followed, declared.forbid,
            )
            found.extend(hook.reports(findings, where(_reports_in(declared.applies_to), answer)))
            if exempted is not None and declared.allow_in:
                exempted([
                    d for d in (finding.site for finding in findings)
                    if _kept_out(declared, d.path) and not comments(d.path).covers(d.rule, d.suppress_lines)
                ])
            if graphs is None and not overlay:
                save_graph(rule_asked, answer, stores)
            asked.append((answer, declared.entry))
        if EAGER_HEAVY_IMPORT in plan.rules:
            linked = [
                path for path in graph.inputs.log.files
                if rocm.applies_to(path) and (target := resolved.target(path)) is not None and target in applies
            ]
            for path in (*applies, *linked):
                for site in graph.sites(path):
                    if site.kind == "jit" or site.key in reported:
                        continue
                    if site.trial:  # an inline probe is reported under the site's rule
                        probes.pop(site.key, None)
                    elif site.key in probes:
                        continue
                    found.append(_eager(rocm, site))
        if graphs is None and not overlay:  # a buffer's log holds the disk's stat data with its bytes: never kept
            save_graph(plan, graph, stores)
    found.extend(probes.values())
    # Reachability findings were judged whole, every report of each at once.
    kept = [d for d in found if d.places or not comments(d.path).covers(d.rule, d.suppress_lines)]
    return kept + gaps.reports(asked, passed, plan.policy.roots)


def _kept_out(rule: RuleBase, path: str) -> bool:
    """Whether `files` covers the path and `allow_in` exempts it."""
    return replace(rule, allow_in=()).applies_to(path) and not rule.applies_to(path)


def _reports_in(applies_to: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda path: not path.endswith(".pyi") and applies_to(path)


def _lines(plan: RocmPlan, path: str, read: Reader) -> list[str] | None:
    try:
        source = read(SourceFile(plan.policy.root / path, path, "python"))
    except OSError:
        return None
    return source.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _comments(plan: RocmPlan, path: str, read: Reader) -> Suppressions:
    try:
        return suppressions(read(SourceFile(plan.policy.root / path, path, "python")))
    except OSError:
        return Suppressions()


def _diagnostic(rule: str, site: HeavySite, message: str, chain: tuple[str, ...] | None = None) -> Diagnostic:
    span = site.span
    return Diagnostic(
        rule=rule, severity="error", path=site.path, line=span.line, column=span.column,
        end_line=span.end_line, end_column=span.end_column, message=message,
        suppress_lines=(span.line, site.statement_line), chain=chain,
    )


def _because(rocm: RocmSafety, heavy: str) -> str:
    """Why the module is heavy, when the configuration says: ` (aiter: loads HIP modules at import)`."""
    reason = rocm.reason(heavy)
    return f" ({heavy.split('.')[0]}: {reason})" if reason else ""


def _how(rocm: RocmSafety, site: HeavySite) -> str:
    """What the import is, when it is more than an import: a trial import, a lazy import that
    stays eager, one loaded by a read."""
    if site.trial:
        return f" (a trial import: `try: import {site.heavy}` only to see whether it is installed)"
    if site.eager_lazy:
        major, minor = rocm.python
        return f" (lazy only from Python 3.15; the project supports Python {major}.{minor})"
    if site.loaded_by is not None:
        return f" (`{site.detail}` is loaded here, where `{site.loaded_by}` is read)"
    return ""


def _unjudged(site: HeavySite) -> str:
    """What the pass could not judge on the way to the site, for `values` to settle."""
    if not site.unjudged:
        return ""
    names = ", ".join(f"`{text}`" for text in site.unjudged)
    them = "it" if len(site.unjudged) == 1 else "them"
    return f"; under {names}, which the pass cannot judge on ROCm: state {them} in rocm_safety.values"


def _eager(rocm: RocmSafety, site: HeavySite) -> Diagnostic:
    because = _because(rocm, site.heavy) + _unjudged(site)
    if site.kind == "import":
        message = (
            f"heavy module `{site.heavy}` is imported when this module is imported{_how(rocm, site)}; "
            f"import it where it is used, or under a guard{because}"
        )
    elif site.kind == "probe":
        message = f"`{site.detail}` runs when this module is imported and imports `{site.heavy}`{because}"
    else:
        message = (
            f"`{site.detail.split(' -> ')[0]}` runs when this module is imported and imports "
            f"`{site.heavy}` ({site.detail}){site.also_text()}{because}"
        )
    return _diagnostic(EAGER_HEAVY_IMPORT, site, message)


def _reached(rule: str, rocm: RocmSafety, chain: Chain, site: HeavySite) -> Diagnostic:
    because = _because(rocm, site.heavy) + _unjudged(site)
    path = " -> ".join(chain.modules)
    if site.kind == "jit":
        message = (
            f"`{site.detail}` from heavy module `{site.heavy}` runs when this module is imported, and importing "
            f"`{chain.entry}` imports it: {path}; compile on first use instead{because}"
        )
    elif site.kind == "import":
        message = f"importing `{chain.entry}` imports `{site.heavy}`{_how(rocm, site)}: {path}{because}"
    else:
        message = f"importing `{chain.entry}` calls `{site.detail}`, which imports `{site.heavy}`{site.also_text()}: {path}{because}"
    return _diagnostic(rule, site, message, chain.modules)


__all__ = ["KeptGraphs", "RocmPlan", "check", "default_entries", "make_plan", "module_graph", "project"]
