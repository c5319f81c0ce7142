"""A check of folders below the root (`check pkg`) is answered from the run cache too: its
entry is keyed by the folders named and watches the whole tree, since the graph reads files
outside the folders (commands.run_scope)."""

from __future__ import annotations

import pytest

from conftest import Project
from import_policy.policy import load as config_load

CONFIG = """\
version: 1
exclude: [gen/]
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: layered
    kind: layers
    containers: [pkg]
    layers: [high, low]
"""
BROKEN = "pkg.low -> lib.side -> pkg.high"


def _tree(project: Project) -> None:
    """`pkg.low` reaches `pkg.high` through `lib`, outside the folder checked."""
    project.config(CONFIG)
    project.write("pkg/__init__.py", "")
    project.write("pkg/high.py", "")
    project.write("pkg/low.py", "import lib.side\nimport pickle\n")
    project.write("lib/__init__.py", "")
    project.write("lib/side.py", "import pkg.high\n")
    project.write("lib/other.py", "import pickle\n")
    project.write("gen/made.py", "import pickle\n")


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the policy was built")

    monkeypatch.setattr(config_load, "_build", refuse)


def test_a_warm_check_of_a_folder_builds_no_policy(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    fresh = project.run("check", "--no-cache", "pkg")
    assert fresh[0] == 1 and BROKEN in fresh[1] and "lib/other.py" not in fresh[1]
    assert project.run("check", "pkg") == fresh
    _no_build(monkeypatch)
    assert project.run("check", "pkg") == fresh
    assert project.run("check", "./pkg/") == fresh


def test_a_file_changed_outside_the_folder_is_a_miss(project: Project) -> None:
    _tree(project)
    before = project.run("check", "pkg")
    assert BROKEN in before[1]
    project.write("lib/side.py", "x = 1\n")  # the chain is gone, outside the folder named
    fresh = project.run("check", "--no-cache", "pkg")
    assert BROKEN not in fresh[1]
    assert project.run("check", "pkg") == fresh
    project.write("lib/side/__init__.py", "import pkg.high\n")  # a package that shadows the module
    fresh = project.run("check", "--no-cache", "pkg")
    assert BROKEN in fresh[1]
    assert project.run("check", "pkg") == fresh


def test_the_whole_tree_and_a_folder_are_answered_apart(project: Project) -> None:
    _tree(project)
    whole = project.run("check", "--no-cache")
    folder = project.run("check", "--no-cache", "pkg")
    assert whole != folder
    for _ in range(2):
        assert project.run("check") == whole
        assert project.run("check", "pkg") == folder
        assert project.run("check", "pkg", "lib") == project.run("check", "--no-cache", "pkg", "lib")


def test_a_named_folder_that_exclude_covers_is_still_warned_about(project: Project) -> None:
    _tree(project)
    fresh = project.run("check", "--no-cache", "pkg", "gen")
    assert "exclude entry 'gen/'" in fresh[2]
    assert project.run("check", "pkg", "gen") == fresh
    assert project.run("check", "pkg", "gen") == fresh
