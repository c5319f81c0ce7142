"""By default an answer holds whatever is installed, and a finding that holds only if a module
is installed says so (contract section 4, "Whatever is installed, unless asked"): where its
chain passes through a `try:` import, or an availability test, of a module the environment
read lacks. The layout is generated here and Python imports it in a subprocess over the same
folders: the findings without that note are what Python loads there."""

from __future__ import annotations

import json
import re

import pytest

from conftest import Project
from envlayout import Env, forbid_each, python_loads, rule_id

ALPHA = """\
from importlib.util import find_spec

try:
    import bnb
except ImportError:
    bnb = None
if find_spec("kenlm") is not None:
    from . import kenlm_support, shared
from . import plain
"""
WATCHED = ["bnb", "h_kenlm", "h_shared", "h_plain", "missing_mod"]


@pytest.fixture
def optional(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    """The environment lacks `bnb`, `kenlm` and `missing_mod`."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("alpha", {
        "alpha/__init__.py": ALPHA,
        "alpha/kenlm_support.py": "import h_kenlm\n",
        "alpha/shared.py": "import h_shared\n",
        "alpha/plain.py": "import h_plain\nfrom . import shared\n",
    })
    env.install("standins", {f"{name}.py": "" for name in ("h_kenlm", "h_shared", "h_plain")})
    project.write("mypkg/__init__.py", "import alpha\ntry:\n    import missing_mod\nexcept ImportError:\n    pass\n")
    return project, env


def notes(lines: list[str]) -> dict[str, str | None]:
    """Each watched name reported, with the modules its finding says must be installed (None: none)."""
    found: dict[str, str | None] = {}
    for name in WATCHED:
        for line in lines:
            if f" {rule_id(name)} " in line:
                said = re.search(r"\(if (.*) (?:is|are) installed\)", line)
                found[name] = said.group(1) if said else None
    return found


def test_a_finding_that_needs_a_missing_module_says_so(optional: tuple[Project, Env]) -> None:
    project, env = optional
    loaded = python_loads(env, "mypkg", [project.root])
    truth = {name for name in WATCHED if name in loaded}
    assert truth == {"h_plain", "h_shared"}
    project.config(forbid_each(WATCHED, "mypkg"))
    for argv in (("--no-cache",), ()):
        said = notes(project.lines(*argv))
        assert said == {
            "bnb": "`bnb`", "h_kenlm": "`kenlm`", "missing_mod": "`missing_mod`",
            "h_plain": None, "h_shared": None,  # `shared` is also imported by `plain`: no note
        }
        assert {name for name, note in said.items() if note is None} == truth


def test_without_an_environment_nothing_is_said(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No `follow:`: no environment is read, so no finding is worded by one (the answers of a
    project that follows nothing are as they were)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project.write("mypkg/__init__.py", "try:\n    import missing_mod\nexcept ImportError:\n    pass\n")
    project.config(
        "version: 1\nrules:\n  - id: no-missing-mod\n    kind: import-time\n    entry: [mypkg]\n    forbid: [missing_mod]\n"
    )
    lines = project.lines("--no-cache")
    assert len(lines) == 1 and "no-missing-mod" in lines[0] and "installed" not in lines[0]


def test_the_words(optional: tuple[Project, Env]) -> None:
    project, _ = optional
    project.config(forbid_each(WATCHED, "mypkg"))
    lines = [line for line in project.lines("--no-cache") if "no-h-kenlm" in line or "no-missing-mod" in line]
    assert any(
        line.endswith("importing `mypkg` loads `missing_mod` at import time: mypkg -> missing_mod (if `missing_mod` is installed)")
        for line in lines
    ), lines
    assert any("(if `kenlm` is installed)" in line and "in dependency `alpha`" in line for line in lines), lines


def why(project: Project, name: str, *argv: str) -> str:
    code, out, err = project.run("why", name, "--rule", rule_id(name), *argv)
    assert code == 0, err
    return out


def test_why_says_it_on_the_link_that_needs_it(optional: tuple[Project, Env]) -> None:
    """`why` says on each link what `check` says of the finding: the step that needs a module
    the environment lacks (a `try:` import of it, or code an availability test keeps off)."""
    project, _ = optional
    project.config(forbid_each(WATCHED, "mypkg"))
    alpha = ".venv/lib/python3.11/site-packages/alpha"
    assert why(project, "missing_mod").splitlines()[1:] == [
        "  mypkg/__init__.py:3: mypkg -> missing_mod (import missing_mod) (if `missing_mod` is installed)",
    ]
    assert why(project, "h_kenlm").splitlines()[1:] == [
        "  mypkg/__init__.py:1: mypkg -> alpha (import alpha)",
        f"  {alpha}/__init__.py:8: alpha -> alpha.kenlm_support (from alpha import kenlm_support) (if `kenlm` is installed)",
        f"  {alpha}/kenlm_support.py:1: alpha.kenlm_support -> h_kenlm (import h_kenlm)",
    ]
    assert why(project, "bnb").splitlines()[-1] == f"  {alpha}/__init__.py:4: alpha -> bnb (import bnb) (if `bnb` is installed)"
    assert "installed" not in why(project, "h_plain") + why(project, "h_shared")
    document = json.loads(why(project, "h_kenlm", "--format", "json"))
    assert [link["requires"] for link in document["chains"][0]["links"]] == [[], ["kenlm"], []]
    for fmt in ("mermaid", "dot"):
        assert "__init__.py:8 if kenlm installed" in why(project, "h_kenlm", "--format", fmt)


def test_why_shows_a_chain_that_needs_nothing_missing_first(optional: tuple[Project, Env]) -> None:
    """Where the entry's own import of a module needs one the environment lacks and another
    route loads it anyway, Python loads it and `why` shows that route, as check's chain is."""
    project, env = optional
    project.write("mypkg/__init__.py", "import importlib.util\nif importlib.util.find_spec('kenlm'):\n    import h_plain\nimport alpha\n")
    assert "h_plain" in python_loads(env, "mypkg", [project.root])
    project.config(forbid_each(WATCHED, "mypkg"))
    # check: the entry's own import is a site of its own, which needs `kenlm`; alpha's is not.
    found = [line for line in project.lines("--no-cache") if "no-h-plain" in line]
    assert [(line.split(":")[1], "(if `kenlm` is installed)" in line) for line in found] == [("3", True), ("4", False)]
    shown = why(project, "h_plain").splitlines()
    assert shown[0] == "mypkg -> h_plain (3 links):" and "installed" not in "".join(shown), shown
    every = why(project, "h_plain", "--all").splitlines()
    assert every[-2:] == [
        "mypkg -> h_plain (1 link):",
        "  mypkg/__init__.py:3: mypkg -> h_plain (import h_plain) (if `kenlm` is installed)",
    ]
