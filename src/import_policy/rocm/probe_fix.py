"""The probe fix (unsafe): `_has_module("x")` -> `_has_module_spec("x")`, and the import beside it.

Where the probe was imported with `from m import _has_module`, the alternative
comes from the same module: the imported name is renamed when nothing else in
the file refers to `_has_module` any more (no call left, no other mention, not
named in a string such as `__all__`), else `_has_module_spec` is added to that
import. `mod._has_module("x")` is renamed in place and needs no import.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst
from libcst.helpers import get_full_name_for_node

from import_policy.diagnostics import Diagnostic, FixPayload
from import_policy.facts.shared.identifiers import normal
from import_policy.edits.imports import Refused, append_names
from import_policy.edits.payload import ProbeFix


@dataclass
class ProbeImport:
    """What to do to one `from m import probe` statement once every call is renamed."""

    alias: cst.ImportAlias
    replacement: str
    renamed_calls: int = 0


@dataclass
class ProbeIndex:
    """From one walk of the parse: who binds what, and how often each name is mentioned, every
    name as Python binds it (`_ｈas_module` is `_has_module`: facts.identifiers)."""

    bindings: dict[str, list[tuple[int, cst.ImportFrom, cst.ImportAlias]]] = field(default_factory=dict)
    mentions: Counter[str] = field(default_factory=Counter)
    defined: set[str] = field(default_factory=set)

    def note(self, node: cst.CSTNode, line: int) -> None:
        if isinstance(node, cst.Name):
            self.mentions[normal(node.value)] += 1
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.defined.add(normal(node.name.value))
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            for item in node.names:
                bound = item.asname.name if item.asname is not None else item.name
                if isinstance(bound, cst.Name):
                    self.bindings.setdefault(normal(bound.value), []).append((line, node, item))
        elif isinstance(node, cst.Import):
            for item in node.names:
                if item.asname is not None and isinstance(item.asname.name, cst.Name):
                    self.defined.add(normal(item.asname.name.value))


class ProbeJob(Protocol):
    """What the probe applier needs from the fixer's job over one parse."""

    probes: ProbeIndex
    probe_imports: dict[cst.ImportFrom, list[ProbeImport]]
    renames: dict[cst.Name, str]

    def candidates(self, d: Diagnostic) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]: ...


def plan_probe(job: ProbeJob, d: Diagnostic, payload: FixPayload) -> None:
    """Find the probe call the finding points at; note its rename and the import to update."""
    if not isinstance(payload, ProbeFix):  # the tag chose this applier; do not trust a mislabelled record
        raise Refused(f"a `{payload.tag}` payload that is not a ProbeFix")
    tail = payload.probe.rpartition(".")[2]
    calls = [node for node, _ in job.candidates(d) if isinstance(node, cst.Call)]
    if not calls:
        raise Refused("the probe call was not found where the finding points")
    # `f(x)(y)` and `f(x)` start at one place: take the call of the probe itself.
    calls.sort(key=lambda call: _callee_is(call, tail))
    name = plan_call(calls[-1], d.line, payload.probe, payload.replacement, job.probes, job.probe_imports)
    job.renames[name] = payload.replacement


def _callee_is(call: cst.Call, tail: str) -> bool:
    name = callee(call)
    return name is not None and normal(name.value) == tail


def callee(call: cst.Call) -> cst.Name | None:
    """The name to rename: `f` in `f(...)`, `attr` in `a.b.attr(...)`."""
    if isinstance(call.func, cst.Name):
        return call.func
    if isinstance(call.func, cst.Attribute):
        return call.func.attr
    return None


def plan_call(
    call: cst.Call, line: int, probe: str, replacement: str, index: ProbeIndex,
    imports: dict[cst.ImportFrom, list[ProbeImport]],
) -> cst.Name:
    """Check the call can be fixed; note the import to update. Returns the Name node to rename."""
    name = callee(call)
    if name is None:
        raise Refused("the probe's callee is not a plain name")
    tail = probe.rpartition(".")[2]
    called = normal(name.value)
    if isinstance(call.func, cst.Attribute):
        if called != tail:
            raise Refused(f"the callee is not `{tail}`")
        return name
    candidates = [b for b in index.bindings.get(called, []) if normal(get_full_name_for_node(b[2].name) or "") == tail]
    before = [b for b in candidates if b[0] <= line] or candidates
    if not before:
        if called == tail and (replacement in index.defined or replacement in index.bindings):
            return name
        raise Refused(f"`{name.value}` is not imported here, so `{replacement}` cannot be imported beside it")
    _, node, item = before[-1]
    plans = imports.setdefault(node, [])
    plan = next((p for p in plans if p.alias is item), None)
    if plan is None:
        plan = ProbeImport(item, replacement)
        plans.append(plan)
    plan.renamed_calls += 1
    return name


def update_import(node: cst.ImportFrom, plans: list[ProbeImport], index: ProbeIndex, source: bytes) -> cst.ImportFrom:
    for plan in plans:
        bound_node = plan.alias.asname.name if plan.alias.asname is not None else plan.alias.name
        bound = normal(bound_node.value) if isinstance(bound_node, cst.Name) else ""
        # Mentions of the bound name: the import itself, the renamed calls, and anything else.
        others = index.mentions[bound] - 1 - plan.renamed_calls
        quoted = (f'"{bound}"'.encode() in source) or (f"'{bound}'".encode() in source)
        if others <= 0 and not quoted and plan.alias.asname is None:
            names = [
                a.with_changes(name=cst.Name(plan.replacement)) if a is plan.alias else a
                for a in node.names  # type: ignore[union-attr]
            ]
            node = node.with_changes(names=names)
        elif plan.replacement not in index.bindings:
            node = append_names(node, [(plan.replacement, plan.replacement)])
    return node
