"""What runs in a process on one platform: conditions judged three-valued (contract section 4).

True, False, or None (unknown). A name or call whose last name, with leading
underscores ignored, is a guard is False, a name the platform holds true True; an attribute read
without a call only where its owner is a module (a module-level flag), never an
object's property (`tensor.is_cuda` may be true where `is_cuda()` is not); a dotted entry matches its
full name however imported. A name in `values` holds what the configuration says,
whatever the code assigns, and comparisons with literals are judged from it;
`TYPE_CHECKING` and `__name__ == "__main__"` are False while a module is imported;
a module-level name has, where it is read, the value of the binding that ran last
before the read in module order (where `if`/`try` paths bind it differently, or a
function rebinds it with `global`, it is unknown), in its module and wherever it is
imported; a dict entry read with a literal key (`env["k"]`, `env.get("k")`) likewise; a call of a project function whose every
return (that can run) is False is False; `not`, `and`, `or` combine in Kleene's
three-valued logic. Unknown counts as running: a branch is left out only when
its test is known.

Pure over facts: `Judge` asks its `View` for a file's facts and for the project
function a callee names, and never reads a file itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Optional, Protocol

from import_policy.facts.records.model import (
    BoolOp, Branch, Compare, Context, FileFacts, Installed, IsMain, Leaf, Not, Opaque, ReturnFact, Test, Value,
)
from import_policy.facts.shared.availability import availability
from import_policy.facts.shared.typecheck import TYPE_CHECKING_NAMES
from import_policy.graph.platform import Platform

Tri = Optional[bool]
# Flags naming flags naming functions...: real code is two or three deep.
MAX_DEPTH = 24


class Environment(Protocol):
    """What is installed, where `installed: environment` lets the environment decide."""

    def __call__(self, module: str) -> bool: ...

    def distribution(self, name: str) -> bool: ...


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


# Where a name is read, for the binding that ran last before the read: a module-level line,
# AFTER (once its module has run: another module imports it), or ANY (a function body, run
# at a time the pass does not know: every binding may be the one in force).
AFTER = 1 << 40
ANY: Optional[int] = None
_Candidate = tuple[Test, str, int]  # what a binding bound, the file to read it in, where it is read


class Judge:
    def __init__(self, platform: Platform, view: View, installed: Environment | None = None) -> None:
        # With `installed: environment`: availability tests are judged from what is installed.
        self.installed = installed
        # A plain name matches the last name of a test; a dotted one its qualified name, however imported.
        self.guards = frozenset(bare(name) for name in platform.guards if "." not in name)
        self.true = frozenset(bare(name) for name in platform.true if "." not in name)
        self.false_names = frozenset(name for name in platform.guards if "." in name)
        self.true_names = frozenset(name for name in platform.true if "." in name)
        self.values: dict[str, Value] = dict(platform.values)
        self.view = view
        self._values: dict[tuple[Test, str, int | None], Tri] = {}
        self._events: dict[str, dict[str, list[_Event]]] = {}
        self._globals: dict[str, frozenset[str]] = {}
        self._functions: dict[tuple[tuple[str, str], str | None, bool, bool], Tri] = {}
        self._busy: set[object] = set()

    # --- conditions ---------------------------------------------------------------

    def value(self, test: Test, path: str, depth: int = 0, at: int | None = ANY) -> Tri:
        """The test's value in a process on the platform, read in the file at `path` (at line `at`)."""
        key = (test, path, at)
        if key in self._values:
            return self._values[key]
        if key in self._busy or depth > MAX_DEPTH:
            return None  # a flag defined through itself: unknown
        self._busy.add(key)
        found = self._value(test, path, depth, at)
        self._busy.discard(key)
        self._values[key] = found
        return found

    def _value(self, test: Test, path: str, depth: int, at: int | None) -> Tri:
        if isinstance(test, IsMain):
            return False
        if isinstance(test, Not):
            inner = self.value(test.operand, path, depth + 1, at)
            return None if inner is None else not inner
        if isinstance(test, BoolOp):
            values = [self.value(operand, path, depth + 1, at) for operand in test.operands]
            return both(values) if test.op == "and" else either(values)
        if isinstance(test, Leaf):
            return self._leaf(test, path, depth, at)
        if isinstance(test, Compare):
            return self._compare(test, path, depth, at)
        if isinstance(test, Installed):
            return self._installed(test)
        return None

    def _installed(self, test: Installed) -> Tri:
        """An availability test, judged only where the environment decides."""
        if self.installed is None or test.parameter or not test.name:
            return None
        return self.installed.distribution(test.name) if test.distribution else self.installed(test.name)

    def _named(self, leaf: Leaf) -> bool:
        """A name, a call, or an attribute of a module (a module-level flag); not an object's property."""
        return not leaf.attribute or leaf.call or _split(leaf.qualified)[0] in self.view.module_path

    def held(self, leaf: Leaf, path: str, depth: int = 0, at: int | None = ANY) -> tuple[bool, Value]:
        """(True, value) when `values` says what the name holds on the platform, directly or through the
        module-level name it was last bound to (`_DEVICE = DEVICE_TYPE`)."""
        if not self.values or leaf.call or depth > MAX_DEPTH:
            return False, None
        if leaf.qualified in self.values:
            return True, self.values[leaf.qualified]
        name = _split(leaf.qualified)[1]  # as defined: `from m import DEVICE_TYPE as D` reads `D`
        if name in self.values and self._named(leaf):
            return True, self.values[name]
        found = self.bound(leaf.qualified, path, at, depth + 1)
        if found is not None and len(found) == 1:
            test, where, line = found[0]
            if isinstance(test, Leaf) and test != leaf:
                return self.held(test, where, depth + 1, line)
        return False, None

    def _compare(self, test: Compare, path: str, depth: int, at: int | None) -> Tri:
        known, value = self.held(test.subject, path, depth + 1, at)
        subject = test.subject
        if not known and self.installed is not None and not subject.call:
            # `import x as m` / `except ImportError: m = None`: `m` reads as `x`, bound here too
            named, found = subject, self.bound(subject.qualified, path, at, depth + 1)
            if not found and "." not in subject.tail and subject.tail != subject.qualified:
                named = replace(subject, qualified=subject.tail)
                found = self.bound(named.qualified, path, at, depth + 1)
            known, value = self._installed_literal(named, found or [])
        if known:
            return any(value == other for other in test.values)  # Python's `==`, as the code's test
        if all(other is None for other in test.values) and self._not_none(test.subject):
            return False
        return None

    def _installed_literal(self, leaf: Leaf, found: list[_Candidate]) -> tuple[bool, Value]:
        """With the environment deciding, (True, value) for a name bound to literals under tests of
        what is installed (`try: import x` / `HAS_X = True` / `except ImportError:` / `HAS_X =
        False`, or `x = None` there): the literal of the binding that ran last, the environment
        having decided which ran (the names a failed `try:` binds are its handler's)."""
        if self.installed is None or not found or not all(_literal(test) for test, _, _ in found):
            return False, None
        literals = {test.qualified for test, _, _ in found if isinstance(test, Leaf)}
        name = _split(leaf.qualified)[1]
        events = self._events_of(found[0][1]).get(name, [])
        if len(literals) != 1 or not any(_of_installed(b.test) for e in events for b in e.context.branches):
            return False, None
        return True, _KEYWORDS[literals.pop()]

    def _not_none(self, leaf: Leaf) -> bool:
        """A name or dotted entry the platform holds true is not None there."""
        return leaf.qualified in self.true_names or (bare(leaf.tail) in self.true and self._named(leaf))

    def _leaf(self, leaf: Leaf, path: str, depth: int, at: int | None) -> Tri:
        if leaf.qualified in TYPE_CHECKING_NAMES:
            return False
        if not leaf.call and leaf.qualified in ("False", "None"):
            return False
        if not leaf.call and leaf.qualified == "True":
            return True
        known, value = self.held(leaf, path, depth + 1, at)
        if known:
            return bool(value)
        if leaf.qualified in self.false_names:
            return False
        if leaf.qualified in self.true_names:
            return True
        name = bare(leaf.tail)
        if name in self.guards and self._named(leaf):
            return False
        if name in self.true and self._named(leaf):
            return True
        if leaf.call:
            key = self.view.resolve(leaf.qualified, path)
            return self.function(key, depth + 1, leaf.argument, leaf.first, leaf.alone) if key is not None else None
        found = self.bound(leaf.qualified, path, at, depth + 1)
        if found and any(_literal(test) for test, _, _ in found):
            known, value = self._installed_literal(leaf, found)
            # Else `_ready = False` is state a function may set later (`global _ready`), not a platform flag
            return bool(value) if known else None
        if not found:
            return None
        values = [self.value(test, where, depth + 1, line) for test, where, line in found]
        return values[0] if values[0] is not None and all(v is values[0] for v in values) else None

    # --- module-level names: the binding that ran last before the read -----------------

    def bound(self, qualified: str, path: str, at: int | None = ANY, depth: int = 0) -> list[_Candidate] | None:
        """What a module-level name may hold where it is read (`at`): the value of each binding
        that may be the last to have run before the read, each with the file and line to read
        it at; None when the pass cannot say (no binding it sees, a `del`, a function that
        rebinds it with `global`)."""
        if depth > MAX_DEPTH:
            return None
        module, name = _split(qualified)
        if module:
            target = self.view.module_path.get(module)
            if target is None:
                return None
            found = self._last(name, target, AFTER, depth)
            if found is None:
                facts = self.view.facts(target)
                for star in _stars(facts):  # `from .common import *` re-exports the flag
                    through = self.bound(f"{star}.{name}", path, AFTER, depth + 1)
                    if through is not None:
                        return through
            return found
        return self._last(name, path, at, depth)

    def _last(self, name: str, path: str, at: int | None, depth: int) -> list[_Candidate] | None:
        events = self._events_of(path).get(name)
        owner = name.partition("[")[0]
        if not events or owner in self._globals_of(path):
            return None
        if at is None:  # ANY
            chosen = [e for e in events if not e.removed and self.runs(e.context, path, depth + 1)]
        else:
            chosen = []
            for event in reversed([e for e in events if e.line < at]):
                if not self.runs(event.context, path, depth + 1):
                    continue  # never runs on the platform (`if TYPE_CHECKING:`, a guard)
                chosen.append(event)
                if self.surely(event.context, path, depth + 1):
                    break
            else:
                return None  # no binding surely ran: the name may come from elsewhere, or from none
        if not chosen or any(e.removed for e in chosen):
            return None
        return [(e.value, path, e.line) for e in chosen]

    def _events_of(self, path: str) -> dict[str, list[_Event]]:
        """Every module-level binding of each name in the file, in module order; a dict entry's
        (`env["k"]`) with each binding of its dict by another value (which replaces the entry)."""
        if path in self._events:
            return self._events[path]
        facts = self.view.facts(path)
        out: dict[str, list[_Event]] = {}
        if facts is not None:
            for assign in facts.assigns:
                out.setdefault(assign.name, []).append(_Event(assign.line, assign.value, assign.context, assign.removed))
            for fact in facts.imports:
                if fact.bound is not None and fact.context.function is None:
                    value: Test = Leaf(fact.bound, fact.name) if fact.kind == "from" else Opaque()
                    out.setdefault(fact.bound, []).append(_Event(fact.span.line, value, fact.context))
            for function in facts.functions:
                if "." not in function.name:
                    out.setdefault(function.name, []).append(_Event(function.line, Opaque(), function.context))
            for name in [n for n in out if "[" in n]:
                lines = {e.line for e in out[name]}
                owner = out.get(name.partition("[")[0], [])
                out[name] = [*out[name], *(_Event(e.line, Opaque(), e.context, e.removed) for e in owner if e.line not in lines)]
            for events in out.values():
                events.sort(key=lambda e: e.line)
        self._events[path] = out
        return out

    def _globals_of(self, path: str) -> frozenset[str]:
        if path not in self._globals:
            facts = self.view.facts(path)
            self._globals[path] = frozenset(
                name for function in (facts.functions if facts is not None else ()) for name in function.globals
            )
        return self._globals[path]

    # --- project functions --------------------------------------------------------

    def function(
        self, key: tuple[str, str], depth: int = 0, argument: str | None = None, first: bool = False, alone: bool = False,
    ) -> Tri:
        """False when every `return` of the function that can run gives False; else unknown.
        `argument`: the literal its first parameter holds; `first`: the first item of the tuple
        it returns is read; `alone`: the call gives that argument only (a later parameter whose
        default is False or None holds it). Where the environment decides, True when every
        return gives True, one of them an availability test, and one stands straight in the body."""
        memo = (key, argument, first, alone)
        if memo in self._functions:
            return self._functions[memo]
        if memo in self._busy or depth > MAX_DEPTH:
            return None
        self._busy.add(memo)
        found: Tri = None
        facts = self.view.facts(key[0])
        if facts is not None:
            unset = _unset(facts, key[1]) if alone else ()
            returns = [
                r for r in facts.returns
                if r.function == key[1] and self.runs(_defaults(r.context, unset), key[0], depth + 1)
            ]
            values = [self._returned(r, key[0], depth, argument, first) for r in returns]
            if returns and all(value is False for value in values):
                found = False
            elif returns and self.installed is not None and all(value is True for value in values) and any(
                availability(r.value) or any(_of_installed(b.test) for b in r.context.branches) for r in returns
            ) and any(self.surely(r.context, key[0], depth + 1) for r in returns):
                found = True
        self._busy.discard(memo)
        self._functions[memo] = found
        return found

    def _returned(self, returned: ReturnFact, path: str, depth: int, argument: str | None, first: bool) -> Tri:
        """What one `return` gives: its value (the tuple's first item where that is read; a whole
        tuple is true), with the literal passed in place of the first parameter."""
        if returned.first != first:
            return True if returned.first else None
        return self.value(with_argument(returned.value, argument), path, depth + 1)

    def tested(self, test: Test, path: str, depth: int = 0) -> list[str]:
        """The modules (or distributions) not installed whose availability tests the test reads,
        directly, through the flags it reads and the functions it calls (what a branch that
        the environment keeps off needs: "if `x` is installed")."""
        if depth > MAX_DEPTH:
            return []
        if isinstance(test, Installed):
            return [test.name] if self._installed(test) is False else []
        if isinstance(test, Not):
            return self.tested(test.operand, path, depth + 1)
        if isinstance(test, BoolOp):
            return [name for operand in test.operands for name in self.tested(operand, path, depth + 1)]
        if not isinstance(test, Leaf):
            return []
        if not test.call:
            found = self.bound(test.qualified, path, ANY, depth + 1) or []
            return [name for value, where, _ in found for name in self.tested(value, where, depth + 1)]
        key = self.view.resolve(test.qualified, path)
        facts = self.view.facts(key[0]) if key is not None else None
        if key is None or facts is None:
            return []
        return [
            name for returned in facts.returns if returned.function == key[1]
            for name in self.tested(with_argument(returned.value, test.argument), key[0], depth + 1)
        ]

    # --- where code runs ----------------------------------------------------------

    def branch_value(self, branch: Branch, context: Context, path: str, depth: int = 0) -> Tri:
        """The branch's test, read where it stands: a module-level test at its line."""
        at = branch.line if context.function is None and branch.line else ANY
        return self.value(branch.test, path, depth + 1, at)

    def runs(self, context: Context, path: str, depth: int = 0) -> bool:
        """Whether code in this context can run on the platform (not whether it runs at import time)."""
        if context.type_checking:
            return False
        for branch in context.branches:
            value = self.branch_value(branch, context, path, depth)
            if value is (True if branch.orelse else False):
                return False
        return True

    def surely(self, context: Context, path: str, depth: int = 0) -> bool:
        """Whether code in this context runs on the platform whenever the code around it does: no `if`
        that may not take its side, no `try:`, `with`, loop or `match` that may skip it."""
        if context.type_checking or context.tried:
            return False
        return all(
            self.branch_value(branch, context, path, depth) is (False if branch.orelse else True)
            for branch in context.branches
        )

    def unjudged(self, context: Context, path: str) -> tuple[str, ...]:
        """The tests, as written, that the code runs under only because the pass could not
        judge them (what `values` could settle)."""
        return tuple(
            branch.text for branch in context.branches
            if branch.text and self.branch_value(branch, context, path) is None
        ) if not context.type_checking else ()

    def eager(self, context: Context, path: str) -> bool:
        """Runs on the platform when the module is imported."""
        return context.import_time and self.runs(context, path)


@dataclass(frozen=True)
class _Event:
    """A module-level binding of a name: where, to what, and whether it is a `del`."""

    line: int
    value: Test
    context: Context
    removed: bool = False


def _unset(facts: FileFacts, function: str) -> tuple[str, ...]:
    return next((f.unset for f in facts.functions if f.name == function), ())


def _defaults(context: Context, unset: tuple[str, ...]) -> Context:
    """The context with each parameter in `unset`, read as a test, False (its default)."""
    if not unset:
        return context
    false = Leaf("False", "False")
    return replace(context, branches=tuple(
        replace(b, test=_substituted(b.test, unset, false)) for b in context.branches
    ))


def _substituted(test: Test, names: tuple[str, ...], by: Test) -> Test:
    if isinstance(test, Leaf) and not test.call and not test.attribute and test.qualified in names:
        return by
    if isinstance(test, Not):
        return Not(_substituted(test.operand, names, by))
    if isinstance(test, BoolOp):
        return BoolOp(test.op, tuple(_substituted(operand, names, by) for operand in test.operands))
    return test


def with_argument(test: Test, argument: str | None) -> Test:
    """The test with `argument` in place of its function's first parameter."""
    if argument is None:
        return test
    if isinstance(test, Installed) and test.parameter:
        return Installed(argument, test.distribution)
    if isinstance(test, Leaf) and test.passes:
        return replace(test, argument=argument, passes=False)
    if isinstance(test, Not):
        return Not(with_argument(test.operand, argument))
    if isinstance(test, BoolOp):
        return BoolOp(test.op, tuple(with_argument(operand, argument) for operand in test.operands))
    return test


def _split(qualified: str) -> tuple[str, str]:
    """`pkg.mod.env["k"]` -> (`pkg.mod`, `env["k"]`); `FLAG` -> ("", `FLAG`)."""
    base, bracket, key = qualified.partition("[")
    module, _, name = base.rpartition(".")
    return module, name + bracket + key


_KEYWORDS: dict[str, Value] = {"True": True, "False": False, "None": None}


def _of_installed(test: Test) -> bool:
    """A test of what is installed alone (what a `try:` import stands for)."""
    if isinstance(test, BoolOp):
        return test.op == "and" and all(isinstance(operand, Installed) for operand in test.operands)
    return isinstance(test, Installed)


def _literal(test: Test) -> bool:
    return isinstance(test, Leaf) and not test.call and test.qualified in ("True", "False", "None")


def _stars(facts: FileFacts | None) -> list[str]:
    if facts is None:
        return []
    return [i.module for i in facts.imports if i.member == "*" and i.context.function is None]
