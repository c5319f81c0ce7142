"""Facts cost only what a file needs: scope analysis runs only when a use could be judged."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

from import_policy.policy.load import load
from import_policy.kinds.imports import ImportRule
from import_policy.kinds.imports import use_gate
from import_policy.facts.cst.from_cst import extract

RULES = """\
version: 1
rules:
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: re-regex
    forbid: [re]
    except: [re._constants]
"""


@pytest.fixture
def rules(tmp_path: Path) -> list[ImportRule]:
    (tmp_path / "import-policy.yaml").write_text(RULES, encoding="utf-8")
    policy = load(None, tmp_path).policy
    return [rule for rule in policy.rules if isinstance(rule, ImportRule)]


@pytest.fixture
def scope_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    resolve = MetadataWrapper.resolve

    def counting(self: MetadataWrapper, provider: object) -> object:
        if provider is ScopeProvider:
            calls.append(1)
        return resolve(self, provider)  # type: ignore[arg-type]

    monkeypatch.setattr(MetadataWrapper, "resolve", counting)
    return calls


@pytest.mark.parametrize(
    ("source", "uses", "scoped"),
    [
        # nothing a rule could judge: no scope analysis at all
        ("import torch\ntorch.ones(1)\nimport regex as re\nre.compile('x')\n", [], False),
        # the import itself is judged, so its uses need no analysis
        ("import re\nre.compile('x')\n", [], False),
        # through an alias, a plain import and a function-level import
        ("import torch as t\nt.cuda.synchronize()\n", [("t", ("torch.cuda.synchronize",))], True),
        ("import torch\ntorch.cuda.synchronize()\n", [("torch", ("torch.cuda.synchronize",))], True),
        ("def f():\n    from torch import cuda\n    cuda.synchronize()\n", [("cuda", ("torch.cuda.synchronize",))], True),
        # an except entry could decide: the stale-allowlist tracker must see it
        ("import re\nre._constants.MAXREPEAT\n", [("re", ("re._constants.MAXREPEAT",))], True),
    ],
)
def test_scope_analysis_only_when_a_use_could_be_judged(
    rules: list[ImportRule], scope_runs: list[int], source: str, uses: list[tuple[str, tuple[str, ...]]], scoped: bool
) -> None:
    facts = extract(source.encode(), "m.py", "m", False, want_uses=True, use_gate=use_gate(rules))
    assert [(u.root, u.qualified_names) for u in facts.uses] == uses
    assert bool(scope_runs) == scoped


def test_without_a_gate_every_use_is_recorded(rules: list[ImportRule]) -> None:
    facts = extract(b"import torch\ntorch.ones(1)\n", "m.py", "m", False, want_uses=True)
    assert [(u.root, u.qualified_names) for u in facts.uses] == [("torch", ("torch.ones",))]


def _parameters_as_four_walks(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str | None, ...]:
    """The reading `_parameters` had before it walked each body once: the oracle."""
    rebound = {
        name.id for inner in node.body for name in ast.walk(inner)
        if isinstance(name, ast.Name) and not isinstance(name.ctx, ast.Load)
    } | {
        str(bound) for inner in node.body for scoped in ast.walk(inner)
        for bound in getattr(scoped, "names", ()) if isinstance(bound, str)
    } | {
        scoped.name for inner in node.body for scoped in ast.walk(inner)
        if isinstance(scoped, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and scoped.name
    } | {
        (alias.asname or alias.name).partition(".")[0] for inner in node.body for alias in ast.walk(inner)
        if isinstance(alias, ast.alias)
    }
    return tuple(None if a.arg in rebound else a.arg for a in [*node.args.posonlyargs, *node.args.args])


PARAMETERS = '''
def plain(a, b, /, c, *d, e, **f):
    return find_spec(a)
def rebinds(a, b, c, d, e, f, g, h, i, j):
    a = 1
    for b in x: pass
    global c
    def d(): nonlocal e
    class f: pass
    import g.h as h
    import i.j
    try: pass
    except E as j: pass
    match y:
        case [k, *rest] | {"z": k as kk}: pass
    return find_spec(h)
async def nested(a, k, rest, kk, i):
    def inner(b):
        a = b
        return find_spec(b)
    return [k for k in ()]
def none(*args, **kw):
    return args
'''


def test_parameters_walk_each_body_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parameters a body binds again, as the four walks read them, from one walk per body
    (a file of many nested functions spent most of its check in these walks)."""
    from import_policy.facts.cpython import from_ast

    tree = ast.parse(PARAMETERS)
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    expected = [_parameters_as_four_walks(node) for node in functions]
    walked: list[int] = []
    walk = ast.walk

    def counting(node: ast.AST) -> Iterator[ast.AST]:
        for child in walk(node):
            walked.append(1)
            yield child

    monkeypatch.setattr(ast, "walk", counting)
    assert [from_ast._parameters(node) for node in functions] == expected
    assert expected[1] == (None,) * 6 + ("g",) + (None,) * 3 and expected[0] == ("a", "b", "c")  # `import g.h as h` binds h
    bodies = sum(1 for node in functions for inner in node.body for _ in walk(inner) if node.args.args or node.args.posonlyargs)
    assert len(walked) == bodies
