"""What the import-time calls of several questions load, found in one walk.

Questions that share a graph and its probes (`kind: import-time` rules that differ only in
what they forbid) walk the same functions from the same calls: a call's witness differs
between them only in which modules count as heavy, and at a probe of a module heavy for
some of them (those stop at the probe; the others walk on into what the probe calls).
`Calls` walks the functions once for a set of such questions, one bit each (`Mask`): a
function's walk keeps its loads in body order, each with the questions it is heavy for
(`Walk`), and each question reads its own witness off it (`Walk.read`).

Each question keeps its own memo (which walk a function, called with given literals, has for
it) and its own cuts, made as it would make them alone: a question that stopped at a probe
has no walk of what the probe calls, and walks it where it first reaches it otherwise; a
recursion back into a function on the way, or a call deeper than MAX_CALL_DEPTH, is cut for
the questions walking that way. So each question's witnesses are the ones it gets alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional, Protocol, Union

from import_policy.facts.records.model import CallFact, Context, ImportFact, Signature
from import_policy.graph.passing import How, Passed, Slot, actual, bind
from import_policy.graph.question import Question
from import_policy.graph.sites import FIND_SPEC

# How deep calls through project functions are followed; real wrappers are two or three deep.
MAX_CALL_DEPTH = 32

# One bit per question of a `Calls`.
Mask = int
# A heavy module, the calls through which it loads (`has_x()`, `_has_module("x")`), and the
# tests on the way the pass could not judge.
Witness = tuple[str, tuple[str, ...], tuple[str, ...]]
FunctionKey = tuple[str, str]  # file, dotted function name in it
ClassKey = tuple[str, str]  # file, dotted class name in it
# A function a call runs, with the class of the instance (or class) its `self` / `cls` is, when
# it is a method reached through one (`EnvChecker()` runs `EnvChecker.__new__` with `cls` that).
Target = tuple[FunctionKey, Optional[ClassKey]]
BodyFact = Union[ImportFact, CallFact]
# The questions that walked a function, and its walk for them (None: it loads nothing heavy for
# them, or the walk was cut there).
Walked = list[tuple[Mask, "Walk | None"]]


class Judged(Protocol):
    def runs(self, context: Context, path: str, depth: int = 0) -> bool: ...

    def unjudged(self, context: Context, path: str) -> tuple[str, ...]: ...


class Functions(Protocol):
    """What the walk asks of the graph (`graph.reach.Project`)."""

    @property
    def judge(self) -> Judged: ...

    def body(self, key: FunctionKey) -> Sequence[BodyFact]: ...

    def signature(self, key: FunctionKey) -> Signature | None: ...

    def bound_targets(
        self, callee: str, path: str, within: str | None = None, receiver: ClassKey | None = None,
    ) -> list[tuple[Target, How]]: ...


class Loaded:
    """An import in a body, heavy for the questions of `mask`; `whole`: those for which the
    module of `from m import x` is heavy itself (it is the module they name)."""

    __slots__ = ("name", "module", "probe", "mask", "whole")

    def __init__(self, fact: ImportFact, mask: Mask, whole: Mask) -> None:
        self.name = fact.name
        self.module = fact.module
        self.probe = fact.probe
        self.mask = mask
        self.whole = whole

    def read(self, bit: Mask) -> tuple[Witness, ...]:
        # `from aiter.ops import mhc` imports `aiter.ops`; `mhc` may be a function in it.
        name = self.module if self.whole & bit else self.name
        return ((name, (f"try: import {name}" if self.probe else f"import {name}",), ()),)


class Called:
    """A call that loads a heavy module for the questions of `mask`: as a probe of one (its
    first string) for those of `probed`, as `find_spec("a.b")` of a heavy parent for those of
    `spec`, else through the project functions it runs (`targets`: each one's walks)."""

    __slots__ = ("tail", "first", "probed", "parent", "spec", "targets", "mask")

    def __init__(self, call: CallFact, probed: Mask, parent: str | None, spec: Mask, targets: list[Walked]) -> None:
        self.tail = call.tail
        self.first = call.first_string
        self.probed = probed
        self.parent = parent
        self.spec = spec
        self.targets = targets
        self.mask = probed | spec
        for walked in targets:
            for mask, walk in walked:
                self.mask |= mask & walk.mask if walk is not None else 0

    def read(self, bit: Mask) -> tuple[Witness, ...] | None:
        if self.probed & bit and self.first is not None:
            return ((self.first, (f'{self.tail}("{self.first}")',), ()),)
        if self.spec & bit and self.parent is not None:
            return ((self.parent, (f'{self.tail}("{self.first}")',), ()),)
        found: list[Witness] = []
        for walked in self.targets:
            walk = next((walk for mask, walk in walked if mask & bit), None)
            for heavy, steps, tests in (walk.read(bit) if walk is not None else None) or ():
                found.append((heavy, (f"{self.tail}()", *steps), tests))
        return each_once(found)


class Walk:
    """What calling a function loads, for the questions that walked it: each load that is
    heavy for one of them, in the order the body runs, with the tests it stands under that
    the pass could not judge."""

    __slots__ = ("items", "mask", "_read")

    def __init__(self, items: list[tuple[Loaded | Called, tuple[str, ...]]]) -> None:
        self.items = items
        self.mask = 0
        for item, _ in items:
            self.mask |= item.mask
        self._read: dict[Mask, tuple[Witness, ...] | None] = {}

    def read(self, bit: Mask) -> tuple[Witness, ...] | None:
        """The witnesses for the question of `bit`: each heavy module once, by the first way to it."""
        if not self.mask & bit:
            return None
        if bit not in self._read:
            found: list[Witness] = []
            for item, unjudged in self.items:
                if item.mask & bit:
                    found.extend((heavy, steps, joined(unjudged, tests)) for heavy, steps, tests in item.read(bit) or ())
            self._read[bit] = each_once(found)
        return self._read[bit]


class Calls:
    """The call witnesses of the questions that share a graph and `probes`, walked once for
    every question asking at the time (`need`)."""

    def __init__(self, functions: Functions, probes: tuple[tuple[str, str | None], ...]) -> None:
        self._functions = functions
        self.probes = probes
        self._bits: dict[Question, Mask] = {}
        # By a name's first part: the questions with a pattern that may cover it (None: any).
        self._heads: dict[str | None, list[tuple[Question, Mask]]] = {}
        self._masks: dict[str, Mask] = {}  # by name: the questions it is heavy for
        self._memo: dict[tuple[Target, Passed], Walked] = {}
        self._on_way: set[tuple[Target, Passed]] = set()

    def bit(self, question: Question) -> Mask:
        """The question's bit (what counts as heavy for it is all that matters here)."""
        key = Question(heavy=question.heavy)
        if key not in self._bits:
            bit = self._bits[key] = 1 << len(self._bits)
            for head in dict.fromkeys(pattern.head for pattern in key.heavy):
                self._heads.setdefault(head, []).append((key, bit))
            self._masks.clear()
        return self._bits[key]

    def heavy(self, name: str) -> Mask:
        """The questions for which `name` is a heavy module, or anything under one."""
        found = self._masks.get(name)
        if found is None:
            found = 0
            for question, bit in (*self._heads.get(name.partition(".")[0], ()), *self._heads.get(None, ())):
                if not found & bit and question.is_heavy(name):
                    found |= bit
            self._masks[name] = found
        return found

    def call(
        self, call: CallFact, path: str, depth: int, receiver: ClassKey | None, literals: Mapping[Slot, str], need: Mask,
    ) -> Called | None:
        """What the call loads for the questions of `need`; `call` and `literals` as
        `passing.actual` gives them. None: nothing heavy for any of them."""
        first = call.first_string
        probe = first is not None and any(probe in (call.tail, call.callee) for probe, _ in self.probes)
        probed = self.heavy(first) & need if probe and first is not None else 0
        parent = first.rpartition(".")[0] if call.callee == FIND_SPEC and first is not None and "." in first else None
        spec = self.heavy(parent) & need & ~probed if parent is not None else 0
        walking = need & ~(probed | spec)
        targets: list[Walked] = []
        if walking:
            for target, how in self._functions.bound_targets(call.callee, path, call.context.function, receiver):
                passed = bind(self._functions.signature(target[0]), how, literals)
                walked: Walked = [
                    (mask, walk) for mask, walk in self.witness(target, depth, passed, walking)
                    if walk is not None and mask & walk.mask
                ]
                if walked:
                    targets.append(walked)
        found = Called(call, probed, parent, spec, targets)
        return found if found.mask else None

    def witness(self, target: Target, depth: int, passed: Passed, need: Mask) -> Walked:
        """The walk of the function for each question of `need`: the one it has already, else
        walked now for every question of `need` without one, except where the walk would
        recurse into a function on its way or go deeper than MAX_CALL_DEPTH (cut: None)."""
        key = (target, passed)
        known = self._memo.get(key, [])
        found = [(mask & need, walk) for mask, walk in known if mask & need]
        rest = need
        for mask, _ in found:
            rest &= ~mask
        if not rest:
            return found
        if key in self._on_way or depth > MAX_CALL_DEPTH:
            return [*found, (rest, None)]
        self._on_way.add(key)
        walk = self._walk(target, depth, passed, rest)
        self._on_way.discard(key)
        self._memo.setdefault(key, []).append((rest, walk))
        return [*found, (rest, walk)]

    def _walk(self, target: Target, depth: int, passed: Passed, need: Mask) -> Walk | None:
        items: list[tuple[Loaded | Called, tuple[str, ...]]] = []
        key, receiver = target
        path = key[0]
        judge = self._functions.judge
        for fact in self._functions.body(key):
            if not judge.runs(fact.context, path):
                continue
            item: Loaded | Called | None
            if isinstance(fact, ImportFact):
                mask = self.heavy(fact.name) & need
                whole = self.heavy(fact.module) & mask if fact.kind == "from" else 0
                item = Loaded(fact, mask, whole) if mask else None
            else:
                # `find_spec(n)`, `check(n)`: the literal passed (a probe's argument only where written)
                probe = any(probe in (fact.tail, fact.callee) for probe, _ in self.probes)
                call, literals = actual(fact, () if probe else passed)
                item = self.call(call, path, depth + 1, receiver, literals, need)
            if item is not None:
                items.append((item, judge.unjudged(fact.context, path)))
        return Walk(items) if items else None


def each_once(found: list[Witness]) -> tuple[Witness, ...] | None:
    """Each heavy module once, by the first way found to it; None for none."""
    first: dict[str, Witness] = {}
    for witness in found:
        first.setdefault(witness[0], witness)
    return tuple(first.values()) or None


def joined(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(text for group in groups for text in group))


__all__ = [
    "BodyFact", "Called", "Calls", "ClassKey", "FunctionKey", "MAX_CALL_DEPTH", "Mask", "Target", "Walk", "Witness",
    "each_once", "joined",
]
