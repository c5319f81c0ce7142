"""Contract section 3 (what an import rule sees) and section 5 (where it is reported), point by point."""

from __future__ import annotations

import json

import pytest

from conftest import Project

RULES = """\
version: 1
rules:
  - id: no-pickle
    message: "no pickle"
    forbid: [pickle, cloudpickle]
  - id: re-regex
    forbid: [re]
    except: [re._constants, re._parser]
  - id: tl-module
    forbid: [tilelang]
    scope: module
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: pkg-ir
    forbid: [pkg]
    except: [pkg.ir]
"""


def found(project: Project, source: str, path: str = "app/mod.py", config: str = RULES) -> list[tuple[str, int, int]]:
    project.config(config)
    project.write(path, source)
    code, out, err = project.run("check", "--format", "json", path)
    assert code in (0, 1), err
    return [(d["rule"], d["line"], d["column"]) for d in json.loads(out)["diagnostics"]]


# --- every import form ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import pickle\n", [("no-pickle", 1, 8)]),
        ("import os, pickle\n", [("no-pickle", 1, 12)]),
        ("import os.path, pickle as p\n", [("no-pickle", 1, 17)]),
        ("import pickle.x.y\n", [("no-pickle", 1, 8)]),
        ("from pickle import loads, dumps\n", [("no-pickle", 1, 6)]),
        ("from pickle import *\n", [("no-pickle", 1, 6)]),
        ("from cloudpickle.sub import thing as t\n", [("no-pickle", 1, 6)]),
        ("x = 1; import pickle\n", [("no-pickle", 1, 15)]),
        ("import importlib\nimportlib.import_module('pickle')\n", [("no-pickle", 2, 25)]),
        ("from importlib import import_module\nimport_module('cloudpickle.x')\n", [("no-pickle", 2, 15)]),
        ("__import__('pickle')\n", [("no-pickle", 1, 12)]),
        ("import importlib as il\nil.import_module('pickle')\n", [("no-pickle", 2, 18)]),
        ("import importlib\nimportlib.import_module(name)\n", []),
        ("import pickles\nimport cloudpickle_x\n", []),
    ],
)
def test_import_forms(project: Project, source: str, expected: list[tuple[str, int, int]]) -> None:
    assert found(project, source) == expected


def test_parenthesised_multiline_from_import(project: Project) -> None:
    source = "from re import (\n    _constants,\n    sub,  # comment\n    compile as c,\n)\n"
    assert found(project, source) == [("re-regex", 1, 6)]


def test_names_from_allowed_module_are_reported_one_by_one(project: Project) -> None:
    config = "rules:\n  - id: no-loads\n    forbid: [pickle.loads, pickle.load]\n"
    assert found(project, "from pickle import dumps, loads, load\n", config=config) == [
        ("no-loads", 1, 27),
        ("no-loads", 1, 34),
    ]


def test_except_carves_names_out(project: Project) -> None:
    assert found(project, "from re import _constants\nfrom re import _parser as p\n") == []
    assert found(project, "import re._parser\n") == []
    assert found(project, "import re\n") == [("re-regex", 1, 8)]


def test_bare_import_of_a_package_with_an_excepted_child_is_forbidden(project: Project) -> None:
    assert found(project, "import pkg\nimport pkg.ir\nfrom pkg import ir\nfrom pkg.ir import x\n") == [
        ("pkg-ir", 1, 8)
    ]


# --- relative imports -----------------------------------------------------------------


def test_relative_imports_resolve_through_roots(project: Project) -> None:
    config = "roots: [src]\nrules:\n  - id: no-internal\n    forbid: [app.internal]\n"
    project.write("src/app/__init__.py", "")
    project.write("src/app/internal.py", "")
    assert found(project, "from . import internal\n", path="src/app/sub/__init__.py", config=config) == []
    assert found(project, "from .. import internal\n", path="src/app/sub/__init__.py", config=config) == [
        ("no-internal", 1, 16)
    ]
    assert found(project, "from .internal import x\n", path="src/app/mod.py", config=config) == [
        ("no-internal", 1, 6)
    ]
    # above the top package: unresolvable, never a crash
    assert found(project, "from ... import internal\n", path="src/app/mod.py", config=config) == []


def test_default_roots_include_src(project: Project) -> None:
    config = "rules:\n  - id: no-internal\n    forbid: [app.internal]\n"
    project.write("src/app/__init__.py", "")
    assert found(project, "from .internal import x\n", path="src/app/mod.py", config=config) == [
        ("no-internal", 1, 6)
    ]


# --- uses through aliases -------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import torch\ntorch.cuda.synchronize()\n", [("cuda-sync", 2, 1)]),
        ("import torch.cuda as tc\n\n\ntc.synchronize()\n", [("cuda-sync", 4, 1)]),
        ("import torch as t\nx = [t.cuda.synchronize]\n", [("cuda-sync", 2, 6)]),
        ("import torch\ntorch.cuda.is_available()\n", []),
        ("import torch\ndef f():\n    torch.cuda.synchronize()\n", [("cuda-sync", 3, 5)]),
        # `synchronize` bound by a forbidden import: reported at the import only
        ("from torch.cuda import synchronize\nsynchronize()\n", [("cuda-sync", 1, 24)]),
        # a local that shadows nothing imported
        ("torch = object()\ntorch.cuda.synchronize()\n", []),
        # a string that spells it
        ("s = 'torch.cuda.synchronize()'\n", []),
    ],
)
def test_uses_through_qualified_names(project: Project, source: str, expected: list[tuple[str, int, int]]) -> None:
    assert found(project, source) == expected


def test_import_a_b_as_c_then_c_d(project: Project) -> None:
    config = "rules:\n  - id: no-d\n    forbid: [a.b.d]\n"
    assert found(project, "import a.b as c\nc.d()\nc.e()\n", config=config) == [("no-d", 2, 1)]


def test_use_bound_by_an_exempted_forbidden_import_is_not_reported(project: Project) -> None:
    config = "rules:\n  - id: no-tl\n    forbid: [tilelang]\n    scope: module\n"
    source = "def f():\n    import tilelang\n    tilelang.jit(1)\n"
    assert found(project, source, config=config) == []


def test_module_scope_counts_only_import_time_uses(project: Project) -> None:
    config = "rules:\n  - id: sync\n    forbid: [torch.cuda.synchronize]\n    scope: module\n"
    source = "import torch\nclass A:\n    x = torch.cuda.synchronize\ndef f():\n    torch.cuda.synchronize()\n"
    assert found(project, source, config=config) == [("sync", 3, 9)]


# --- scope: module ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import tilelang\n", [("tl-module", 1, 8)]),
        ("try:\n    import tilelang\nexcept ImportError:\n    pass\n", [("tl-module", 2, 12)]),
        ("try:\n    pass\nexcept ImportError:\n    import tilelang\n", [("tl-module", 4, 12)]),
        ("if HAS_TILELANG:\n    import tilelang\n", [("tl-module", 2, 12)]),
        ("with ctx():\n    import tilelang\n", [("tl-module", 2, 12)]),
        ("class K:\n    import tilelang\n", [("tl-module", 2, 12)]),
        ("def f():\n    import tilelang\n", []),
        ("class K:\n    def m(self):\n        import tilelang\n", []),
        ("f = lambda: __import__('tilelang')\n", []),
        ("def f():\n    class K:\n        import tilelang\n", []),
        ("@decorate(__import__('tilelang'))\ndef f():\n    pass\n", [("tl-module", 1, 22)]),
    ],
)
def test_scope_module(project: Project, source: str, expected: list[tuple[str, int, int]]) -> None:
    assert found(project, source) == expected


# --- type checking ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pickle\n", []),
        ("import typing\nif typing.TYPE_CHECKING:\n    import pickle\n", []),
        ("import typing as t\nif t.TYPE_CHECKING:\n    import pickle\n", []),
        ("from typing import TYPE_CHECKING as TC\nif TC:\n    import pickle\n", []),
        ("if TYPE_CHECKING and X:\n    import pickle\n", []),
        ("if TYPE_CHECKING:\n    pass\nelse:\n    import pickle\n", [("no-pickle", 4, 12)]),
        ("if TYPE_CHECKING:\n    pass\nelif X:\n    import pickle\n", [("no-pickle", 4, 12)]),
        ("if TYPE_CHECKING or X:\n    import pickle\n", [("no-pickle", 2, 12)]),
        ("if not TYPE_CHECKING:\n    import pickle\n", [("no-pickle", 2, 12)]),
        ("if TYPE_CHECKING:\n    def f():\n        import pickle\n", []),
    ],
)
def test_type_checking(project: Project, source: str, expected: list[tuple[str, int, int]]) -> None:
    assert found(project, source) == expected


def test_type_checking_check_counts_them(project: Project) -> None:
    config = "rules:\n  - id: no-pickle\n    forbid: [pickle]\n    type_checking: check\n"
    assert found(project, "if TYPE_CHECKING:\n    import pickle\n", config=config) == [("no-pickle", 2, 12)]


# --- strings, comments, docstrings -----------------------------------------------------


def test_strings_comments_and_docstrings_never_count(project: Project) -> None:
    source = '"""\nimport pickle\n"""\n# import pickle\nx = "import pickle"\ny = f"{1} from pickle import x"\n'
    assert found(project, source) == []


# --- files and allow_in -----------------------------------------------------------------


def test_files_and_allow_in(project: Project) -> None:
    config = (
        "rules:\n  - id: no-pickle\n    forbid: [pickle]\n"
        "    files: ['app/**']\n    allow_in: ['app/serial/', 'app/ok.py']\n"
    )
    project.config(config)
    for path in ("app/a.py", "app/serial/b.py", "app/ok.py", "tools/c.py", "app/deep/er/d.py"):
        project.write(path, "import pickle\n")
    assert project.lines() == [
        "app/a.py:1:8: no-pickle `pickle` is forbidden",
        "app/deep/er/d.py:1:8: no-pickle `pickle` is forbidden",
    ]


# --- suppressions ------------------------------------------------------------------------


def test_line_suppressions(project: Project) -> None:
    source = (
        "import pickle  # import-policy: ignore\n"
        "import cloudpickle  # import-policy: ignore[no-pickle]\n"
        "import pickle  # import-policy: ignore[re-regex]\n"
        "from pickle import (  # import-policy: ignore[no-pickle, re-regex]\n"
        "    loads,\n"
        ")\n"
        "s = '# import-policy: ignore'; import pickle\n"
    )
    assert found(project, source) == [("no-pickle", 3, 8), ("no-pickle", 7, 39)]


def test_multiline_statement_suppressed_on_its_first_line(project: Project) -> None:
    config = "rules:\n  - id: no-loads\n    forbid: [pickle.loads]\n"
    source = "from pickle import (  # import-policy: ignore[no-loads]\n    dumps,\n    loads,\n)\n"
    assert found(project, source, config=config) == []


def test_file_suppression_in_first_ten_lines(project: Project) -> None:
    assert found(project, "# import-policy: ignore-file\nimport pickle\n") == []
    late = "\n" * 10 + "# import-policy: ignore-file\nimport pickle\n"
    assert found(project, late) == [("no-pickle", 12, 8)]


# --- syntax errors, encodings -----------------------------------------------------------


def test_syntax_error_is_a_violation_and_other_files_are_checked(project: Project) -> None:
    project.config(RULES)
    project.write("a.py", "import pickle\n")
    project.write("b.py", "import pickle\ndef f(:\n    pass\n")
    project.write("c.py", "x = (\n")  # no rule could report in it: never parsed (contract section 1)
    code, out, _ = project.run("check")
    assert code == 1
    assert out.splitlines() == [
        "a.py:1:8: no-pickle no pickle",
        "b.py:2:7: syntax-error the file does not parse: invalid syntax (Python 3.15 syntax)",
        "Found 2 violations (0 fixable with --fix).",
    ]


def test_syntax_error_in_a_parsed_file_reports_libcst_position(project: Project) -> None:
    project.config(RULES)
    project.write("b.py", "import pickle\nx = = 1\n")
    code, out, _ = project.run("check", "--format", "json")
    (d,) = json.loads(out)["diagnostics"]
    assert (d["rule"], d["line"]) == ("syntax-error", 2)
    assert code == 1


def test_bom_crlf_and_coding_cookie(project: Project) -> None:
    project.config(RULES)
    project.write_bytes("bom.py", b"\xef\xbb\xbfimport os, pickle\r\nimport re\r\n")
    project.write_bytes("latin.py", b"# -*- coding: latin-1 -*-\ns = '\xe9'\nimport pickle\n")
    code, out, _ = project.run("check", "--format", "json")
    got = [(d["path"], d["rule"], d["line"], d["column"]) for d in json.loads(out)["diagnostics"]]
    assert got == [
        ("bom.py", "no-pickle", 1, 12),
        ("bom.py", "re-regex", 2, 8),
        ("latin.py", "no-pickle", 3, 8),
    ]


def test_positions_and_end_positions_in_json(project: Project) -> None:
    project.config(RULES)
    project.write("m.py", "import os, cloudpickle.sub as c\n")
    _, out, _ = project.run("check", "--format", "json")
    (d,) = json.loads(out)["diagnostics"]
    assert (d["line"], d["column"], d["end_line"], d["end_column"]) == (1, 12, 1, 27)


def test_use_after_a_dotted_import_without_alias(project: Project) -> None:
    # libcst records the access of `torch.cuda.x` under the attribute `torch.cuda`, not the name `torch`
    assert found(project, "import torch.cuda\ntorch.cuda.synchronize()\n") == [("cuda-sync", 2, 1)]
    assert found(project, "import torch.cuda\ntorch.cuda.is_available()\n") == []
