"""The ROCm-safety pass over one file's facts (contract section 4).

Pure functions: the rule ids, the per-file finding `trial-import-probe` and the gateways'
exports. What is heavy and what a probe is are `graph.sites`'s; what runs on ROCm is
`graph.judge`'s; heavy sites and chains, which need the whole project, are `graph.reach`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from import_policy.config.model import Policy
from import_policy.kinds.imports import gateways
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts, ImportFact, Span
from import_policy.edits.payload import InlineProbeFix, ProbeFix
from import_policy.graph.question import Question
from import_policy.graph.sites import is_heavy, probe_of

TRIAL_IMPORT_PROBE = "trial-import-probe"
EAGER_HEAVY_IMPORT = "eager-heavy-import"
IMPORT_TIME_JIT = "import-time-jit"
HEAVY_IMPORT_REACHABLE = "heavy-import-reachable"
RULE_IDS = (TRIAL_IMPORT_PROBE, EAGER_HEAVY_IMPORT, IMPORT_TIME_JIT, HEAVY_IMPORT_REACHABLE)


def _diagnostic(rule: str, facts: FileFacts, span: Span, statement_line: int, message: str) -> Diagnostic:
    return Diagnostic(
        rule=rule, severity="error", path=facts.path, line=span.line, column=span.column,
        end_line=span.end_line, end_column=span.end_column, message=message,
        suppress_lines=(span.line, statement_line),
    )


def inline_probe(question: Question, fact: ImportFact) -> tuple[str, Span] | None:
    """(heavy module, where to report) when the import is an inline probe of a heavy module:
    a `try:` imports it only to see whether it can (facts.model.ImportFact.probe)."""
    if not fact.probe or not is_heavy(question, fact.name):
        return None
    if fact.kind == "from" and is_heavy(question, fact.module):
        return fact.module, fact.module_span  # a `from` statement counts once, at its module
    return fact.name, fact.span


def trial_import_probes(question: Question, facts: FileFacts) -> Iterator[Diagnostic]:
    seen: set[tuple[int, int]] = set()
    for fact in facts.imports:
        inline = inline_probe(question, fact)
        if inline is None or (inline[1].line, inline[1].column) in seen:
            continue
        heavy, span = inline
        seen.add((span.line, span.column))
        top = heavy.split(".")[0]
        diagnostic = _diagnostic(
            TRIAL_IMPORT_PROBE, facts, span, fact.statement_line,
            f"`try: import {heavy}` imports `{heavy}` just to see whether it is installed; use "
            f"`importlib.util.find_spec(\"{top}\") is not None`, which only looks for the module",
        )
        # Unsafe, as the probe fix: find_spec does not prove the module's native libraries load.
        yield replace(diagnostic, fixable=True, fix=InlineProbeFix(top))
    for call in facts.calls:
        found = probe_of(question, call)
        if found is None or call.first_string is None:
            continue
        probe, alternative = found
        heavy = call.first_string
        instead = f"; use `{alternative}`, which only looks for the module" if alternative else ""
        diagnostic = _diagnostic(
            TRIAL_IMPORT_PROBE, facts, call.span, call.statement_line,
            f"`{call.tail}(\"{heavy}\")` imports `{heavy}` just to see whether it is installed{instead}",
        )
        if alternative:
            # Unsafe: find_spec does not prove the module's native libraries load (vLLM #51162).
            diagnostic = replace(diagnostic, fixable=True, fix=ProbeFix(probe, alternative))
        yield diagnostic


def gateway_exports(policy: Policy) -> dict[str, str]:
    """`vllm.tilelang_utils.tilelang` -> `tilelang`: names a gateway re-exports, from every rule's fix."""
    return gateways(policy.rules)
