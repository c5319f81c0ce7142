"""Where a file uses the names `values` states (contract section 4: a value settles a name or
a subscript, never a call): each key, whether the file calls it or reads it as a name, and the
line of the first such use. `import-policy check` warns of a key the code the pass read only
ever calls (the pass's advice), so the graph keeps these per file between runs (graph.store).

A use is an operand of a test the pass reads: an `if` (or `elif`) around any fact, a
module-level binding (`_FA = FA_AVAILABLE`), a `return`; a key matches an operand by its
dotted name, its name as defined (`from m import FLAG as F` reads `FLAG`) or its last name.
"""

from __future__ import annotations

from collections.abc import Iterator

from import_policy.facts.records.model import BoolOp, Compare, Context, FileFacts, Leaf, Not, Test

# A key, whether the use is a call (else a read of the name), and its line.
ValueUse = tuple[str, bool, int]


def value_uses(facts: FileFacts, keys: frozenset[str]) -> list[ValueUse]:
    """The file's uses of `keys`: per key, its first call and its first read as a name."""
    if not keys:
        return []
    first: dict[tuple[str, bool], int] = {}
    for test, line in _tests(facts):
        for leaf in _leaves(test):
            for key in {leaf.qualified, _defined(leaf.qualified), leaf.tail} & keys:
                at = first.get((key, leaf.call))
                if at is None or line < at:
                    first[(key, leaf.call)] = line
    return sorted((key, called, line) for (key, called), line in first.items())


def _tests(facts: FileFacts) -> Iterator[tuple[Test, int]]:
    contexts: dict[Context, None] = {}
    for group in (
        facts.imports, facts.escapes, facts.uses, facts.calls, facts.decorators, facts.functions, facts.classes,
        facts.assigns, facts.returns, facts.scans, facts.reads,
    ):
        for fact in group:
            contexts.setdefault(fact.context)
    for context in contexts:
        for branch in context.branches:
            yield branch.test, branch.line
    for assign in facts.assigns:
        yield assign.value, assign.line
    for returned in facts.returns:
        yield returned.value, returned.line


def _leaves(test: Test) -> Iterator[Leaf]:
    if isinstance(test, Leaf):
        yield test
    elif isinstance(test, Compare):
        yield test.subject
    elif isinstance(test, Not):
        yield from _leaves(test.operand)
    elif isinstance(test, BoolOp):
        for operand in test.operands:
            yield from _leaves(operand)


def _defined(qualified: str) -> str:
    """`pkg.mod.FLAG` -> `FLAG`; `pkg.mod.env["k"]` -> `env["k"]` (as `graph.judge` names it)."""
    base, bracket, key = qualified.partition("[")
    return base.rpartition(".")[2] + bracket + key


__all__ = ["ValueUse", "value_uses"]
