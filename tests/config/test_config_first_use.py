"""Configurations that would check nothing, or whose fault a user cannot find, are errors that say where."""

from __future__ import annotations

import pytest

from conftest import Project


def _fails(project: Project, *argv: str) -> list[str]:
    code, out, err = project.run("check", *argv)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[-1].endswith("configuration error(s); nothing was checked")
    return lines[:-1]


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n# and another\n", "---\n"])
def test_an_empty_or_comment_only_config_is_an_error(project: Project, text: str) -> None:
    project.config(text)
    project.write("a.py", "import pickle\n")
    [line] = _fails(project)
    assert line.startswith("import-policy: import-policy.yaml: the configuration is empty (or only comments), so it checks nothing")


def test_an_empty_extended_file_is_an_error_too(project: Project) -> None:
    project.write("base.yaml", "# nothing yet\n")
    project.config("extends: [base.yaml]\nrules:\n  - id: p\n    forbid: [pickle]\n")
    [line] = _fails(project)
    assert line.startswith("import-policy: base.yaml: the configuration is empty")


def test_a_config_that_declares_something_still_loads(project: Project) -> None:
    project.config("# comment\nextends: [rocm-safety]\n")
    project.write("pkg/__init__.py", "import os\n")  # the pass's default entry
    assert project.run("check")[0] == 0


def test_pyproject_table_without_config_is_an_error(project: Project) -> None:
    project.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.import-policy]\nexclude = ["build"]\n')
    project.write("a.py", "import pickle\n")
    [line] = _fails(project)
    assert line == (
        "import-policy: pyproject.toml:4: [tool.import-policy] has no `config` key; it checks nothing without one: "
        'name the policy file, e.g. config = "import-policy.yaml"'
    )


def test_an_empty_pyproject_table_is_an_error(project: Project) -> None:
    project.write("pyproject.toml", "[tool.import-policy]\n")
    [line] = _fails(project)
    assert line.startswith("import-policy: pyproject.toml:1: [tool.import-policy] has no `config` key")


def test_pyproject_config_naming_a_missing_file(project: Project) -> None:
    project.write("pyproject.toml", '[tool.import-policy]\nconfig = "policy.yaml"\n')
    [line] = _fails(project)
    assert line == "import-policy: pyproject.toml:1: [tool.import-policy] config = 'policy.yaml': no such file"


def test_a_malformed_pyproject_is_reported_with_its_line(project: Project) -> None:
    project.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.import-policy]\nconfig = import-policy.yaml\n')
    [line] = _fails(project)
    assert line.startswith("import-policy: pyproject.toml:5: invalid TOML: ")


def test_a_malformed_pyproject_that_cannot_name_us_is_passed_over(project: Project) -> None:
    # It cannot hold our table, so the search goes on upward as before.
    project.write("pyproject.toml", "[project\nname = 1\n")
    project.write("a.py", "import os\n")
    code, _, err = project.run("check")
    assert code == 0 and "no configuration found" in err


def test_config_naming_a_folder_says_so(project: Project) -> None:
    (project.root / "policy").mkdir()
    assert _fails(project, "--config", "policy") == ["import-policy: policy: is a folder; --config takes a configuration file"]


def test_config_naming_a_missing_file_says_no_such_file(project: Project) -> None:
    assert _fails(project, "--config", "nope.yaml") == ["import-policy: nope.yaml: no such file"]
