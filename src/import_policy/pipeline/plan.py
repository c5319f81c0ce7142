"""A run's plan: which rules are in force and what each path's rules ask of a file.

Worked out once per run from the policy and the selection, and shipped to the
workers of a pool as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from import_policy.cache.facts import FactsCache
from import_policy.config.model import Policy, RuleBase
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.facts.records.model import FileFacts
from import_policy.facts.shared.usegate import UseGate
from import_policy.graph.build import KeptGraphs
from import_policy.graph.plan import GraphPlan
from import_policy.kinds.base import EVERY_FILE, Candidates, ProjectPass, RuleFault
from import_policy.kinds.registry import PROJECT_KINDS, kind_of, project_passes, python_kind
from import_policy.patterns import any_match
from import_policy.policy.follow import graph_plan

@dataclass(frozen=True)
class Selection:
    """Which rule ids are in force: the configuration's `ignore:`/`enable:` and the rules off
    by default, then --select (which replaces that set for the run) and --ignore (which adds)."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    config_ignore: frozenset[str] = frozenset()
    enable: frozenset[str] = frozenset()
    off_by_default: frozenset[str] = frozenset()

    def under(self, policy: Policy) -> Selection:
        """This selection with the policy's own switches."""
        from import_policy.kinds.registry import BUILTIN  # the registry imports the plan's users

        return replace(  # unions: applying it twice (the command, then the plan) changes nothing
            self, config_ignore=self.config_ignore | frozenset(policy.ignore),
            enable=self.enable | frozenset(policy.enable),
            off_by_default=frozenset(rule.id for rule in BUILTIN if rule.opt_in),
        )

    def wants(self, rule_id: str) -> bool:
        if rule_id == SYNTAX_ERROR:
            return True  # a file we cannot read is never silently passed
        if rule_id in self.ignore:
            return False
        if self.select is not None:
            return rule_id in self.select
        if rule_id in self.config_ignore:
            return False
        return rule_id not in self.off_by_default or rule_id in self.enable


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
    python_rules: tuple[RuleBase, ...] = field(init=False)  # checked one file at a time
    c_rules: tuple[RuleBase, ...] = field(init=False)
    # Per set of rules applying to a path, built when first asked for.
    _needs: dict[tuple[str, ...], Needs] = field(init=False, default_factory=dict)
    # The checks of the whole project, run once every file is read: the built-in ones in
    # force, then one per project kind with rules in force (`kinds.registry.project_passes`).
    passes: tuple[ProjectPass, ...] = field(init=False)
    # What the passes ask of the graph (None: no pass, so no graph).
    graph: GraphPlan | None = field(init=False)
    # Sees each Python file's facts and the rules judged on it (stale-allowlist tracking).
    observe: Callable[[FileFacts, Sequence[RuleBase]], None] | None = field(default=None, kw_only=True)
    # Stale-allowlist tracking, in the same run: each file is also judged by the rules its
    # `allow_in` exempts it from, and `exempted` sees those findings (the run reports none).
    track_allow_in: bool = field(default=False, kw_only=True)
    exempted: Callable[[Sequence[Diagnostic]], None] | None = field(default=None, kw_only=True)
    # Facts of unchanged files from earlier runs (`--no-cache`: None).
    cache: FactsCache | None = field(default=None, kw_only=True)
    # The graphs as a language server keeps them between edits (None: built per run).
    graphs: KeptGraphs | None = field(default=None, kw_only=True, compare=False)
    # Both on in every run; the tests turn them off to show they change no result.
    prefilter: bool = field(default=True, kw_only=True)
    fast_facts: bool = field(default=True, kw_only=True)
    # Name on stderr each file whose facts take longer than this many seconds (None: never).
    slow_after: float | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        self.selection = self.selection.under(self.policy)
        selected = [r for r in self.policy.rules if self.selection.wants(r.id)]
        # Every rule's kind is looked up here, so a rule whose kind is not registered fails
        # the run at once instead of silently never being checked.
        python = [_prepared(r, self.policy) for r in selected if kind_of(r).language == "python"]
        self.python_rules = tuple(r for r in python if r.kind not in PROJECT_KINDS)
        self.c_rules = tuple(r for r in selected if kind_of(r).language == "c")
        self.passes = project_passes(self.policy, self.selection.wants, python)
        questions = [question for found in self.passes for question in found.questions()]
        self.graph = graph_plan(self.policy, questions, self.prefilter) if questions else None

    def wants_file(self, source: bytes, path: str) -> bool:
        """Whether a project pass needs the checked file parsed (no per-file rule does)."""
        graph = self.graph
        return graph is not None and any(found.wants_file(graph, source, path) for found in self.passes)

    def rules_for(self, path: str) -> list[RuleBase]:
        return [rule for rule in self.python_rules if rule.applies_to(path)]

    def exempted_from(self, path: str) -> list[RuleBase]:
        """The Python rules whose `files` cover `path` but whose `allow_in` exempts it, when tracked."""
        return [rule for rule in self.python_rules if _exempts(rule, path)] if self.track_allow_in else []

    def c_exempted_from(self, path: str) -> list[RuleBase]:
        return [rule for rule in self.c_rules if _exempts(rule, path)] if self.track_allow_in else []

    def judged_for(self, path: str) -> list[RuleBase]:
        """The rules a Python file's facts must serve: those in force there, and those tracked."""
        return [*self.rules_for(path), *self.exempted_from(path)]

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
        graph, and only some calls to it."""
        if self.graph is not None:
            return self.graph.slim(facts)
        if facts.calls or facts.decorators or facts.functions:
            return replace(facts, calls=(), decorators=(), functions=())
        return facts

    def c_rules_for(self, path: str) -> list[RuleBase]:
        return [rule for rule in self.c_rules if rule.applies_to(path)]


def _prepared(rule: RuleBase, policy: Policy) -> RuleBase:
    """The rule as this run checks it; a fault in it (as the tree stands) is a configuration error."""
    try:
        kind = PROJECT_KINDS.get(rule.kind) or python_kind(rule.kind)
        prepared: RuleBase = kind.prepare(rule, policy)
    except RuleFault as fault:
        from import_policy.policy.load import ConfigErrors
        from import_policy.config.validate import ConfigError

        raise ConfigErrors([ConfigError(rule.origin.source, fault.line, fault.message)]) from None
    return prepared


def _exempts(rule: RuleBase, path: str) -> bool:
    if not rule.allow_in or (rule.files and any_match(rule.files, path) is None):
        return False
    return any_match(rule.allow_in, path) is not None
