"""Where there is a repository but git cannot say what it tracks (it refuses the repository
for "dubious ownership", as in many CI containers, or it is not installed), a `.gitignore`
may hide a tracked file: every file is checked, and one stderr line says why (contract
section 2). Each case is git's own refusal, not a stand-in."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CONFIG = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n"
ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _repository(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ISOLATED.items():  # no safe.directory from the machine's own git config
        monkeypatch.setenv(name, value)
    project.config(CONFIG)
    project.write(".gitignore", "generated/\n")
    project.write("generated/tracked.py", "import re\n")
    project.write("good.py", "import re\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=project.root, check=True)
    subprocess.run([*git, "add", "-f", "."], cwd=project.root, check=True)


def _checked(project: Project) -> tuple[set[str], list[str]]:
    code, out, err = project.run("check", "--no-cache")
    assert code == 1, err
    return {line.split(":")[0] for line in out.splitlines()[:-1]}, err.splitlines()


def test_git_answering_checks_the_tracked_file(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _repository(project, monkeypatch)
    assert _checked(project) == ({"generated/tracked.py", "good.py"}, [])


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to give the work tree to another user")
def test_dubious_ownership_checks_every_file(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _repository(project, monkeypatch)
    os.chown(project.root, 4242, 4242)  # another user's checkout: git refuses it
    refused = subprocess.run(["git", "ls-files"], cwd=project.root, capture_output=True, text=True)
    assert refused.returncode != 0 and "dubious ownership" in refused.stderr  # git's own refusal
    files, err = _checked(project)
    assert files == {"generated/tracked.py", "good.py"}
    [line] = err
    assert line.startswith("import-policy: warning: git cannot say which files it tracks (fatal: detected dubious ownership")
    assert line.endswith("), so .gitignore is not applied: every file is checked")


def test_git_not_installed_checks_every_file(project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    _repository(project, monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("no-git")))
    files, err = _checked(project)
    assert files == {"generated/tracked.py", "good.py"}
    assert err == ["import-policy: warning: git cannot say which files it tracks (git is not installed), so .gitignore is not applied: every file is checked"]


def test_without_a_repository_gitignore_applies_and_nothing_is_said(project: Project) -> None:
    project.config(CONFIG)
    project.write(".gitignore", "generated/\n")
    project.write("generated/x.py", "import re\n")
    project.write("good.py", "import re\n")
    assert _checked(project) == ({"good.py"}, [])
