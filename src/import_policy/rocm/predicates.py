"""The ROCm-safety pass over one file's facts (contract section 4).

Pure functions: what is heavy, what a guard keeps off ROCm, and the per-file
findings `trial-import-probe` and `import-time-jit`. Heavy sites that need the
whole project (calls of project functions that probe) come from `graph.py`;
`eager-heavy-import` and `heavy-import-reachable` are reported from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from import_policy.config.model import Policy, RocmSafety
from import_policy.kinds.imports import gateways
from import_policy.diagnostics import Diagnostic
from import_policy.facts.model import BoolOp, CallFact, Context, FileFacts, ImportFact, Leaf, Not, Span, Test
from import_policy.fix.payload import ProbeFix
from import_policy.patterns import judge

TRIAL_IMPORT_PROBE = "trial-import-probe"
EAGER_HEAVY_IMPORT = "eager-heavy-import"
IMPORT_TIME_JIT = "import-time-jit"
HEAVY_IMPORT_REACHABLE = "heavy-import-reachable"
RULE_IDS = (TRIAL_IMPORT_PROBE, EAGER_HEAVY_IMPORT, IMPORT_TIME_JIT, HEAVY_IMPORT_REACHABLE)


def is_heavy(rocm: RocmSafety, name: str) -> bool:
    """A heavy module, or anything under one (`tilelang.language`)."""
    return judge(name, rocm.heavy_modules, ()).forbidden


def _leaf_is_guard(guards: Iterable[str], leaf: Leaf) -> bool:
    for guard in guards:
        if guard in (leaf.tail, leaf.qualified) or leaf.qualified.endswith("." + guard):
            return True
    return False


def is_guard(guards: tuple[str, ...], test: Test) -> bool:
    """A guard, `A and B` with either a guard, or `A or B` with both guards."""
    if isinstance(test, Leaf):
        return _leaf_is_guard(guards, test)
    if isinstance(test, BoolOp):
        if test.op == "and":
            return any(is_guard(guards, operand) for operand in test.operands)
        return all(is_guard(guards, operand) for operand in test.operands)
    return False


def kept_off(rocm: RocmSafety, context: Context) -> bool:
    """Code that does not run on ROCm: type-checking-only code, or under a guard (not its `else:`)."""
    if context.type_checking:
        return True
    for branch in context.branches:
        if not branch.orelse and is_guard(rocm.guards, branch.test):
            return True
        # `if not is_cuda(): ... else: <CUDA only>`
        if branch.orelse and isinstance(branch.test, Not) and is_guard(rocm.guards, branch.test.operand):
            return True
    return False


def eager(rocm: RocmSafety, context: Context) -> bool:
    """Runs on ROCm when the module is imported."""
    return context.import_time and not kept_off(rocm, context)


def probe_of(rocm: RocmSafety, call: CallFact) -> tuple[str, str | None] | None:
    """(probe, alternative) when `call` is a configured probe on a heavy module."""
    if call.first_string is None or not is_heavy(rocm, call.first_string):
        return None
    for probe, alternative in rocm.probes:
        if probe in (call.tail, call.callee):
            return probe, alternative
    return None


def _diagnostic(rule: str, facts: FileFacts, span: Span, statement_line: int, message: str) -> Diagnostic:
    return Diagnostic(
        rule=rule, severity="error", path=facts.path, line=span.line, column=span.column,
        end_line=span.end_line, end_column=span.end_column, message=message,
        suppress_lines=(span.line, statement_line),
    )


def trial_import_probes(rocm: RocmSafety, facts: FileFacts) -> Iterator[Diagnostic]:
    for call in facts.calls:
        found = probe_of(rocm, call)
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


def through_gateway(name: str, exports: dict[str, str]) -> str:
    """The name a gateway re-export stands for (`vllm.tilelang_utils.tilelang.jit` -> `tilelang.jit`)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        original = exports.get(".".join(parts[:cut]))
        if original is not None:
            return ".".join([original, *parts[cut:]])
    return name


def import_time_jit(rocm: RocmSafety, facts: FileFacts, exports: dict[str, str]) -> Iterator[Diagnostic]:
    for decorator in facts.decorators:
        if not eager(rocm, decorator.context):
            continue
        for name in decorator.qualified_names:
            real = through_gateway(name, exports)
            if is_heavy(rocm, real):
                heavy = real.split(".")[0]
                yield _diagnostic(
                    IMPORT_TIME_JIT, facts, decorator.span, decorator.statement_line,
                    f"`@{real}` from heavy module `{heavy}` runs when this module is imported; "
                    "compile on first use instead",
                )
                break


def eager_heavy_imports(rocm: RocmSafety, facts: FileFacts) -> Iterator[ImportFact]:
    """Import-time, unguarded imports of heavy modules; a `from` statement counts once, at its module."""
    seen_statements: set[int] = set()
    for fact in facts.imports:
        if not eager(rocm, fact.context) or not is_heavy(rocm, fact.name):
            continue
        if fact.kind == "from" and is_heavy(rocm, fact.module):
            if fact.statement in seen_statements:
                continue
            seen_statements.add(fact.statement)
        yield fact
