"""Each file is judged by its nearest configuration, searched from its own folder upward (ruff's
rule): a project kept in a subfolder, a monorepo's packages, and where no configuration is found."""

from __future__ import annotations

import subprocess
import shutil

import pytest

from conftest import Project

NO_PICKLE = "version: 1\nrules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n"
NO_MARSHAL = "version: 1\nrules:\n  - id: no-marshal\n    message: no marshal\n    forbid: [marshal]\n"


def test_a_project_in_a_subfolder_is_judged_by_its_own_configuration(project: Project) -> None:
    """sglang's layout: the package and its configuration in `python/`, pre-commit run from the root."""
    project.write("python/import-policy.yaml", NO_PICKLE)
    project.write("python/kern/__init__.py", "import pickle\n")
    code, out, err = project.run("check", "--no-cache", "python/kern/__init__.py")
    assert code == 1, err
    assert out.splitlines()[0] == "python/kern/__init__.py:1:8: no-pickle no pickle"
    assert "no configuration found" not in err


def test_a_walk_from_the_root_finds_every_project(project: Project) -> None:
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\nimport marshal\n")
    project.write("packages/beta/.import-policy.yaml", NO_MARSHAL)
    project.write("packages/beta/beta/__init__.py", "import pickle\nimport marshal\n")
    for argv in (("check", "--no-cache"), ("check",), ("check",), ("check", "--no-cache", "--format", "json")):
        code, out, err = project.run(*argv)
        assert code == 1, err
        if "json" in argv:
            assert '"path": "packages/alpha/alpha/__init__.py"' in out and '"files": 2' in out
            continue
        assert out.splitlines()[:2] == [
            "packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle",
            "packages/beta/beta/__init__.py:2:8: no-marshal no marshal",
        ]
        assert out.splitlines()[2] == "Found 2 violations (0 fixable with --fix)."


def test_the_nearest_configuration_wins_over_the_root_one(project: Project) -> None:
    """As in ruff: no merging; a package's own file replaces the root's for the files under it."""
    project.config(NO_MARSHAL)
    project.write("top.py", "import pickle\nimport marshal\n")
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\nimport marshal\n")
    assert project.lines("--no-cache") == [
        "packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle",
        "top.py:2:8: no-marshal no marshal",
    ]
    # Named files, as pre-commit passes them, are judged the same way.
    assert project.lines("--no-cache", "top.py", "packages/alpha/alpha/__init__.py") == [
        "packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle",
        "top.py:2:8: no-marshal no marshal",
    ]


def test_from_inside_one_package_another_package_file_keeps_its_own_rules(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write("alpha/import-policy.yaml", NO_PICKLE)
    project.write("alpha/a.py", "import pickle\nimport marshal\n")
    project.write("beta/import-policy.yaml", NO_MARSHAL)
    project.write("beta/x.py", "import pickle\nimport marshal\n")
    monkeypatch.chdir(project.root / "alpha")
    assert project.lines("--no-cache", "../beta/x.py") == ["../beta/x.py:2:8: no-marshal no marshal"]
    assert project.lines("--no-cache", "a.py", "../beta/x.py") == [
        "../beta/x.py:2:8: no-marshal no marshal", "a.py:1:8: no-pickle no pickle",
    ]


def test_config_flag_still_applies_one_configuration_to_every_file(project: Project) -> None:
    project.write("shared.yaml", NO_MARSHAL)
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\nimport marshal\n")
    assert project.lines("--no-cache", "--config", "shared.yaml") == [
        "packages/alpha/alpha/__init__.py:2:8: no-marshal no marshal",
    ]


def test_each_project_has_its_own_graph(project: Project) -> None:
    """Two projects with a package of the same name: each one's chain stays in its project."""
    rocm = "version: 1\nrocm_safety:\n  heavy_modules: [xformers]\n"
    project.write("one/import-policy.yaml", rocm)
    project.write("one/pkg/__init__.py", "from pkg import side\n")
    project.write("one/pkg/side.py", "import xformers\n")
    project.write("two/import-policy.yaml", rocm)
    project.write("two/pkg/__init__.py", "import os\n")
    project.write("two/pkg/side.py", "import xformers\n")
    lines = project.lines("--no-cache")
    assert [line.split(" ")[0] for line in lines] == ["one/pkg/side.py:1:8:"]


def test_no_configuration_names_where_it_looked(project: Project) -> None:
    project.write("sub/x.py", "import os\n")
    code, _, err = project.run("check", "--no-cache", "sub/x.py")
    assert code == 0
    line = err.splitlines()[0]
    assert "no configuration found" in line and "rocm-safety" in line
    assert "from sub upward" in line
    for name in ("import-policy.yaml", ".import-policy.yaml", "pyproject.toml"):
        assert name in line


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_extends_reaches_a_base_inside_the_repository(project: Project) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    project.write("import-policy-base.yaml", "version: 1\nrules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n    files: [\"alpha/**\"]\n")
    project.write("packages/alpha/import-policy.yaml", "version: 1\nextends: [../../import-policy-base.yaml]\n")
    project.write("packages/alpha/alpha/__init__.py", "import pickle\n")
    project.write("packages/alpha/other/__init__.py", "import pickle\n")
    # The base's globs are relative to the extending configuration's project root.
    assert project.lines("--no-cache") == ["packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_extends_outside_the_repository_is_refused_without_printing_it(project: Project) -> None:
    repo = project.root / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    project.write("secret.yaml", "token: hunter2\n")
    project.write("repo/import-policy.yaml", "version: 1\nextends: [../secret.yaml]\n")
    project.write("repo/x.py", "import os\n")
    code, out, err = project.run("check", "--no-cache", "repo")
    assert code == 2
    assert "leaves the repository" in err and "hunter2" not in err + out
    project.write("repo/import-policy.yaml", f"version: 1\nextends: [{project.root / 'secret.yaml'}]\n")
    code, out, err = project.run("check", "--no-cache", "repo")
    assert code == 2 and "absolute path" in err and "hunter2" not in err + out


def test_extends_without_git_stays_inside_the_project_root(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(project.root.parent))
    project.write("base.yaml", NO_PICKLE)
    project.write("pkg/import-policy.yaml", "version: 1\nextends: [../base.yaml]\n")
    project.write("pkg/x.py", "import pickle\n")
    code, _, err = project.run("check", "--no-cache", "pkg")
    assert code == 2 and "leaves the" in err


def test_a_project_added_below_is_seen_by_the_next_cached_run(project: Project) -> None:
    """A warm run answered from the last one must still see a configuration added deeper down."""
    project.config(NO_MARSHAL)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\nimport marshal\n")
    assert project.lines() == ["packages/alpha/alpha/__init__.py:2:8: no-marshal no marshal"]
    assert project.lines() == ["packages/alpha/alpha/__init__.py:2:8: no-marshal no marshal"]
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    assert project.lines() == ["packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle"]


NO_RE = "version: 1\nrules:\n  - id: no-re\n    message: use regex\n    forbid: [re]\n    fix: {replace_module: regex}\n"


def test_fix_and_diff_span_every_project(project: Project) -> None:
    project.write("alpha/import-policy.yaml", NO_RE)
    project.write("alpha/a.py", "import re\n")
    project.write("beta/import-policy.yaml", NO_RE)
    project.write("beta/b.py", "import re\n")
    code, out, _ = project.run("check", "--no-cache", "--diff")
    assert code == 1
    assert "+++ b/alpha/a.py" in out and "+++ b/beta/b.py" in out
    code, out, _ = project.run("check", "--no-cache", "--fix")
    assert (code, out) == (0, "Found 2 violations (2 fixed, 0 remaining).\n")
    assert (project.root / "alpha/a.py").read_text() == (project.root / "beta/b.py").read_text() == "import regex as re\n"


def test_a_monorepo_root_without_a_configuration_is_no_project(project: Project) -> None:
    """Every file walked belongs to a package's project: no preset judged anything, so no note."""
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\n")
    code, out, err = project.run("check", "--no-cache")
    assert (code, err) == (1, "")
    assert out.splitlines() == ["packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle", "Found 1 violation (0 fixable with --fix)."]
    project.write("loose.py", "import os\n")
    code, _, err = project.run("check", "--no-cache")
    assert code == 1 and "no configuration found from . upward" in err


def test_a_named_file_and_a_walk_into_its_project_check_the_project_once(project: Project) -> None:
    project.write("packages/alpha/import-policy.yaml", NO_PICKLE)
    project.write("packages/alpha/alpha/__init__.py", "import pickle\n")
    project.write("packages/alpha/alpha/b.py", "import pickle\n")
    assert project.lines("--no-cache", "packages/alpha/alpha/__init__.py", ".") == [
        "packages/alpha/alpha/__init__.py:1:8: no-pickle no pickle",
        "packages/alpha/alpha/b.py:1:8: no-pickle no pickle",
    ]


def test_sarif_over_several_projects_lists_every_rule(project: Project) -> None:
    import json

    project.write("alpha/import-policy.yaml", NO_PICKLE)
    project.write("alpha/a.py", "import pickle\n")
    project.write("beta/import-policy.yaml", NO_MARSHAL)
    project.write("beta/b.py", "import marshal\n")
    code, out, _ = project.run("check", "--no-cache", "--format", "sarif")
    run = json.loads(out)["runs"][0]
    assert code == 1
    assert {"no-pickle", "no-marshal"} <= {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert sorted(result["ruleId"] for result in run["results"]) == ["no-marshal", "no-pickle"]
