"""As in git, `.gitignore` rules hide untracked files only: a tracked file is always checked."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from conftest import Project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

PAST = time.time_ns() - 3600 * 10**9
CONFIG = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
"""


def _git(project: Project, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=project.root, check=True, capture_output=True)


def _tree(project: Project) -> None:
    project.config(CONFIG)
    project.write(".gitignore", "bad.py\ngenerated/\n")
    for path in ("bad.py", "generated/gen.py", "generated/untracked.py", "good.py"):
        project.write(path, "import re\n")
    _git(project, "init", "-q")
    _age(project)


def _age(project: Project) -> None:
    # Dated in the past, as a checkout is: written in the second a walk cache is saved, the
    # tree would be racily clean, its listings never reused, and a cache that missed a
    # change of git's index would pass here.
    for folder, names, files in os.walk(project.root):
        if ".git" not in folder.split(os.sep):
            for name in (*names, *files):
                os.utime(os.path.join(folder, name), ns=(PAST, PAST))
    os.utime(project.root, ns=(PAST, PAST))


def _reported(project: Project, *argv: str) -> set[str]:
    _, out, _ = project.run("check", *argv)
    return {line.split(":")[0] for line in out.splitlines() if ": no-re " in line}


@pytest.mark.parametrize("argv", [[], ["--no-cache"], ["."]])
def test_a_tracked_file_is_checked_whatever_gitignore_says(project: Project, argv: list[str]) -> None:
    _tree(project)
    _git(project, "add", "-f", "bad.py", "generated/gen.py", "good.py", ".gitignore")
    assert _reported(project, *argv) == {"bad.py", "generated/gen.py", "good.py"}
    assert _reported(project, *argv) == {"bad.py", "generated/gen.py", "good.py"}  # warm


def test_a_file_tracked_after_a_run_is_seen(project: Project) -> None:
    _tree(project)
    _git(project, "add", "good.py")
    assert _reported(project) == {"good.py"}
    _age(project)  # the cache folder the first run made is in the root's listing: dated too
    assert _reported(project) == {"good.py"}  # the walk cache now holds a listing it trusts
    _git(project, "add", "-f", "generated/gen.py")
    assert _reported(project) == {"good.py", "generated/gen.py"}
    _git(project, "rm", "-q", "--cached", "generated/gen.py")
    assert _reported(project) == {"good.py"}


def test_the_rocm_lookup_finds_a_tracked_ignored_module(project: Project) -> None:
    project.config("version: 1\nrocm_safety:\n  heavy_modules: [tilelang]\n  entry_modules: [pkg]\n")
    project.write(".gitignore", "pkg/gen.py\n")
    project.write("pkg/__init__.py", "from pkg import gen\n")
    project.write("pkg/gen.py", "import tilelang\n")
    _git(project, "init", "-q")
    _git(project, "add", "-f", "pkg/gen.py", "pkg/__init__.py")
    code, out, _ = project.run("why", "tilelang")  # module lookups, not a walk
    assert code == 0 and "pkg/gen.py:1" in out, out


def test_without_git_gitignore_applies_to_every_file(project: Project) -> None:
    _tree(project)
    shutil.rmtree(project.root / ".git")
    assert _reported(project, "--no-cache") == {"good.py"}
