"""A setuptools `package-dir` layout (ktransformers: package `kt_kernel` kept in folder
`python/`): read from `[tool.setuptools.package-dir]`, or from `packages: {kt_kernel:
python}`, it maps modules to folders for every rule, as Python finds them once installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project

PYPROJECT = '[project]\nname = "kt-kernel"\n[tool.setuptools.package-dir]\nkt_kernel = "python"\n'
CONFIG = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [kt_kernel]
rules:
  - id: no-x
    forbid: [kt_kernel.sub.x]
"""
PACKAGES = "packages: {kt_kernel: python}\n"


def _tree(project: Project, pyproject: bool) -> None:
    if pyproject:
        project.write("pyproject.toml", PYPROJECT)
    project.config(CONFIG + ("" if pyproject else PACKAGES))
    project.write("python/__init__.py", "from kt_kernel import ops\nfrom .sub import x\n")
    project.write("python/ops.py", "import tilelang\n")
    project.write("python/sub/__init__.py", "")
    project.write("python/sub/x.py", "y = 1\n")


def _installed_import(project: Project, tmp_path: Path) -> set[str]:
    """What `import kt_kernel` loads once installed (the folder under its package's name),
    with a stand-in tilelang: Python is the oracle."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "kt_kernel").symlink_to(project.root / "python")
    (site / "tilelang.py").write_text("")
    code = "import sys, kt_kernel; print(sorted(m for m in sys.modules if m.startswith(('kt_kernel', 'tilelang'))))"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
                          capture_output=True, text=True, check=True)
    return set(eval(done.stdout))


@pytest.mark.parametrize("pyproject", [True, False])
def test_a_package_kept_in_another_folder_is_that_package(project: Project, tmp_path_factory: pytest.TempPathFactory, pyproject: bool) -> None:
    _tree(project, pyproject)
    loaded = _installed_import(project, tmp_path_factory.mktemp("oracle"))
    assert loaded == {"kt_kernel", "kt_kernel.ops", "kt_kernel.sub", "kt_kernel.sub.x", "tilelang"}
    expected = [
        "python/__init__.py:2:18: no-x `kt_kernel.sub.x` is forbidden",
        "python/ops.py:1:8: heavy-import-reachable importing `kt_kernel` imports `tilelang`: kt_kernel -> "
        "kt_kernel.ops -> tilelang",
    ]
    for argv in (["--no-cache"], [], [], ["python/ops.py", "python/__init__.py"]):
        code, out, err = project.run("check", *argv)
        assert code == 1, err
        found = [line.split(" (tilelang:")[0] for line in out.splitlines()[:-1]]
        assert found == expected, argv
    code, out, _ = project.run("why", "tilelang")
    assert out.splitlines()[1:] == [
        "  python/__init__.py:1: kt_kernel -> kt_kernel.ops (from kt_kernel import ops)",
        "  python/ops.py:1: kt_kernel.ops -> tilelang (import tilelang)",
    ]


def test_a_package_folder_that_is_not_there_is_an_error(project: Project) -> None:
    project.config(CONFIG + "packages: {kt_kernel: pyhton}\n")
    project.write("python/__init__.py", "")
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (2, "")
    assert "the folder of package 'kt_kernel', 'pyhton', is not a folder under the project root" in err
