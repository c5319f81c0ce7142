"""Two records of one file compared as the graph reads them: whether they differ only where
no item but the module's own reads the difference (`local_change`), or only in where their
facts stand (`moved_only`).

Another file's derivation reads a module's record only by name (graph/reach.py's `_File`):
its module-level bindings (`from m import x`, the flag `m.x`, `m.x()` resolved: an
assignment, a `def`, a `class`, a module-level import's bound name), a function's body by
the function's name (`m.f()` runs what `f` imports and calls), and its star imports, lazy
loader, exports, decorators and reads as a whole. A module-level call, a module-level import
that binds nothing, a module-level scan or attribute read is read by the module's own links and
sites only.
So where two records differ only in facts of names no other record spells, nor the rest of
this one, and in such free facts, only the module's links, its sites and every reach (which
holds its links) can differ (`ModuleGraph.renew`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import TypeVar

from import_policy.facts.records.model import (
    AssignFact, AttributeFact, CallFact, ClassFact, FileFacts, FunctionFact, ImportFact, ReturnFact, ScanFact, Suppressions,
)

T = TypeVar("T", int, tuple[int, int])

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The record's fields whose facts are each read by a name (or by no other file at all).
_NAMED = ("imports", "calls", "functions", "classes", "assigns", "returns", "scans", "attributes")
_FREE: frozenset[str] = frozenset({"\0free"})  # a fact no other file reads


@dataclass(frozen=True)
class LocalChange:
    names: frozenset[str]  # names whose facts differ: another file reads them only by these
    free: bool  # facts that differ which no other file reads


def local_change(before: FileFacts, now: FileFacts) -> LocalChange | None:
    """How two records differ where each difference is read by name or by no other file;
    None where one is read otherwise, or where the rest of the record spells a name whose
    facts differ (a function's body reading a global that was rebound)."""
    names: set[str] = set()
    free = False
    for name in _NAMED:
        old, new = getattr(before, name), getattr(now, name)
        if old == new:
            continue
        shapes = [_blanked(fact)[0] for fact in (*old, *new)]
        counted_old, counted_new = Counter(shapes[:len(old)]), Counter(shapes[len(old):])
        differ = (counted_old - counted_new) + (counted_new - counted_old)
        for fact, shape in zip((*old, *new), shapes):
            if shape not in differ:
                continue
            key = _read_by(fact)
            if key is None:
                return None
            if key is _FREE:
                free = True
            else:
                names |= key
    found = frozenset(names)
    rest_before, rest_now = _rest(before, found), _rest(now, found)
    if rest_before != rest_now and not moved_only(rest_before, rest_now):
        return None
    # Moved or not, the two rests hold the same strings.
    if not found.isdisjoint(spelled(rest_now)):
        return None
    return LocalChange(found, free)


def _read_by(fact: object) -> frozenset[str] | None:
    """The names by which another file reads a fact; `_FREE` for none; None: read otherwise."""
    if isinstance(fact, (ImportFact, CallFact, ScanFact, AttributeFact)) and fact.context.function is not None:
        return _parts(fact.context.function)  # a function's body: read through its name
    if isinstance(fact, ImportFact):
        if fact.member == "*":
            return None  # a star import: every name asked of the module looks through it
        return _parts(fact.bound) if fact.bound is not None else _FREE
    if isinstance(fact, (CallFact, ScanFact, AttributeFact)):
        return _FREE
    if isinstance(fact, (FunctionFact, ClassFact, AssignFact)):
        return _parts(fact.name)
    if isinstance(fact, ReturnFact):
        return _parts(fact.function)
    return None


def _parts(name: str) -> frozenset[str] | None:
    parts = IDENTIFIER.findall(name)
    return frozenset(parts) if parts and "".join(parts) == name.replace(".", "") else None


def _rest(facts: FileFacts, names: frozenset[str]) -> FileFacts:
    """The record without the facts read by one of `names` or by no other file."""

    def kept(fact: object) -> bool:
        key = _read_by(fact)
        return key is None or (key is not _FREE and key.isdisjoint(names))

    return replace(
        facts, imports=tuple(filter(kept, facts.imports)), calls=tuple(filter(kept, facts.calls)),
        functions=tuple(filter(kept, facts.functions)), classes=tuple(filter(kept, facts.classes)),
        assigns=tuple(filter(kept, facts.assigns)), returns=tuple(filter(kept, facts.returns)),
        scans=tuple(filter(kept, facts.scans)), attributes=tuple(filter(kept, facts.attributes)),
    )


# Fields that hold a line (or a column) of the file, in the records' dataclasses.
_LINES = frozenset({"line", "end_line", "statement_line"})
_COLUMNS = {"column": "line", "end_column": "end_line"}
_PLAIN = (str, int, float, bool, type(None), frozenset)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    found = _FIELD_NAMES.get(cls)
    if found is None:
        found = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return found


def _blanked(facts: object) -> tuple[object, list[int], list[tuple[int, int]]]:
    """The record with its lines and columns taken out (in walk order), and those taken out."""
    lines: list[int] = []
    points: list[tuple[int, int]] = []

    def walk(value: object) -> object:
        if isinstance(value, _PLAIN):
            return value
        if isinstance(value, (tuple, list)):
            return tuple(walk(item) for item in value)
        if isinstance(value, Suppressions):
            lines.extend(number for number, _ in value.lines)
            return ("suppressions", value.file, tuple(rules for _, rules in value.lines))
        if is_dataclass(value) and not isinstance(value, type):
            out: list[object] = [type(value)]
            for name in _names(type(value)):
                item = getattr(value, name)
                if name in _LINES and type(item) is int:
                    lines.append(item)
                    out.append(None)
                elif name in _COLUMNS and type(item) is int:
                    points.append((getattr(value, _COLUMNS[name]), item))
                    out.append(None)
                else:
                    out.append(walk(item))
            return tuple(out)
        return value

    return walk(facts), lines, points


def _same_order(before: list[T], now: list[T]) -> bool:
    """Whether one strictly increasing map takes each of `before` to the one of `now` at the
    same place: every comparison between them comes out the same."""
    if len(before) != len(now):
        return False
    pairs = sorted(set(zip(before, now)))
    return all(a[0] < b[0] and a[1] < b[1] for a, b in zip(pairs, pairs[1:]))


def moved_only(before: FileFacts, now: FileFacts) -> bool:
    """Whether two records hold the same facts in the same order, wherever they stand: their
    lines and columns differ by one order-keeping relabelling. Every derivation compares
    positions only within one file (a read after a binding, the first site of a statement),
    so such records decide the same graph but for the positions it reports."""
    shape_before, lines_before, points_before = _blanked(before)
    shape_now, lines_now, points_now = _blanked(now)
    return (
        shape_before == shape_now and _same_order(lines_before, lines_now) and _same_order(points_before, points_now)
    )


def spelled(value: object) -> frozenset[str]:
    """Every identifier a record's strings spell (`a.b.c` spells `a`, `b` and `c`): a name
    a derivation looks up in another file comes from one of these."""
    found: set[str] = set()

    def walk(item: object) -> None:
        if isinstance(item, str):
            found.update(IDENTIFIER.findall(item))
        elif isinstance(item, (tuple, list, frozenset, set)):
            for inner in item:
                walk(inner)
        elif is_dataclass(item) and not isinstance(item, type):
            for name in _names(type(item)):
                walk(getattr(item, name))

    walk(value)
    return frozenset(found)
