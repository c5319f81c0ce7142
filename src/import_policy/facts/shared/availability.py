"""Availability tests as both extractors read them: `importlib.util.find_spec("x")` (however
imported), `importlib.metadata.version("x")` straight in a `try:` whose handler catches its
failure, and the function-local names such tests are bound to (`spec = find_spec(name)`,
`exists = spec is not None`, `ok, version = _is_package_available("x", True)`), so that a
return of one reads as the test itself (`facts.model.Installed`)."""

from __future__ import annotations

from dataclasses import dataclass

from import_policy.facts.records.model import BoolOp, Installed, Leaf, Not, Opaque, Test

# Calls whose value is a module's spec, None where the path finder finds no such module.
FIND_SPEC = frozenset({"importlib.util.find_spec", "importlib.find_spec"})
# Calls that raise PackageNotFoundError where no such distribution is installed.
VERSION = frozenset({
    "importlib.metadata.version", "importlib.metadata.distribution", "importlib.metadata.metadata",
    "importlib_metadata.version", "importlib_metadata.distribution", "importlib_metadata.metadata",
})
# Handlers that catch PackageNotFoundError (a ModuleNotFoundError, so an ImportError).
VERSION_CATCHERS = frozenset({
    "PackageNotFoundError", "ModuleNotFoundError", "ImportError", "Exception", "BaseException",
})


def spec_test(qualified: str, argument: str | None, passes: bool) -> Installed | None:
    """`find_spec("x")` as the test that `x` is found; None for another call (or an argument
    that is neither a literal nor the function's first parameter)."""
    if qualified not in FIND_SPEC:
        return None
    if argument is not None:
        return Installed(argument)
    return Installed("", parameter=True) if passes else None


def version_test(qualified: str, argument: str | None) -> Installed | None:
    """`importlib.metadata.version("x")`: returns only where the distribution is installed."""
    return Installed(argument, distribution=True) if qualified in VERSION and argument is not None else None


def availability(test: Test) -> bool:
    """Whether the test reads an availability test: what a function-local name is kept for (any
    other local is read as before, as the module-level name of that name)."""
    if isinstance(test, Installed):
        return True
    if isinstance(test, Leaf):
        return test.first
    if isinstance(test, Not):
        return availability(test.operand)
    if isinstance(test, BoolOp):
        return any(availability(operand) for operand in test.operands)
    return False


def none_test(test: Test, negated: bool) -> Test | None:
    """`spec is None` (`negated`: `is not None`) where `spec` is a find_spec value."""
    if not isinstance(test, Installed):
        return None
    return test if negated else Not(test)


@dataclass
class _Local:
    test: Test
    spec: bool  # holds find_spec's value itself (its `is None` is a test), not a bool


class Locals:
    """Function-local names bound to availability tests, by function (dotted name)."""

    def __init__(self) -> None:
        self._by_function: dict[str, dict[str, _Local | None]] = {}

    def bind(self, function: str | None, name: str, test: Test, spec: bool) -> None:
        """`name = <test>` in the function; a later binding of `False` keeps the test (the name
        is false where it was, and may be false where it was true), any other makes it unknown."""
        if function is None:
            return
        names = self._by_function.setdefault(function, {})
        if name not in names:
            names[name] = _Local(test, spec) if availability(test) else None
            return
        held = names[name]
        if held is None:
            return
        falsy = isinstance(test, Leaf) and not test.call and test.qualified == "False"
        names[name] = _Local(BoolOp("and", (held.test, Opaque())), False) if falsy else None

    def read(self, function: str | None, name: str) -> _Local | None:
        if function is None:
            return None
        return self._by_function.get(function, {}).get(name)


__all__ = ["FIND_SPEC", "VERSION", "VERSION_CATCHERS", "Locals", "availability", "none_test", "spec_test", "version_test"]
