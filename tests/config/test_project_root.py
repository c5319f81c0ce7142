"""The project root: the pyproject.toml's folder when that is what named the YAML, a
top-level `root:` (relative to the YAML) where the file says so, `--config FILE`'s folder."""

from __future__ import annotations

from conftest import Project

PICKLE = "rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['pkg/**']\n"


def test_a_pyproject_naming_a_yaml_in_a_subfolder_keeps_its_own_folder_as_root(project: Project) -> None:
    # The layout docs/configuration.md shows: the YAML under tools/, the code beside pyproject.toml.
    project.write("pyproject.toml", '[tool.import-policy]\nconfig = "tools/import-policy.yaml"\n')
    project.write("tools/import-policy.yaml", PICKLE)
    project.write("pkg/a.py", "import pickle\n")
    assert project.lines() == ["pkg/a.py:1:8: no-pickle `pickle` is forbidden"]


def test_the_rocm_pass_finds_the_package_beside_the_pyproject(project: Project) -> None:
    project.write("pyproject.toml", '[tool.import-policy]\nconfig = "tools/ip.yaml"\n')
    project.write("tools/ip.yaml", "extends: [rocm-safety]\n")
    project.write("pkg/__init__.py", "import xformers\n")
    assert project.lines() == [
        "pkg/__init__.py:1:8: heavy-import-reachable importing `pkg` imports `xformers`: pkg -> xformers "
        "(xformers: CUDA extension; loads its native library at import)"
    ]


def test_root_in_the_yaml_overrides_where_it_was_found(project: Project) -> None:
    project.write("tools/ip.yaml", "root: ..\n" + PICKLE)
    project.write("pkg/a.py", "import pickle\n")
    project.write("tools/pkg/b.py", "import pickle\n")
    assert project.lines("--config", "tools/ip.yaml") == ["pkg/a.py:1:8: no-pickle `pickle` is forbidden"]


def test_config_file_takes_its_own_folder_without_root(project: Project) -> None:
    project.write("tools/ip.yaml", PICKLE)
    project.write("pkg/a.py", "import pickle\n")
    project.write("tools/pkg/b.py", "import pickle\n")
    assert project.lines("--config", "tools/ip.yaml") == ["tools/pkg/b.py:1:8: no-pickle `pickle` is forbidden"]


def test_root_that_is_no_folder_is_an_error_at_its_line(project: Project) -> None:
    project.config("version: 1\nroot: nowhere\n" + PICKLE)
    code, out, err = project.run("check")
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == "import-policy: import-policy.yaml:2: root 'nowhere' does not exist (it is relative to this file)"


def test_root_in_an_extended_file_is_an_error(project: Project) -> None:
    project.write("base.yaml", "root: ..\n" + PICKLE)
    project.config("extends: [base.yaml]\n")
    code, _, err = project.run("check")
    assert code == 2
    assert err.splitlines()[0] == (
        "import-policy: base.yaml:1: root: is read only from the configuration a run starts from, not from an extended file"
    )


def test_an_absolute_root_is_an_error(project: Project) -> None:
    project.config("root: /tmp\n" + PICKLE)
    code, _, err = project.run("check")
    assert code == 2
    assert err.splitlines()[0] == "import-policy: import-policy.yaml:1: root '/tmp' must be a folder relative to this file, like '..'"


def test_a_warm_run_under_a_moved_root_answers_the_same(project: Project) -> None:
    project.write("pyproject.toml", '[tool.import-policy]\nconfig = "tools/import-policy.yaml"\n')
    project.write("tools/import-policy.yaml", PICKLE)
    project.write("pkg/a.py", "import pickle\n")
    first = project.run("check")
    assert first == project.run("check")
    assert first[0] == 1


def test_extends_stay_inside_the_root_the_yaml_names(project: Project) -> None:
    # tools/ip.yaml with `root: ..` may extend a file beside tools/: it is inside the project root.
    project.write("policies/base.yaml", PICKLE)
    project.write("tools/ip.yaml", "root: ..\nextends: [../policies/base.yaml]\n")
    project.write("pkg/a.py", "import pickle\n")
    assert project.lines("--config", "tools/ip.yaml") == ["pkg/a.py:1:8: no-pickle `pickle` is forbidden"]
