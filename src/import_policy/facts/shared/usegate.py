"""Whether a chain `root.a.b` rooted at an imported name could resolve to a name a rule judges.

Shared by both extractors: libcst's (facts.python) runs scope analysis only for the chains
this lets through; CPython's (facts.fast) tells the engine whether a file needs that
analysis at all, or whether its facts without uses are already the whole story.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from import_policy.facts.records.model import ImportFact

UseGate = Callable[[str, Sequence[str]], bool]
"""(a name a use could resolve to, the names imported under the use's root) -> could a rule judge it."""


def could_matter(text: str, root: str, imports: Sequence[ImportFact], gate: UseGate) -> bool:
    """libcst qualifies `root.rest` as an import's target + `.rest`, or, after a plain
    `import root.x`, as the chain itself: these are all the names the use could resolve to."""
    rest = text[len(root) :]
    names = list(dict.fromkeys(fact.name for fact in imports))  # a module imported in every block: once
    plain = any(fact.kind == "import" and fact.name.split(".")[0] == root for fact in imports)
    return (plain and gate(text, names)) or any(gate(name + rest, names) for name in names)


def bound_imports(imports: Sequence[ImportFact]) -> dict[str, list[ImportFact]]:
    """The imports under each name they bind."""
    bound: dict[str, list[ImportFact]] = {}
    for fact in imports:
        if fact.bound is not None:
            bound.setdefault(fact.bound, []).append(fact)
    return bound
