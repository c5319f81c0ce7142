"""A file CPython compiles is never a syntax error, and no input crashes a run: a flat
`if`/`elif` chain is an `If` nested in the one before's `orelse`, as deep as it is long,
deeper than Python's default stack takes in the extractors' walkers and libcst's visitors
(facts.shared.deep walks such a file again on a deeper stack). CPython is the oracle: each
case asks a `python` subprocess whether the file compiles."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import Project

POLICY = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: no-loads
    forbid: [json.loads]
"""


def chain(branches: int) -> str:
    """`if`/`elif` x branches, an import in the last `else:`, and the findings after the chain."""
    arms = "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, branches))
    return (
        "import json\nx = 1\nif x == 0:\n    y = 0\n" + arms
        + "else:\n    import pickle\nimport pickle.util\nz = json.loads('1')\n"
    )


def python_compiles(source: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; compile(sys.stdin.read(), 'm.py', 'exec')"],
        input=source, text=True, capture_output=True,
    )
    return done.returncode == 0


def expected(branches: int) -> list[str]:
    last = 4 + 2 * (branches - 1)
    return [
        f"m.py:{last + 2}:12: no-pickle `pickle` is forbidden",
        f"m.py:{last + 3}:8: no-pickle `pickle.util` is forbidden",
        f"m.py:{last + 4}:5: no-loads `json.loads` is forbidden",
    ]


@pytest.mark.parametrize("branches", [400, pytest.param(1000, marks=pytest.mark.slow)])
def test_a_long_elif_chain_is_checked_not_a_syntax_error(project: Project, branches: int) -> None:
    # 400: a `syntax-error` ("nested too deeply") before; 1000: an internal error (RecursionError
    # in libcst's position pass, surfacing as a KeyError).
    source = chain(branches)
    assert python_compiles(source)
    project.config(POLICY)
    project.write("m.py", source)
    assert project.lines("--no-cache", "m.py") == expected(branches)
    # Without the use rule: the imports alone, read by CPython's extractor.
    assert project.lines("--no-cache", "--select", "no-pickle", "m.py") == expected(branches)[:2]


def test_a_long_elif_chain_on_the_rocm_pass(project: Project) -> None:
    source = "import os\nif os.sep == '?':\n    y = 0\n" + "".join(
        f"elif os.sep == '{i}':\n    y = {i}\n" for i in range(1, 600)
    ) + "else:\n    import aiter\n"
    assert python_compiles(source)
    project.config("version: 1\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [app]\n")
    project.write("app/__init__.py", "from app import m\n")
    project.write("app/m.py", source)
    lines = project.lines("--no-cache", "--select", "heavy-import-reachable,syntax-error", ".")
    assert [line.split(" ")[:2] for line in lines] == [[f"app/m.py:{3 + 2 * 599 + 2}:12:", "heavy-import-reachable"]]


@pytest.mark.slow
@pytest.mark.parametrize("branches", [2000, 3000])
def test_a_syntax_error_only_where_python_refuses_the_chain(project: Project, branches: int) -> None:
    # CPython's parser reads the recursion limit: the deeper walk never parses under its own.
    # 3.11 compiles 2000 branches and refuses 3000; 3.13 compiles both.
    source = chain(branches)
    project.config(POLICY)
    project.write("m.py", source)
    lines = project.lines("--no-cache", "m.py")
    if python_compiles(source):
        assert lines == expected(branches)
    else:
        assert [line.split(" ")[1] for line in lines] == ["syntax-error"]
