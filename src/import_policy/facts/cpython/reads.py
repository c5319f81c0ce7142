"""Which names a file reads, for inline probes: an import in a `try:` is a probe only when
nothing reads the names it binds (both extractors ask CPython's tree, which each has)."""

from __future__ import annotations

import ast


def read_names(tree: ast.AST) -> frozenset[str]:
    """Every name the tree (a file's, or part of one) reads, but where it is only compared with
    None (`x is None`)."""
    loads: dict[int, str] = {}
    checked: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[id(node)] = node.id
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _NONE_TESTS):
            sides = (node.left, node.comparators[0])
            if any(isinstance(side, ast.Constant) and side.value is None for side in sides):
                checked.update(id(side) for side in sides if isinstance(side, ast.Name))
    return frozenset(name for key, name in loads.items() if key not in checked)


_NONE_TESTS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)
