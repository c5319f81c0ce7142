"""The extraction's shortcuts over CPython's tree give what the plain walks give: the names a
body binds (`from_ast.bound_in` against `ast.walk` over every node), and a function's
`global` names read only from files whose text spells `global`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from import_policy.facts.cpython import from_ast
from import_policy.facts.cpython.from_ast import bound_in, graph_facts

HERE = Path(__file__).resolve()
# This repository's code and some of the standard library: every binding form there is.
FILES = sorted((HERE.parents[2] / "src").rglob("*.py")) + sorted(Path(ast.__file__).parent.glob("[a-d]*.py"))


def _by_ast_walk(body: list[ast.stmt]) -> set[str]:
    return {bound for inner in body for scoped in ast.walk(inner) for bound in from_ast._rebinds(scoped)}


def _bodies(tree: ast.AST) -> list[list[ast.stmt]]:
    return [node.body for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))]


def test_bound_in_is_the_walk_of_every_node_over_real_code() -> None:
    compared = 0
    for path in FILES:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for body in _bodies(tree):
            assert bound_in(body) == _by_ast_walk(body), path
            compared += 1
    assert compared > 2000


BINDINGS = [
    "x = 1", "a, (b, *c) = t", "d: int = 0", "e += 1", "for f in g: pass", "[h for i in j]", "(k := 1)",
    "del m", "with n as o: pass", "try:\n    pass\nexcept E as p:\n    pass", "import q.r", "import s as t2",
    "from u import v as w", "global y", "nonlocal z", "def fn(a1, *a2, a3=1, **a4): pass", "class K: pass",
    "lambda l1, *l2: l1", "match s:\n    case [m1, *m2]: pass\n    case {'k': m3, **m4}: pass\n    case P(x=m5) as m6: pass",
    "async def co():\n    async for af in g: pass\n    async with g as aw: pass",
    "x[idx] = 1", "obj.attr = 2", "print(name)",
]
if sys.version_info >= (3, 12):
    BINDINGS.append("def gen[T1, *T2, **T3](): pass")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(BINDINGS), min_size=1, max_size=8), st.integers(0, 2))
def test_bound_in_is_the_walk_of_every_node_over_generated_bodies(lines: list[str], depth: int) -> None:
    source = "\n".join(lines)
    for _ in range(depth):  # nested in an `if` and a `def`: a nested scope's bindings count too
        source = "if c:\n" + "\n".join("    " + line for line in source.splitlines())
        source = "def outer():\n" + "\n".join("    " + line for line in source.splitlines())
    tree = ast.parse(source)
    assert bound_in(tree.body) == _by_ast_walk(tree.body)


GLOBALS = """\
counter = 0


def bump():
    global counter
    counter += 1


def inner():
    def nested():
        global other
    if True:
        global counter
"""


def test_globals_are_kept_where_the_text_spells_global_and_not_looked_for_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    facts = graph_facts(GLOBALS.encode(), "m.py", "m", False)
    assert {f.name: f.globals for f in facts.functions} == {"bump": ("counter",), "inner": ("counter",), "inner.nested": ("other",)}
    walked: list[object] = []
    real = from_ast._globals

    def counted(body: list[ast.stmt]) -> tuple[str, ...]:
        walked.append(body)
        return real(body)

    monkeypatch.setattr(from_ast, "_globals", counted)
    without = GLOBALS.replace("global counter", "pass").replace("global other", "pass")
    assert all(f.globals == () for f in graph_facts(without.encode(), "m.py", "m", False).functions)
    assert walked == []  # no `global` in the text: no body walked for it
    graph_facts(GLOBALS.encode(), "m.py", "m", False)
    assert len(walked) == 3
