"""The graph through installed dependencies (`environment:`, `follow:`): a venv-like folder
made here (pyvenv.cfg, lib/pythonX.Y/site-packages, a package and its NAME-VER.dist-info
with a RECORD), no network and no pip."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Project, Tick
from import_policy.graph.distributions import follow, normalize
from import_policy.graph.environment import find

POLICY = """\
version: 1
environment:
  python: .venv/bin/python
follow: [Light_Dep]
rocm_safety:
  heavy_modules: [xformers]
rules:
  - id: no-cv2
    kind: import-time
    entry: [mypkg]
    forbid: [cv2]
"""

# The walk skips `.venv`: a dependency's file is never a file of the project here.
SITE = ".venv/lib/python3.11/site-packages"


def install(root: Path, files: dict[str, str], name: str = "light_dep", version: str = "1.0",
            env: str = ".venv") -> None:
    """A distribution as pip leaves it: its files, and a dist-info whose RECORD lists them."""
    site = SITE.replace(".venv", env)
    (root / env).mkdir(parents=True, exist_ok=True)
    (root / env / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7.final.0\n")
    for relative, text in files.items():
        path = root / site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    info = root / site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    record = [f"{relative},sha256=x,1" for relative in files] + [f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(record) + "\n")


DEP = {
    "light_dep/__init__.py": "from light_dep import images\n",
    "light_dep/images.py": "import os\n\nimport cv2\nimport xformers\n",
    "light_dep/unused.py": "import xformers\n",
}


@pytest.fixture
def chain(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """mypkg -> light_dep -> light_dep.images -> cv2, xformers."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project.config(POLICY)
    project.write("mypkg/__init__.py", "import json\nimport light_dep\n")
    install(project.root, DEP)
    return project


LINK_ROCM = (
    "mypkg/__init__.py:2:1: heavy-import-reachable importing `mypkg` imports `xformers`: "
    "mypkg -> light_dep -> light_dep.images -> xformers (in dependency `light_dep`, light_dep/images.py:4)"
)
LINK_CV2 = (
    "mypkg/__init__.py:2:1: no-cv2 importing `mypkg` loads `cv2` at import time: "
    "mypkg -> light_dep -> light_dep.images -> cv2 (in dependency `light_dep`, light_dep/images.py:3)"
)


def test_a_site_in_a_followed_dependency_is_reported_at_the_projects_link(chain: Project) -> None:
    assert chain.lines("--no-cache") == [LINK_ROCM, LINK_CV2]
    assert chain.lines() == [LINK_ROCM, LINK_CV2]  # cold, with the caches
    assert chain.lines() == [LINK_ROCM, LINK_CV2]  # warm


def test_the_hook_blames_the_named_file_at_its_link(chain: Project) -> None:
    assert chain.lines("mypkg/__init__.py") == [LINK_ROCM, LINK_CV2]


def test_an_unfollowed_dependency_stops_the_chain_at_the_projects_edge(chain: Project) -> None:
    chain.config(POLICY.replace("follow: [Light_Dep]", "follow: [other]"))
    install(chain.root, {"other/__init__.py": ""}, name="other")
    assert chain.lines("--no-cache") == []


def test_without_follow_nothing_is_read_from_the_environment(chain: Project) -> None:
    chain.config(POLICY.replace("follow: [Light_Dep]\n", ""))
    assert chain.lines("--no-cache") == []


def test_a_suppression_at_the_link_silences_it(chain: Project) -> None:
    chain.write("mypkg/__init__.py", "import json\nimport light_dep  # import-policy: ignore[heavy-import-reachable, no-cv2]\n")
    assert chain.lines("--no-cache") == []
    assert chain.lines() == []


def test_a_baseline_entry_at_the_link_silences_it(chain: Project) -> None:
    code, _, _ = chain.run("check", "--write-baseline", "base.json")
    entries = json.loads((chain.root / "base.json").read_text())
    assert code == 0 and "mypkg/__init__.py" in json.dumps(entries)
    assert chain.lines("--baseline", "base.json") == []


def test_why_prints_the_chain_into_the_dependency(chain: Project) -> None:
    code, out, _ = chain.run("why", "xformers")
    assert code == 0
    assert out.splitlines() == [
        "mypkg -> xformers (3 links):",
        "  mypkg/__init__.py:2: mypkg -> light_dep (import light_dep)",
        f"  {SITE}/light_dep/__init__.py:1: light_dep -> light_dep.images (from light_dep import images)",
        f"  {SITE}/light_dep/images.py:4: light_dep.images -> xformers (import xformers)",
    ]
    code, out, _ = chain.run("why", "cv2", "--rule", "no-cv2")
    assert out.splitlines()[-1] == f"  {SITE}/light_dep/images.py:3: light_dep.images -> cv2 (import cv2)"


def test_a_followed_name_not_installed_is_a_warning_at_its_line(chain: Project) -> None:
    chain.config(POLICY.replace("follow: [Light_Dep]", "follow: [Light_Dep, missing-one]"))
    code, _, err = chain.run("check", "--no-cache")
    assert code == 1
    assert "import-policy.yaml:4: warning: follow: 'missing-one' is not installed in" in err


def test_no_environment_is_an_error_naming_where_it_looked(chain: Project) -> None:
    chain.config(POLICY.replace("  python: .venv/bin/python", "  python: nowhere/bin/python"))
    code, out, err = chain.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:4: follow: environment.python " in err and "nowhere" in err
    chain.config(POLICY.replace("environment:\n  python: .venv/bin/python\n", ""))
    (chain.root / ".venv").rename(chain.root / "elsewhere")
    code, out, err = chain.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:2: follow: no environment to read dependencies from" in err


def test_a_follow_that_finds_none_of_its_distributions_fails(chain: Project) -> None:
    chain.config(POLICY.replace("follow: [Light_Dep]", "follow: [absent-one, absent-two]"))
    code, out, err = chain.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "import-policy.yaml:4: follow: none of absent-one, absent-two is installed in" in err
    assert str(chain.root / SITE) in err


@pytest.mark.parametrize(("text", "line", "says"), [
    ("environment: .venv\n", 2, "environment must be a map"),
    ("environment:\n  pyhton: x\n", 3, "unknown key 'pyhton' in environment"),
    ("follow: some\n", 2, "follow must be `all` or a list"),
    ("follow: [ok, 'not a name']\n", 2, "follow entry 'not a name' must be a distribution name"),
])
def test_bad_keys_are_configuration_errors_at_their_line(project: Project, text: str, line: int, says: str) -> None:
    project.config("version: 1\n" + text)
    code, _, err = project.run("check")
    assert code == 2
    assert f"import-policy.yaml:{line}: {says}" in err


def settle(root: Path) -> None:
    """Every file's mtime an hour back; with `later` (a ctime cannot be dated) its stat data is
    trusted, not racily clean, so a cache that did not watch a file would answer from it."""
    for path in root.rglob("*"):
        if path.is_file() and ".import_policy_cache" not in path.parts:
            stat = path.stat()
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 3_600_000_000_000))


def test_a_warm_run_equals_a_cold_one_after_a_dependency_file_is_edited(chain: Project, later: None) -> None:
    settle(chain.root)
    assert chain.lines() == [LINK_ROCM, LINK_CV2]
    assert chain.lines() == [LINK_ROCM, LINK_CV2]
    images = chain.root / SITE / "light_dep/images.py"
    images.write_text("import os\n\nimport xformers\n")  # cv2 gone, xformers moved up a line
    expected = chain.lines("--no-cache")
    assert expected == [LINK_ROCM.replace("images.py:4", "images.py:3")]
    assert chain.lines() == expected
    assert chain.lines("mypkg/__init__.py") == expected


def test_a_dependency_file_rewritten_within_the_racy_window_is_seen(chain: Project, one_tick: Tick) -> None:
    """The run cache keys a run by the followed files' stat data: within the racy window
    (cache.racy) that stamp is none, so no cached answer stands for a same-size edit."""
    assert chain.lines() == [LINK_ROCM, LINK_CV2]
    assert chain.lines() == [LINK_ROCM, LINK_CV2]
    images = chain.root / SITE / "light_dep/images.py"
    images.write_text("import os\n\nimport cv3\nimport xformers\n")  # the same size, in place
    assert chain.lines() == chain.lines("--no-cache") == [LINK_ROCM]


def test_a_dependency_module_added_within_the_racy_window_is_found(
    project: Project, one_tick: Tick, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The distributions read are kept for the process while every folder their lookups
    listed is as it was: within the racy window its stat data does not say so."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project.config(POLICY)
    project.write("mypkg/__init__.py", "import light_dep\n")
    install(project.root, {"light_dep/__init__.py": "from light_dep import later\n"})
    assert project.lines() == project.lines() == []
    (project.root / SITE / "light_dep/later.py").write_text("import cv2\n")
    assert project.lines() == project.lines("--no-cache") != []


def test_the_project_shadows_an_installed_module_of_the_same_name(chain: Project) -> None:
    chain.write("light_dep/__init__.py", "")  # the project's root comes first on sys.path
    assert chain.lines("--no-cache") == []


def test_follow_all_reads_every_distribution(chain: Project) -> None:
    chain.config(POLICY.replace("follow: [Light_Dep]", "follow: all"))
    assert chain.lines("--no-cache") == [LINK_ROCM, LINK_CV2]


# --- the environment and its distributions, on their own ----------------------------------


def test_the_environment_is_found_in_order(tmp_path: Path) -> None:
    install(tmp_path, DEP, env="env")
    site = str(tmp_path / "env/lib/python3.11/site-packages")
    assert find(tmp_path, str(tmp_path / "env/bin/python"), {}).site_packages == (site,)  # type: ignore[union-attr]
    assert find(tmp_path, None, {"VIRTUAL_ENV": str(tmp_path / "env")}).how == "$VIRTUAL_ENV"  # type: ignore[union-attr]
    assert find(tmp_path, None, {}) is None
    (tmp_path / "env").rename(tmp_path / ".venv")
    assert find(tmp_path, None, {}).how == ".venv"  # type: ignore[union-attr]
    assert find(tmp_path, None, {"VIRTUAL_ENV": str(tmp_path / "gone")}).how == ".venv"  # type: ignore[union-attr]
    assert find(tmp_path, str(tmp_path / "nowhere/bin/python"), {}) is None


def test_a_pre_commit_hooks_own_venv_is_not_the_projects(tmp_path: Path) -> None:
    hook = tmp_path / "cache/pre-commit/repoabc/py_env-python3"
    install(tmp_path / "cache", DEP, env="env")
    hook.parent.mkdir(parents=True)
    (tmp_path / "cache/env").rename(hook)
    environ = {"VIRTUAL_ENV": str(hook), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert find(tmp_path, None, environ) is None
    assert find(tmp_path, None, {"VIRTUAL_ENV": str(hook), "PRE_COMMIT_HOME": str(tmp_path / "cache/pre-commit"),
                                 "XDG_CACHE_HOME": str(tmp_path / "elsewhere")}) is None
    assert find(tmp_path, None, {"VIRTUAL_ENV": str(hook), "XDG_CACHE_HOME": str(tmp_path / "elsewhere")}) is not None


def test_distribution_names_are_compared_as_packaging_normalizes_them(tmp_path: Path) -> None:
    assert normalize("Unsloth_Zoo") == normalize("unsloth.zoo") == "unsloth-zoo"
    install(tmp_path, {"unsloth_zoo/__init__.py": "", "unsloth_zoo/utils.py": ""}, name="unsloth_zoo")
    environment = find(tmp_path, str(tmp_path / ".venv/bin/python"), {})
    followed = follow(environment, ["Unsloth-Zoo", "absent"], False)
    assert followed.names == {"unsloth_zoo"}
    assert followed.missing == ("absent",)
    assert followed.find("unsloth_zoo.utils") == str(tmp_path / SITE / "unsloth_zoo/utils.py")
    assert followed.module_of(str(tmp_path / SITE / "unsloth_zoo/__init__.py")) == ("unsloth_zoo", True)


def test_top_level_txt_names_the_modules_when_there(tmp_path: Path) -> None:
    install(tmp_path, {"yaml/__init__.py": "", "_yaml/__init__.py": ""}, name="PyYAML")
    (tmp_path / SITE / "PyYAML-1.0.dist-info/top_level.txt").write_text("yaml\n")
    environment = find(tmp_path, str(tmp_path / ".venv/bin/python"), {})
    assert follow(environment, ["pyyaml"], False).names == {"yaml"}


# --- warm equals cold, over edits on both sides of the project's edge ----------------------

EDITS = [
    ("project", "mypkg/__init__.py", "import json\nimport light_dep\n"),
    ("project", "mypkg/__init__.py", "import json\n"),
    ("project", "mypkg/__init__.py", "from light_dep import images\n"),
    ("dep", "light_dep/images.py", "import os\n\nimport cv2\nimport xformers\n"),
    ("dep", "light_dep/images.py", "def later():\n    import xformers\n"),
    ("dep", "light_dep/__init__.py", "from light_dep import unused\n"),
    ("dep", "light_dep/__init__.py", "from light_dep import images\n"),
    ("dep", "light_dep/unused.py", "import cv2\n"),
]


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=len(EDITS) - 1), min_size=1, max_size=3))
def test_warm_equals_cold_over_any_edits(chain: Project, later: None, picks: list[int]) -> None:
    """Each edit is followed by a cached run of the whole tree, one of the project's file and
    one without any cache: the three agree (stat data is trusted: the files are an hour old)."""
    chain.write("mypkg/__init__.py", "import json\nimport light_dep\n")
    for relative, text in DEP.items():
        chain.write(f"{SITE}/{relative}", text)
    settle(chain.root)
    chain.lines()
    for pick in picks:
        side, relative, text = EDITS[pick]
        path = chain.write(relative if side == "project" else f"{SITE}/{relative}", text)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 1_800_000_000_000))  # apart from the others
        cold = chain.lines("--no-cache")
        assert chain.lines() == cold
        assert chain.lines("mypkg/__init__.py") == chain.lines("mypkg/__init__.py", "--no-cache")


def test_environment_python_is_relative_to_the_file_that_names_it(chain: Project) -> None:
    chain.write("conf/deps.yaml", "version: 1\nenvironment:\n  python: ../.venv/bin/python\nfollow: [light-dep]\n")
    chain.config(POLICY.replace("environment:\n  python: .venv/bin/python\nfollow: [Light_Dep]\n", "extends: [conf/deps.yaml]\n"))
    assert chain.lines("--no-cache") == [LINK_ROCM, LINK_CV2]


def test_virtual_env_is_the_default_environment(chain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    chain.config(POLICY.replace("environment:\n  python: .venv/bin/python\n", ""))
    (chain.root / ".venv").rename(chain.root / "elsewhere")
    assert chain.lines("--no-cache") == []
    monkeypatch.setenv("VIRTUAL_ENV", str(chain.root / "elsewhere"))
    assert chain.lines("--no-cache") == [LINK_ROCM, LINK_CV2]


def test_a_buffer_on_stdin_is_read_as_its_file(chain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor's buffer of the project's link stands for the file: the buffer decides."""
    import io
    import sys

    chain.write("mypkg/__init__.py", "import json\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"import json\nimport light_dep\n"), encoding="utf-8"))
    code, out, _ = chain.run("check", "--stdin-filename", "mypkg/__init__.py")
    assert out.splitlines()[:2] == [LINK_ROCM, LINK_CV2]


def test_a_warm_whole_tree_run_is_answered_before_any_policy_is_built(
    chain: Project, monkeypatch: pytest.MonkeyPatch, later: None,
) -> None:
    """As without `follow`: the policy index knows what is followed, so the run cache answers
    from the configuration's bytes, the tree's and the followed files' stat data."""
    from import_policy.commands import projects

    settle(chain.root)
    assert chain.lines() == [LINK_ROCM, LINK_CV2]

    def built(*args: object, **kwargs: object) -> None:
        raise AssertionError("the policy was built")

    monkeypatch.setattr(projects, "check_projects", built)
    assert chain.lines() == [LINK_ROCM, LINK_CV2]


# --- which environment the user means ------------------------------------------------------


def test_the_projects_venv_wins_over_an_activated_one(tmp_path: Path) -> None:
    install(tmp_path, DEP)
    install(tmp_path, DEP, env="tools")
    found = find(tmp_path, None, {"VIRTUAL_ENV": str(tmp_path / "tools")})
    assert found is not None and found.how == ".venv"


def test_try_repos_temporary_store_and_import_policys_own_venv_are_passed_over(tmp_path: Path) -> None:
    """`pre-commit try-repo` runs hooks from a store in a temporary folder (no PRE_COMMIT_HOME
    names it): its layout tells it (STORE/repoXXXX/py_env-VERSION beside STORE/db.db)."""
    store = tmp_path / "tmpabc"
    install(store / "repo1234", DEP, env="py_env-python3.11")
    (store / "db.db").write_bytes(b"")
    hook = str(store / "repo1234/py_env-python3.11")
    assert find(tmp_path, None, {"VIRTUAL_ENV": hook}) is None
    install(tmp_path, DEP, env="tools")
    tools = str(tmp_path / "tools")
    assert find(tmp_path, None, {"VIRTUAL_ENV": tools}, own=tools) is None
    assert find(tmp_path, None, {"VIRTUAL_ENV": tools}, own="/elsewhere") is not None


def test_an_activated_tools_venv_under_pre_commit_fails_loudly(chain: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No .venv, $VIRTUAL_ENV pre-commit's own: nothing to follow is exit 2, not a pass."""
    chain.config(POLICY.replace("environment:\n  python: .venv/bin/python\n", ""))
    home = chain.root / "pc-home"
    (home / "repoX").mkdir(parents=True)
    (chain.root / ".venv").rename(home / "repoX" / "py_env-python3")
    monkeypatch.setenv("VIRTUAL_ENV", str(home / "repoX" / "py_env-python3"))
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    code, out, err = chain.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "passed over (pre-commit's own hook environment)" in err
