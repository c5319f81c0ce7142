"""The engine: files -> facts -> checks -> diagnostics, knowing nothing of any rule's meaning.

Per file: read bytes once; skip the parse when no rule could fire (the
prefilter); otherwise one parse and one batched visit (CPython's `ast` where its
facts equal libcst's, libcst where a use must be resolved); then every check in
force runs as a pure function over the facts; suppressions last.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from import_policy.cache.facts import FactsCache
from import_policy.config.model import Policy, RuleBase
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.discovery.files import SourceFile, module_name
from import_policy.facts.comments import suppressions
from import_policy.facts.from_ast import graph_facts, rule_facts
from import_policy.facts.model import FileFacts
# CPython's own parser, for files that need no facts: a broken file is still reported.
from import_policy.facts.syntax import cpython_check as syntax_check
from import_policy.facts.usegate import UseGate
from import_policy.kinds import cfamily
from import_policy.kinds.base import EVERY_FILE, Candidates
from import_policy.kinds.registry import c_kind, kind_of, python_kind
from import_policy.kinds.syntax import syntax_error
from import_policy.pipeline import parallel
from import_policy.rocm import run as rocm_pass

# The cache mode of facts gathered for the ROCm pass alone (rocm_pass reads the same entries).
GRAPH_MODE = rocm_pass.GRAPH_MODE


@dataclass(frozen=True)
class Selection:
    """Which rule ids are in force, from --select/--ignore."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()

    def wants(self, rule_id: str) -> bool:
        if rule_id == SYNTAX_ERROR:
            return True  # a file we cannot read is never silently passed
        if self.select is not None and rule_id not in self.select:
            return False
        return rule_id not in self.ignore


@dataclass(frozen=True)
class Needs:
    """What the Python rules applying to one path ask of a file, from its bytes: whether any
    of them could report in it, and whether (and which) uses of names must be resolved."""

    candidates: tuple[Candidates, ...]
    use_candidates: tuple[Candidates, ...]
    gates: tuple[UseGate, ...]
    fingerprint: str  # what decides the use facts, for the facts cache

    def could_report(self, source: bytes, module: str | None) -> bool:
        return any(c.wants(source, module) for c in self.candidates)

    def uses_matter(self, source: bytes, module: str | None) -> bool:
        return any(c.wants(source, module) for c in self.use_candidates)

    def gate(self) -> UseGate:
        gates = self.gates
        if len(gates) == 1:
            return gates[0]
        return lambda name, imported: any(g(name, imported) for g in gates)


@dataclass
class Plan:
    """What the policy asks of each file, worked out once per run."""

    policy: Policy
    selection: Selection
    python_rules: tuple[RuleBase, ...] = field(init=False)
    c_rules: tuple[RuleBase, ...] = field(init=False)
    # Per set of rules applying to a path, built when first asked for.
    _needs: dict[tuple[str, ...], Needs] = field(init=False, default_factory=dict)
    # The ROCm-safety pass, when the policy has one and any of its rules is selected.
    rocm: rocm_pass.RocmPlan | None = field(init=False)
    # Sees each Python file's facts and the rules judged on it (stale-allowlist tracking).
    observe: Callable[[FileFacts, Sequence[RuleBase]], None] | None = field(default=None, kw_only=True)
    # Facts of unchanged files from earlier runs (`--no-cache`: None).
    cache: FactsCache | None = field(default=None, kw_only=True)
    # Both on in every run; the tests turn them off to show they change no result.
    prefilter: bool = field(default=True, kw_only=True)
    fast_facts: bool = field(default=True, kw_only=True)

    def __post_init__(self) -> None:
        selected = [r for r in self.policy.rules if self.selection.wants(r.id)]
        # Every rule's kind is looked up here, so a rule whose kind is not registered fails
        # the run at once instead of silently never being checked.
        self.python_rules = tuple(r for r in selected if kind_of(r).language == "python")
        self.c_rules = tuple(r for r in selected if kind_of(r).language == "c")
        self.rocm = rocm_pass.make_plan(self.policy, self.selection.wants)

    def rules_for(self, path: str) -> list[RuleBase]:
        return [rule for rule in self.python_rules if rule.applies_to(path)]

    def needs(self, rules: Sequence[RuleBase]) -> Needs:
        """What `rules` (all applying to one path) ask of a file: a rule kept to `vllm/ir/` must
        not make every file importing `vllm` a candidate elsewhere."""
        key = tuple(rule.id for rule in rules)
        found = self._needs.get(key)
        if found is None:
            found = self._needs[key] = self._work_out(rules)
        return found

    def _work_out(self, rules: Sequence[RuleBase]) -> Needs:
        by_kind: dict[str, list[RuleBase]] = {}
        for rule in rules:
            by_kind.setdefault(rule.kind, []).append(rule)
        candidates, use_candidates, gates, prints = [], [], [], []
        for name, group in by_kind.items():
            kind = python_kind(name)
            candidates.append(kind.candidates(group) if self.prefilter else EVERY_FILE)
            uses = kind.uses(group)
            if uses is not None:
                use_candidates.append(uses[0] if self.prefilter else EVERY_FILE)
                gates.append(uses[1])
                prints.append(f"{name}:{uses[2]}")
        return Needs(tuple(candidates), tuple(use_candidates), tuple(gates), ",".join(prints))

    def kept(self, facts: FileFacts) -> FileFacts:
        """What a run holds of a file's facts once extracted (in the cache they stay whole): the
        import checks read imports and uses; calls, decorators and functions matter only to the
        ROCm pass, and only some calls to it."""
        if self.rocm is not None:
            return self.rocm.slim(facts)
        if facts.calls or facts.decorators or facts.functions:
            return replace(facts, calls=(), decorators=(), functions=())
        return facts

    def c_rules_for(self, path: str) -> list[RuleBase]:
        return [rule for rule in self.c_rules if rule.applies_to(path)]


def python_facts(
    plan: Plan, file: SourceFile, source: bytes, rules: Sequence[RuleBase], cached_only: bool = False
) -> FileFacts | None:
    """The file's facts: from the cache, else a syntax check or a parse (None if `cached_only`)."""
    module, is_package = module_name(file.relative, plan.policy.roots)
    needs = plan.needs(rules)
    for_rules = bool(rules) and needs.could_report(source, module)
    # Only the ROCm pass reads the file: CPython's parse gives its facts (facts.fast).
    rocm = plan.rocm
    for_graph = not for_rules and rocm is not None and rocm.reads_every_file and rocm.wants_parse(source, file.relative)
    want_uses = for_rules and needs.uses_matter(source, module)
    # The facts depend on the bytes, where the file sits and what was asked (the use gate's rules).
    if for_rules:
        mode = "uses:" + needs.fingerprint if want_uses else "facts"
    else:
        mode = GRAPH_MODE if for_graph else "syntax"
    cache = plan.cache
    key = cache.key(source, file.relative, module, is_package, mode) if cache is not None else ""
    if cache is not None:
        cached = cache.get(key)
        if cached is not None or cached_only:
            return cached
    if cached_only:
        return None
    gate = needs.gate() if want_uses else None
    facts: FileFacts | None = None
    if for_graph and plan.fast_facts:
        facts = graph_facts(source, file.relative, module, is_package)
    elif not for_rules and not for_graph:
        # Suppressions too: the ROCm pass may report a site in it that it loads by itself.
        facts = FileFacts(
            file.relative, module, is_package, suppressions=suppressions(source),
            syntax_error=syntax_check(source, file.relative),
        )
    elif plan.fast_facts:
        # CPython's parse gives libcst's facts exactly (tests/test_fast_facts.py) unless a use
        # could be judged, which only libcst's scope analysis can resolve.
        facts = rule_facts(source, file.relative, module, is_package, gate)
    if facts is None:
        # libcst costs 0.2 s to import: a run whose files all skip the parse never loads it.
        from import_policy.facts.from_cst import extract

        facts = extract(source, file.relative, module, is_package, want_uses=want_uses, use_gate=gate)
    if cache is not None:
        cache.put(key, facts)
    return facts


def check_python(plan: Plan, facts: FileFacts, rules: Iterable[RuleBase]) -> list[Diagnostic]:
    if facts.syntax_error is not None:
        return [syntax_error(facts.path, facts.syntax_error)]
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(python_kind(rule.kind).check(rule, facts))
    return [d for d in found if not facts.suppressions.covers(d.rule, d.suppress_lines)]


def check_c(rules: Sequence[RuleBase], path: str, source: bytes) -> list[Diagnostic]:
    """Every C-family rule in `rules` (selected, applying to `path`), suppressions applied."""
    if not rules:
        return []
    scan = cfamily.Scan(source)
    found = [d for rule in rules for d in c_kind(rule.kind).check(rule, scan, path)]
    return scan.unsuppressed(found)


Reader = Callable[[SourceFile], bytes]


def read_file(file: SourceFile) -> bytes:
    return file.path.read_bytes()


@dataclass
class Result:
    diagnostics: list[Diagnostic]
    files: int
    unreadable: list[tuple[str, str]]  # (path, reason)


def _pool(plan: Plan, files: Sequence[SourceFile], jobs: int) -> dict[str, parallel.Outcome]:
    """Cached facts read here (a pool would only add overhead); the rest parsed in a pool if
    there are enough of them. Files left out are done one by one by the caller."""
    done: dict[str, parallel.Outcome] = {}
    missing: list[SourceFile] = [] if plan.cache is not None else list(files)
    for file in files if plan.cache is not None else ():
        try:
            facts = python_facts(plan, file, read_file(file), plan.rules_for(file.relative), cached_only=True)
        except OSError:
            continue  # the caller reports it
        if facts is None:
            missing.append(file)
        else:
            done[file.relative] = plan.kept(facts)
    if parallel.worth_it(jobs, len(missing)):
        done.update(zip((f.relative for f in missing), parallel.facts(plan, missing, jobs)))
    return done


def run(plan: Plan, files: Sequence[SourceFile], read: Reader = read_file, jobs: int = 1) -> Result:
    # A run holds the facts of thousands of files: acyclic records the cyclic collector would
    # walk again at every collection, for nothing (its passes grow with the heap, so a big tree
    # cost more than linearly). What cycles a parse leaves are collected once the run is over.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(plan, files, read, jobs)
    finally:
        if collecting:
            gc.enable()


def _run(plan: Plan, files: Sequence[SourceFile], read: Reader, jobs: int) -> Result:
    diagnostics: list[Diagnostic] = []
    unreadable: list[tuple[str, str]] = []
    python: dict[str, FileFacts] = {}  # for the project-level ROCm pass
    pooled: dict[str, parallel.Outcome] = {}
    python_files = [file for file in files if file.language == "python"]
    if read is read_file and parallel.worth_it(jobs, len(python_files)):
        pooled = _pool(plan, python_files, jobs)
    for file in files:
        outcome = pooled.get(file.relative)
        rules = plan.rules_for(file.relative) if file.language == "python" else []
        if outcome is None:
            try:
                source = read(file)
            except OSError as error:
                outcome = error.strerror or str(error)
            else:
                if file.language == "c":
                    diagnostics.extend(check_c(plan.c_rules_for(file.relative), file.relative, source))
                    continue
                facts = python_facts(plan, file, source, rules)
                assert facts is not None
                outcome = plan.kept(facts)
        if isinstance(outcome, str):
            unreadable.append((file.relative, outcome))
            continue
        if plan.observe is not None:
            plan.observe(outcome, rules)
        diagnostics.extend(check_python(plan, outcome, rules))
        if plan.rocm is not None:
            python[file.relative] = outcome
    if plan.rocm is not None:
        diagnostics.extend(rocm_pass.check(plan.rocm, python, read, plan.cache))
    diagnostics.sort(key=Diagnostic.sort_key)
    return Result(diagnostics, len(files), unreadable)
