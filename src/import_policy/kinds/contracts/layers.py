"""`kind: layers` (contract section 4a): an ordered list of layers, top first; a higher layer may
import a lower one, never the reverse, directly or through a chain; `a | b` are siblings that
may not import each other, `a : b` siblings that may; `containers:` repeats the layers inside
each container (names relative to it); `(name)` marks a layer that may be missing; `exhaustive`
requires every child of a container to be in a layer.

import-linter's (grimp's) semantics: for each pair (lower, higher), the shortest chains from
the lower layer (with everything under it) to the higher one that pass through no other layer
of the same container, each chain's links left out of the search for the next."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from import_policy.config.model import Policy
from import_policy.kinds.contracts.project import ContractsPass
from import_policy.graph.paths import shortest_chains
from import_policy.kinds.base import RuleFault
from import_policy.kinds.contracts.common import (
    CONTRACT_KEYS, Broken, ContractKind, ContractRule, View, children, descendants, expand, missing,
    module_expressions, parse_options, project_modules, required,
)
from import_policy.kinds.contracts.expressions import ModuleExpression

if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

KIND = "layers"


@dataclass(frozen=True)
class Layer:
    tails: tuple[tuple[str, bool], ...]  # (name relative to the container, optional)
    independent: bool = True
    line: int = field(default=0, compare=False)

    @property
    def text(self) -> str:
        names = [f"({name})" if optional else name for name, optional in self.tails]
        return (" | " if self.independent else " : ").join(names)


@dataclass(frozen=True)
class LayersRule(ContractRule):
    layers: tuple[Layer, ...] = ()
    containers: tuple[ModuleExpression, ...] = ()
    container_lines: tuple[int, ...] = field(default=(), compare=False)
    exhaustive: bool = False
    exhaustive_ignores: tuple[str, ...] = ()
    kind: str = field(default=KIND, kw_only=True)


def parse_layer(text: str, line: int) -> Layer | str:
    """A layer as import-linter writes it, else what is wrong with it."""
    if "|" in text and ":" in text:
        return f"layer {text!r} mixes independent (`|`) and non-independent (`:`) siblings"
    delimiter = "|" if "|" in text else ":"
    tails = []
    for raw in (part.strip() for part in text.split(delimiter)):
        optional = raw.startswith("(") and raw.endswith(")")
        name = raw[1:-1].strip() if optional else raw
        if not name or not all(part.isidentifier() for part in name.split(".")):
            return f"layer {text!r}: {raw!r} is not a module name (a dotted name, `(name)` when the layer is optional)"
        tails.append((name, optional))
    return Layer(tuple(tails), delimiter == "|", line)


def _full(container: str | None, tail: str) -> str:
    return f"{container}.{tail}" if container else tail


def levels(rule: LayersRule, modules: View | Sequence[str], container: str | None) -> list[tuple[Layer, list[str]]]:
    names = modules.modules if isinstance(modules, View) else modules
    return [(layer, [_full(container, t) for t, _ in layer.tails if _full(container, t) in names]) for layer in rule.layers]


def containers_of(rule: LayersRule, view: View) -> list[str | None]:
    found: list[str | None] = [None]
    if rule.containers:
        found = list(sorted(expand(view.modules, rule.containers)))
    return found


def illegal_pairs(found: list[tuple[Layer, list[str]]]) -> list[tuple[str, str, str]]:
    """(importer, imported, why) for each pair of layer modules that may not import each other."""
    pairs: list[tuple[str, str, str]] = []
    for index, (layer, names) in enumerate(found):
        for higher in names:
            for _, lower_names in found[index + 1:]:
                pairs.extend((lower, higher, "a lower layer imports a higher one") for lower in lower_names)
            if layer.independent:
                pairs.extend(
                    (higher, sibling, "independent siblings import each other") for sibling in names if sibling != higher
                )
    return sorted(set(pairs))


def broken(rule: LayersRule, view: View) -> Iterator[Broken]:
    for container in containers_of(rule, view):
        found = levels(rule, view, container)
        every = {d for _, names in found for name in names for d in descendants(view.modules, name)}
        for importer, imported, why in illegal_pairs(found):
            sources = descendants(view.modules, importer)
            targets = descendants(view.modules, imported)
            avoid = every - sources - targets
            for chain in shortest_chains(view.edges, sources, targets, avoid):
                yield Broken(chain, f"`{importer}` must not import `{imported}` ({why})")
        if rule.exhaustive and container is not None:
            declared = {t for layer in rule.layers for t, _ in layer.tails} | set(rule.exhaustive_ignores)
            for child in sorted(children(view.modules, container)):
                if child.rpartition(".")[2] not in declared:
                    yield Broken((), f"`{child}` is in no layer of this exhaustive contract (nor in exhaustive_ignores)", child)


class LayersKind(ContractKind):
    name = KIND
    keys = ("layers", "containers", "exhaustive", "exhaustive_ignores", *CONTRACT_KEYS)


    def project_pass(self, rules: Sequence[LayersRule], policy: Policy) -> ContractsPass:
        return ContractsPass(rules, policy, broken)
    def parse(self, v: Validator, items: Items, common: RuleFields) -> LayersRule:
        node = required(v, items, "layers", common, "the layers, top first")
        layers: list[Layer] = []
        if node is not None:
            for text, line in v.strings(node, "layers"):
                layer = parse_layer(text, line)
                if isinstance(layer, str):
                    v.error(line, layer)
                else:
                    layers.append(layer)
            if not layers and not v.errors:
                v.error(node.line, "layers must name at least one layer")
        found = module_expressions(v, items["containers"][1], "containers") if "containers" in items else []
        exhaustive = False
        if "exhaustive" in items:
            value = items["exhaustive"][1]
            if not isinstance(getattr(value, "value", None), bool):
                v.error(value.line, "exhaustive must be true or false")
            else:
                exhaustive = bool(getattr(value, "value"))
                if exhaustive and not found:
                    v.error(value.line, "exhaustive needs containers (every child of a container must be in a layer)")
        ignores = tuple(t for t, _ in v.strings(items["exhaustive_ignores"][1], "exhaustive_ignores")) \
            if "exhaustive_ignores" in items else ()
        return LayersRule(
            layers=tuple(layers), containers=tuple(e for e, _ in found), container_lines=tuple(l for _, l in found),
            exhaustive=exhaustive, exhaustive_ignores=ignores, **common, **parse_options(v, items),
        )

    def says(self, rule: LayersRule) -> str:
        return rule.message or "`<lower>` must not import `<higher>` (a lower layer imports a higher one): <chain>"

    def explain_patterns(self, rule: LayersRule) -> list[str]:
        lines = ["  layers:        (top first)", *(f"    {layer.text}" for layer in rule.layers)]
        if rule.containers:
            lines.append(f"  containers:    {', '.join(e.text for e in rule.containers)}")
        if rule.exhaustive:
            lines.append(f"  exhaustive:    true (ignoring: {', '.join(rule.exhaustive_ignores) or 'none'})")
        return lines

    def prepare(self, rule: LayersRule, policy: Policy) -> LayersRule:
        """A container or a required layer that is not a module of the project is a configuration
        error (import-linter's `Missing layer`): the contract would check nothing there."""
        if rule.origin.source.startswith("preset:"):
            return rule
        named = [e for e in rule.containers if not e.wildcard]
        missing(policy, [(e.text, rule.container_lines[i]) for i, e in enumerate(rule.containers) if not e.wildcard],
                rule, "container")
        containers: list[str | None] = [e.text for e in named]
        if any(e.wildcard for e in rule.containers):
            modules = project_modules(policy)
            for index, expression in enumerate(rule.containers):
                if expression.wildcard:
                    matched = sorted(m for m in modules if expression.matches(m))
                    if not matched:
                        raise RuleFault(rule.container_lines[index], f"rule {rule.id!r}: container {expression.text!r} matches no module")
                    containers.extend(matched)
        for container in containers or [None]:
            required_layers = [
                (_full(container, name), layer.line) for layer in rule.layers for name, optional in layer.tails if not optional
            ]
            where = f" (in container {container!r}; `(name)` marks a layer that may be missing)" if container else ""
            missing(policy, required_layers, rule, "layer", where)
        return rule


__all__ = ["Layer", "LayersKind", "LayersRule", "broken", "parse_layer"]
