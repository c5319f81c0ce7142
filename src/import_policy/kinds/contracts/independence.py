"""`kind: independence` (contract section 4a): the listed modules (patterns allowed) may not
import one another, directly or through a chain, in either direction: import-linter's
independence contract, which is one layer of independent siblings."""

from __future__ import annotations

from collections.abc import Sequence, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from import_policy.config.model import Policy
from import_policy.kinds.contracts.project import ContractsPass
from import_policy.graph.paths import shortest_chains
from import_policy.kinds.base import RuleFault
from import_policy.kinds.contracts.common import (
    CONTRACT_KEYS, Broken, ContractKind, ContractRule, View, descendants, expand, missing, module_expressions,
    parse_options, project_modules, required,
)
from import_policy.kinds.contracts.expressions import ModuleExpression

if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

KIND = "independence"


@dataclass(frozen=True)
class IndependenceRule(ContractRule):
    modules: tuple[ModuleExpression, ...] = ()
    module_lines: tuple[int, ...] = field(default=(), compare=False)
    kind: str = field(default=KIND, kw_only=True)


def broken(rule: IndependenceRule, view: View) -> Iterator[Broken]:
    names = sorted(expand(view.modules, rule.modules) & set(view.modules))
    every = {d for name in names for d in descendants(view.modules, name)}
    for importer in names:
        sources = descendants(view.modules, importer)
        for imported in names:
            if imported == importer:
                continue
            targets = descendants(view.modules, imported)
            for chain in shortest_chains(view.edges, sources, targets, every - sources - targets):
                yield Broken(chain, f"`{importer}` must not import `{imported}` (they are independent)")


class IndependenceKind(ContractKind):
    name = KIND
    keys = ("modules", *CONTRACT_KEYS)


    def project_pass(self, rules: Sequence[IndependenceRule], policy: Policy) -> ContractsPass:
        return ContractsPass(rules, policy, broken)
    def parse(self, v: Validator, items: Items, common: RuleFields) -> IndependenceRule:
        node = required(v, items, "modules", common, "the modules that may not import one another")
        found = module_expressions(v, node, "modules") if node is not None else []
        if node is not None and not found and not v.errors:
            v.error(node.line, "modules must name at least one module")
        return IndependenceRule(
            modules=tuple(e for e, _ in found), module_lines=tuple(l for _, l in found), **common, **parse_options(v, items),
        )

    def says(self, rule: IndependenceRule) -> str:
        return rule.message or "`<module>` must not import `<other>` (they are independent): <chain>"

    def explain_patterns(self, rule: IndependenceRule) -> list[str]:
        return [f"  modules:       {', '.join(e.text for e in rule.modules)}"]

    def prepare(self, rule: IndependenceRule, policy: Policy) -> IndependenceRule:
        if rule.origin.source.startswith("preset:"):
            return rule
        lines = dict(zip(rule.modules, rule.module_lines))
        missing(policy, [(e.text, lines.get(e, 0)) for e in rule.modules if not e.wildcard], rule, "module")
        if any(e.wildcard for e in rule.modules):
            modules = project_modules(policy)
            for expression in rule.modules:
                if expression.wildcard and not any(expression.matches(m) for m in modules):
                    raise RuleFault(lines.get(expression, rule.origin.line), f"rule {rule.id!r}: {expression.text!r} matches no module")
        return rule


__all__ = ["IndependenceKind", "IndependenceRule", "broken"]
