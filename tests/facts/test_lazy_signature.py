"""A function's body is walked for the names it binds again only when a call in it passes one
of its parameters on: most functions pass none, and the walk of every body was a third of the
extraction of a cold run over dependencies. What is kept is the same either way."""

from __future__ import annotations

import ast

import pytest

from import_policy.facts.cpython import from_ast
from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.facts.cst.from_cst import extract as cst_extract

SOURCE = """\
import importlib.util


def plain(a, b):
    x = a + b
    return len(str(x))


def forwards(name):
    return importlib.util.find_spec(name)


def rebinds(name):
    name = name.strip()
    return importlib.util.find_spec(name)


class C:
    def method(self, other):
        for item in other:
            print(item)
"""


def test_only_a_function_passing_a_parameter_on_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[str] = []
    bound_in = from_ast.bound_in

    def counting(body: list[ast.stmt]) -> set[str]:
        walked.append(type(body[-1]).__name__)
        return bound_in(body)

    monkeypatch.setattr(from_ast, "bound_in", counting)
    facts = graph_facts(SOURCE.encode(), "m.py", "m", False, lambda _: (lambda callee: True))
    # `forwards` and `rebinds` pass `name` on (`print(item)` passes no parameter): two bodies walked.
    assert walked == ["Return", "Return"]
    signatures = {f.name: f.signature for f in facts.functions}
    forwarded = signatures["forwards"]
    assert forwarded is not None and forwarded.positional == ("name",)
    assert signatures["plain"] is None and signatures["C.method"] is None
    assert signatures["rebinds"] is None  # bound again: it passes nothing on


def test_both_extractors_keep_the_same_signatures() -> None:
    ast_facts = graph_facts(SOURCE.encode(), "m.py", "m", False, lambda _: (lambda callee: True))
    cst = cst_extract(SOURCE.encode(), "m.py", "m", False)
    assert [(f.name, f.signature) for f in ast_facts.functions] == [(f.name, f.signature) for f in cst.functions]
