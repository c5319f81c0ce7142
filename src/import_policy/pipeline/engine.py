"""The engine: files -> facts -> checks -> diagnostics, knowing nothing of any rule's meaning.

Per file: read bytes once; skip the parse when no rule could fire (the
prefilter); otherwise one parse and one batched visit (CPython's `ast` where its
facts equal libcst's, libcst where a use must be resolved); then every check in
force runs as a pure function over the facts; suppressions last.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from import_policy.cache.facts import FactsCache
from import_policy.kinds import cfamily as cfamily_checks
from import_policy.kinds import imports as import_checks
from import_policy.config.model import ImportRule, IncludeRule, Policy, TokenRule
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.discovery.files import SourceFile, module_name
from import_policy.facts.comments import suppressions
from import_policy.facts.from_ast import graph_facts, rule_facts
from import_policy.facts.model import FileFacts
# CPython's own parser, for files that need no facts: a broken file is still reported.
from import_policy.facts.syntax import cpython_check as syntax_check
from import_policy.patterns import judge
from import_policy.pipeline.prefilter import Prefilter
from import_policy.pipeline import parallel
from import_policy.rocm import run as rocm_pass

if TYPE_CHECKING:
    from import_policy.facts.usegate import UseGate

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


@dataclass
class Plan:
    """What the policy asks of each file, worked out once per run."""

    policy: Policy
    selection: Selection
    import_rules: tuple[ImportRule, ...] = field(init=False)
    c_rules: tuple[IncludeRule | TokenRule, ...] = field(init=False)
    # Per set of rules applying to a path (`prefilters`), built when first asked for.
    _prefilters: dict[tuple[str, ...], tuple[Prefilter | None, Prefilter | None]] = field(
        init=False, default_factory=dict
    )
    # The ROCm-safety pass, when the policy has one and any of its rules is selected.
    rocm: rocm_pass.RocmPlan | None = field(init=False)
    # Sees each Python file's facts and the rules judged on it (stale-allowlist tracking).
    observe: Callable[[FileFacts, Sequence[ImportRule]], None] | None = field(default=None, kw_only=True)
    # Facts of unchanged files from earlier runs (`--no-cache`: None).
    cache: FactsCache | None = field(default=None, kw_only=True)
    # Both on in every run; the tests turn them off to show they change no result.
    prefilter: bool = field(default=True, kw_only=True)
    fast_facts: bool = field(default=True, kw_only=True)

    def __post_init__(self) -> None:
        self.import_rules = tuple(
            r for r in self.policy.rules if isinstance(r, ImportRule) and self.selection.wants(r.id)
        )
        self.c_rules = tuple(
            r for r in self.policy.rules if isinstance(r, (IncludeRule, TokenRule)) and self.selection.wants(r.id)
        )
        self.rocm = rocm_pass.make_plan(self.policy, self.selection.wants)

    def rules_for(self, path: str) -> list[ImportRule]:
        return [rule for rule in self.import_rules if rule.applies_to(path)]

    def prefilters(self, rules: Sequence[ImportRule]) -> tuple[Prefilter | None, Prefilter | None]:
        """(could a rule fire, could a use matter) for a file these rules apply to: a rule kept
        to `vllm/ir/` must not make every file importing `vllm` a candidate elsewhere. None:
        every file (a pattern starts with a wildcard)."""
        if not self.prefilter:
            return None, None
        key = tuple(rule.id for rule in rules)
        found = self._prefilters.get(key)
        if found is None:
            forbidden = [pattern for rule in rules for pattern in rule.forbid]
            found = (
                Prefilter.for_patterns(forbidden),
                # Uses matter only below an imported module: `torch.cuda.synchronize`, not `pickle`.
                Prefilter.for_patterns(p for p in forbidden if "." in p.text),
            )
            self._prefilters[key] = found
        return found

    def kept(self, facts: FileFacts) -> FileFacts:
        """What a run holds of a file's facts once extracted (in the cache they stay whole): the
        import checks read imports and uses; calls, decorators and functions matter only to the
        ROCm pass, and only some calls to it."""
        if self.rocm is not None:
            return self.rocm.slim(facts)
        if facts.calls or facts.decorators or facts.functions:
            return replace(facts, calls=(), decorators=(), functions=())
        return facts

    def c_rules_for(self, path: str) -> list[IncludeRule | TokenRule]:
        return [rule for rule in self.c_rules if rule.applies_to(path)]


def _wants(prefilter: Prefilter | None, source: bytes, module: str | None) -> bool:
    return prefilter is None or prefilter.wants(source, module)


def python_facts(
    plan: Plan, file: SourceFile, source: bytes, rules: Sequence[ImportRule], cached_only: bool = False
) -> FileFacts | None:
    """The file's facts: from the cache, else a syntax check or a parse (None if `cached_only`)."""
    module, is_package = module_name(file.relative, plan.policy.roots)
    candidates, use_candidates = plan.prefilters(rules)
    for_rules = bool(rules) and _wants(candidates, source, module)
    # Only the ROCm pass reads the file: CPython's parse gives its facts (facts.fast).
    rocm = plan.rocm
    for_graph = not for_rules and rocm is not None and rocm.reads_every_file and rocm.wants_parse(source, file.relative)
    want_uses = for_rules and _wants(use_candidates, source, module)
    # The facts depend on the bytes, where the file sits and what was asked (the use gate's rules).
    if for_rules:
        mode = "uses:" + _fingerprint(rules) if want_uses else "facts"
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
    gate = use_gate(rules) if want_uses else None
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


def _fingerprint(rules: Sequence[ImportRule]) -> str:
    text = repr([(r.id, [p.text for p in r.forbid], [p.text for p in r.except_]) for r in rules])
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def use_gate(rules: Sequence[ImportRule]) -> UseGate:
    """Whether a use resolving to `name` could be judged by one of `rules`: some forbid
    pattern matches it or a prefix, and its root is not bound by an import the rule already
    forbids (the check judges that at the import); or an `except` entry matches it, so the
    stale-allowlist tracker sees every name an entry could decide."""

    def gate(name: str, imported: Sequence[str]) -> bool:
        for rule in rules:
            if rule.except_ and judge(name, (), rule.except_).pattern is not None:
                return True
            if judge(name, rule.forbid, ()).forbidden and not any(
                judge(n, rule.forbid, rule.except_).forbidden for n in imported
            ):
                return True
        return False

    return gate


def check_python(plan: Plan, facts: FileFacts, rules: Iterable[ImportRule]) -> list[Diagnostic]:
    if facts.syntax_error is not None:
        error = facts.syntax_error
        return [
            Diagnostic(
                rule=SYNTAX_ERROR, severity="error", path=facts.path, line=error.line,
                column=error.column, end_line=error.line, end_column=error.column,
                message=f"the file does not parse: {error.message}", suppress_lines=(),
            )
        ]
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(import_checks.check(rule, facts))
    return [d for d in found if not facts.suppressions.covers(d.rule, d.suppress_lines)]


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
                    diagnostics.extend(cfamily_checks.check_file(plan.c_rules_for(file.relative), file.relative, source))
                    continue
                if file.language != "python":
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
