"""CPython's `ast` and libcst give the same facts (uses aside) on every fixture.

The ROCm pass reads its graph facts through `facts.fast`; the import rules and
the fixer read libcst's. These tests hold the two to the same imports, calls,
decorators, functions, contexts and spans, or `facts.fast` to handing the file
back to libcst (None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from import_policy.facts.cpython import from_ast as fast
from import_policy.facts.cst.from_cst import extract as libcst_extract
from import_policy.facts.records.kept import is_kept, kept_calls
from import_policy.facts.records.model import FileFacts

from fuzz_support import UseItem, cases, render, use_items, use_program
from corner_cases import TRICKY

REPO = Path(__file__).resolve().parents[2]



def _params() -> list[object]:
    """Every source, the repository's own files marked slow: together they take minutes."""
    return [
        pytest.param(name, source, id=name, marks=[pytest.mark.slow] if "/" in name else [])
        for name, source in _sources()
    ]


def _sources() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for folder in ("src", "tests", "examples", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            found.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
    for preset in sorted((REPO / "rules").glob("*.yaml")):
        for rule in yaml.safe_load(preset.read_text(encoding="utf-8")).get("rules", []):
            examples = rule.get("examples") or {}
            for kind in ("flag", "allow"):
                for index, snippet in enumerate(examples.get(kind, [])):
                    if not rule.get("kind", "import") == "import" or rule.get("include") or rule.get("tokens"):
                        continue
                    found.append((f"{preset.name}:{rule['id']}:{kind}{index}", snippet))
    found.extend((f"tricky{index}", source) for index, source in enumerate(TRICKY))
    return found


def _agree(source: bytes, module: str = "pkg.sub.mod", is_package: bool = False) -> None:
    ours = fast.extract(source, "pkg/sub/mod.py", module, is_package)
    theirs = libcst_extract(source, "pkg/sub/mod.py", module, is_package)
    if ours is None:
        return  # handed back to libcst: nothing to disagree on
    if theirs.syntax_error is not None or ours.syntax_error is not None:
        # CPython decides syntax in both (libcst's parse runs only after CPython's check).
        assert (ours.syntax_error is None) == (theirs.syntax_error is None) or theirs.syntax_error is not None
        return
    for field in (
        "imports", "calls", "decorators", "functions", "classes", "assigns", "returns", "scans", "attributes", "suppressions",
    ):
        assert getattr(ours, field) == getattr(theirs, field), field


def _as_python_saved_it(source: str) -> bytes:
    """The bytes of a snippet: a latin-1 cookie in its first two lines (PEP 263) says how;
    a cookie further down, say inside a test's string, is only text."""
    head = "\n".join(source.split("\n")[:2])
    return source.encode("latin-1") if "coding: latin-1" in head else source.encode("utf-8")


@pytest.mark.parametrize(("name", "source"), _params())
def test_fast_facts_agree_with_libcst(name: str, source: str) -> None:
    data = _as_python_saved_it(source)
    _agree(data)
    _agree(data, module="pkg", is_package=True)


def _keeps(facts: FileFacts) -> Callable[[str], bool]:
    """A reader that keeps the calls of this file's functions and of the `pkg` package."""
    local = {function.name for function in facts.functions}
    return lambda callee: callee in local or callee.partition(".")[0] == "pkg"


@pytest.mark.parametrize(("name", "source"), _params())
def test_a_reader_that_keeps_some_calls_gets_the_same_facts_with_those_calls(name: str, source: str) -> None:
    """The ROCm pass's records are extracted with only the calls it keeps (`GraphPlan.keeps`):
    everything else as the whole extraction gives it, from CPython's parse or libcst's."""
    data = _as_python_saved_it(source)
    whole = fast.extract(data, "pkg/sub/mod.py", "pkg.sub.mod", False)
    if whole is None:
        whole = libcst_extract(data, "pkg/sub/mod.py", "pkg.sub.mod", False)
    lean = fast.graph_facts(data, "pkg/sub/mod.py", "pkg.sub.mod", False, _keeps)
    assert lean == kept_calls(whole, _keeps)
    assert all(is_kept(call.callee, call.first_string, call.arguments, _keeps(whole)) for call in lean.calls)


@pytest.mark.parametrize(("name", "source"), _params())
def test_the_imports_only_record_holds_the_whole_extractions_import_statements(name: str, source: str) -> None:
    """A graph whose every question reads an import statement as an edge (`scope: any`)
    keeps the imports alone, walked without reading any expression: each import statement's
    fact as the whole extraction gives it (no dynamic imports, no probe or caught flags: no
    such graph reads them)."""
    data = _as_python_saved_it(source)
    whole = fast.graph_facts(data, "pkg/sub/mod.py", "pkg.sub.mod", False)
    lean = fast.graph_facts(data, "pkg/sub/mod.py", "pkg.sub.mod", False, imports_only=True)
    plain = lambda facts: [replace(f, probe=False, caught=False) for f in facts.imports if f.kind != "dynamic"]  # noqa: E731
    assert plain(lean) == plain(whole)
    assert (lean.escapes, lean.suppressions, lean.syntax_error) == (whole.escapes, whole.suppressions, whole.syntax_error)
    assert not (lean.calls or lean.functions or lean.classes or lean.assigns or lean.reads or lean.attributes)


@pytest.mark.parametrize("source", [TRICKY[1], TRICKY[10]])
def test_spellings_ast_cannot_place_go_back_to_libcst(source: str) -> None:
    assert fast.extract(source.encode(), "m.py", "m", False) is None


def test_most_tricky_sources_stay_on_the_fast_path() -> None:
    handled = [source for source in TRICKY if fast.extract(source.encode("utf-8"), "m.py", "m", False) is not None]
    assert len(handled) >= len(TRICKY) - 5  # white space inside a dotted name: `ast` does not place it


# Identifiers in letters whose NFKC form Python binds them by (PEP 3131): fullwidth letters (one
# letter for one), so the facts must be those of the NFKC text, spans and all.
_P, _T, _C, _L, _N, _D = "\uff50", "\uff54", "\uff43", "\uff4c", "\uff2e", "\uff44"
NFKC_SPELLINGS = [
    f"import {_P}ickle\nimport os, {_P}ickle as {_P}\n{_P}.loads(x)\np.dumps(y)\n",
    f"from {_P}ickle import {_L}oads, dumps as {_D}\nfrom .{_P}kg import x\nfrom torch.{_C}uda import *\n",
    f"import torch.{_C}uda\n{_T}orch.cuda.synchronize()\ntorch.{_C}uda.synchronize()\n",
    f"import torch.cuda as tc\ndef f():\n    {_T}c.synchronize()\n    return {_T}c\n",
    f"@{_T}orch.compile\ndef {_D}o_it():\n    pass\nclass {_C}(object):\n    @staticmethod\n    def m(): ...\n",
    f"from vllm.platforms import current_platform as {_C}p\nif {_C}p.is_rocm():\n    import tilelang\n",
    f"import torch\nIS_HIP = {_T}orch.version.hip is not {_N}one\nif IS_HIP:\n    import tilelang\n",
    f"import os\nDEV = os.environ.get('D')\nif {_D}EV == 'rocm':\n    import tilelang\n",
    f"import importlib\n{_C} = importlib.import_module('pickle')\nimport{_L}ib = 1\n",
    f"__{_L}azy_modules__ = ['json']\nimport json\nprint(json.dumps)\n",
    f"try:\n    import {_T}riton\nexcept ImportError:\n    triton = None\n",
    f"s = f'{{{_T}orch.cuda.x()}}'\n",
]
# Names NFKC gives another length: the spans are the source's, before and after them on the line.
_FI = "\ufb01"  # LATIN SMALL LIGATURE FI
NFKC_RESIZED = [
    f"import {_FI}tz\nimport os; import {_FI}tz, {_P}ickle as {_FI}\n",
    f"import torch, fitz\nx = {_FI}tz; torch.cuda.synchronize(); {_FI}tz.open(f)\n",
    f"import fitz\n{_FI}tz.a({_FI}tz.b, ({_FI}tz).c)\n",
    f"import fitz\nx = (\n    {_FI}tz\n).y(); fitz.z()\n",
    "import fitz\ne\u0301 = 1; fitz.open(f)\n",  # a letter and a combining accent: one letter in NFKC
]


def _spanless(facts: object) -> dict[str, object]:
    """The facts with every span and column dropped: what a name's spelling may move."""
    import dataclasses

    def strip(value: object) -> object:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return tuple(strip(getattr(value, f.name)) for f in dataclasses.fields(value) if "span" not in f.name)
        if isinstance(value, tuple):
            return tuple(strip(item) for item in value)
        return value

    fields = ("imports", "calls", "decorators", "functions", "assigns", "returns", "reads")
    return {field: strip(getattr(facts, field)) for field in fields}


@pytest.mark.parametrize("source", NFKC_SPELLINGS)
def test_both_extractors_read_identifiers_in_nfkc_form(source: str) -> None:
    import unicodedata

    normal = unicodedata.normalize("NFKC", source).encode()
    data = source.encode()
    ours = fast.rule_facts(data, "pkg/sub/mod.py", "pkg.sub.mod", False, _every_use)
    theirs = libcst_extract(data, "pkg/sub/mod.py", "pkg.sub.mod", False, want_uses=True, use_gate=_every_use)
    assert ours is not None, "CPython's extractor handed the file to libcst"
    assert ours.syntax_error is None
    # Python reads the file as its NFKC text: the same facts, each span where it was
    expected = libcst_extract(normal, "pkg/sub/mod.py", "pkg.sub.mod", False, want_uses=True, use_gate=_every_use)
    for field in ("imports", "calls", "decorators", "functions", "assigns", "returns", "reads", "uses"):
        assert getattr(ours, field) == getattr(expected, field), field
        assert getattr(theirs, field) == getattr(expected, field), field
    _agree(data)
    _agree(data, module="pkg", is_package=True)


@pytest.mark.parametrize("source", NFKC_RESIZED)
def test_names_nfkc_resizes_keep_the_source_columns(source: str) -> None:
    import unicodedata

    def nfkc(text: str) -> str:
        return unicodedata.normalize("NFKC", text)

    data, normal = source.encode(), nfkc(source)
    ours = fast.rule_facts(data, "m.py", "m", False, _every_use)
    theirs = libcst_extract(data, "m.py", "m", False, want_uses=True, use_gate=_every_use)
    expected = libcst_extract(normal.encode(), "m.py", "m", False, True, _every_use)
    assert ours is not None
    lines, normal_lines = source.split("\n"), normal.split("\n")
    for facts in (ours, theirs):
        assert _spanless(facts) == _spanless(expected)
        assert [u.qualified_names for u in facts.uses] == [u.qualified_names for u in expected.uses]
        for field in ("imports", "calls", "decorators", "uses", "reads"):
            for got, want in zip(getattr(facts, field), getattr(expected, field)):
                # the span covers the spelling of what the NFKC text has at the expected span
                (a, b), (c, d) = (got.span.line, got.span.end_line), (want.span.line, want.span.end_line)
                assert (a, b) == (c, d), field
                assert nfkc(lines[a - 1][got.span.column - 1 :]) == normal_lines[c - 1][want.span.column - 1 :], field
                assert nfkc(lines[b - 1][: got.span.end_column - 1]) == normal_lines[d - 1][: want.span.end_column - 1]
    for field in ("imports", "calls", "decorators", "uses"):
        assert getattr(ours, field) == getattr(theirs, field), field


def test_a_file_cpython_refuses_is_a_syntax_error() -> None:
    facts = fast.extract(b"import (\n", "m.py", "m", False)
    assert facts is not None and facts.syntax_error is not None and facts.imports == ()


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_fast_facts_agree_on_generated_programs(case: object) -> None:
    source, _ = render(case)  # type: ignore[arg-type]
    _agree(source.encode("utf-8"))


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(TRICKY), st.integers(min_value=0, max_value=3))
def test_fast_facts_agree_when_indented_in_a_function(source: str, depth: int) -> None:
    body = "".join("    " * depth + line + "\n" for line in source.splitlines())
    wrapped = "".join("    " * level + f"def f{level}():\n" for level in range(depth)) + (body or "pass\n")
    _agree(wrapped.encode("utf-8"))


# --- uses: CPython's resolver (facts.uses_ast) against libcst's scope analysis -----------


def _every_use(name: str, imported: object) -> bool:
    return True


def _uses_of_both(source: bytes, module: str = "pkg.sub.mod", is_package: bool = False) -> tuple[object, object] | None:
    """(CPython's uses, libcst's uses) with every chain rooted at an imported name let through;
    None when CPython's extractor hands the file to libcst or CPython refuses it."""
    ours = fast.rule_facts(source, "pkg/sub/mod.py", module, is_package, _every_use)
    theirs = libcst_extract(source, "pkg/sub/mod.py", module, is_package, want_uses=True, use_gate=_every_use)
    if ours is None or theirs.syntax_error is not None or ours.syntax_error is not None:
        return None
    for field in ("imports", "calls", "decorators", "functions", "suppressions"):
        assert getattr(ours, field) == getattr(theirs, field), field
    return ours.uses, theirs.uses


def _agree_uses(source: bytes, **where: object) -> None:
    both = _uses_of_both(source, **where)  # type: ignore[arg-type]
    if both is not None:
        assert both[0] == both[1]


@pytest.mark.parametrize(("name", "source"), _params())
def test_uses_agree_with_libcst(name: str, source: str) -> None:
    data = _as_python_saved_it(source)
    _agree_uses(data)
    _agree_uses(data, module="pkg", is_package=True)


SCOPE_CORNERS = [
    # rebound after the import, in the module and in a function; used before and after
    "import torch.cuda as tc\ntc.synchronize()\ndef f():\n    tc.synchronize()\n    tc = 1\n    tc.x\ntc\n",
    # comprehensions: the target is local, the first iterable is evaluated outside
    "import torch.cuda as tc\nx = [tc for tc in range(3)]\ny = [tc.a for _ in tc.b]\n"
    "z = {k: tc.c for k in tc.d}\ng = (tc.e for tc in tc.f)\n",
    # a class body binds the name first; its methods do not see class names
    "import torch.cuda as tc\nclass C:\n    tc = tc\n    def m(self):\n        return tc.synchronize()\n"
    "    q = [tc.z for i in range(2)]\n",
    # nonlocal and global
    "def f():\n    import torch.cuda as tc\n    def g():\n        nonlocal tc\n        tc.x\n        tc = 2\n"
    "    def h():\n        global tc\n        tc.y\n    return tc.z\ntc.w\n",
    "def f():\n    global tc\n    import torch.cuda as tc\ndef g():\n    tc.synchronize()\ntc.synchronize()\n",
    "def f():\n    global torch\n    import torch.cuda\ndef g():\n    torch.cuda.synchronize()\n",
    # a statement binding several names, and relative imports keep their dots (as libcst's do)
    "import os, os.path\nos.path.join()\nos.getcwd()\nos\nfrom . import a, b as c\nfrom ..m import d\n"
    "from .x.y import e as f\na.q; c.r; d.s; f.t\n",
    # dotted imports: the longest prefix the scope binds
    "import a.b.c\na.b.c.d\na.b.x\na.y\na\na.b\na.b.c\n",
    "import a.b\ndef f():\n    import a\n    a.b.x\n",
    # alternatives: every binding counts
    "try:\n    import torch.cuda as tc\nexcept ImportError:\n    tc = None\ntc.synchronize()\ntc\n",
    "import torch.cuda as tc\nwith open(x) as tc:\n    tc.read()\nfor tc in []:\n    tc.q\ntc\ndel tc\n",
    # lambdas, defaults, annotations, decorators
    "import torch.cuda as tc\nf = lambda tc=tc: tc.x\ng = lambda: tc.y\n@tc.deco\n"
    "def k(a: tc.T = tc.D) -> tc.R:\n    return a\n",
    "from __future__ import annotations\nimport torch.cuda as tc\ndef f(a: tc.A) -> tc.B:\n    x: tc.C = 1\n    return x\n",
    # f-strings, spacing, parentheses, continuation lines
    "import torch.cuda as tc\ns = f\"{tc.x} and {tc.y(1)}\"\nt = f\"{tc!r:>{tc.w}}\"\n",
    "import torch.cuda as tc\n(tc).synchronize()\n(tc.synchronize)()\n( tc . synchronize )\n"
    "tc.\\\n  synchronize()\nx = (tc\n     .synchronize)\n",
    # augmented assignment binds; subscripts and calls stop a chain
    "import torch.cuda as tc\ntc += 1\ntc.x += 1\ntc[0] = 1\nprint(tc)\ntc().x\ntc[0].y\n",
    # annotations in strings are not uses
    "import typing\nfrom torch import Tensor as T\nx: \"T\" = 1\ny: T.z = 2\ndef f(a: \"T.q\") -> T.r: ...\n"
    "typing.cast(T.w, x)\n",
    # a method named like the module; a function importing after its use
    "import torch\nclass A:\n    def torch(self): pass\n    x = torch.cuda.synchronize\n"
    "def g():\n    torch.cuda.synchronize()\n    import torch\n",
    "import torch.cuda as tc\ntry:\n    pass\nexcept tc.E as tc:\n    tc.q\ntc.r\n",
    # star imports bind nothing the resolvers know of
    "from torch.cuda import *\nfrom m import tc\nsynchronize()\ntc.x\n",
    # a name local to a comprehension inside a class inside a function
    "def f():\n    import torch.cuda as tc\n    class C:\n        tc = 1\n        y = [tc.q for _ in ()]\n    return C\n",
]

# Where the two disagree, CPython's scoping is the language's: each line says why libcst errs.
# (source, the (line, qualified names) CPython gives, the same from libcst)
LIBCST_ERRS = [
    # the parameter `torch` shadows the module in f: `torch.cuda` there is the argument's
    ("import torch\nimport torch.cuda\ndef f(torch=None):\n    torch.cuda.synchronize()\n",
     [], [(4, ("torch.cuda.synchronize",))]),
    # a class body runs top to bottom: before `torch = 1` the name is the module's
    ("import torch\nclass A:\n    torch.cuda.synchronize()\n    torch = 1\n",
     [(3, ("torch.cuda.synchronize",))], []),
    # a capture pattern binds the name, and a keyword pattern names an attribute: neither is a use
    ("import torch.cuda as tc\nmatch x:\n    case {'k': tc}:\n        pass\n    case P(tc=1):\n        pass\n",
     [], [(3, ("torch.cuda",)), (5, ("torch.cuda",))]),
    # a walrus in a comprehension binds in the enclosing function: `tc` is local to f
    ("import torch.cuda as tc\ndef f():\n    y = [(tc := 1) for _ in ()]\n    return tc.c\n",
     [], [(4, ("torch.cuda.c",))]),
    # a class body does not see the names of the class around it
    ("class A:\n    import torch.cuda as tc\n    class B:\n        x = tc\n        tc = 1\n",
     [], [(4, ("torch.cuda",))]),
    # `del` makes the name local to f
    ("import torch.cuda as tc\ndef f():\n    tc.synchronize()\n    del tc\n",
     [], [(3, ("torch.cuda.synchronize",)), (4, ("torch.cuda",))]),
]


def _lines(uses: object) -> list[tuple[int, tuple[str, ...]]]:
    return [(use.span.line, use.qualified_names) for use in uses]  # type: ignore[attr-defined]


@pytest.mark.parametrize("source", SCOPE_CORNERS)
def test_uses_agree_on_scope_corners(source: str) -> None:
    both = _uses_of_both(source.encode())
    assert both is not None, "CPython's extractor handed the file to libcst"
    assert both[0] == both[1]
    wrapped = "def outer():\n" + "".join("    " + line + "\n" for line in source.splitlines())
    _agree_uses(wrapped.encode())


@pytest.mark.parametrize(("source", "cpython", "libcst"), LIBCST_ERRS)
def test_where_libcst_errs_cpython_scoping_decides(
    source: str, cpython: list[tuple[int, tuple[str, ...]]], libcst: list[tuple[int, tuple[str, ...]]]
) -> None:
    both = _uses_of_both(source.encode())
    assert both is not None
    assert (_lines(both[0]), _lines(both[1])) == (cpython, libcst)


def test_uses_are_resolved_without_libcst() -> None:
    source = b"import torch.cuda as tc\ndef f():\n    tc.synchronize()\n"
    facts = fast.rule_facts(source, "m.py", "m", False, _every_use)
    assert facts is not None
    assert _lines(facts.uses) == [(3, ("torch.cuda.synchronize",))]


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(use_items())
def test_uses_agree_on_generated_programs(items: tuple[UseItem, ...]) -> None:
    source = use_program(items)
    try:
        compile(source, "m.py", "exec")
    except SyntaxError:
        assume(False)
    _agree_uses(source.encode())
