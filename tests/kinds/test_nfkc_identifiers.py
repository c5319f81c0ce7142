"""Identifiers are read as Python reads them, in NFKC form (PEP 3131); string literals as written.

Each claim about Python is checked against the running interpreter first (a subprocess in a
scratch folder, with stand-in modules where the real one would be imported), then the rules
are checked to read the file the same way, through `main`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from conftest import Project

FW_P = "\uff50"  # FULLWIDTH LATIN SMALL LETTER P: NFKC gives "p"
FW_T = "\uff54"
FW_C = "\uff43"
FW_L = "\uff4c"
FW_R = "\uff52"
FI = "\ufb01"  # LATIN SMALL LIGATURE FI: NFKC gives "fi", two letters for one

RULES = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: no-loads
    forbid: [json.loads]
  - id: no-cuda
    forbid: [torch.cuda]
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: no-fitz
    forbid: [fitz]
"""

# Stand-ins for the modules the snippets import: running them imports nothing real but pickle and json.
STANDINS = {
    "torch/__init__.py": "",
    "torch/cuda.py": "import sys\ndef synchronize():\n    sys.stdout.write('synchronized\\n')\n",
    "fitz.py": "",
}


def python(tmp_path: Path, source: str) -> str:
    """What the running interpreter prints for `source`, with the stand-ins importable."""
    for relative, text in STANDINS.items():
        path = tmp_path / "python" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    script = tmp_path / "python" / "snippet.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-E", "-s", str(script)], cwd=script.parent, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def found(project: Project, source: str) -> list[tuple[str, int, int, int]]:
    project.config(RULES)
    project.write("app/mod.py", source)
    code, out, err = project.run("check", "--no-cache", "--format", "json", "app/mod.py")
    assert code in (0, 1), err
    return [(d["rule"], d["line"], d["column"], d["end_column"]) for d in json.loads(out)["diagnostics"]]


def test_the_letters_are_what_the_tests_say() -> None:
    for letter, normal in ((FW_P, "p"), (FW_T, "t"), (FW_C, "c"), (FW_L, "l"), (FW_R, "r"), (FI, "fi")):
        assert unicodedata.normalize("NFKC", letter) == normal


# --- what Python does --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "printed"),
    [
        # the module imported, and the name bound, are the NFKC forms
        (f"import {FW_P}ickle, sys\nprint('pickle' in sys.modules, 'pickle' in dir())\n", "True True\n"),
        (f"import {FW_P}ickle as {FW_P}\nprint(p.__name__)\n", "pickle\n"),
        (f"from {FW_P}ickle import loads\nprint(loads.__module__)\n", "_pickle\n"),
        (f"from json import {FW_L}oads\nprint(loads.__module__)\n", "json\n"),
        (f"import {FI}tz, sys\nprint('fitz' in sys.modules, 'fitz' in dir())\n", "True True\n"),
        # a use through a name spelled another way is a use of the same binding
        (f"import torch.cuda\n{FW_T}orch.cuda.synchronize()\n", "synchronized\n"),
        (f"import torch.cuda as tc\n{FW_T}c.synchronize()\n", "synchronized\n"),
        (f"import torch.{FW_C}uda\ntorch.cuda.synchronize()\n", "synchronized\n"),
        (f"from torch import {FW_C}uda\ncuda.synchronize()\n", "synchronized\n"),
        (f"import {FW_R}e\nprint(re.__name__)\n", "re\n"),
        # a string is not an identifier: its letters stay as written
        (
            "import importlib\ntry:\n"
            f"    importlib.import_module('{FW_P}ickle')\nexcept ModuleNotFoundError:\n    print('not found')\n",
            "not found\n",
        ),
        (f"import json\nprint(getattr(json, '{FW_L}oads', None))\n", "None\n"),
    ],
)
def test_python_reads_identifiers_in_nfkc_form(tmp_path: Path, source: str, printed: str) -> None:
    assert python(tmp_path, source) == printed


# --- what the rules see --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"import {FW_P}ickle\n", [("no-pickle", 1, 8, 14)]),
        (f"import os, {FW_P}ickle as p\n", [("no-pickle", 1, 12, 18)]),
        (f"from {FW_P}ickle import loads\n", [("no-pickle", 1, 6, 12)]),
        (f"from {FW_P}ickle import *\n", [("no-pickle", 1, 6, 12)]),
        (f"from json import dumps, {FW_L}oads\n", [("no-loads", 1, 25, 30)]),
        (f"from json import {FW_L}oads as l\n", [("no-loads", 1, 18, 23)]),
        (f"import torch.{FW_C}uda\n", [("no-cuda", 1, 8, 18)]),
        (f"from torch import {FW_C}uda\n", [("no-cuda", 1, 19, 23)]),
        (f"from {FW_T}orch.cuda import synchronize\n", [("no-cuda", 1, 6, 16), ("cuda-sync", 1, 24, 35)]),
        # the span is the source's: the ligature is one column, the name it stands for two letters
        (f"import {FI}tz\n", [("no-fitz", 1, 8, 11)]),
        (f"import os; import {FI}tz, {FW_P}ickle\n", [("no-fitz", 1, 19, 22), ("no-pickle", 1, 24, 30)]),
    ],
)
def test_imports_spelled_in_other_letters_are_reported(
    project: Project, source: str, expected: list[tuple[str, int, int, int]]
) -> None:
    assert found(project, source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # the brief's example: the module imported plainly, the use spelled with a fullwidth letter
        (f"import torch\n{FW_T}orch.cuda.synchronize()\n", [("cuda-sync", 2, 1, 23)]),
        (f"import torch.cuda as tc\n{FW_T}c.synchronize()\n", [("cuda-sync", 2, 1, 15)]),
        (f"import {FW_T}orch\ntorch.cuda.synchronize()\n", [("cuda-sync", 2, 1, 23)]),
        (f"from torch import cuda as {FW_C}\nc.synchronize()\n", [("cuda-sync", 2, 1, 14)]),
        # after a ligature on the same line, columns stay the source's
        (f"import torch, fitz\nx = {FI}tz; torch.cuda.synchronize()\n", [("cuda-sync", 2, 10, 32)]),
        (f"import torch\ndef f():\n    {FI} = {FW_T}orch.cuda.synchronize()\n", [("cuda-sync", 3, 9, 31)]),
    ],
)
def test_uses_spelled_in_other_letters_are_reported(
    project: Project, source: str, expected: list[tuple[str, int, int, int]]
) -> None:
    assert [f for f in found(project, source) if f[0] == "cuda-sync"] == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # white space inside a dotted name: `ast` does not place it, libcst's extractor reads the file
        (f"import os . path, {FW_P}ickle\n", [("no-pickle", 1, 19, 25)]),
        (
            f"import os . path\nimport torch.cuda as tc\nx = {FI}; {FW_T}c.synchronize()\n",
            [("no-cuda", 2, 8, 18), ("cuda-sync", 3, 8, 22)],
        ),
    ],
)
def test_the_libcst_extractor_reads_them_too(
    project: Project, source: str, expected: list[tuple[str, int, int, int]]
) -> None:
    from import_policy.facts.cpython import from_ast

    assert from_ast.extract(source.encode(), "m.py", "m", False) is None  # the file does go to libcst
    assert found(project, source) == expected


def test_an_ascii_file_in_utf7_spelling_other_letters(project: Project) -> None:
    text = f"import os . path as p, {FW_P}ickle\n"
    source = b"# -*- coding: utf-7 -*-\n" + text.encode("utf-7")
    assert source.isascii()
    project.config(RULES)
    project.write_bytes("app/mod.py", source)
    code, out, _ = project.run("check", "--no-cache", "--format", "json", "app/mod.py")
    assert [(d["rule"], d["line"], d["column"]) for d in json.loads(out)["diagnostics"]] == [("no-pickle", 2, 24)]


@pytest.mark.parametrize(
    "source",
    [
        f"import importlib\nimportlib.import_module('{FW_P}ickle')\n",
        f"__import__('{FW_P}ickle')\n",
        f"import json\nf = getattr(json, '{FW_L}oads')\n",
        f"x = '{FW_P}ickle'\n",
    ],
)
def test_string_literals_keep_their_letters(project: Project, source: str) -> None:
    assert found(project, source) == []


# --- fixing them -----------------------------------------------------------------------------

FIX_RULES = """\
version: 1
rules:
  - id: regex-not-re
    forbid: [re]
    fix: {replace_module: regex}
"""


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        # Python binds `re` (the NFKC form): the fix keeps that name bound, to the new module
        (f"import {FW_R}e\nre.compile('x')\n", "import regex as re\nre.compile('x')\n"),
        (f"import os, {FW_R}e  # c\n", "import os, regex as re  # c\n"),
        (f"import {FW_R}e as r\n", "import regex as r\n"),
        (f"from {FW_R}e import compile\n", "from regex import compile\n"),
        (f"from re import {FW_C}ompile, sub\n", f"from regex import {FW_C}ompile, sub\n"),
        (f"def f():\n    import {FW_R}e\n    return re\n", "def f():\n    import regex as re\n    return re\n"),
    ],
)
def test_fix_rewrites_them_as_python_binds_them(project: Project, source: str, fixed: str) -> None:
    project.config(FIX_RULES)
    path = project.write_bytes("app/mod.py", source.encode("utf-8"))
    code, out, err = project.run("check", "--no-cache", "--fix", "app/mod.py")
    assert (code, err) == (0, ""), out
    assert path.read_text(encoding="utf-8") == fixed
    compile(fixed, "mod.py", "exec")
    assert project.run("check", "--no-cache", "--fix", "app/mod.py")[0] == 0
    assert path.read_text(encoding="utf-8") == fixed  # fixing again changes nothing


PROBE_POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [aiter]
  probes: {_has_module: _has_module_spec}
  entry_modules: [app]
"""
FW_H = "\uff48"
FW_F = "\uff46"
FW_I = "\uff49"


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        # another mention of the imported probe, spelled otherwise: the import must keep binding it
        (
            f'from vllm.utils import _has_module\nX = _has_module("aiter")\nF = _{FW_H}as_module\n',
            f'from vllm.utils import _has_module, _has_module_spec\nX = _has_module_spec("aiter")\nF = _{FW_H}as_module\n',
        ),
        # the probe imported as spelled otherwise, called plainly: renamed as Python binds it
        (
            f'from vllm.utils import _{FW_H}as_module\nX = _has_module("aiter")\n',
            'from vllm.utils import _has_module_spec\nX = _has_module_spec("aiter")\n',
        ),
        (
            f'from vllm.utils import _has_module\nX = _{FW_H}as_module("aiter")\n',
            'from vllm.utils import _has_module_spec\nX = _has_module_spec("aiter")\n',
        ),
    ],
)
def test_the_probe_fix_counts_names_as_python_binds_them(project: Project, source: str, fixed: str) -> None:
    project.config(PROBE_POLICY)
    project.write("app/__init__.py", "")
    project.write("vllm/utils.py", "def _has_module(n): ...\ndef _has_module_spec(n): ...\n")
    path = project.write_bytes("app/mod.py", source.encode("utf-8"))
    argv = ("check", "--no-cache", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    code, out, err = project.run(*argv)
    assert (code, err) == (0, ""), out
    assert path.read_text(encoding="utf-8") == fixed
    assert project.run(*argv)[0] == 0
    assert path.read_text(encoding="utf-8") == fixed


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        # still a `__future__` import: `import importlib.util` must go after it, or the file no longer compiles
        (
            f"from __{FW_F}uture__ import annotations\ntry:\n    import aiter\n    OK = True\nexcept ImportError:\n    OK = False\n",
            f'from __{FW_F}uture__ import annotations\nimport importlib.util\nOK = importlib.util.find_spec("aiter") is not None\n',
        ),
        # `importlib.util` already imported, spelled otherwise
        (
            f"import {FW_I}mportlib.util\ntry:\n    import aiter\n    OK = True\nexcept ImportError:\n    OK = False\n",
            f'import {FW_I}mportlib.util\nOK = importlib.util.find_spec("aiter") is not None\n',
        ),
    ],
)
def test_the_inline_probe_fix_reads_names_as_python_binds_them(project: Project, source: str, fixed: str) -> None:
    project.config(PROBE_POLICY)
    project.write("app/__init__.py", "")
    path = project.write_bytes("app/mod.py", source.encode("utf-8"))
    argv = ("check", "--no-cache", "--select", "trial-import-probe", "--fix", "--unsafe-fixes", "app/mod.py")
    code, out, err = project.run(*argv)
    assert (code, err) == (0, ""), out
    assert path.read_text(encoding="utf-8") == fixed
    compile(fixed, "mod.py", "exec")


FW_J = "\uff4a"


@pytest.mark.parametrize(
    ("source", "lazy"),
    [
        # the list holds strings, compared with the module as Python names it: `ｊson` is not `json`
        (f'__lazy_modules__ = ["{FW_J}son"]\nimport json\n', ""),
        (f'__lazy_modules__ = ["json"]\nimport {FW_J}son\n', "modules"),
        # the name assigned is an identifier: `__ｌazy_modules__` is `__lazy_modules__`
        (f'__{FW_L}azy_modules__ = ["json"]\nfrom json import loads\n', "modules"),
    ],
)
def test_lazy_modules_reads_strings_as_written_and_names_as_bound(source: str, lazy: str) -> None:
    from import_policy.facts.cpython import from_ast
    from import_policy.facts.cst.from_cst import extract

    ours = from_ast.extract(source.encode(), "m.py", "m", False)
    assert ours is not None
    for facts in (ours, extract(source.encode(), "m.py", "m", False)):
        assert [fact.lazy for fact in facts.imports] == [lazy]
