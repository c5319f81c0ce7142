"""Files in the newest Python's syntax are read on every supported interpreter.

Each source below is valid Python 3.14 (the PEPs it names say so); CPython 3.10 and 3.11
refuse every one, 3.12 and 3.13 some. A syntax error is one only where the newest Python
refuses the file, and its message names that Python.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from import_policy.facts.cpython import from_ast as fast
from import_policy.facts.cst.from_cst import extract as libcst_extract
from import_policy.facts.source.syntax import NEWEST_PYTHON, newest_check

from conftest import Project

NEWER = {
    "pep695-alias": "type Vector = list[float]\n",
    "pep695-generic-alias": "type Pair[T: (int, str), *Ts, **P] = tuple[T, T]\n",
    "pep695-function": "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    "pep695-multiline": "def first[\n    T,\n](items: list[T]) -> T:\n    return items[0]\n",
    "pep695-class": "class Box[T](object):\n    pass\n",
    "pep696-default": "def f[T = int]() -> None:\n    pass\n",
    "pep701-quotes": "x = f\"{'a' + \"b\"}\"\n",
    "pep701-nested": "x = f\"{f\"{1}\"}\"\n",
    "pep701-backslash": "x = f\"{'\\n'.join(['a'])}\"\n",
    "pep701-comment": "x = f'''{1 # one\n}'''\n",
    "pep701-multiline": "x = f\"{1 +\n 2}\"\n",
    "pep750-tstring": "name = 'x'\ngreeting = t\"hello {name}\"\n",
    "pep750-nested": "greeting = t\"{t'{1}'}\"\n",
    "pep758-except": "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
    "pep758-except-star": "try:\n    pass\nexcept* ValueError, TypeError:\n    pass\n",
}
POLICY = "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n"


def _lines(source: str) -> int:
    return source.count("\n")


@pytest.mark.parametrize("name", NEWER)
def test_a_file_in_newer_syntax_is_checked(project: Project, name: str) -> None:
    source = NEWER[name]
    project.config(POLICY)
    project.write("app/mod.py", source + "import pickle\n")
    expected = [f"app/mod.py:{_lines(source) + 1}:8: no-pickle `pickle` is forbidden"]
    assert project.lines("--no-cache", "app/mod.py") == expected
    assert project.lines("app/mod.py") == project.lines("app/mod.py") == expected  # cold, then warm


@pytest.mark.parametrize("name", NEWER)
def test_the_newest_pythons_syntax_is_no_error_on_any_interpreter(name: str) -> None:
    assert newest_check(NEWER[name].encode(), "mod.py") is None


@pytest.mark.parametrize("name", NEWER)
def test_imports_inside_newer_constructs_are_facts(name: str) -> None:
    """The fast extractor hands a file it cannot parse to libcst, whose facts hold every import."""
    source = ("import os\n" + NEWER[name] + "def g():\n    import json\n").encode()
    facts = fast.extract(source, "m.py", "m", False)
    theirs = libcst_extract(source, "m.py", "m", False)
    assert theirs.syntax_error is None
    assert [fact.name for fact in theirs.imports] == ["os", "json"]
    if facts is not None:  # an interpreter that parses it itself: both agree
        assert facts.imports == theirs.imports


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("x = = 1\ntype X = int\n", 1),  # CPython's error comes first: it stands
        ("type X = int\nx = = 1\n", 2),  # past the construct CPython stopped at, libcst's
        ("type X = = int\n", 1),
        ("def f[T](:\n    pass\n", 1),
        ("try:\n    pass\nexcept A, B as e:\n    pass\n", 3),  # PEP 758: not with `as`
        ("x = t'{'\n", 1),
        ("type X = int\n" + "x = " + "(" * 250 + ")" * 250 + "\n", 2),  # deeper than CPython takes
        ("type X = int\nprint 'x'\n", 2),
    ],
)
def test_where_the_newest_python_refuses_the_file_it_is_a_syntax_error(project: Project, source: str, line: int) -> None:
    project.config(POLICY)
    project.write("app/mod.py", source + "import pickle\n")
    code, out, _ = project.run("check", "--no-cache", "--format", "json", "app/mod.py")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["rule"], finding["line"]) == ("syntax-error", line)
    assert finding["message"].endswith(f"({NEWEST_PYTHON} syntax)")


def test_a_misplaced_lazy_import_in_a_file_of_newer_syntax_is_a_syntax_error(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-json\n    forbid: [json]\n")
    project.write("app/mod.py", "type X = int\ndef f():\n    lazy import json\n")
    assert project.lines("--no-cache", "app/mod.py") == [
        f"app/mod.py:3:5: syntax-error the file does not parse: lazy import not allowed inside functions ({NEWEST_PYTHON} syntax)"
    ]


ROCM = """\
version: 1
rules:
  - id: no-nothing
    forbid: [nothing_at_all]
rocm_safety:
  heavy_modules: [tilelang]
  entry_modules: [app]
"""


@pytest.mark.parametrize(
    "body",
    [
        "try:\n    import tilelang\nexcept ImportError:\n    tilelang = None\n",  # a probe: the name is never read
        "try:\n    import tilelang\nexcept ImportError:\n    tilelang = None\nif tilelang is None:\n    pass\n",
        "try:\n    import tilelang\nexcept ImportError:\n    pass\nX = tilelang.jit\n",  # read: an optional import
        "lazy import tilelang\n",
        "import tilelang\n",
    ],
)
def test_the_rocm_pass_reads_a_file_of_newer_syntax_as_it_reads_the_same_file_without_it(
    project: Project, body: str
) -> None:
    """The same module, with and without a PEP 695 alias on its first line: the same findings,
    one line down (where the running interpreter parses both, the oracle is its own `ast`)."""
    project.config(ROCM)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", body)
    plain = project.lines("--no-cache")
    project.write("app/mod.py", "type Alias = int\n" + body)
    newer = project.lines("--no-cache")

    def shifted(line: str) -> str:
        if not line.startswith("app/mod.py:"):
            return line
        path, row, rest = line.split(":", 2)
        return f"{path}:{int(row) + 1}:{rest}"

    assert newer == [shifted(line) for line in plain]
    assert plain  # the comparison is not vacuous


@pytest.mark.parametrize(
    "tail",
    ["x = " + "-" * 20000 + "1\n", "x = 1" + " + 1" * 20000 + "\n", "x = a" + ".b" * 20000 + "\n"],
    ids=["unary", "binary", "attributes"],
)
def test_a_chain_libcst_cannot_take_never_reaches_it(tail: str) -> None:
    """CPython stops at the newer construct, before the chain; libcst would overflow its own
    stack on it (a crash no `except` catches): the file stays CPython's syntax error."""
    source = "type X = int\n" + tail
    done = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom import_policy.facts.source.syntax import newest_check\n"
         "print(newest_check(sys.stdin.buffer.read(), 'm.py'))"],
        input=source.encode(), capture_output=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "SyntaxErrorFact(" in done.stdout.decode()


@pytest.mark.parametrize("name", NEWER)
def test_every_newer_construct_is_spelled_as_the_screen_expects(name: str) -> None:
    """The screen that spares libcst's parse must pass every newer construct on to it."""
    from import_policy.facts.cst.newer import NEWER as SPELLED

    assert SPELLED.search(NEWER[name].encode()) is not None


def test_a_refused_file_that_spells_no_newer_construct_never_reaches_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file broken at its end (CPython refuses it for what it always refused) is its syntax
    error at once: libcst's parse of a large file costs about 10 s and 600 MB a megabyte."""
    import libcst

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("libcst was asked")

    monkeypatch.setattr(libcst, "parse_module", refuse)
    source = ("import os\n\n\ndef f(x):\n    return os.path.join(str(x), 'a')\n\n\n" * 50 + "import re\nif x:\n").encode()
    found = newest_check(source, "m.py")
    assert found is not None and found.line == source.count(b"\n")  # the `if x:` line
