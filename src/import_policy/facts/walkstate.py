"""What both extractors track while they walk a module, whichever parser built the tree.

Where a fact stands (function depth, enclosing names, enclosing `if`s) and what the
module-level imports bind, so that `if` tests and callees resolve the same way in
libcst's extractor (facts.python) and CPython's (facts.fast).
"""

from __future__ import annotations

from import_policy.facts.model import Branch, Context, ImportFact
from import_policy.facts.typecheck import is_type_checking_only

# Calls whose first string argument is a module imported by name.
DYNAMIC_IMPORTERS = frozenset({"importlib.import_module", "import_module", "__import__"})


class WalkState:
    def __init__(self) -> None:
        super().__init__()  # the other base of libcst's collector: its visitor
        self.imports: list[ImportFact] = []
        self.escapes: list[ImportFact] = []
        # bound name -> dotted name, for resolving `if` tests and callees without scope analysis
        self.aliases: dict[str, str] = {}
        self.function_depth = 0
        self.names: list[str] = []
        self.branches: list[Branch] = []
        self._context: Context | None = None

    def context(self) -> Context:
        if self._context is None:
            branches = tuple(self.branches)
            self._context = Context(
                import_time=self.function_depth == 0,
                type_checking=is_type_checking_only(branches),
                branches=branches,
                function=".".join(self.names) if self.function_depth else None,
            )
        return self._context

    def changed(self) -> None:
        """The depth, names or branches changed: the next fact gets a new context."""
        self._context = None

    def qualify(self, dotted: str) -> str:
        root, dot, rest = dotted.partition(".")
        target = self.aliases.get(root)
        return dotted if target is None else target + dot + rest

    def record(self, fact: ImportFact, target: str) -> None:
        self.imports.append(fact)
        if fact.bound is not None and fact.context.function is None:
            self.aliases[fact.bound] = target
