"""Where code asks a module's lazy loader for a name by reading it (contract section 4, "Lazy
loaders"): Python calls a module's `__getattr__` for every read of `pkg.name` that finds no
binding, wherever the read stands (an assigned value, an argument, a class body, a default, a
decorator, a base class, an annotation Python evaluates, `getattr(pkg, "name")`), when it runs.

What runs at import time is the module's own code (`import_time`); a function's body runs where
a call of it does (`in_body`). An annotation is evaluated only where the oldest Python the
project supports evaluates it: before 3.14 (PEP 649 defers them all from then on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import ModuleType

from import_policy.facts.records.model import AttributeFact, Context, FileFacts

# The first Python that defers every annotation (PEP 649).
DEFERRED_ANNOTATIONS = (3, 14)
# What Python binds on every module object (and a package's): a read of one never asks a loader.
MODULE_ATTRIBUTES = frozenset({
    *dir(ModuleType("m")), *dir(ModuleType), "__file__", "__path__", "__cached__", "__builtins__", "__dict__", "__annotations__",
})
# A read: the dotted name read (for a computed `getattr(pkg, name)`: `pkg`), its line, and
# whether its last name is computed.
Read = tuple[str, int, bool]


def import_time(facts: FileFacts, eager: Callable[[Context], bool], python: tuple[int, int]) -> list[Read]:
    """The reads of the module's code that run when it is imported: its calls' callees, its
    decorators, its classes' bases and its attribute reads, in that order."""
    found: list[Read] = [(call.callee, call.span.line, False) for call in facts.calls if eager(call.context)]
    found.extend(
        (name, decorator.span.line, False) for decorator in facts.decorators
        if eager(decorator.context) for name in decorator.qualified_names
    )
    found.extend((base, cls.line, False) for cls in facts.classes if eager(cls.context) for base in cls.bases)
    found.extend(_evaluated(facts.attributes, eager, python))
    return found


def in_body(reads: Iterable[AttributeFact], runs: Callable[[Context], bool], python: tuple[int, int]) -> list[Read]:
    """The reads of a function's body that run when it is called (`reads`: the body's own)."""
    return list(_evaluated(reads, runs, python))


def _evaluated(reads: Iterable[AttributeFact], runs: Callable[[Context], bool], python: tuple[int, int]) -> Iterator[Read]:
    deferred = python >= DEFERRED_ANNOTATIONS
    for read in reads:
        if not (deferred and read.annotation) and runs(read.context):
            yield read.qualified, read.line, read.computed


def asked(
    qualified: str, is_module: Callable[[str], bool], has_loader: Callable[[str], bool],
    maps: Callable[[str, str], bool],
) -> tuple[tuple[str, str], ...]:
    """The loaders a read of `qualified` asks, each with the name it asks: along the chain, a
    module's loader is asked for a submodule its table names (`torch._dynamo.config` asks
    `torch` for `_dynamo`: Python calls its `__getattr__` where nothing imported the submodule
    yet, and loads it either way), and the last module's for the next name that is no
    submodule of it nor an attribute Python binds on every module (`pkg.__name__`)."""
    parts = qualified.split(".")
    found: list[tuple[str, str]] = []
    for cut in range(1, len(parts)):
        owner = ".".join(parts[:cut])
        if not is_module(owner):
            break
        if is_module(f"{owner}.{parts[cut]}"):
            if maps(owner, parts[cut]):
                found.append((owner, parts[cut]))
            continue
        if has_loader(owner) and parts[cut] not in MODULE_ATTRIBUTES:
            found.append((owner, parts[cut]))
        break
    return tuple(found)


__all__ = ["DEFERRED_ANNOTATIONS", "MODULE_ATTRIBUTES", "Read", "asked", "import_time", "in_body"]
