"""The binding that ran last, as a property: whatever sequence of module-level bindings,
`if`s, `try:`s, `del`s and dict entries a module runs before it reads a flag, the pass never
leaves out an import that some run of that module executes on ROCm.

Each generated module is run (exec, in-process) for every value of the names the pass cannot
know (`x`, `y`), with `is_cuda()` false and `is_hip()` true as on ROCm; where any run imports
`tilelang`, the pass must report the import.
"""

from __future__ import annotations

import builtins
import itertools

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from import_policy.config.model import Origin, RocmSafety
from import_policy.facts.cpython.from_ast import graph_facts
from import_policy.graph.reach import Project
from import_policy.patterns import DottedPattern
from import_policy.rocm.reachability import question_of

ROCM = RocmSafety(
    heavy_modules=(DottedPattern.compile("tilelang"),), probes=(), guards=("is_cuda",), rocm=("is_hip",),
    files=(), entry_modules=("app",), origin=Origin("test", 1),
)
VALUES = ["is_cuda()", "is_hip()", "x", "y", "not x", "True and x"]
TESTS = ["x", "y", "is_cuda()", "is_hip()", "not y"]


@st.composite
def modules(draw: st.DrawFn) -> str:
    """Statements binding `ON` (or `env["k"]`), then a read that imports tilelang."""
    subscript = draw(st.booleans())
    name = 'env["k"]' if subscript else "ON"
    lines = ["env = {}"] if subscript else []
    for _ in range(draw(st.integers(1, 4))):
        value = draw(st.sampled_from(VALUES))
        shape = draw(st.sampled_from(["plain", "if", "else", "try", "except", "del", "display"]))
        test = draw(st.sampled_from(TESTS))
        if shape == "plain":
            lines.append(f"{name} = {value}")
        elif shape == "if":
            lines += [f"if {test}:", f"    {name} = {value}"]
        elif shape == "else":
            lines += [f"if {test}:", "    pass", "else:", f"    {name} = {value}"]
        elif shape == "try":
            lines += ["try:", f"    if {test}:", "        raise ImportError", f"    {name} = {value}", "except ImportError:", "    pass"]
        elif shape == "except":
            lines += ["try:", f"    if {test}:", "        raise ImportError", "except ImportError:", f"    {name} = {value}"]
        elif shape == "del":
            lines += [f"if {test}:", f"    del {name}"] if draw(st.booleans()) else [f"del {name}"]
        elif subscript:
            lines.append(f'env = {{"k": {value}}}')
    read = name if draw(st.booleans()) else f"not {name}"
    lines += [f"if {read}:", "    import tilelang"]
    return "\n".join(lines) + "\n"


def _imports_tilelang(source: str) -> bool:
    """Whether some run of the module, for some value of x and y, imports tilelang on ROCm."""
    for x, y in itertools.product((False, True), repeat=2):
        loaded: list[str] = []

        def fake_import(name: str, *args: object, **kwargs: object) -> object:
            loaded.append(name)
            return None

        scope = {
            "__builtins__": {**vars(builtins), "__import__": fake_import},
            "x": x, "y": y, "is_cuda": lambda: False, "is_hip": lambda: True,
        }
        try:
            exec(compile(source, "app/__init__.py", "exec"), scope)
        except (NameError, KeyError, ImportError):
            pass  # the module fails there: what it imported before still counts
        if "tilelang" in loaded:
            return True
    return False


def _check(source: str) -> None:
    facts = graph_facts(source.encode(), "app/__init__.py", "app", True)
    reported = bool(Project.from_facts(question_of(ROCM, ROCM.entry_modules), [facts]).sites("app/__init__.py"))
    if _imports_tilelang(source):
        assert reported, source


@settings(max_examples=120)
@given(modules())
def test_the_pass_never_leaves_out_an_import_a_run_executes(source: str) -> None:
    _check(source)


@pytest.mark.slow
@settings(max_examples=600)
@given(modules())
def test_the_pass_never_leaves_out_an_import_a_run_executes_many(source: str) -> None:
    _check(source)
