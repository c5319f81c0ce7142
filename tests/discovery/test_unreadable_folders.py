"""A folder a walk cannot read is named on stderr and the run exits 2; the rest is still checked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conftest import Project
from import_policy.discovery import files as discovery

CONFIG = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
"""


def _tree(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/ok.py", "import re\n")
    project.write("pkg/secret/hidden.py", "import re\n")


def _refuse(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """`os.scandir` fails on `folder` as it does on a folder without read permission (root
    reads every folder, so the tests cannot count on chmod)."""
    real = os.scandir
    folder.chmod(folder.stat().st_mode)  # as a real chmod would, it moves the folder's ctime

    def scandir(path: Any) -> Any:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)


@pytest.mark.parametrize("argv", [["check"], ["check", "--no-cache"], ["check", "pkg"]])
def test_an_unreadable_folder_is_an_error_and_the_rest_is_checked(
    project: Project, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    _tree(project)
    project.run("check")  # a warm cache must not hide it either
    _refuse(monkeypatch, project.root / "pkg" / "secret")
    code, out, err = project.run(*argv)
    assert code == 2, (out, err)
    assert "pkg/ok.py:1:8: no-re" in out
    assert "import-policy: cannot read pkg/secret: Permission denied" in err, err
    assert "All checks passed!" not in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_a_folder_without_permission(project: Project) -> None:
    _tree(project)
    secret = project.root / "pkg" / "secret"
    secret.chmod(0)
    try:
        code, out, err = project.run("check", "--no-cache")
    finally:
        secret.chmod(0o755)
    assert code == 2 and "cannot read pkg/secret" in err and "pkg/ok.py:1:8: no-re" in out, (out, err)
