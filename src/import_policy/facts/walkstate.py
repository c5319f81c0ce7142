"""What both extractors track while they walk a module, whichever parser built the tree.

Where a fact stands (function depth, enclosing names, enclosing `if`s) and what the
module-level imports bind, so that `if` tests and callees resolve the same way in
libcst's extractor (facts.python) and CPython's (facts.fast).
"""

from __future__ import annotations

from import_policy.facts.model import AssignFact, Branch, Context, ImportFact, ReturnFact, ScanFact, Test
from import_policy.facts.typecheck import is_type_checking_only

# Calls whose first string argument is a module imported by name.
DYNAMIC_IMPORTERS = frozenset({"importlib.import_module", "import_module", "__import__"})
# Loops over these import every module of a package when their body imports a computed name.
PACKAGE_WALKERS = frozenset({"pkgutil.iter_modules", "pkgutil.walk_packages"})


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
        self.assigns: list[AssignFact] = []
        self.returns: list[ReturnFact] = []
        self.scans: list[ScanFact] = []
        self.computed_imports = 0  # dynamic imports of a name that is not a literal, so far
        self._context: Context | None = None

    def module_level(self) -> bool:
        """At module level proper: not in a function, not in a class body."""
        return self.function_depth == 0 and not self.names

    def bind(self, name: str, value: Test, line: int) -> None:
        if self.module_level():
            self.assigns.append(AssignFact(name, value, line, self.context()))

    def returned(self, value: Test, line: int) -> None:
        context = self.context()
        if context.function is not None:
            self.returns.append(ReturnFact(context.function, value, line, context))

    def early_exit(self, test: Test) -> None:
        """After `if C: return` (or `raise`), the rest of the block runs only when C is false."""
        self.branches.append(Branch(test, orelse=True, early=True))
        self.changed()

    def scanned(self, package: str | None, line: int, context: Context, dynamic_calls: int) -> None:
        if dynamic_calls:
            self.scans.append(ScanFact(package, line, context))

    def walked_package(self, dotted: str | None) -> str | None:
        """`pkg.__path__` with `pkg` a module-level import -> `pkg`'s dotted name."""
        if dotted is None or not dotted.endswith(".__path__"):
            return None
        root = dotted.split(".")[0]
        return self.qualify(dotted[: -len(".__path__")]) if root in self.aliases else None

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
