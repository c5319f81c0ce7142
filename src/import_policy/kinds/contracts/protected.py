"""`kind: protected` (contract section 4a): the listed modules may be imported directly only by
the `allowed_importers` and by one another; with `as_packages: true` (the default) a protected
module's descendants are protected too, and an allowed importer's descendants are allowed.
import-linter's protected contract: direct imports only (a chain through an allowed module is
the allowed module's business)."""

from __future__ import annotations

from collections.abc import Sequence, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from import_policy.config.model import Policy
from import_policy.kinds.contracts.project import ContractsPass
from import_policy.graph.chains import Link
from import_policy.kinds.base import RuleFault
from import_policy.kinds.contracts.common import (
    CONTRACT_KEYS, Broken, ContractKind, ContractRule, View, descendants, expand, missing, module_expressions,
    parse_options, project_modules, required,
)
from import_policy.kinds.contracts.expressions import ModuleExpression

if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

KIND = "protected"


@dataclass(frozen=True)
class ProtectedRule(ContractRule):
    modules: tuple[ModuleExpression, ...] = ()
    allowed_importers: tuple[ModuleExpression, ...] = ()
    as_packages: bool = True
    module_lines: tuple[int, ...] = field(default=(), compare=False)
    kind: str = field(default=KIND, kw_only=True)


def broken(rule: ProtectedRule, view: View) -> Iterator[Broken]:
    modules = view.modules
    allowed = expand(modules, rule.allowed_importers)
    if rule.as_packages:
        allowed = {d for name in allowed for d in descendants(modules, name)}
    into: dict[str, list[Link]] = {}
    for module in sorted(modules):
        for link in view.edges(module):
            into.setdefault(link.target, []).append(link)
    for top in sorted(expand(modules, rule.modules) & set(modules)):
        protected = descendants(modules, top) if rule.as_packages else {top}
        # One finding per import statement: `import a.b.c` under `scope: module` also runs
        # `a.b`; the most specific protected module it names is the one reported.
        best: dict[tuple[str, str, int], Link] = {}
        for name in protected:
            for link in into.get(name, ()):
                if link.source in allowed or link.source in protected:
                    continue
                key = (link.source, link.path, link.line)
                if key not in best or len(link.target) > len(best[key].target):
                    best[key] = link
        for key in sorted(best):
            link = best[key]
            yield Broken((link,), f"`{link.target}` is protected (`{top}`): only its allowed importers may import it")


def _bool(v: Validator, node: object, what: str) -> bool | None:
    value = getattr(node, "value", None)
    if not isinstance(value, bool):
        v.error(getattr(node, "line", 0), f"{what} must be true or false")
        return None
    return value


class ProtectedKind(ContractKind):
    name = KIND
    keys = ("modules", "allowed_importers", "as_packages", *CONTRACT_KEYS)


    def project_pass(self, rules: Sequence[ProtectedRule], policy: Policy) -> ContractsPass:
        return ContractsPass(rules, policy, broken)
    def parse(self, v: Validator, items: Items, common: RuleFields) -> ProtectedRule:
        node = required(v, items, "modules", common, "the protected modules")
        found = module_expressions(v, node, "modules") if node is not None else []
        allowed = module_expressions(v, items["allowed_importers"][1], "allowed_importers") \
            if "allowed_importers" in items else []
        as_packages = _bool(v, items["as_packages"][1], "as_packages") if "as_packages" in items else True
        return ProtectedRule(
            modules=tuple(e for e, _ in found), allowed_importers=tuple(e for e, _ in allowed),
            as_packages=as_packages is not False, module_lines=tuple(l for _, l in found), **common,
            **parse_options(v, items),
        )

    def says(self, rule: ProtectedRule) -> str:
        return rule.message or "`<module>` is protected: only its allowed importers may import it"

    def explain_patterns(self, rule: ProtectedRule) -> list[str]:
        return [
            f"  modules:       {', '.join(e.text for e in rule.modules)}",
            f"  allowed_importers: {', '.join(e.text for e in rule.allowed_importers) or '(none)'}",
            f"  as_packages:   {'true' if rule.as_packages else 'false'}",
        ]

    def prepare(self, rule: ProtectedRule, policy: Policy) -> ProtectedRule:
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


__all__ = ["ProtectedKind", "ProtectedRule", "broken"]
