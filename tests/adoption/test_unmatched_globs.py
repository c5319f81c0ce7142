"""In a whole-tree run, a `files`, `allow_in`, `exclude` or `rocm_safety.files` glob that
matches no file gets a warning at its YAML line: typos and slash-less patterns (anchored at
the root) show up at once instead of turning a rule off unseen."""

from __future__ import annotations

import pytest

from conftest import Project


def warnings(project: Project, *argv: str) -> list[str]:
    _, _, err = project.run("check", "--no-cache", *argv)
    return [line for line in err.splitlines() if "warning:" in line]


def test_a_files_glob_with_a_typo(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files:\n      - pkgg/**\n")
    project.write("pkg/a.py", "import pickle\n")
    code, out, err = project.run("check", "--no-cache")
    assert (code, out) == (0, "All checks passed!\n")
    assert err == "import-policy: import-policy.yaml:5: warning: files entry 'pkgg/**' of rule 'no-pickle' matches no file\n"


def test_a_slash_less_files_glob_gets_a_hint(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['*_utils.py']\n")
    project.write("pkg/io_utils.py", "import pickle\n")
    assert warnings(project) == [
        "import-policy: import-policy.yaml:4: warning: files entry '*_utils.py' of rule 'no-pickle' matches no file; "
        "globs are anchored at the project root: did you mean '**/*_utils.py'?"
    ]


def test_a_slash_less_allow_in_glob_gets_the_hint_too(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    allow_in: ['*_utils.py']\n")
    project.write("pkg/io_utils.py", "import pickle\n")
    assert warnings(project) == [
        "import-policy: import-policy.yaml:4: warning: allow_in entry '*_utils.py' of rule 'no-pickle' matched no "
        "checked file (globs are anchored at the project root: did you mean '**/*_utils.py'?); remove it"
    ]


def test_a_files_glob_matching_only_files_of_another_language(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['csrc/']\n")
    project.write("csrc/a.cpp", "int x;\n")
    project.write("a.py", "import pickle\n")
    assert warnings(project) == ["import-policy: import-policy.yaml:4: warning: files entry 'csrc/' of rule 'no-pickle' matches no file"]


@pytest.mark.parametrize(("glob", "warned"), [("biuld/", True), ("build/**", False), ("gen/*.py", False), ("gen/*.pyx", True)])
def test_exclude_globs(project: Project, glob: str, warned: bool) -> None:
    project.config(f"exclude: ['{glob}']\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write(".gitignore", "build/\n")
    project.write("build/x.py", "import pickle\n")  # ignored by git, excluded or not: it exists
    project.write("gen/y.py", "import os\n")
    project.write("a.py", "import os\n")
    expected = [f"import-policy: import-policy.yaml:1: warning: exclude entry '{glob}' matches no file"]
    assert warnings(project) == (expected if warned else [])


def test_rocm_safety_files(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  files:\n    - vlm/**\n")
    project.write("vllm/__init__.py", "import os\n")  # an empty one would be warned of as an entry that reaches nothing
    assert warnings(project) == ["import-policy: import-policy.yaml:4: warning: rocm_safety.files entry 'vlm/**' matches no file"]


def test_partial_runs_and_presets_say_nothing(project: Project) -> None:
    project.config("extends: [stable-abi]\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['pkgg/**']\n")
    project.write("pkg/a.py", "import os\n")
    assert warnings(project, "pkg") == []
    # stable-abi's `csrc/` globs match nothing here: a preset's globs are never reported.
    assert warnings(project) == ["import-policy: import-policy.yaml:5: warning: files entry 'pkgg/**' of rule 'no-pickle' matches no file"]


def test_a_run_the_cache_answers_says_it_again(project: Project) -> None:
    project.config("rules:\n  - id: no-pickle\n    forbid: [pickle]\n    files: ['pkgg/**']\n")
    project.write("pkg/a.py", "import os\n")
    first = project.run("check")
    assert "matches no file" in first[2]
    assert project.run("check") == first
