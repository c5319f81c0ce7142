"""As in git, `.gitignore` rules hide untracked files only: a tracked file is always checked."""

from __future__ import annotations

import shutil

import pytest

from conftest import Project, age, git

# The trees are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = [pytest.mark.skipif(shutil.which("git") is None, reason="needs git"), pytest.mark.usefixtures("later")]

CONFIG = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
"""


def _tree(project: Project) -> None:
    project.config(CONFIG)
    project.write(".gitignore", "bad.py\ngenerated/\n")
    for path in ("bad.py", "generated/gen.py", "generated/untracked.py", "good.py"):
        project.write(path, "import re\n")
    git(project.root, "init", "-q")
    age(project.root)


def _reported(project: Project, *argv: str) -> set[str]:
    _, out, _ = project.run("check", *argv)
    return {line.split(":")[0] for line in out.splitlines() if ": no-re " in line}


@pytest.mark.parametrize("argv", [[], ["--no-cache"], ["."]])
def test_a_tracked_file_is_checked_whatever_gitignore_says(project: Project, argv: list[str]) -> None:
    _tree(project)
    git(project.root, "add", "-f", "bad.py", "generated/gen.py", "good.py", ".gitignore")
    assert _reported(project, *argv) == {"bad.py", "generated/gen.py", "good.py"}
    assert _reported(project, *argv) == {"bad.py", "generated/gen.py", "good.py"}  # warm


def test_a_file_tracked_after_a_run_is_seen(project: Project) -> None:
    _tree(project)
    git(project.root, "add", "good.py")
    assert _reported(project) == {"good.py"}
    age(project.root)  # the cache folder the first run made is in the root's listing: dated too
    assert _reported(project) == {"good.py"}  # the walk cache now holds a listing it trusts
    git(project.root, "add", "-f", "generated/gen.py")
    assert _reported(project) == {"good.py", "generated/gen.py"}
    git(project.root, "rm", "-q", "--cached", "generated/gen.py")
    assert _reported(project) == {"good.py"}


def test_the_rocm_lookup_finds_a_tracked_ignored_module(project: Project) -> None:
    project.config("version: 1\nrocm_safety:\n  heavy_modules: [tilelang]\n  entry_modules: [pkg]\n")
    project.write(".gitignore", "pkg/gen.py\n")
    project.write("pkg/__init__.py", "from pkg import gen\n")
    project.write("pkg/gen.py", "import tilelang\n")
    git(project.root, "init", "-q")
    git(project.root, "add", "-f", "pkg/gen.py", "pkg/__init__.py")
    code, out, _ = project.run("why", "tilelang")  # module lookups, not a walk
    assert code == 0 and "pkg/gen.py:1" in out, out


def test_without_git_gitignore_applies_to_every_file(project: Project) -> None:
    _tree(project)
    shutil.rmtree(project.root / ".git")
    assert _reported(project, "--no-cache") == {"good.py"}
