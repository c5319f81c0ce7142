"""What the pass's own record of a reached file must still hold, wherever it stands in the file:
its extraction keeps only the calls the pass follows and visits an expression in one walk, so
each case puts a fact in a place that walk reaches differently (a lambda, a comprehension, an
f-string, a default, a dict display, the value of a chained call)."""

from __future__ import annotations

import pytest

from conftest import Project

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [aiter]
  guards: [TYPE_CHECKING, is_cuda]
  entry_modules: [app]
"""
LAZY = 'target_version: "3.15"\n'
LOADER = "def load():\n    import aiter\n    return aiter\n\n\n"


def reached(project: Project, source: str, policy: str = POLICY, rules: str = "heavy-import-reachable") -> list[str]:
    """The findings in app/mod.py, reached from `app`, the whole tree checked: the pass reads
    app/mod.py itself (the engine parses nothing for these rules)."""
    project.config(policy)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", source)
    return [line for line in project.lines("--select", rules) if line.startswith("app/mod.py")]


@pytest.mark.parametrize(
    ("source", "where"),
    [
        (LOADER + "X = [load() for _ in range(1)]\n", "app/mod.py:6:6:"),
        (LOADER + 'X = f"{load()}"\n', "app/mod.py:6:8:"),
        (LOADER + "X = {**{}, 'k': load()}\n", "app/mod.py:6:17:"),
        (LOADER + "X = (lambda v=load(): v)\n", "app/mod.py:6:15:"),  # a default runs when the lambda is made
        (LOADER + "def f(v=load()):\n    pass\n", "app/mod.py:6:9:"),
        (LOADER + "X = str(load()).upper()\n", "app/mod.py:6:9:"),  # inside the value of a method's owner
        (LOADER + "X = load().attr.other\n", "app/mod.py:6:5:"),
        (LOADER + "@decorate(load())\ndef f():\n    pass\n", "app/mod.py:6:11:"),
        (LOADER + "class K(base(load())):\n    pass\n", "app/mod.py:6:14:"),
        (LOADER + "X = 1 if load() else 2\n", "app/mod.py:6:10:"),
    ],
)
def test_a_call_of_a_function_that_imports_is_found_wherever_it_runs_at_import_time(
    project: Project, source: str, where: str
) -> None:
    [line] = reached(project, source)
    assert line.startswith(where), line
    assert "calls `load() -> import aiter`" in line


@pytest.mark.parametrize(
    "source",
    [
        LOADER + "X = lambda: load()\n",  # the body runs only when called
        LOADER + "def f():\n    return [load() for _ in range(1)]\n",
        LOADER + "X = [lambda: load() for _ in range(1)]\n",
        LOADER + "class K:\n    def m(self):\n        return f'{load()}'\n",
    ],
)
def test_a_call_that_does_not_run_at_import_time_is_no_finding(project: Project, source: str) -> None:
    assert reached(project, source) == []


def test_a_method_called_through_a_module_level_instance_is_followed(project: Project) -> None:
    source = "class Loader:\n    def get(self):\n        import aiter\n\n\nLOADER = Loader()\nLOADER.get()\n"
    [line] = reached(project, source)
    assert line.startswith("app/mod.py:7:1:"), line


def test_a_platform_flag_bound_once_at_module_level_guards_an_import(project: Project) -> None:
    # A function's own `_on_cuda = False` binds a local: the module's flag is still bound once.
    guarded = "_on_cuda = is_cuda()\n\n\ndef f():\n    _on_cuda = False\n    return _on_cuda\n\n\nif _on_cuda:\n    import aiter\n"
    assert reached(project, guarded) == []
    # Bound twice at module level, the name is no flag: the import may run on ROCm.
    [line] = reached(project, guarded.replace("\n\n\ndef f():", "\n_on_cuda = False\n\n\ndef f():"))
    assert line.startswith("app/mod.py:11:12:"), line


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    import aiter\nexcept ImportError:\n    aiter = None\nX = aiter is None\n",
        "try:\n    import aiter\nexcept ImportError:\n    aiter = None\nX = [None != aiter for _ in ()]\n",
    ],
)
def test_an_import_whose_name_is_only_tested_against_none_is_a_probe(project: Project, source: str) -> None:
    [line] = reached(project, source)
    assert "(a trial import: `try: import aiter` only to see whether it is installed)" in line


@pytest.mark.parametrize(
    "source",
    [
        'X = f"{aiter.__version__}"\n',
        "X = lambda: aiter.ops\n",
        "X = [v for v in aiter.names]\n",
        "X = {aiter: 1}\n",
        "X = aiter.ops is None\n",  # the attribute is tested, the name is read
        "X = (aiter or None) is None\n",
        "def f(v=aiter):\n    pass\n",
    ],
)
def test_an_import_whose_name_is_read_anywhere_is_an_optional_import(project: Project, source: str) -> None:
    head = "try:\n    import aiter\nexcept ImportError:\n    aiter = None\n"
    [line] = reached(project, head + source)
    assert line.startswith("app/mod.py:2:12:"), line
    assert "trial import" not in line


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("lazy import aiter\nX = [aiter.ops for _ in range(1)]\n", "app/mod.py:2:6:"),
        ('lazy import aiter\nX = f"{aiter}"\n', "app/mod.py:2:8:"),
        ("lazy import aiter\nX = (lambda v=aiter.ops: v)\n", "app/mod.py:2:15:"),
        ("lazy import aiter\nX = {**{}, 'k': aiter}\n", "app/mod.py:2:17:"),
        ('__lazy_modules__ = ["aiter"]\nimport aiter\nX = str(aiter.ops).upper()\n', "app/mod.py:3:9:"),
    ],
)
def test_a_lazy_import_is_loaded_where_an_expression_reads_it(project: Project, source: str, where: str) -> None:
    [line] = reached(project, source, LAZY + POLICY)
    assert line.startswith(where), line
    assert "is loaded here, where `aiter` is read" in line


@pytest.mark.parametrize(
    "source",
    [
        "lazy import aiter\nX = lambda: aiter.ops\n",
        '__lazy_modules__ = ["aiter"]\nimport aiter\ndef f():\n    return [aiter for _ in ()]\n',
    ],
)
def test_a_lazy_import_read_only_where_nothing_runs_at_import_time_is_no_site(project: Project, source: str) -> None:
    assert reached(project, source, LAZY + POLICY) == []
