"""ruff's habits a user brings: `check -` reads stdin, `--exclude` / `--extend-exclude`,
`--show-files`, `--show-settings`, `-v`, and `clean`."""

from __future__ import annotations

import io
import os
import sys

import pytest

from conftest import Project

CONFIG = "version: 1\nexclude: [gen/]\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", "import pickle\n")
    project.write("gen/b.py", "import pickle\n")
    project.write("lib/c.py", "import pickle\n")
    return project


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _paths(out: str) -> list[str]:
    return [line.split(":")[0] for line in out.splitlines() if not line.startswith(("Found", "All checks"))]


def test_check_dash_reads_stdin(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, b"import os\nimport pickle\n")
    assert tree.run("check", "-") == (1, "-:2:8: no-pickle `pickle` is forbidden\nFound 1 violation (0 fixable with --fix).\n", "")
    _stdin(monkeypatch, b"import pickle\n")
    assert tree.run("check", "-", "--stdin-filename", "lib/d.py")[:2] == (
        1, "lib/d.py:1:8: no-pickle `pickle` is forbidden\nFound 1 violation (0 fixable with --fix).\n",
    )
    _stdin(monkeypatch, b"import pickle\n")
    code, out, err = tree.run("check", "-", "a.py")
    assert (code, out) == (2, "") and "'-' (stdin) cannot be checked together with other paths" in err


@pytest.mark.parametrize("cache", [["--no-cache"], []])
def test_exclude_replaces_and_extend_exclude_adds(tree: Project, cache: list[str]) -> None:
    assert _paths(tree.run("check", *cache)[1]) == ["a.py", "lib/c.py"]
    assert _paths(tree.run("check", *cache, "--exclude", "lib/")[1]) == ["a.py", "gen/b.py"]
    assert _paths(tree.run("check", *cache, "--extend-exclude", "lib/,a.py")[1]) == []
    # The command line's globs never stand for the configuration's in a later run.
    assert _paths(tree.run("check", *cache)[1]) == ["a.py", "lib/c.py"]
    code, out, err = tree.run("check", *cache, "--exclude", "lib/[")
    assert (code, out) == (2, "") and err.startswith("import-policy: error: --exclude: bad glob 'lib/['"), err


def test_show_files_lists_what_would_be_checked_and_checks_nothing(tree: Project) -> None:
    assert tree.run("check", "--show-files") == (0, "a.py\nlib/c.py\n", "")
    os.chdir(tree.root / "lib")
    assert tree.run("check", "--show-files", "..", "--extend-exclude", "a.py") == (0, "c.py\n", "")


def test_show_settings_per_project(tree: Project) -> None:
    tree.write("sub/import-policy.yaml", "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [pkg]\n")
    tree.write("sub/pkg/__init__.py", "import os\n")
    code, out, err = tree.run("check", "--show-settings")
    assert code == 0, err
    assert out.startswith(
        "configuration: import-policy.yaml\n"
        "  read:          import-policy.yaml\n"
        "  project root:  .\n"
        "  roots:         .\n"
        "  exclude:       gen/\n"
        "  rules:         no-pickle, syntax-error\n"
        "  files:         2\n"
        "configuration: sub/import-policy.yaml\n"
        "  read:          preset rocm-safety, sub/import-policy.yaml\n"
        "  project root:  sub\n"
    ), out
    assert "  rocm_safety:\n" in out and "    entry modules: pkg  [sub/import-policy.yaml:4]" in out


def test_verbose_names_the_configuration_of_each_project(tree: Project) -> None:
    code, out, err = tree.run("check", "-v")
    assert code == 1 and _paths(out) == ["a.py", "lib/c.py"]
    assert err == "import-policy: import-policy.yaml (project root .) judges 2 files\n"


def test_clean_removes_every_cache_folder_below(tree: Project) -> None:
    tree.write("sub/import-policy.yaml", CONFIG)
    tree.write("sub/x.py", "import os\n")
    assert tree.run("check")[0] == 1
    assert (tree.root / ".import_policy_cache").is_dir() and (tree.root / "sub/.import_policy_cache").is_dir()
    (tree.root / "elsewhere").mkdir()
    (tree.root / "lib" / ".import_policy_cache").symlink_to(tree.root / "elsewhere")  # a link is never followed
    assert tree.run("clean") == (0, "Removed .import_policy_cache\nRemoved sub/.import_policy_cache\n", "")
    assert not (tree.root / ".import_policy_cache").exists() and not (tree.root / "sub/.import_policy_cache").exists()
    assert (tree.root / "elsewhere").is_dir() and (tree.root / "lib" / ".import_policy_cache").is_symlink()
    assert tree.run("clean") == (0, "", "")
    assert _paths(tree.run("check")[1]) == ["a.py", "lib/c.py"]  # a run after it is a cold one
