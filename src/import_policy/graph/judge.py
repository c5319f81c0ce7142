"""What runs in a ROCm process: conditions judged three-valued (contract section 4).

True, False, or None (unknown). A name or call whose last name, with leading
underscores ignored, is a guard is False, a `rocm` name True; an attribute read
without a call only where its owner is a module (a module-level flag), never an
object's property (`tensor.is_cuda` is true on ROCm); a dotted entry matches its
full name however imported. A name in `values` holds what the configuration says,
whatever the code assigns, and comparisons with literals are judged from it;
`TYPE_CHECKING` and `__name__ == "__main__"` are False while a module is imported;
a module-level name bound once to a condition has that condition's value, in its
module and wherever it is imported; a call of a project function whose every
return (that can run) is False is False; `not`, `and`, `or` combine in Kleene's
three-valued logic. Unknown counts as running: a branch is left out only when
its test is known.

Pure over facts: `Judge` asks its `View` for a file's facts and for the project
function a callee names, and never reads a file itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional, Protocol

from import_policy.config.model import RocmSafety
from import_policy.facts.model import BoolOp, Compare, Context, FileFacts, IsMain, Leaf, Not, ReturnFact, Test, Value
from import_policy.facts.typecheck import TYPE_CHECKING_NAMES

Tri = Optional[bool]
# Flags naming flags naming functions...: real code is two or three deep.
MAX_DEPTH = 24


class View(Protocol):
    """What the judge needs of the project."""

    module_path: Mapping[str, str]

    def facts(self, path: str) -> FileFacts | None: ...

    def resolve(self, callee: str, path: str, within: str | None = None) -> tuple[str, str] | None: ...


def bare(name: str) -> str:
    """`_is_hip` -> `is_hip`: a private alias of a platform test is the same test."""
    return name.lstrip("_") or name


def both(values: list[Tri]) -> Tri:
    if any(value is False for value in values):
        return False
    return True if all(value is True for value in values) else None


def either(values: list[Tri]) -> Tri:
    if any(value is True for value in values):
        return True
    return False if all(value is False for value in values) else None


class Judge:
    def __init__(self, rocm: RocmSafety, view: View) -> None:
        # A plain name matches the last name of a test; a dotted one its qualified name, however imported.
        self.guards = frozenset(bare(name) for name in rocm.guards if "." not in name)
        self.rocm = frozenset(bare(name) for name in rocm.rocm if "." not in name)
        self.false_names = frozenset(name for name in rocm.guards if "." in name)
        self.true_names = frozenset(name for name in rocm.rocm if "." in name)
        self.values: dict[str, Value] = dict(rocm.values)
        self.view = view
        self._values: dict[tuple[Test, str], Tri] = {}
        self._flags: dict[str, dict[str, tuple[Test, str] | str]] = {}
        self._functions: dict[tuple[str, str], Tri] = {}
        self._busy: set[object] = set()

    # --- conditions ---------------------------------------------------------------

    def value(self, test: Test, path: str, depth: int = 0) -> Tri:
        """The test's value in a ROCm process, read in the file at `path`."""
        key = (test, path)
        if key in self._values:
            return self._values[key]
        if key in self._busy or depth > MAX_DEPTH:
            return None  # a flag defined through itself: unknown
        self._busy.add(key)
        found = self._value(test, path, depth)
        self._busy.discard(key)
        self._values[key] = found
        return found

    def _value(self, test: Test, path: str, depth: int) -> Tri:
        if isinstance(test, IsMain):
            return False
        if isinstance(test, Not):
            inner = self.value(test.operand, path, depth + 1)
            return None if inner is None else not inner
        if isinstance(test, BoolOp):
            values = [self.value(operand, path, depth + 1) for operand in test.operands]
            return both(values) if test.op == "and" else either(values)
        if isinstance(test, Leaf):
            return self._leaf(test, path, depth)
        if isinstance(test, Compare):
            return self._compare(test, path, depth)
        return None

    def _named(self, leaf: Leaf) -> bool:
        """A name, a call, or an attribute of a module (a module-level flag); not an object's property."""
        return not leaf.attribute or leaf.call or leaf.qualified.rpartition(".")[0] in self.view.module_path

    def held(self, leaf: Leaf, path: str, depth: int = 0) -> tuple[bool, Value]:
        """(True, value) when `values` says what the name holds on ROCm, directly or through a
        module-level name bound once to it (`_DEVICE = DEVICE_TYPE`)."""
        if not self.values or leaf.call or depth > MAX_DEPTH:
            return False, None
        if leaf.qualified in self.values:
            return True, self.values[leaf.qualified]
        name = leaf.qualified.rpartition(".")[2]  # as defined: `from m import DEVICE_TYPE as D` reads `D`
        if name in self.values and self._named(leaf):
            return True, self.values[name]
        flag = self.flag(leaf.qualified, path, depth + 1)
        if flag is not None and isinstance(flag[0], Leaf) and flag[0] != leaf:
            return self.held(flag[0], flag[1], depth + 1)
        return False, None

    def _compare(self, test: Compare, path: str, depth: int) -> Tri:
        known, value = self.held(test.subject, path, depth + 1)
        if known:
            return any(value == other for other in test.values)  # Python's `==`, as the code's test
        if all(other is None for other in test.values) and self._not_none(test.subject):
            return False
        return None

    def _not_none(self, leaf: Leaf) -> bool:
        """A `rocm` name or dotted entry is not None in a ROCm process."""
        return leaf.qualified in self.true_names or (bare(leaf.tail) in self.rocm and self._named(leaf))

    def _leaf(self, leaf: Leaf, path: str, depth: int) -> Tri:
        if leaf.qualified in TYPE_CHECKING_NAMES:
            return False
        if not leaf.call and leaf.qualified in ("False", "None"):
            return False
        if not leaf.call and leaf.qualified == "True":
            return True
        known, value = self.held(leaf, path, depth + 1)
        if known:
            return bool(value)
        if leaf.qualified in self.false_names:
            return False
        if leaf.qualified in self.true_names:
            return True
        name = bare(leaf.tail)
        if name in self.guards and self._named(leaf):
            return False
        if name in self.rocm and self._named(leaf):
            return True
        if leaf.call:
            key = self.view.resolve(leaf.qualified, path)
            return self.function(key, depth + 1) if key is not None else None
        flag = self.flag(leaf.qualified, path, depth + 1)
        if flag is None or _literal(flag[0]):
            # `_ready = False` is state a function may set later (`global _ready`), not a platform flag
            return None
        return self.value(flag[0], flag[1], depth + 1)

    # --- flags: module-level names bound once -------------------------------------

    def flag(self, qualified: str, path: str, depth: int = 0) -> tuple[Test, str] | None:
        """The condition a name stands for and the file to read it in, when the name is a
        module-level name bound once (here, or in the module it is imported from)."""
        if depth > MAX_DEPTH:
            return None
        if "." not in qualified:
            found = self._bindings(path).get(qualified)
        else:
            module, _, name = qualified.rpartition(".")
            target = self.view.module_path.get(module)
            found = self._bindings(target).get(name) if target is not None else None
            if found is None and target is not None:
                facts = self.view.facts(target)
                for star in _stars(facts):  # `from .common import *` re-exports the flag
                    through = self.flag(f"{star}.{name}", path, depth + 1)
                    if through is not None:
                        return through
        if found is None:
            return None
        if isinstance(found, str):  # bound by an import: follow it to where it is defined
            return self.flag(found, path, depth + 1) if found != qualified else None
        return found

    def _bindings(self, path: str) -> dict[str, tuple[Test, str] | str]:
        """Names bound exactly once at module level: to a condition, or to an imported name."""
        if path in self._flags:
            return self._flags[path]
        facts = self.view.facts(path)
        out: dict[str, tuple[Test, str] | str] = {}
        if facts is not None:
            counts: dict[str, int] = {}
            for assign in facts.assigns:
                counts[assign.name] = counts.get(assign.name, 0) + 1
            for fact in facts.imports:
                if fact.bound is not None and fact.context.function is None:
                    counts[fact.bound] = counts.get(fact.bound, 0) + 1
            for function in facts.functions:
                if "." not in function.name:
                    counts[function.name] = counts.get(function.name, 0) + 1
            for assign in facts.assigns:
                if counts[assign.name] == 1 and _unconditional(assign.context):
                    out[assign.name] = (assign.value, path)
            for fact in facts.imports:
                bound = fact.bound
                if (
                    bound is not None and counts.get(bound) == 1 and fact.kind == "from"
                    and _unconditional(fact.context)
                ):
                    out[bound] = fact.name
        self._flags[path] = out
        return out

    # --- project functions --------------------------------------------------------

    def function(self, key: tuple[str, str], depth: int = 0) -> Tri:
        """False when every `return` of the function that can run gives False; else unknown."""
        if key in self._functions:
            return self._functions[key]
        if key in self._busy or depth > MAX_DEPTH:
            return None
        self._busy.add(key)
        found: Tri = None
        facts = self.view.facts(key[0])
        if facts is not None:
            returns = [r for r in facts.returns if r.function == key[1] and self.runs(r.context, key[0], depth + 1)]
            if returns and all(self._returns_false(r, key[0], depth) for r in returns):
                found = False
        self._busy.discard(key)
        self._functions[key] = found
        return found

    def _returns_false(self, returned: ReturnFact, path: str, depth: int) -> bool:
        return self.value(returned.value, path, depth + 1) is False

    # --- where code runs ----------------------------------------------------------

    def runs(self, context: Context, path: str, depth: int = 0) -> bool:
        """Whether code in this context can run on ROCm (not whether it runs at import time)."""
        if context.type_checking:
            return False
        for branch in context.branches:
            value = self.value(branch.test, path, depth + 1)
            if value is (True if branch.orelse else False):
                return False
        return True

    def eager(self, context: Context, path: str) -> bool:
        """Runs on ROCm when the module is imported."""
        return context.import_time and self.runs(context, path)


def _literal(test: Test) -> bool:
    return isinstance(test, Leaf) and not test.call and test.qualified in ("True", "False", "None")


def _stars(facts: FileFacts | None) -> list[str]:
    if facts is None:
        return []
    return [i.module for i in facts.imports if i.member == "*" and i.context.function is None]


def _unconditional(context: Context) -> bool:
    """Bound at module level, under no `if`: the binding always happens."""
    return context.function is None and not context.branches and not context.type_checking
