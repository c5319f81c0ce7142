"""The ROCm-safety rules as a project pass: their question of the graph, and the check of its answer.

The question (`question_of`): `rocm_safety`'s heavy modules, probes and entries, judged on
the ROCm platform its `guards`, `rocm` and `values` describe. Its answer gives, for the
files checked (those passed that `rocm_safety.files` covers):

- `heavy-import-reachable` / `import-time-jit`: a site an entry's import reaches (the
  shortest chain from the first entry), reported under the hook rule (`graph.hook`);
- `eager-heavy-import`: a site in a checked file, whether or not an entry reaches it;
- `trial-import-probe`: a probe in a checked file (`predicates`).

A site is reported under one rule only: a reached site as `heavy-import-reachable` or
`import-time-jit`, else a probe as `trial-import-probe`, else `eager-heavy-import`.
A module reached through a link inside the root is reported at the link's path, where
Python imports it, as the file it leads to would be (`graph.links`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from import_policy.config.model import Policy, RocmSafety
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts
from import_policy.graph import hook
from import_policy.graph.plan import GraphPlan, default_entries_of
from import_policy.graph.question import Question
from import_policy.graph.reach import HeavySite
from import_policy.graph.store import ModuleGraph
from import_policy.graph.value_uses import ValueUse
from import_policy.rocm.advice import tell_uses
from import_policy.kinds.import_time import rocm_platform
from import_policy.kinds.project import ProjectContext
from import_policy.rocm.messages import eager, reached
from import_policy.rocm.predicates import (
    EAGER_HEAVY_IMPORT, HEAVY_IMPORT_REACHABLE, IMPORT_TIME_JIT, RULE_IDS, TRIAL_IMPORT_PROBE, trial_import_probes,
)

Probes = dict[tuple[str, int, int], Diagnostic]


def question_of(rocm: RocmSafety, entries: tuple[str, ...]) -> Question:
    return Question(
        heavy=rocm.heavy_modules, probes=rocm.probes, platform=rocm_platform(rocm), entries=entries,
        python=rocm.python, installed=rocm.installed == "environment",
    )


def make_pass(policy: Policy, wants: Callable[[str], bool]) -> RocmPass | None:
    """The pass of this run: None without a `rocm_safety` section or with none of its rules selected."""
    rocm = policy.rocm_safety
    if rocm is None:
        return None
    selected = frozenset(rule for rule in RULE_IDS if wants(rule))
    if not selected:
        return None
    return RocmPass(rocm, selected, question_of(rocm, rocm.entry_modules or default_entries_of(policy)))


class RocmPass:
    """`rocm_safety`'s rules (those selected) over the graph's answer to its question."""

    def __init__(self, rocm: RocmSafety, rules: frozenset[str], question: Question) -> None:
        self.rocm = rocm
        self.rules = rules
        self.question = question

    def questions(self) -> tuple[Question, ...]:
        return (self.question,)

    def wants_file(self, plan: GraphPlan, source: bytes, path: str) -> bool:
        """Whether the engine must parse a checked file for the pass's per-file rules: for
        `eager-heavy-import`, any file that may hold a site; for `trial-import-probe` alone,
        a file that spells a probe (the reachability rules load what a chain reaches)."""
        if EAGER_HEAVY_IMPORT in self.rules:
            return plan.wants_parse(source, path)
        if TRIAL_IMPORT_PROBE in self.rules and not path.endswith(".pyi"):
            return (
                plan.tokens is None or any(probe.rpartition(".")[2].encode() in source for probe, _ in self.rocm.probes)
                or b"try" in source and any(head in source for head in plan.heavy_heads)
            )
        return False

    def check(self, context: ProjectContext) -> list[Diagnostic]:
        applies = {path: facts for path, facts in context.parsed.items() if self.rocm.applies_to(path)}
        if not applies:
            return []
        probes: Probes = {}
        if TRIAL_IMPORT_PROBE in self.rules:
            for facts in applies.values():
                for diagnostic in trial_import_probes(self.question, facts):
                    probes.setdefault((diagnostic.path, diagnostic.line, diagnostic.column), diagnostic)
        found: list[Diagnostic] = []
        if self.rules & {EAGER_HEAVY_IMPORT, HEAVY_IMPORT_REACHABLE, IMPORT_TIME_JIT}:
            walked = bool(self.rules & {HEAVY_IMPORT_REACHABLE, IMPORT_TIME_JIT})
            graph = context.graphs.ask(self.question, reached=walked)
            reported: set[tuple[str, int, int]] = set()
            if walked:
                findings = self._reached(graph, applies, probes, reported)
                found.extend(context.report(context.at_links(findings, self.rocm.heavy_modules), self.rocm.applies_to, graph))
            if EAGER_HEAVY_IMPORT in self.rules:
                found.extend(self._eager(context, graph, applies, probes, reported))
            if self.rocm.values:
                tell_uses(read_uses(graph))
        found.extend(probes.values())
        return context.unsuppressed(found)

    def _reached(
        self, graph: ModuleGraph, applies: dict[str, FileFacts], probes: Probes, reported: set[tuple[str, int, int]],
    ) -> list[hook.Finding]:
        """Each site an entry reaches, once; a probe's fix comes along with the site it is."""
        out: list[hook.Finding] = []
        for chain, site in graph.first_reached(self.question.entries):
            rule = IMPORT_TIME_JIT if site.kind == "jit" else HEAVY_IMPORT_REACHABLE
            if rule not in self.rules:
                continue
            reported.add(site.key)
            diagnostic = reached(rule, self.rocm, chain, site)
            probe = probes.pop(site.key, None) if site.path in applies else None
            if probe is not None and probe.fix is not None:
                diagnostic = replace(diagnostic, fixable=True, fix=probe.fix)
            out.append(hook.Finding(diagnostic, chain, site.detail if site.kind == "jit" else site.heavy))
        return out

    def _eager(
        self, context: ProjectContext, graph: ModuleGraph, applies: dict[str, FileFacts], probes: Probes,
        reported: set[tuple[str, int, int]],
    ) -> list[Diagnostic]:
        """Each site in a checked file (or a link inside the root to one) no chain reported."""
        linked = [
            path for path in graph.inputs.log.files
            if self.rocm.applies_to(path) and (target := context.resolved.target(path)) is not None
            and target in applies
        ]
        out: list[Diagnostic] = []
        for path in (*applies, *linked):
            for site in graph.sites(path):
                if not _eager_site(site, reported, probes):
                    continue
                out.append(eager(self.rocm, site))
        return out


def read_uses(graph: ModuleGraph) -> dict[str, list[ValueUse]]:
    """Each file the pass read and parsed, with its uses of the `values` keys (the graph keeps
    them between runs, so a warm run tells what a cold one does)."""
    return {
        path: graph.value_uses(path) for path in list(graph.inputs.log.files) if graph.inputs.how(path) in ("e", "r")
    }


def _eager_site(site: HeavySite, reported: set[tuple[str, int, int]], probes: Probes) -> bool:
    """Whether the site is reported as `eager-heavy-import`: not a jit, not reached, not a
    probe reported as one (an inline probe is reported under the site's rule)."""
    if site.kind == "jit" or site.key in reported:
        return False
    if site.trial:
        probes.pop(site.key, None)
        return True
    return site.key not in probes


__all__ = ["RocmPass", "make_pass", "question_of"]
