"""Which `if` branches are type-checking-only code (contract section 3)."""

from __future__ import annotations

from collections.abc import Iterable

from import_policy.facts.records.model import BoolOp, Branch, Leaf, Not, Test

TYPE_CHECKING_NAMES = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING", "TYPE_CHECKING"})


def is_type_checking_test(test: Test) -> bool:
    """`TYPE_CHECKING`, `typing.TYPE_CHECKING` (however imported), or an `and` with one of them."""
    if isinstance(test, Leaf):
        return test.qualified in TYPE_CHECKING_NAMES
    if isinstance(test, BoolOp) and test.op == "and":
        return any(is_type_checking_test(operand) for operand in test.operands)
    return False


def is_type_checking_only(branches: Iterable[Branch]) -> bool:
    for branch in branches:
        if branch.early:
            continue  # code after an early `return` is judged by the ROCm pass alone
        if not branch.orelse and is_type_checking_test(branch.test):
            return True
        # `if not TYPE_CHECKING: ... else: <type-checking-only>`
        if branch.orelse and isinstance(branch.test, Not) and is_type_checking_test(branch.test.operand):
            return True
    return False
