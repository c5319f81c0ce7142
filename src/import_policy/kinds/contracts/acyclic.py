"""`kind: acyclic` (contract section 4a): no cycle among the children of each listed package,
each child counted with everything below it (import-linter's `acyclic_siblings`), at every
level below the package (`depth: all`, the default) or a number of levels (`depth: 1`: the
package's children only; import-linter's `depth: 0`).

A cycle is reported once per pair of children that import each other's way round it: at the
first import from one child into the next, the cycle's links in the message."""

from __future__ import annotations

from collections.abc import Sequence, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from import_policy.config.model import Policy
from import_policy.kinds.contracts.project import ContractsPass
from import_policy.graph.chains import Link
from import_policy.graph.paths import shortest_chain, strongly_connected
from import_policy.kinds.base import RuleFault
from import_policy.kinds.contracts.common import (
    CONTRACT_KEYS, Broken, ContractKind, ContractRule, View, children, expand, missing, module_expressions,
    parse_options, project_modules, required,
)
from import_policy.kinds.contracts.expressions import ModuleExpression

if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

KIND = "acyclic"
Depth = Union[int, None]  # None: every level


@dataclass(frozen=True)
class AcyclicRule(ContractRule):
    packages: tuple[ModuleExpression, ...] = ()
    depth: Depth = None
    package_lines: tuple[int, ...] = field(default=(), compare=False)
    kind: str = field(default=KIND, kw_only=True)


def _child(package: str, module: str) -> str:
    return package + "." + module[len(package) + 1:].partition(".")[0]


def cycles_in(view: View, package: str) -> Iterator[Broken]:
    """The cycles among `package`'s children, each child standing for everything below it."""
    prefix = package + "."
    inside = sorted(m for m in view.modules if m.startswith(prefix))
    between: dict[tuple[str, str], Link] = {}  # the first link from one child into another
    for module in inside:
        for link in view.edges(module):
            if not link.target.startswith(prefix):
                continue
            pair = (_child(package, module), _child(package, link.target))
            if pair[0] != pair[1] and pair not in between:
                between[pair] = link
    successors: dict[str, list[str]] = {}
    for source, target in between:
        successors.setdefault(source, []).append(target)
    for part in strongly_connected(successors, lambda c: successors.get(c, ())):
        members = set(part)
        for (source, target), link in sorted(between.items()):
            if source not in members or target not in members:
                continue
            back = shortest_chain(_ChildEdges(between, members), {target}, {source})
            rest = tuple(between[(step.source, step.target)] for step in back or ())
            yield Broken(
                (link, *rest),
                f"`{source}` and `{target}` import each other round a cycle among the children of `{package}`",
            )


class _ChildEdges:
    """The children's graph as `graph.paths` reads one: a link per pair of children."""

    def __init__(self, between: dict[tuple[str, str], Link], members: set[str]) -> None:
        self.out: dict[str, list[Link]] = {}
        for (source, target), link in sorted(between.items()):
            if source in members and target in members:
                self.out.setdefault(source, []).append(Link(source, target, link.path, link.line, link.kind, link.detail))

    def __call__(self, module: str) -> list[Link]:
        return self.out.get(module, [])


def broken(rule: AcyclicRule, view: View) -> Iterator[Broken]:
    for package in sorted(expand(view.modules, rule.packages) & set(view.modules)):
        yield from _below(view, package, rule.depth)


def _below(view: View, package: str, depth: Depth) -> Iterator[Broken]:
    yield from cycles_in(view, package)
    if depth is None or depth > 1:
        for child in sorted(children(view.modules, package)):
            yield from _below(view, child, None if depth is None else depth - 1)


class AcyclicKind(ContractKind):
    name = KIND
    keys = ("packages", "depth", *CONTRACT_KEYS)


    def project_pass(self, rules: Sequence[AcyclicRule], policy: Policy) -> ContractsPass:
        return ContractsPass(rules, policy, broken)
    def parse(self, v: Validator, items: Items, common: RuleFields) -> AcyclicRule:
        node = required(v, items, "packages", common, "the packages whose children may not import each other round a cycle")
        found = module_expressions(v, node, "packages") if node is not None else []
        depth: Depth = None
        if "depth" in items:
            value = getattr(items["depth"][1], "value", None)
            if value == "all":
                depth = None
            elif isinstance(value, int) and not isinstance(value, bool) and value >= 1:
                depth = value
            else:
                v.error(items["depth"][1].line, f"depth must be `all` or a number of levels from 1, got {value!r}")
        return AcyclicRule(
            packages=tuple(e for e, _ in found), depth=depth, package_lines=tuple(l for _, l in found), **common,
            **parse_options(v, items),
        )

    def says(self, rule: AcyclicRule) -> str:
        return rule.message or "`<child>` and `<other>` import each other round a cycle among the children of `<package>`"

    def explain_patterns(self, rule: AcyclicRule) -> list[str]:
        return [
            f"  packages:      {', '.join(e.text for e in rule.packages)}",
            f"  depth:         {'all' if rule.depth is None else rule.depth}",
        ]

    def prepare(self, rule: AcyclicRule, policy: Policy) -> AcyclicRule:
        if rule.origin.source.startswith("preset:"):
            return rule
        lines = dict(zip(rule.packages, rule.package_lines))
        missing(policy, [(e.text, lines.get(e, 0)) for e in rule.packages if not e.wildcard], rule, "package")
        if any(e.wildcard for e in rule.packages):
            modules = project_modules(policy)
            for expression in rule.packages:
                if expression.wildcard and not any(expression.matches(m) for m in modules):
                    raise RuleFault(lines.get(expression, rule.origin.line), f"rule {rule.id!r}: {expression.text!r} matches no module")
        return rule


__all__ = ["AcyclicKind", "AcyclicRule", "broken"]
