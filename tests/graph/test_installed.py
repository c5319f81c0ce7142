"""`installed: environment` (contract section 4, "Whatever is installed, unless asked"): a
`try:` import of a module the environment lacks raises there and its handler runs. Each
layout is generated here and Python imports it in a subprocess over the same folders."""

from __future__ import annotations

import pytest

from conftest import Project, Tick
from envlayout import Env, forbid_each, python_loads, reported

WATCHED = ["bnb", "h_fallback", "h_present", "h_project_fallback", "h_stdlib"]
ALPHA = """\
try:
    import bnb
except ImportError:
    bnb = None
    import h_fallback
try:
    import present
except ImportError:
    import h_never
try:
    import json
except ImportError:
    import h_stdlib
"""


@pytest.fixture
def optional(project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[Project, Env]:
    """`alpha` tries `bnb` (not installed), `present` (installed) and `json` (the standard
    library's); the project tries `missing_too` (not installed) itself."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    env = Env(project.root)
    env.install("alpha", {"alpha/__init__.py": ALPHA})
    env.install("present", {"present/__init__.py": "import h_present\n"})
    project.write("mypkg/__init__.py", (
        "import alpha\ntry:\n    import missing_too\nexcept ModuleNotFoundError:\n    import h_project_fallback\n"
    ))
    for name in ("h_fallback", "h_present", "h_project_fallback", "h_never", "h_stdlib"):
        project.write(f"stand/{name}.py", "")
    return project, env


def test_the_environment_decides_when_asked(optional: tuple[Project, Env]) -> None:
    project, env = optional
    loaded = python_loads(env, "mypkg", [project.root], [project.root / "stand"])
    truth = {name for name in WATCHED if name in loaded}
    assert truth == {"h_fallback", "h_present", "h_project_fallback"}
    project.config(forbid_each(WATCHED, "mypkg", "    installed: environment\n"))
    assert reported(project.lines("--no-cache"), WATCHED) == truth
    assert reported(project.lines(), WATCHED) == truth


def test_by_default_an_answer_holds_whatever_is_installed(optional: tuple[Project, Env]) -> None:
    """The lint environment is rarely the deployment one: a `try:` import counts as loading."""
    project, _ = optional
    project.config(forbid_each(WATCHED, "mypkg"))
    assert reported(project.lines("--no-cache"), WATCHED) == {
        "bnb", "h_fallback", "h_present", "h_project_fallback", "h_stdlib",
    }


def test_rocm_safety_takes_it_too(optional: tuple[Project, Env]) -> None:
    project, _ = optional
    project.config(
        "version: 1\nenvironment:\n  python: .venv/bin/python\nfollow: all\n"
        "rocm_safety:\n  heavy_modules: [bnb, h_present]\n  entry_modules: [mypkg]\n  installed: environment\n"
    )
    lines = project.lines("--no-cache")
    assert [line for line in lines if "`bnb`" in line] == []
    assert len([line for line in lines if "`h_present`" in line]) == 1


def test_without_an_environment_it_is_an_error(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project.write("mypkg/__init__.py", "")
    project.config(
        "version: 1\nrules:\n  - id: no-x\n    kind: import-time\n    entry: [mypkg]\n    forbid: [x]\n"
        "    installed: environment\n"
    )
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:3: installed: environment needs an environment to read" in err


def test_a_bad_value_is_an_error_at_its_line(project: Project) -> None:
    project.write("mypkg/__init__.py", "")
    project.config(
        "version: 1\nrules:\n  - id: no-x\n    kind: import-time\n    entry: [mypkg]\n    forbid: [x]\n"
        "    installed: maybe\n"
    )
    code, _, err = project.run("check", "--no-cache")
    assert code == 2 and "import-policy.yaml:7: installed must be one of: any, environment; got 'maybe'" in err


def test_a_module_installed_within_the_racy_window_is_seen(optional: tuple[Project, Env], one_tick: Tick) -> None:
    """The ROCm pass's graph is kept under the stat data of the path's folders (what is
    installed): within the racy window (cache.racy) that stat data stands for nothing, and no
    graph is kept under it, so a module installed then changes the answer."""
    project, env = optional
    project.config(
        "version: 1\nenvironment:\n  python: .venv/bin/python\n"
        "rocm_safety:\n  heavy_modules: [h_project_fallback]\n  entry_modules: [mypkg]\n  installed: environment\n"
    )
    assert any("h_project_fallback" in line for line in project.lines())
    project.lines()
    env.install("missing_too", {"missing_too/__init__.py": ""})  # `import missing_too` no longer fails
    assert project.lines() == project.lines("--no-cache") == []


# What runs around a `try:` import of a module the environment lacks (`missing`) or has
# (`present`): each body is `alpha/__init__.py`; Python says which of h_a, h_b, h_present load.
AROUND_A_TRY = {
    "rest-of-body": "try:\n    import missing\n    import h_a\nexcept ImportError:\n    pass\n",
    "before-in-body": "try:\n    import h_a\n    import missing\nexcept ImportError:\n    import h_b\n",
    "else-not-run": "try:\n    import missing\nexcept ImportError:\n    pass\nelse:\n    import h_a\n",
    "else-runs": "try:\n    import present\nexcept ImportError:\n    pass\nelse:\n    import h_a\n",
    "else-of-from": "try:\n    from missing.sub import x\nexcept ModuleNotFoundError:\n    import h_b\nelse:\n    import h_a\n",
    "finally": "try:\n    import missing\nexcept ImportError:\n    import h_a\nfinally:\n    import h_b\n",
    "handler-returns": (
        "def f():\n    try:\n        import missing\n    except ImportError:\n        return False\n"
        "    import h_b\n    return True\nf()\n"
    ),
    "handler-returns-present": (
        "def f():\n    try:\n        import present\n    except ImportError:\n        return False\n"
        "    import h_b\n    return True\nf()\n"
    ),
    "handler-goes-on": "def f():\n    try:\n        import missing\n    except ImportError:\n        import h_a\n    import h_b\nf()\n",
    "parent-of-missing": "try:\n    import present.nope\nexcept ImportError:\n    import h_a\n",
    "not-caught-else": "try:\n    import present\nexcept ValueError:\n    pass\nelse:\n    import h_a\n",
    # the names a failed `try:` binds are its handler's
    "flag-missing": "try:\n    import missing\n    HAS = True\nexcept ImportError:\n    HAS = False\nif HAS:\n    import h_a\nelse:\n    import h_b\n",
    "flag-present": "try:\n    import present\n    HAS = True\nexcept ImportError:\n    HAS = False\nif HAS:\n    import h_a\nelse:\n    import h_b\n",
    "flag-set-before": "HAS = False\ntry:\n    import missing\n    HAS = True\nexcept ImportError:\n    pass\nif HAS:\n    import h_a\n",
    "flag-none": "try:\n    import missing as m\nexcept ImportError:\n    m = None\nif m is not None:\n    import h_a\n",
    "flag-one-line": "try: import missing; HAS = True\nexcept ImportError: HAS = False\nif HAS:\n    import h_a\n",
    "function-returns": (
        "def ok():\n    try:\n        import present\n    except ImportError:\n        return False\n    return True\n"
        "if ok():\n    import h_a\nelse:\n    import h_b\n"
    ),
}


# A flag another file binds in a `try:` of imports and constants: that file matters to the
# environment's answer though it imports nothing the rules name.
FLAG_FILE = "try:\n    import missing\n    HAS = True\nexcept ImportError:\n    HAS = False\n"
ACROSS_FILES = {
    "flag-imported": {
        "alpha/utils.py": FLAG_FILE,
        "alpha/__init__.py": "from alpha.utils import HAS\nif HAS:\n    import h_a\nelse:\n    import h_b\n",
    },
    "flag-returned": {
        "alpha/utils.py": FLAG_FILE + "def has():\n    return HAS\n",
        "alpha/__init__.py": "from alpha.utils import has\nif has():\n    import h_a\nelse:\n    import h_b\n",
    },
}


@pytest.mark.parametrize("case", sorted(AROUND_A_TRY))
def test_what_runs_around_a_try_that_raises(project: Project, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    text = AROUND_A_TRY[case]
    _judged_as_python_runs_it(project, {"alpha/__init__.py": text})
    # By default the answer holds whatever is installed: every import written counts.
    written = {name for name in WATCHED_AROUND if name in text} | ({"h_present"} if "present" in text else set())
    project.config(forbid_each(WATCHED_AROUND, "mypkg"))
    assert reported(project.lines("--no-cache"), WATCHED_AROUND) == written


@pytest.mark.parametrize("case", sorted(ACROSS_FILES))
def test_a_flag_bound_around_a_try_in_another_file(project: Project, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert _judged_as_python_runs_it(project, ACROSS_FILES[case]) == {"h_b"}


WATCHED_AROUND = ["h_a", "h_b", "h_present"]


def _judged_as_python_runs_it(project: Project, files: dict[str, str]) -> set[str]:
    """What Python loads of the watched names, `alpha` holding `files`, which the tool must
    report with the environment deciding."""
    env = Env(project.root)
    env.install("alpha", files)
    env.install("present", {"present/__init__.py": "import h_present\n"})
    for name in WATCHED_AROUND:
        env.install(name, {f"{name}.py": ""})
    project.write("mypkg/__init__.py", "import alpha\n")
    loaded = python_loads(env, "mypkg", [project.root], [])
    truth = {name for name in WATCHED_AROUND if name in loaded}
    project.config(forbid_each(WATCHED_AROUND, "mypkg", "    installed: environment\n"))
    assert reported(project.lines("--no-cache"), WATCHED_AROUND) == truth
    return truth
