"""A literal name passed through project functions (contract section 4): `check("a.b")` where
`def check(n): return importlib.util.find_spec(n)` is `find_spec("a.b")` at the call, which
imports `a`.

A call's literal arguments (`CallFact.first_string`, `CallFact.arguments`) bind the callee's
parameters as Python binds them: by position (past the parameter the call binds itself: a
method's `self`, a class method's `cls`, `__init__`'s and `__new__`'s first when a class is
called) and by keyword (never a positional-only parameter). A parameter the callee's body binds
again is never bound (facts.shared.rebinding); a callee whose body passes no parameter on keeps
no signature and gets nothing, so its witness is shared by every call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Literal, Optional, Union

from import_policy.facts.records.model import CallFact, Signature
from import_policy.graph.sites import FIND_SPEC

# What a call binds of its callee's parameters: each parameter's name and the literal it gets,
# sorted (a memo key).
Passed = tuple[tuple[str, str], ...]
# How a call reaches the function it runs, which decides what it binds itself: a plain function
# (nothing), a method through an instance (`self.m()`, `obj.m()`: `self`, or `cls` of a class
# method), through the class (`cls.m()`, `C.m()`: `cls` of a class method only), a class called
# (`C()`: `__new__`'s `cls` and `__init__`'s `self`), or a way the pass does not tell (no passing).
How = Optional[Literal["function", "instance", "class", "construct"]]
Slot = Union[int, str]


def actual(call: CallFact, passed: Passed) -> tuple[CallFact, dict[Slot, str]]:
    """The call as the caller's literals make it: its first string (a parameter's literal; for
    `find_spec`, `name=` too) and each literal argument by slot."""
    bound = dict(passed)
    literals: dict[Slot, str] = {0: call.first_string} if call.first_string is not None else {}
    for argument in call.arguments:
        value = bound.get(argument.value) if argument.parameter else argument.value
        if value is not None:
            literals.setdefault(argument.slot, value)
    first = literals.get(0)
    if first is None and call.callee == FIND_SPEC:
        first = literals.get("name")
    return (call if first == call.first_string else replace(call, first_string=first)), literals


def bind(signature: Signature | None, how: How, literals: Mapping[Slot, str]) -> Passed:
    """The callee's parameters the call's literals bind."""
    offset = _offset(signature, how) if signature is not None else None
    if signature is None or offset is None or not literals:
        return ()
    keywords = {*signature.positional[signature.positional_only:], *signature.keyword_only} - {None}
    found: dict[str, str] = {}
    for slot, value in literals.items():
        if isinstance(slot, int):
            at = slot + offset
            name = signature.positional[at] if at < len(signature.positional) else None
        else:
            name = slot if slot in keywords else None
        if name is not None and "." in value:  # `find_spec` of a top-level name imports nothing
            found[name] = value
    return tuple(sorted(found.items()))


def _offset(signature: Signature, how: How) -> int | None:
    """How many leading parameters the call binds itself."""
    if how == "function":
        return 0
    if how == "construct":
        return 1
    if how == "instance":
        return 0 if signature.method == "static" else 1
    if how == "class":
        return 1 if signature.method == "class" else 0
    return None


__all__ = ["How", "Passed", "Slot", "actual", "bind"]
