"""Bytes a file's encoding cannot decode, in a comment: CPython compiles and imports the file
(it never decodes a comment; each case checks so), so every path of the tool reads it as
CPython does, the libcst extractor (which decodes the whole file first) and the gateway
binding check included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from import_policy.facts.cpython import from_ast as fast
from import_policy.facts.cst.from_cst import extract as libcst_extract
from tests.conftest import Project

CASES = [
    b"import os  # caf\xe9\nimport pickle\n",  # invalid UTF-8 on the first line (tokenize's cookie search reads it)
    b"import os\n# \xff\xfe end\nfrom pickle import loads  # \x80\n",
    b"\xef\xbb\xbfimport os  # \xe9\nimport pickle\n",  # after a BOM
    b"#!/usr/bin/env python \xe9\n# -*- coding: latin-1 -*-\nimport pickle\n",  # the cookie after such a line
]


def python_imports(tmp_path: Path, source: bytes) -> None:
    """CPython compiles the file and imports it."""
    compile(source, "m.py", "exec", dont_inherit=True)
    folder = tmp_path.parent / f"{tmp_path.name}-python"
    folder.mkdir(exist_ok=True)
    (folder / "undecodable_m.py").write_bytes(source)
    subprocess.run([sys.executable, "-c", "import undecodable_m"], cwd=folder, check=True)


@pytest.mark.parametrize("source", CASES)
def test_both_extractors_read_what_cpython_compiles(tmp_path: Path, source: bytes) -> None:
    python_imports(tmp_path, source)
    theirs = libcst_extract(source, "m.py", "m", False, want_uses=True)
    ours = fast.extract(source, "m.py", "m", False)
    assert theirs.syntax_error is None
    assert [fact.name for fact in theirs.imports][-1].startswith("pickle")
    assert ours is not None and ours.imports == theirs.imports


def test_a_check_reports_the_import_and_reads_its_suppression(project: Project, tmp_path: Path) -> None:
    source = b"import os  # caf\xe9\nimport pickle  # import-policy: ignore\nimport pickle.util\n"
    python_imports(tmp_path, source.replace(b"pickle.util", b"pickle"))
    project.config("version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write_bytes("m.py", source)
    assert project.lines("--no-cache", "--select", "no-pickle,syntax-error", ".") == ["m.py:3:8: no-pickle `pickle.util` is forbidden"]


GATEWAY_CONFIG = """\
version: 1
rules:
  - id: triton-gateway
    forbid: [triton]
    fix:
      gateway: pk.gw
      exports: {triton: triton, triton.language: tl, tilelang: tilelang}
"""


@pytest.mark.parametrize(
    "gateway",
    [
        b"import triton  # caf\xe9\nimport triton.language as tl\n",
        # syntax newer than 3.11's (PEP 701): on 3.10 and 3.11 the facts read it through libcst
        b'import triton\nimport triton.language as tl\nname = "x"\nlabel = f"{name + "y"}"\n',
        b'import triton  # \xe9\nimport triton.language as tl\nname = "x"\nlabel = f"{name + "y"}"\n',
    ],
)
def test_the_gateway_binding_check_reads_the_gateway_as_the_facts_do(project: Project, gateway: bytes) -> None:
    project.config(GATEWAY_CONFIG)
    project.write("pk/__init__.py", "")
    project.write_bytes("pk/gw.py", gateway)
    project.write("app/__init__.py", "")
    project.write("app/m.py", "import triton\n")
    code, out, err = project.run("check", "--no-cache", ".")
    # The export it binds stays fixable; the one it does not bind is still warned of.
    assert "app/m.py:1:8: triton-gateway [*] `triton` is forbidden" in out.splitlines(), out + err
    assert [line for line in err.splitlines() if "warning" in line] == [
        "import-policy: import-policy.yaml:7: warning: fix.exports of rule 'triton-gateway' maps `tilelang` to "
        "`pk.gw.tilelang`, but pk/gw.py does not bind `tilelang` at module level; `tilelang` is not fixable"
    ]
    assert project.run("check", "--no-cache", "--fix", ".")[0] == 0
    assert (project.root / "app/m.py").read_text() == "from pk.gw import triton\n"
