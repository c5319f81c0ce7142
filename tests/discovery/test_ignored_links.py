"""A `.gitignore`d folder is skipped whole, whether it is a folder or a link to one; and a
walk cache saved while git answered is not reused once git refuses the repository (then
nothing is hidden: contract section 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Project, age
from import_policy.discovery.files import Locator, discover

# The trees are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = pytest.mark.usefixtures("later")

CONFIG = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n"
ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _checked(project: Project, *argv: str) -> tuple[set[str], str]:
    code, out, err = project.run("check", *argv)
    assert code in (0, 1), err
    return {line.split(":")[0] for line in out.splitlines()[:-1]}, err


def _tree(project: Project) -> None:
    project.config(CONFIG)
    # git cannot re-include a file whose folder is ignored: `!out/m.py` re-includes nothing.
    project.write(".gitignore", "out/\n!out/m.py\ngen/\n!gen/m.py\n")
    project.write("real/m.py", "import re\n")
    project.write("gen/m.py", "import re\n")
    project.write("good.py", "import re\n")
    (project.root / "out").symlink_to("real")
    age(project.root)


def test_a_link_to_an_ignored_folder_is_skipped_like_the_folder(project: Project) -> None:
    _tree(project)
    expected = {"good.py", "real/m.py"}
    assert _checked(project, "--no-cache")[0] == expected
    assert _checked(project)[0] == expected  # cold cache
    assert _checked(project)[0] == expected  # the walk cache's listing of the link
    files = discover([project.root], project.root, (), remember=True)
    assert [f.relative for f in files] == ["good.py", "real/m.py"]
    locator = Locator(project.root, ())
    assert [locator.walked(p) for p in ("out/m.py", "gen/m.py", "real/m.py")] == [False, False, True]


@needs_git
def test_git_agrees_the_real_folder_is_ignored_whole(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The expectation above is git's: a file under an ignored folder stays ignored."""
    for name, value in ISOLATED.items():
        monkeypatch.setenv(name, value)
    _tree(project)
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", "gen/m.py"], cwd=project.root)
    assert ignored.returncode == 0
    assert _checked(project, "--no-cache")[0] == {"good.py", "real/m.py"}


@needs_git
def test_a_walk_cache_saved_while_git_answered_is_not_reused_once_it_refuses(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    for name, value in ISOLATED.items():
        monkeypatch.setenv(name, value)
    project.config(CONFIG)
    project.write(".gitignore", "generated/\n")
    project.write("generated/tracked.py", "import re\n")
    project.write("generated/untracked.py", "import re\n")
    project.write("good.py", "import re\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=project.root, check=True)
    subprocess.run([*git, "add", "-f", "import-policy.yaml", ".gitignore", "good.py", "generated/tracked.py"], cwd=project.root, check=True)
    age(project.root)  # older than any cache entry's write second: listings are reused
    answered = {"generated/tracked.py", "good.py"}
    assert _checked(project) == (answered, "")
    assert _checked(project) == (answered, "")  # warm: the walk cache and the run cache
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("no-git")))
    refused = "import-policy: warning: git cannot say which files it tracks (git is not installed), so .gitignore is not applied: every file is checked\n"
    every = answered | {"generated/untracked.py"}
    assert _checked(project, "--no-cache") == (every, refused)
    assert _checked(project) == (every, refused)
    assert _checked(project) == (every, refused)  # warm again: still said
    monkeypatch.setenv("PATH", path)
    assert _checked(project) == (answered, "")
