"""`kind: relative-imports`: relative imports reported by their form (ruff TID252, flake8 I252).

`ban: parents` (the default) reports `from ..x import y` and deeper, `ban: all` every
relative import; an import that climbs above the top package is reported under both,
since Python cannot resolve it at all. Reported once per statement, at its dots and module.

The fix writes the absolute module the import resolves to through `roots`
(`from ..e import f` in `pkg/sub/m.py` -> `from pkg.e import f`). It is unsafe where
the absolute name could bind another module: when more than one root provides the
top-level package, or the standard library has a module of that name.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from import_policy.config.model import Policy, RuleBase
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts, ImportFact
from import_policy.facts.prefilter.prefilter import RELATIVE_IMPORT
from import_policy.facts.shared.usegate import UseGate
from import_policy.edits.payload import AliasEdit, ImportFix
from import_policy.kinds.base import Candidates
from import_policy.patterns import DottedPattern, Verdict
from import_policy.project.layout import top_level

# Validation is imported by the parse function: a run that takes its
# policy from the cache (cache.policy) does not import it.
if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

Ban = Literal["parents", "all"]


@dataclass(frozen=True)
class RelativeImportsRule(RuleBase):
    ban: Ban = "parents"
    # Top-level names an absolute import could bind elsewhere (set for the run by `prepare`).
    ambiguous: frozenset[str] = frozenset()
    kind: str = field(default="relative-imports", kw_only=True)


class _SpellsRelativeImport:
    def wants(self, source: bytes, module: str | None = None) -> bool:
        return RELATIVE_IMPORT.search(source) is not None


class RelativeImportsKind:
    name = "relative-imports"
    language: Literal["python"] = "python"
    keys = ("ban",)

    def parse(self, v: Validator, items: Items, common: RuleFields) -> RelativeImportsRule:
        ban = v.choice(items["ban"][1], "ban", ("parents", "all")) if "ban" in items else "parents"
        return RelativeImportsRule(ban="all" if ban == "all" else "parents", **common)

    def fixable(self, rule: RelativeImportsRule) -> str:
        # Unsafe where the absolute name may bind another module (a top-level name two roots
        # provide, or the standard library's): which findings those are depends on the tree.
        return "unsafe"

    def says(self, rule: RelativeImportsRule) -> str:
        return rule.message or f"{_prefer(rule)}: `from <absolute module> import ...`"

    def explain_patterns(self, rule: RelativeImportsRule) -> list[str]:
        return [f"  ban:           {rule.ban}"]

    def explain_options(self, rule: RelativeImportsRule) -> list[str]:
        return []

    def name_excepts(self, rule: RelativeImportsRule) -> Sequence[DottedPattern]:
        return ()

    def prepare(self, rule: RelativeImportsRule, policy: Policy) -> RelativeImportsRule:
        layout = top_level(policy.root, policy.roots)
        stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
        ambiguous = {name for name, roots in layout.items() if len(roots) > 1 or name in stdlib}
        return replace(rule, ambiguous=frozenset(ambiguous))

    def candidates(self, rules: Sequence[RelativeImportsRule]) -> Candidates:
        return _SpellsRelativeImport()

    def uses(self, rules: Sequence[RelativeImportsRule]) -> tuple[Candidates, UseGate, str] | None:
        return None

    def forbids(self, rule: RelativeImportsRule, name: str) -> bool:
        return False

    def verdict(self, rule: RelativeImportsRule, name: str) -> Verdict:
        return Verdict(False, None)

    def check(self, rule: RelativeImportsRule, facts: FileFacts) -> list[Diagnostic]:
        return list(_check(rule, facts))


def _check(rule: RelativeImportsRule, facts: FileFacts) -> Iterator[Diagnostic]:
    least = 1 if rule.ban == "all" else 2
    statements: dict[int, list[ImportFact]] = {}
    for fact in facts.imports:
        if fact.level >= least:
            statements.setdefault(fact.statement, []).append(fact)
    for group in statements.values():
        first = group[0]
        yield _diagnostic(rule, facts, first, _message(rule, first), _fix(rule, group))
    for fact in facts.escapes:
        dots = "." * fact.level
        yield _diagnostic(
            rule, facts, fact,
            rule.message or f"`from {dots}{fact.name}` climbs above the top package: Python cannot resolve it",
        )


def _prefer(rule: RelativeImportsRule) -> str:
    parents = "relative imports from parent modules" if rule.ban == "parents" else "relative imports"
    return f"Prefer absolute imports over {parents}"


def _message(rule: RelativeImportsRule, fact: ImportFact) -> str:
    return rule.message or f"{_prefer(rule)}: `from {fact.module} import ...`"


def _fix(rule: RelativeImportsRule, group: Sequence[ImportFact]) -> ImportFix | None:
    """Every name of the statement moves to the absolute module; a star import is left alone."""
    if any(fact.member == "*" or fact.member is None for fact in group):
        return None
    module = group[0].module
    edits = tuple(
        AliasEdit(fact.member or "", (fact.bound or fact.member) != fact.member, fact.bound or fact.member or "", module)
        for fact in group
    )
    return ImportFix("from", edits, safe=module.split(".")[0] not in rule.ambiguous)


def _diagnostic(
    rule: RelativeImportsRule, facts: FileFacts, fact: ImportFact, message: str, fix: ImportFix | None = None
) -> Diagnostic:
    span = fact.module_span
    return Diagnostic(
        rule=rule.id, severity=rule.severity, path=facts.path,
        line=span.line, column=span.column, end_line=span.end_line, end_column=span.end_column,
        message=message, suppress_lines=(span.line, fact.statement_line), fixable=fix is not None, fix=fix,
    )
