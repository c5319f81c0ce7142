"""`kind: relative-imports`: relative imports reported by their form (ruff TID252, flake8 I252).

`ban: parents` (the default) reports `from ..x import y` and deeper, `ban: all` every
relative import; an import that climbs above the top package is reported under both,
since Python cannot resolve it at all. Reported once per statement, at its dots and module.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from import_policy.config.model import RuleBase
from import_policy.config.validate import Items, RuleFields, Validator
from import_policy.diagnostics import Diagnostic
from import_policy.facts.model import FileFacts, ImportFact
from import_policy.facts.prefilter import RELATIVE_IMPORT
from import_policy.facts.usegate import UseGate
from import_policy.kinds.base import Candidates
from import_policy.patterns import DottedPattern, Verdict

Ban = Literal["parents", "all"]


@dataclass(frozen=True)
class RelativeImportsRule(RuleBase):
    ban: Ban = "parents"
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
        return "no"

    def explain_patterns(self, rule: RelativeImportsRule) -> list[str]:
        return [f"  ban:           {rule.ban}"]

    def explain_options(self, rule: RelativeImportsRule) -> list[str]:
        return []

    def name_excepts(self, rule: RelativeImportsRule) -> Sequence[DottedPattern]:
        return ()

    def candidates(self, rules: Sequence[RelativeImportsRule]) -> Candidates:
        return _SpellsRelativeImport()

    def uses(self, rules: Sequence[RelativeImportsRule]) -> tuple[Candidates, UseGate, str] | None:
        return None

    def verdict(self, rule: RelativeImportsRule, name: str) -> Verdict:
        return Verdict(False, None)

    def check(self, rule: RelativeImportsRule, facts: FileFacts) -> list[Diagnostic]:
        return list(_check(rule, facts))


def _check(rule: RelativeImportsRule, facts: FileFacts) -> Iterator[Diagnostic]:
    least = 1 if rule.ban == "all" else 2
    seen: set[int] = set()
    for fact in facts.imports:
        if fact.level >= least and fact.statement not in seen:
            seen.add(fact.statement)
            yield _diagnostic(rule, facts, fact, _message(rule, fact))
    for fact in facts.escapes:
        dots = "." * fact.level
        yield _diagnostic(
            rule, facts, fact,
            rule.message or f"`from {dots}{fact.name}` climbs above the top package: Python cannot resolve it",
        )


def _message(rule: RelativeImportsRule, fact: ImportFact) -> str:
    if rule.message:
        return rule.message
    parents = "relative imports from parent modules" if rule.ban == "parents" else "relative imports"
    return f"Prefer absolute imports over {parents}: `from {fact.module} import ...`"


def _diagnostic(rule: RelativeImportsRule, facts: FileFacts, fact: ImportFact, message: str) -> Diagnostic:
    span = fact.module_span
    return Diagnostic(
        rule=rule.id, severity=rule.severity, path=facts.path,
        line=span.line, column=span.column, end_line=span.end_line, end_column=span.end_column,
        message=message, suppress_lines=(span.line, fact.statement_line),
    )
