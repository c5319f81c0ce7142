"""CPython's `ast` and libcst give the same facts (uses aside) on every fixture (issue 7, means 5).

The ROCm pass reads its graph facts through `facts.fast`; the import rules and
the fixer read libcst's. These tests hold the two to the same imports, calls,
decorators, functions, contexts and spans, or `facts.fast` to handing the file
back to libcst (None).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.facts import from_ast as fast
from import_policy.facts.from_cst import extract as libcst_extract

from fuzz_support import cases, render

REPO = Path(__file__).resolve().parents[2]

TRICKY = [
    "import os, triton\nimport a.b.c as d\nfrom . import x\nfrom .. import y as z\nfrom ...pkg.mod import (\n    p,\n    q as r,\n)\n",
    "from .import x\nfrom . mod import y\nimport a . b\nfrom\\\n  m import n\n",
    "import a; import b\nx = 1; from c import d\nif x: import e; import f\nelse: import g\n",
    "a = 1; \\\n  import b\n",
    "try:\n    import triton\nexcept ImportError:\n    triton = None\nelse:\n    pass\nfinally:\n    import g\n",
    "if TYPE_CHECKING:\n    import t\nelif is_cuda() and not x.y or z:\n    import u\nelse:\n    if w:\n        import v\n",
    "if a and b and c or (d and e) and not f():\n    import x\n",
    "from typing import TYPE_CHECKING as TC\nif TC:\n    import h\n",
    "@triton.jit\ndef k(x=f(), *a, y: g() = h(), **kw) -> r():\n    import inside\n    return lambda q=l(): m()\n",
    "@ dec(1)\n@a.b.c\nclass C(Base, metaclass=M):\n    x = f()\n    def m(self):\n        g()\n    @staticmethod\n    async def n():\n        await h()\n",
    "@(paren)\ndef p(): pass\n",
    "import importlib\nm = importlib.import_module('triton.language')\n__import__(\"tilelang\")\nimport_module('.rel')\nimportlib.import_module(name)\n",
    "if True:\n    import t\nelif None.x or False():\n    pass\nx = (f(1))\ny = g((h(2)))\nz = 'a'.join(x)\nw = a().b()[0].c()\nv = q[0].r()\nf()()\n",
    "s = f'{g()} and {h(1)}'\nt = f'''\n{k()}\n'''\n",
    "x = [f(i) for i in g() if h(i)]\ny = {k(): v() for k in l()}\nz = a() if b() else c()\nd = {e(): f(), **g()}\n",
    "match x:\n    case {'k': 1} if f():\n        import m\n    case _:\n        g()\n",
    "with open(f()) as h, ctx():\n    import w\nfor i in it():\n    j()\nelse:\n    k()\nwhile c():\n    pass\n",
    "# -*- coding: latin-1 -*-\ns = '\xe9'; import a\n".encode("latin-1").decode("latin-1"),
    "x = 'é' + f('ü'); import ä.ö as ü\nclass Ä:\n    def ö(self): return g('ß')\n",
    "\ufeffimport bom\nf()\n",
    "import a\r\nif x:\r\n    import b\r\nf()\r\n",
    "def f():\n\tif x:\n\t\timport t\n\treturn g()\n",
    "from m import *\nfrom .n import *\n",
    "x = f(\n    'a'\n    'b',\n)\nimportlib.import_module(\n    'triton'\n    '.language'\n)\n",
    "def outer():\n    def inner():\n        import deep\n    class K:\n        def m(self):\n            import deeper\n",
    "async def a():\n    async with b() as c:\n        async for d in e():\n            import f\n",
    "try:\n    pass\nexcept* ValueError:\n    import g\n",
    "if x:\n    pass\nelse:\n    import y; import z\n",
    # ROCm facts: flags, returns, early exits, `__main__`, package walks
    "from p import is_hip\n_is_hip = is_hip()\na = b = is_cuda() and x\nc, (d, *e) = f()\nn: bool = not y\nn += 1\nclass K:\n    z = 1\nfor i, j in g():\n    pass\n",
    "def s():\n    if not is_cuda():\n        return False\n    elif q:\n        raise E\n    import t\n    if r: return\n    return x and y\n",
    "if __name__ == '__main__':\n    import m\nif '__main__' != __name__:\n    pass\nif __name__ == 'x':\n    pass\n",
    "import pkgutil, importlib\nimport pkg.models as pm\nfor _, n, _ in pkgutil.iter_modules(pm.__path__):\n    importlib.import_module(f'pkg.models.{n}')\ndef reg(p):\n    for m in pkgutil.walk_packages(p.__path__):\n        importlib.import_module(m.name)\n    for m in pkgutil.iter_modules(q):\n        importlib.import_module('lit')\n",
    "def f():\n    if a:\n        return 1\n    else:\n        return 2\n    if b:\n        x()\n        raise E\n    y()\n",
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
    for field in ("imports", "calls", "decorators", "functions", "assigns", "returns", "scans", "suppressions"):
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_fast_facts_agree_with_libcst(name: str, source: str) -> None:
    data = source.encode("latin-1") if "coding: latin-1" in source else source.encode("utf-8")
    _agree(data)
    _agree(data, module="pkg", is_package=True)


@pytest.mark.parametrize("source", [TRICKY[1], TRICKY[10]])
def test_spellings_ast_cannot_place_go_back_to_libcst(source: str) -> None:
    assert fast.extract(source.encode(), "m.py", "m", False) is None


def test_most_tricky_sources_stay_on_the_fast_path() -> None:
    handled = [source for source in TRICKY if fast.extract(source.encode("utf-8"), "m.py", "m", False) is not None]
    assert len(handled) >= len(TRICKY) - 3


def test_a_file_cpython_refuses_is_a_syntax_error() -> None:
    facts = fast.extract(b"import (\n", "m.py", "m", False)
    assert facts is not None and facts.syntax_error is not None and facts.imports == ()


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
