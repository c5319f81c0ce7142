"""A configuration file named on the command line (as the pre-commit hooks pass a commit
that changes only `import-policy.yaml`, a `pyproject.toml` or an `extends` base) is
validated, never checked as source; a broken one fails (contract section 7)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import Project

GOOD_BASE = "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n"
BROKEN_BASE = "version: 1\nrules:\n  - id: no-pickle\n    forbd: [pickle]\n"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def monorepo(project: Project) -> Project:
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)  # a shared base lives in one repository
    project.write("base.yaml", GOOD_BASE)
    project.write("proj/import-policy.yaml", "version: 1\nextends: [../base.yaml]\n")
    project.write("proj/a.py", "import pickle\n")
    project.write("ci.yml", "on: [push\n")  # YAML no configuration reads (and broken)
    return project


@pytest.mark.parametrize("named", [["base.yaml"], ["proj/import-policy.yaml"], ["ci.yml"], ["base.yaml", "ci.yml"]])
def test_a_valid_configuration_named_passes_and_nothing_else_is_read(monorepo: Project, named: list[str]) -> None:
    assert monorepo.run("check", *named) == (0, "All checks passed!\n", "")


@pytest.mark.parametrize("named", [["base.yaml"], ["proj/import-policy.yaml"]])
def test_a_broken_configuration_named_fails(monorepo: Project, named: list[str]) -> None:
    monorepo.write("base.yaml", BROKEN_BASE)
    code, out, err = monorepo.run("check", *named)
    assert (code, out) == (2, "")
    assert "import-policy: base.yaml:4: unknown key 'forbd' in a rule of kind 'import'" in err


def test_named_sources_beside_a_configuration_are_checked(monorepo: Project) -> None:
    code, out, _ = monorepo.run("check", "base.yaml", "proj/a.py")
    assert (code, out.splitlines()[0]) == (1, "proj/a.py:1:8: no-pickle `pickle` is forbidden")


def test_a_pyproject_table_without_config_fails(monorepo: Project) -> None:
    monorepo.write("tool/pyproject.toml", "[tool.import-policy]\nfoo = 1\n")
    code, _, err = monorepo.run("check", "tool/pyproject.toml")
    assert code == 2 and "tool/pyproject.toml:1: [tool.import-policy] has no `config` key" in err
    monorepo.write("tool/pyproject.toml", "[project]\nname = 'x'\n")  # not ours: passed over
    assert monorepo.run("check", "tool/pyproject.toml") == (0, "All checks passed!\n", "")


def test_the_hooks_match_configuration_files() -> None:
    from pathlib import Path

    import yaml

    hooks = yaml.safe_load((Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        assert {"yaml", "toml"} <= set(hook["types_or"]), hook["id"]
