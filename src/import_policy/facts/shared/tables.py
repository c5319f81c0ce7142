"""Names taken from a literal table (contract section 4, `find_spec`): a tuple, list, set or
dict display bound once at module level, or written in the loop itself, gives its strings to
the variables of a `for` loop over it (its elements or keys, `.keys()`, `.values()`, both of
`.items()`) and to a literal subscript (`T[0]`, `T["k"]`). Each extractor reads its own tree
into a `Table`; what the loops and subscripts take from it is decided here, once.
"""

from __future__ import annotations

from dataclasses import dataclass

Key = str | int | None  # a dict key or a sequence index, as the literal wrote it


@dataclass(frozen=True)
class Table:
    """A display's entries: (element or key, value); a sequence's entries are (element, element)."""

    entries: tuple[tuple[Key, str | None], ...]
    is_dict: bool


def looped(table: Table, method: str | None, targets: int) -> tuple[tuple[str, ...], ...]:
    """What each loop variable takes (one tuple per variable, its strings in the table's order):
    `for x in T` (method None), `T.keys()`, `T.values()`, `for k, v in T.items()`. Empty
    where the loop is not one of these."""
    keys = tuple(key for key, _ in table.entries if isinstance(key, str))
    values = tuple(value for _, value in table.entries if value is not None)
    if targets == 1 and method is None:
        return (keys,)
    if table.is_dict and targets == 1 and method in ("keys", "values"):
        return (keys if method == "keys" else values,)
    if table.is_dict and targets == 2 and method == "items":
        return (keys, values)
    return ()


def subscripted(table: Table, key: Key) -> str | None:
    """`T[key]` with a literal key: the string it holds."""
    if table.is_dict:
        return next((value for k, value in table.entries if k == key and not isinstance(k, bool)), None)
    if not isinstance(key, int) or isinstance(key, bool) or not -len(table.entries) <= key < len(table.entries):
        return None
    return table.entries[key][1]


class Tables:
    """The module's tables and the loop variables open where the walk stands."""

    def __init__(self) -> None:
        self.module: dict[str, Table] = {}
        self._loops: list[dict[str, tuple[str, ...]]] = []

    def enter_loop(self, names: list[str], taken: tuple[tuple[str, ...], ...]) -> None:
        self._loops.append(dict(zip(names, taken)) if len(names) == len(taken) else {})

    def leave_loop(self) -> None:
        self._loops.pop()

    def names_of(self, name: str) -> tuple[str, ...]:
        """The strings a loop variable takes, innermost loop first; () when none does."""
        for loop in reversed(self._loops):
            if name in loop:
                return loop[name]
        return ()


def module_tables(bound: list[tuple[str, Table | None]]) -> dict[str, Table]:
    """Names bound once at module level, to a display (a name bound twice is no table)."""
    count: dict[str, int] = {}
    for name, _ in bound:
        count[name] = count.get(name, 0) + 1
    return {name: table for name, table in bound if table is not None and count[name] == 1}
