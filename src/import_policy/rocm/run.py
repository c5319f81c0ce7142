"""The ROCm-safety pass as the engine runs it: project facts -> graph -> diagnostics.

The graph covers every Python file under the project root, whichever files
were passed (pre-commit passes only the changed ones); diagnostics are only
for the files passed. A file outside those passed is parsed only when a chain
from an entry module or a call from a passed file reaches it, and not even
then when it cannot matter: a file that names no heavy module, no probe, no
top-level project package and has no relative import has no edge, no heavy
site and no function that reaches one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from import_policy.cache.facts import FactsCache
from import_policy.rocm.predicates import (
    EAGER_HEAVY_IMPORT,
    HEAVY_IMPORT_REACHABLE,
    IMPORT_TIME_JIT,
    RULE_IDS,
    TRIAL_IMPORT_PROBE,
    gateway_exports,
    import_time_jit,
    trial_import_probes,
)
from import_policy.config.model import Policy, RocmSafety
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import Locator, SourceFile, discover, module_name
from import_policy.facts.from_ast import graph_facts
from import_policy.facts.comments import suppressions
from import_policy.facts.model import FileFacts, Suppressions
from import_policy.rocm.graph import Chain, HeavySite, Project
from import_policy.facts.prefilter import RELATIVE_IMPORT

Reader = Callable[[SourceFile], bytes]
# The cache mode of a file's graph facts (facts.fast), shared with the engine.
GRAPH_MODE = "graph"


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

    @property
    def needs_project(self) -> bool:
        return bool(self.rules & {EAGER_HEAVY_IMPORT, HEAVY_IMPORT_REACHABLE})

    @property
    def reads_every_file(self) -> bool:
        """Whether each checked file's own facts are needed. With `heavy-import-reachable`
        alone, only the files a chain reaches are: the project loads them when it gets there,
        and the engine only syntax-checks the others."""
        return bool(self.rules - {HEAVY_IMPORT_REACHABLE})

    def slim(self, facts: FileFacts) -> FileFacts:
        """What the pass keeps of a file: calls that may be probes (a string argument) or reach a
        project function (this file's, or one under a project package). A whole
        project's calls would not fit in the memory budget (issue 7, T5)."""
        local = {function.name for function in facts.functions}
        calls = tuple(
            call for call in facts.calls
            if call.first_string is not None or call.callee in local or call.callee.split(".")[0] in self.project_names
        )
        return replace(facts, calls=calls) if len(calls) < len(facts.calls) else facts

    def wants_parse(self, source: bytes, path: str) -> bool:
        if path.endswith(".pyi"):
            return False  # stubs never run
        if self.tokens is None:
            return True
        return any(token in source for token in self.tokens) or RELATIVE_IMPORT.search(source) is not None


def make_plan(policy: Policy, wants: Callable[[str], bool]) -> RocmPlan | None:
    rocm = policy.rocm_safety
    if rocm is None:
        return None
    rules = frozenset(rule for rule in RULE_IDS if wants(rule))
    if not rules:
        return None
    exports = gateway_exports(policy)
    project_names = frozenset(_top_level_names(policy))
    heads: set[str] = set()
    for pattern in rocm.heavy_modules:
        head = pattern.literal_head
        if head is None:
            return RocmPlan(policy, rocm, rules, exports, None, project_names)
        heads.add(head)
    heads.update(probe.rpartition(".")[2] for probe, _ in rocm.probes)
    heads.update(gateway.split(".")[0] for gateway in exports)
    heads.update(project_names)
    return RocmPlan(policy, rocm, rules, exports, tuple(sorted(h.encode() for h in heads if h)), project_names)


def _top_level_names(policy: Policy) -> Iterator[str]:
    """Top-level modules and packages under the roots: an import of the project spells one of them."""
    for root in policy.roots:
        try:
            entries = list(os.scandir(policy.root / root))
        except OSError:
            continue
        for entry in entries:
            name = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if name.isidentifier() and (entry.name.endswith(".py") or entry.is_dir()):
                yield name


def project(plan: RocmPlan, known: Mapping[str, FileFacts], read: Reader, cache: FactsCache | None = None) -> Project:
    """The whole project's graph: `known` facts as given, other files read and parsed (or
    taken from the cache) when reached."""
    policy = plan.policy
    modules = ProjectModules(policy, known)

    def load(path: str) -> FileFacts | None:
        if plan.reads_every_file and path in known:
            return known[path]  # else the engine only syntax-checked it
        file = SourceFile(policy.root / path, path, "python")
        try:
            source = read(file)
        except OSError:
            return None  # an unreadable file outside the ones passed is not this run's business
        module, is_package = module_name(file.relative, policy.roots)
        if not plan.wants_parse(source, file.relative):
            return FileFacts(file.relative, module, is_package)
        key = cache.key(source, file.relative, module, is_package, GRAPH_MODE) if cache is not None else ""
        facts = cache.get(key) if cache is not None else None
        if facts is None:
            facts = graph_facts(source, file.relative, module, is_package)
            if cache is not None:
                cache.put(key, facts)
        return plan.slim(facts)

    return Project(plan.rocm, modules, load)


class ProjectModules(Mapping[str, str]):
    """Module -> file, for every module of the project, found one lookup at a time.

    The same answer as walking the whole tree (`discover`) and keeping, per module, the
    first file in path order, with the files passed first; a pre-commit run of a few files
    looks up only the modules its chains and calls reach instead of walking thousands.
    """

    def __init__(self, policy: Policy, known: Mapping[str, FileFacts]) -> None:
        self.policy = policy
        self.known: dict[str, str] = {}
        for path, facts in known.items():
            if facts.module is not None and not path.endswith(".pyi"):
                self.known.setdefault(facts.module, path)
        self.locator = Locator(policy.root, policy.exclude)
        self.found: dict[str, str | None] = {}
        self._all: dict[str, str] | None = None

    def __getitem__(self, module: str) -> str:
        path = self.known.get(module)
        if path is None:
            path = self._find(module)
        if path is None:
            raise KeyError(module)
        return path

    def _find(self, module: str) -> str | None:
        if module not in self.found:
            inner = module.replace(".", "/")
            candidates = []
            for root in self.policy.roots:
                prefix = "" if root in (".", "") else root.rstrip("/") + "/"
                for relative in (f"{prefix}{inner}.py", f"{prefix}{inner}/__init__.py"):
                    if module_name(relative, self.policy.roots)[0] == module and self.locator.walked(relative):
                        candidates.append(relative)
            self.found[module] = min(candidates) if candidates else None
        return self.found[module]

    def _everything(self) -> dict[str, str]:
        if self._all is None:
            policy = self.policy
            found = dict(self.known)
            for file in discover([policy.root], policy.root, policy.exclude, frozenset({"python"})):
                module = module_name(file.relative, policy.roots)[0]
                if module is not None and not file.relative.endswith(".pyi"):
                    found.setdefault(module, file.relative)
            self._all = found
        return self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())


def check(
    plan: RocmPlan, passed: Mapping[str, FileFacts], read: Reader, cache: FactsCache | None = None
) -> list[Diagnostic]:
    """The pass's diagnostics for the files passed (already parsed by the engine)."""
    rocm = plan.rocm
    applies = {
        path: facts for path, facts in passed.items()
        if facts.syntax_error is None and not path.endswith(".pyi") and rocm.applies_to(path)
    }
    if not applies:
        return []
    found: list[Diagnostic] = []
    for facts in applies.values():
        if TRIAL_IMPORT_PROBE in plan.rules:
            found.extend(trial_import_probes(rocm, facts))
        if IMPORT_TIME_JIT in plan.rules:
            found.extend(import_time_jit(rocm, facts, plan.exports))
    if plan.needs_project:
        graph = project(plan, passed, read, cache)
        if EAGER_HEAVY_IMPORT in plan.rules:
            for path in applies:
                found.extend(_eager(site) for site in graph.sites(path))
        if HEAVY_IMPORT_REACHABLE in plan.rules:
            found.extend(_reachable(graph, rocm.entry_modules, applies))
    quiet: dict[str, Suppressions] = {}

    def suppressed(d: Diagnostic) -> bool:
        if d.path not in quiet:
            # Without `reads_every_file` the engine did not parse the files passed: their
            # comments are read only where a finding stands.
            quiet[d.path] = applies[d.path].suppressions if plan.reads_every_file else _comments(plan, d.path, read)
        return quiet[d.path].covers(d.rule, d.suppress_lines)

    return [d for d in found if not suppressed(d)]


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


def _eager(site: HeavySite) -> Diagnostic:
    if site.kind == "import":
        message = (
            f"heavy module `{site.heavy}` is imported when this module is imported; "
            "import it where it is used, or under a guard"
        )
    elif site.kind == "probe":
        message = f"`{site.detail}` runs when this module is imported and imports `{site.heavy}`"
    else:
        message = f"`{site.detail.split(' -> ')[0]}` runs when this module is imported and imports `{site.heavy}` ({site.detail})"
    return _diagnostic(EAGER_HEAVY_IMPORT, site, message)


def _reachable(project: Project, entries: Iterable[str], applies: Mapping[str, FileFacts]) -> Iterator[Diagnostic]:
    for entry in entries:
        for chain, site in project.reachable_sites(entry):
            if site.path in applies:
                yield _diagnostic(HEAVY_IMPORT_REACHABLE, site, _reachable_message(chain, site), chain.modules)


def _reachable_message(chain: Chain, site: HeavySite) -> str:
    return f"importing `{chain.entry}` imports `{site.heavy}`: {' -> '.join(chain.modules)}"


__all__ = ["RocmPlan", "check", "make_plan", "project"]
