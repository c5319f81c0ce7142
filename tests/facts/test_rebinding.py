"""Which parameters a function body binds again: one table (facts.shared.rebinding) that both
extractors read, so a literal passed to a parameter is followed only where the parameter still
holds it, and the two agree on every row."""

from __future__ import annotations

import sys

import pytest

from import_policy.facts.cpython.from_ast import extract as ast_extract
from import_policy.facts.cst.from_cst import extract as cst_extract
from import_policy.facts.records.model import Argument
from import_policy.facts.shared.rebinding import REBINDING

# One statement per row of the table, each binding `n` again in the body.
REBINDS = {
    "assignment": "n = 'json.decoder'",
    "annotated assignment": "n: str = 'json.decoder'",
    "augmented assignment": "n += ''",
    "for loop": "for n in (): pass",
    "comprehension": "[n for n in ()]",
    "assignment expression": "(n := 'json.decoder')",
    "del": "del n",
    "with ... as": "with open('x') as n: pass",
    "except ... as": "try:\n        pass\n    except OSError as n:\n        pass",
    "import": "import n.path",
    "global, nonlocal": "def inner():\n        global n",
    "def, class": "class n: pass",
    "nested def's parameters": "def inner(n): pass",
    "lambda's parameters": "inner = lambda n: n",
    "case ... as, case *rest": "match ():\n        case [*n]: pass",
    "case {**rest}": "match {}:\n        case {**n}: pass",
    "type parameter": "def inner[n](): pass",
}
SOURCE = "import importlib.util\n\n\ndef f(n):\n    {statement}\n    importlib.util.find_spec(n)\n\n\ndef g(kind, n):\n    importlib.util.find_spec(n)\n"


def test_every_row_of_the_table_has_a_case() -> None:
    assert sorted(REBINDS) == sorted(row.what for row in REBINDING)


@pytest.mark.parametrize("what", sorted(REBINDS))
def test_a_parameter_bound_again_is_never_passed_on_by_either_extractor(what: str) -> None:
    if what == "type parameter" and sys.version_info < (3, 12):
        pytest.skip("PEP 695 syntax")
    source = SOURCE.replace("{statement}", REBINDS[what]).encode()
    compile(source, "m.py", "exec")
    for extract in (ast_extract, cst_extract):
        facts = extract(source, "pkg/m.py", "pkg.m", False)
        assert facts is not None
        spec = {call.context.function: call.arguments for call in facts.calls if call.callee == "importlib.util.find_spec"}
        assert spec == {"f": (), "g": (Argument(0, "n", True),)}, (extract, what)
        signatures = {function.name: function.signature for function in facts.functions}
        assert signatures["f"] is None and signatures["g"] is not None
        assert signatures["g"].positional == ("kind", "n")
