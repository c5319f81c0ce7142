"""A lazy loader the pass cannot read cuts the chains through it (contract section 4, "Lazy
loaders"): `check` names each such cut once on stderr, where a rule's entry reaches it, so a
pass is never silent about a chain it could not follow. The layout is generated here and
Python imports it in a subprocess over the same folders: what it loads through the cut is
what the tool could not see."""

from __future__ import annotations

import pytest

from conftest import Project
from envlayout import Env, forbid_each, python_loads, reported

LOADER = """\
import importlib


def __getattr__(name):
    return importlib.import_module(_where(name))


def _where(name):
    return "lazydist.utils"
"""
WATCHED = ["heavy_a", "heavy_b"]
CUT = (
    "warning: app/__init__.py:1: from lazydist import dump: the lazy loader at {init}:4 imports what the pass "
    "cannot tell (`importlib.import_module(_where(name))` (line 5)); the chain is cut there; a name it loads "
    "is not checked (`import-policy why` shows the chains)"
)


@pytest.fixture
def cut(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("lazydist", {"lazydist/__init__.py": LOADER, "lazydist/utils.py": "import heavy_a\ndump = 1\n"})
    env.install("standins", {f"{name}.py": "" for name in WATCHED})
    project.write("app/__init__.py", "from lazydist import dump\n")
    return project, env


def test_check_names_a_cut_once(cut: tuple[Project, Env]) -> None:
    project, env = cut
    assert "heavy_a" in python_loads(env, "app", [project.root])
    project.config(forbid_each(WATCHED, "app"))  # two rules, two graphs: the cut is told once
    init = env.lib / "lazydist" / "__init__.py"
    for argv in (("--no-cache",), (), ()):  # cold, then warm (the graph's cache, the run cache)
        code, out, err = project.run("check", *argv)
        assert reported(out.splitlines(), WATCHED) == set()  # what the pass could not see...
        told = [line for line in err.splitlines() if "the chain is cut there" in line]
        assert told == ["import-policy: " + CUT.format(init=init)]  # ...is said, once
        assert code == 0


def test_quiet_keeps_it_off(cut: tuple[Project, Env]) -> None:
    project, _ = cut
    project.config(forbid_each(WATCHED, "app"))
    _, _, err = project.run("check", "--no-cache", "-q")
    assert "cut there" not in err


def test_no_cut_no_line(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("lazydist", {
        "lazydist/__init__.py": "import importlib\n\ndef __getattr__(name):\n    return importlib.import_module('lazydist.utils')\n",
        "lazydist/utils.py": "import heavy_a\ndump = 1\n",
    })
    env.install("standins", {"heavy_a.py": ""})
    project.write("app/__init__.py", "from lazydist import dump\n")
    assert "heavy_a" in python_loads(env, "app", [project.root])
    project.config(forbid_each(["heavy_a"], "app"))
    code, out, err = project.run("check", "--no-cache")
    assert reported(out.splitlines(), ["heavy_a"]) == {"heavy_a"} and code == 1
    assert "cut there" not in err
