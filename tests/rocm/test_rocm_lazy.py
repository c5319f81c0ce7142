"""PEP 810 lazy imports in the ROCm pass: no edge and no site where every supported Python runs
them lazily, loaded where their name is first read at import time; read on every interpreter."""

from __future__ import annotations

import pytest

from conftest import Project

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [aiter, tilelang]
  guards: [TYPE_CHECKING, is_cuda]
  entry_modules: [app]
"""
LAZY = 'target_version: "3.15"\n'


def reached(project: Project, source: str, policy: str = POLICY, extra: dict[str, str] | None = None) -> list[str]:
    project.config(policy)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", source)
    for path, text in (extra or {}).items():
        project.write(path, text)
    return [line for line in project.lines("--select", "heavy-import-reachable") if line.startswith("app/")]


@pytest.mark.parametrize(
    "source",
    [
        "lazy import aiter\n",
        "lazy from aiter import ops\n",
        "lazy import aiter\ndef f():\n    return aiter.ops\n",  # read only in a function body
        "lazy import aiter\nif is_cuda():\n    X = aiter.ops\n",  # read only where ROCm never runs
        '__lazy_modules__ = ["aiter"]\nimport aiter\n',
        '__lazy_modules__ = ("aiter",)\nfrom aiter import ops\n',
    ],
)
def test_a_lazy_import_is_no_site_where_every_supported_python_runs_it_lazily(project: Project, source: str) -> None:
    assert reached(project, source, LAZY + POLICY) == []


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("lazy import aiter\n\nX = aiter.ops\n", "app/mod.py:3:5:"),
        ("lazy from aiter import ops, gemm\nY = 1\nZ = [gemm]\n", "app/mod.py:3:6:"),
        ("lazy import aiter\n\n\ndef f(x=aiter.default):\n    pass\n", "app/mod.py:4:9:"),
        ("lazy import aiter\n\n\nclass K(aiter.Base):\n    pass\n", "app/mod.py:4:9:"),
        ('__lazy_modules__ = ["aiter"]\nimport aiter\nprint(aiter)\n', "app/mod.py:3:7:"),
    ],
)
def test_a_lazy_import_is_loaded_where_its_name_is_read_at_import_time(project: Project, source: str, where: str) -> None:
    [line] = reached(project, source, LAZY + POLICY)
    assert line.startswith(where), line
    assert "is loaded here, where" in line


def test_an_import_named_in_lazy_modules_stays_eager_before_python_3_15(project: Project) -> None:
    project.write("pyproject.toml", '[project]\nname = "app"\nrequires-python = ">=3.10"\n')
    [line] = reached(project, '__lazy_modules__ = ["aiter"]\nimport aiter\n')
    assert line == (
        "app/mod.py:2:8: heavy-import-reachable importing `app` imports `aiter` (lazy only from Python 3.15; "
        "the project supports Python 3.10): app -> app.mod -> aiter"
    )
    project.write("pyproject.toml", '[project]\nname = "app"\nrequires-python = ">=3.15, <4"\n')
    assert reached(project, '__lazy_modules__ = ["aiter"]\nimport aiter\n') == []


def test_without_a_version_anywhere_the_oldest_supported_python_is_3_10(project: Project) -> None:
    [line] = reached(project, "lazy import aiter\n")
    assert line.startswith("app/mod.py:1:13: heavy-import-reachable") and "the project supports Python 3.10" in line


@pytest.mark.parametrize(
    "source",
    [
        '__lazy_modules__ = ["aiter"]\ntry:\n    import aiter\nexcept ImportError:\n    aiter = None\nX = 1\n',  # never lazy in a try
        '__lazy_modules__ = ["aiter.ops"]\nimport aiter\n',  # another module's name
        'import aiter\n__lazy_modules__ = ["aiter"]\n',  # named after the import ran
        'if x:\n    __lazy_modules__ = ["aiter"]\nimport aiter\n',  # bound only if x
    ],
)
def test_imports_lazy_modules_does_not_make_lazy(project: Project, source: str) -> None:
    assert len(reached(project, source, LAZY + POLICY)) == 1


def test_a_lazy_project_module_is_an_edge_where_it_is_read(project: Project) -> None:
    extra = {"app/side.py": "import aiter\n"}
    assert reached(project, "lazy import app.side\n", LAZY + POLICY, extra) == []
    [line] = reached(project, "lazy import app.side\nX = app.side.f\n", LAZY + POLICY, extra)
    assert line == "app/side.py:1:8: heavy-import-reachable importing `app` imports `aiter`: app -> app.mod -> app.side -> aiter"
    code, out, _ = project.run("why", "aiter")
    assert code == 0
    assert "app/mod.py:2" in out and "loaded by reading `app`" in out


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    lazy import json\n", "app/mod.py:2:5: syntax-error the file does not parse: lazy import not allowed inside functions (Python 3.15 syntax)"),
        ("class K:\n    lazy from os import path\n", "app/mod.py:2:5: syntax-error the file does not parse: lazy from ... import not allowed inside classes (Python 3.15 syntax)"),
        ("try:\n    pass\nfinally:\n    lazy import json\n", "app/mod.py:4:5: syntax-error the file does not parse: lazy import not allowed inside try/except blocks (Python 3.15 syntax)"),
        ("lazy from os import *\n", "app/mod.py:1:1: syntax-error the file does not parse: lazy from ... import * is not allowed (Python 3.15 syntax)"),
        ("lazy from __future__ import annotations\nimport os\n", "app/mod.py:1:1: syntax-error the file does not parse: lazy from __future__ import is not allowed (Python 3.15 syntax)"),
    ],
)
def test_where_python_3_15_refuses_a_lazy_import_is_a_syntax_error(project: Project, source: str, expected: str) -> None:
    project.config("version: 1\nrules:\n  - id: no-json\n    forbid: [json, os]\n")
    project.write("app/mod.py", source)
    assert project.lines("app/mod.py")[0] == expected


@pytest.mark.parametrize(
    "source",
    [
        "lazy = 3\nprint(lazy * 2)\n",  # a soft keyword: still a name
        "lazy import json\nif x: lazy import os\nx = 1; lazy from os import path\n",
        "lazy \\\n  import json\n",
        "# coding: latin-1\nlazy import os  # caf\xe9\n",
    ],
)
def test_lazy_is_read_on_every_interpreter(project: Project, source: str) -> None:
    project.config("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write_bytes("app/mod.py", source.encode("latin-1") + b"import pickle\n")
    assert [line.split(" ")[0] for line in project.lines("app/mod.py")[:1]] == [f"app/mod.py:{source.count(chr(10)) + 1}:8:"]


def test_import_rules_see_lazy_imports_as_any_import(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n    scope: module\n")
    project.write("app/mod.py", "import os\nlazy import pickle\nlazy from pickle import dumps\n")
    assert project.lines("app/mod.py")[:2] == [
        "app/mod.py:2:13: no-pickle `pickle` is forbidden",
        "app/mod.py:3:11: no-pickle `pickle` is forbidden",
    ]


def test_a_lazy_import_is_reported_but_not_rewritten_by_a_gateway_fix(project: Project) -> None:
    project.config(
        "version: 1\nrules:\n  - id: gw\n    forbid: [tilelang]\n"
        "    fix: {gateway: app.gw, exports: {tilelang: tilelang}}\n"
    )
    project.write("app/__init__.py", "")
    project.write("app/gw.py", "tilelang = None\n")
    project.write("app/mod.py", "lazy import tilelang\nimport tilelang\n")
    code, out, _ = project.run("check", "--fix", "app/mod.py")
    assert code == 1
    assert (project.root / "app/mod.py").read_text() == "lazy import tilelang\nfrom app.gw import tilelang\n"
    assert "app/mod.py:1:13: gw" in out


def test_a_site_keeps_its_trial_and_lazy_flags_through_the_stored_graph() -> None:
    from import_policy.facts.records.model import Span
    from import_policy.graph.reach import HeavySite
    from import_policy.graph.codec import decode_sites, encode_sites

    span = Span(3, 5, 3, 10)
    sites = [
        HeavySite("app/mod.py", "app.mod", "aiter", span, 3, "import", "import aiter", trial=True),
        HeavySite("app/mod.py", "app.mod", "aiter", span, 3, "import", "lazy import aiter", eager_lazy=True),
        HeavySite("app/mod.py", "app.mod", "aiter", span, 3, "import", "lazy import aiter", loaded_by="aiter"),
    ]
    assert decode_sites("app/mod.py", encode_sites(sites)) == sites


def test_a_warm_run_reports_what_a_cold_one_does(project: Project) -> None:
    project.config(LAZY + POLICY)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", "lazy import aiter\ntry:\n    import tilelang\nexcept ImportError:\n    pass\nX = aiter.f\n")
    cold = project.lines("--select", "heavy-import-reachable")
    assert project.lines("--select", "heavy-import-reachable") == cold
    assert [line.split(" ")[0] for line in cold[:2]] == ["app/mod.py:3:12:", "app/mod.py:6:5:"]
