"""Each contract kind and what it finds broken, by `kind:` value."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from import_policy.kinds.base import ProjectKind
from import_policy.kinds.contracts import acyclic, independence, layers, protected
from import_policy.kinds.contracts.common import Broken, ContractRule, View

CONTRACT_KINDS: dict[str, ProjectKind] = {
    layers.KIND: layers.LayersKind(),
    independence.KIND: independence.IndependenceKind(),
    protected.KIND: protected.ProtectedKind(),
    acyclic.KIND: acyclic.AcyclicKind(),
}

_BROKEN: dict[str, Callable[..., Iterator[Broken]]] = {
    layers.KIND: layers.broken,
    independence.KIND: independence.broken,
    protected.KIND: protected.broken,
    acyclic.KIND: acyclic.broken,
}


def named_modules(rule: ContractRule) -> list[str]:
    """The modules a contract names that must exist (no wildcard, not optional): what a
    `test-rules` example project gets as empty modules where its files give none."""
    if isinstance(rule, layers.LayersRule):
        containers: list[str | None] = [e.text for e in rule.containers if not e.wildcard] or [None]
        out = [c for c in containers if c is not None]
        for container in containers:
            out.extend(
                f"{container}.{name}" if container else name
                for layer in rule.layers for name, optional in layer.tails if not optional
            )
        return out
    if isinstance(rule, acyclic.AcyclicRule):
        return [e.text for e in rule.packages if not e.wildcard]
    if isinstance(rule, (independence.IndependenceRule, protected.ProtectedRule)):
        return [e.text for e in rule.modules if not e.wildcard]
    return []


def broken(rule: ContractRule, view: View) -> Iterator[Broken]:
    """Every illegal chain (or undeclared module) of the contract over the graph."""
    return _BROKEN[rule.kind](rule, view)


__all__ = ["CONTRACT_KINDS", "broken", "named_modules"]
