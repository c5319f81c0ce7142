"""The graph's pure parts on hand-built facts: guards, gateways, the graph."""

from __future__ import annotations


import pytest

from import_policy.graph.judge import Judge
from import_policy.graph.sites import through_gateway
from import_policy.config.model import Origin, RocmSafety
from import_policy.graph.question import Question
from import_policy.rocm.reachability import question_of
from import_policy.facts.records.model import (
    BoolOp, Branch, CallFact, Context, FileFacts, FunctionFact, ImportFact, Leaf, Not, Opaque, Span, Test,
)
from import_policy.graph.reach import Project
from import_policy.patterns import DottedPattern

GUARDS = ("TYPE_CHECKING", "is_cuda")
ROCM = RocmSafety(
    heavy_modules=(DottedPattern.compile("tilelang"),), probes=(("_has_module", "_has_module_spec"),),
    guards=GUARDS, files=(), entry_modules=("app",), origin=Origin("test", 1),
)
CUDA = Leaf("is_cuda", "current_platform.is_cuda", call=True, attribute=True)
TC = Leaf("TYPE_CHECKING", "typing.TYPE_CHECKING")
OTHER = Leaf("is_rocm", "current_platform.is_rocm")


def _question(rocm: RocmSafety) -> Question:
    return question_of(rocm, rocm.entry_modules)


def _judge(rocm: RocmSafety = ROCM) -> Judge:
    question = _question(rocm)
    return Judge(question.judged_on, Project.from_facts(question, []))


@pytest.mark.parametrize(
    ("test", "value"),
    [
        (CUDA, False), (TC, False), (OTHER, None), (Opaque(), None), (Not(CUDA), True),
        (BoolOp("and", (OTHER, CUDA)), False), (BoolOp("or", (TC, CUDA)), False), (BoolOp("or", (CUDA, OTHER)), None),
        (Leaf("is_cuda_alike", "p.is_cuda_alike"), None), (Leaf("_is_cuda", "_is_cuda"), False),
        # read without a call, an attribute of an object is its property (`tensor.is_cuda`): unknown
        (Leaf("is_cuda", "current_platform.is_cuda", attribute=True), None),
        (Leaf("is_cuda", "tensor.is_cuda", attribute=True), None),
        (Leaf("_is_cuda", "app.flags._is_cuda"), False),  # a name imported from a module
    ],
)
def test_conditions_are_three_valued(test: Test, value: bool | None) -> None:
    assert _judge().value(test, "m.py") is value


def test_else_of_a_guard_runs() -> None:
    judge = _judge()
    assert not judge.runs(Context(True, False, (Branch(CUDA, orelse=False),)), "m.py")
    assert judge.runs(Context(True, False, (Branch(CUDA, orelse=True),)), "m.py")
    assert not judge.runs(Context(True, False, (Branch(Not(CUDA), orelse=True),)), "m.py")
    assert not judge.runs(Context(True, True), "m.py")  # type-checking-only code never runs


def test_through_gateway() -> None:
    exports = {"vllm.tilelang_utils.tilelang": "tilelang", "vllm.tilelang_utils.T": "tilelang.language"}
    assert through_gateway("vllm.tilelang_utils.tilelang.jit", exports) == "tilelang.jit"
    assert through_gateway("vllm.tilelang_utils.T.prim_func", exports) == "tilelang.language.prim_func"
    assert through_gateway("functools.cache", exports) == "functools.cache"


SPAN = Span(1, 1, 1, 2)
MODULE_LEVEL = Context(True, False)


def _import(name: str, line: int = 1, context: Context = MODULE_LEVEL) -> ImportFact:
    span = Span(line, 1, line, 2)
    return ImportFact("import", name, name, None, name.split(".")[0], span, span, line, line, context)


def test_graph_follows_calls_across_modules_and_reexports() -> None:
    in_fn = Context(False, False, function="has_x")
    files = [
        FileFacts("app/__init__.py", "app", True, imports=(_import("app.mhc"),)),
        FileFacts(
            "app/mhc.py", "app.mhc", False,
            imports=(ImportFact("from", "app.utils.has_x", "app.utils", "has_x", "has_x", SPAN, SPAN, 1, 1, MODULE_LEVEL),),
            calls=(CallFact("app.utils.has_x", "has_x", None, Span(3, 5, 3, 12), 3, MODULE_LEVEL),),
        ),
        # app/utils/__init__.py re-exports has_x from app.utils.impl
        FileFacts(
            "app/utils/__init__.py", "app.utils", True,
            imports=(ImportFact("from", "app.utils.impl.has_x", "app.utils.impl", "has_x", "has_x", SPAN, SPAN, 1, 1, MODULE_LEVEL),),
        ),
        FileFacts(
            "app/utils/impl.py", "app.utils.impl", False,
            calls=(CallFact("_has_module", "_has_module", "tilelang", Span(2, 12, 2, 35), 2, in_fn),),
            functions=(FunctionFact("has_x", 1, MODULE_LEVEL),),
        ),
    ]
    project = Project.from_facts(_question(ROCM), files)
    [(chain, site)] = list(project.reachable_sites("app"))
    assert chain.modules == ("app", "app.mhc", "tilelang")
    assert (site.path, site.span.line, site.kind, site.detail) == ("app/mhc.py", 3, "call", 'has_x() -> _has_module("tilelang")')


def test_graph_ignores_stubs_and_broken_files() -> None:
    files = [
        FileFacts("app/__init__.pyi", "app", True, imports=(_import("tilelang"),)),
        FileFacts("app/x.py", "app.x", False, imports=(_import("tilelang"),)),
    ]
    project = Project.from_facts(_question(ROCM), files)
    assert project.sites("app/__init__.pyi") == []
    assert [s.heavy for s in project.sites("app/x.py")] == ["tilelang"]
    assert project.why("app", "tilelang") is None  # app has no .py file


def test_recursive_functions_terminate() -> None:
    a = Context(False, False, function="a")
    b = Context(False, False, function="b")
    facts = FileFacts(
        "m.py", "m", False,
        calls=(
            CallFact("b", "b", None, SPAN, 1, a), CallFact("a", "a", None, SPAN, 2, b),
            CallFact("a", "a", None, Span(5, 1, 5, 4), 5, MODULE_LEVEL),
        ),
        functions=(FunctionFact("a", 1, MODULE_LEVEL), FunctionFact("b", 2, MODULE_LEVEL)),
    )
    assert Project.from_facts(_question(ROCM), [facts]).sites("m.py") == []
