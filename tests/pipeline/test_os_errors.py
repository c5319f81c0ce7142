"""An OS error on a path the tool derived (a module name turned into a file name, a `--config`
path) is an answer, never an internal error: a name longer than the file system allows
(ENAMETOOLONG) names no module, as Python's own import system says."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from conftest import Project

LONG = "a" * 300  # more than NAME_MAX (255) on every file system we run on


def _too_long(tmp_path: Path) -> None:
    try:
        (tmp_path / f"{LONG}.py").is_file()
    except OSError as error:
        assert error.errno == errno.ENAMETOOLONG
    else:  # pragma: no cover - a file system without the limit
        pytest.skip("this file system takes 300-character names")


def test_a_too_long_module_name_is_no_module(project: Project, tmp_path: Path) -> None:
    _too_long(tmp_path)
    project.config("version: 1\nextends: [rocm-safety]\n")
    project.write("pkg/__init__.py", f"import pkg.{LONG}\nimport pkg.{LONG}.b\nfrom pkg import {LONG}\n")
    assert project.run("check", "--no-cache") == (0, "All checks passed!\n", "")
    code, out, err = project.run("why", f"pkg.{LONG}")
    assert code == 2 and "Traceback" not in err and "internal error" not in err, err
    assert project.run("why", "pkg")[0] == 0


def test_a_too_long_config_path_is_a_configuration_error(project: Project, tmp_path: Path) -> None:
    _too_long(tmp_path)
    code, out, err = project.run("check", "--config", f"{LONG}/x.yaml")
    assert code == 2 and "internal error" not in err and "no such file" in err, err
    code, out, err = project.run("check", "--config", f"{LONG}.yaml")
    assert code == 2 and "internal error" not in err and "no such file" in err, err


def test_a_too_long_first_word_is_not_a_crash(project: Project, tmp_path: Path) -> None:
    _too_long(tmp_path)
    code, out, err = project.run(LONG)
    assert code == 2 and "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("setting", [f"extends: [{LONG}.yaml]", f"root: {LONG}", f"extends: [rocm-safety]\nroots: [{LONG}]"])
def test_a_too_long_name_in_the_configuration_is_a_configuration_error(project: Project, tmp_path: Path, setting: str) -> None:
    _too_long(tmp_path)
    project.config(f"version: 1\n{setting}\nrules:\n  - id: p\n    forbid: [pickle]\n")
    code, out, err = project.run("check", "--no-cache")
    assert code == 2 and "internal error" not in err and err.endswith("nothing was checked\n"), err
