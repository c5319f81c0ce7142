"""A run never drops what the user named without a word: excluded named paths, and no files at all."""

from __future__ import annotations

import io
import json
import sys

import pytest

from conftest import Project

CONFIG = "version: 1\n# no ROCm pass: the tree has no package for it to start from\nexclude: ['examples/', 'build/**']\nrules:\n  - id: p\n    forbid: [pickle]\n"
NOTHING = "import-policy: warning: no Python or C-family files found under the given paths; nothing was checked"


def test_a_named_folder_that_exclude_covers_is_reported_with_the_config_line(project: Project) -> None:
    project.config(CONFIG)
    project.write("examples/a.py", "import pickle\n")
    code, out, err = project.run("check", "examples")
    assert code == 0 and out == ""
    assert err.splitlines() == [
        "import-policy: import-policy.yaml:3: warning: exclude entry 'examples/' covers 1 path named on the command line, "
        "not checked: examples",
        NOTHING,
    ]


def test_excluded_named_paths_are_counted_per_entry(project: Project) -> None:
    project.config(CONFIG)
    project.write("examples/a.py", "import pickle\n")
    project.write("build/gen/b.py", "import pickle\n")
    project.write("src/c.py", "import pickle\n")
    code, out, err = project.run("check", "examples/a.py", "build", "build/gen/b.py", "src", "examples")
    assert code == 1 and out.startswith("src/c.py:1:8: p ")
    assert err.splitlines() == [
        "import-policy: import-policy.yaml:3: warning: exclude entry 'examples/' covers 2 paths named on the command line, "
        "not checked: examples/a.py, examples",
        "import-policy: import-policy.yaml:3: warning: exclude entry 'build/**' covers 2 paths named on the command line, "
        "not checked: build, build/gen/b.py",
    ]


def test_an_exclude_entry_from_an_extended_file_names_that_file(project: Project) -> None:
    project.write("base.yaml", "version: 1\nrules:\n  - id: p\n    forbid: [pickle]\nexclude:\n  - gen/\n")
    project.config("extends: [base.yaml]\n")
    project.write("gen/a.py", "import pickle\n")
    project.write("b.py", "import os\n")
    _, _, err = project.run("check", "gen/a.py", "b.py")
    assert err.splitlines() == [
        "import-policy: base.yaml:6: warning: exclude entry 'gen/' covers 1 path named on the command line, not checked: gen/a.py"
    ]


def test_many_excluded_paths_are_summed_up(project: Project) -> None:
    project.config(CONFIG)
    names = [f"examples/m{i}.py" for i in range(5)]
    for name in names:
        project.write(name, "import os\n")
    _, _, err = project.run("check", *names)
    assert err.splitlines()[0].endswith("not checked: examples/m0.py, examples/m1.py, examples/m2.py and 2 more")


def test_walking_the_root_says_nothing_of_exclude(project: Project) -> None:
    project.config(CONFIG)
    project.write("examples/a.py", "import pickle\n")
    project.write("build/b.py", "import pickle\n")  # each exclude entry matches something
    project.write("a.py", "import os\n")
    assert project.run("check") == (0, "All checks passed!\n", "")
    assert project.run("check", ".") == (0, "All checks passed!\n", "")


def test_no_python_files_is_a_warning_not_all_checks_passed(project: Project) -> None:
    project.config(CONFIG)
    (project.root / "empty").mkdir()
    project.write("empty/notes.txt", "import pickle\n")
    assert project.run("check", "empty") == (0, "", NOTHING + "\n")


def test_no_python_files_still_gives_a_valid_json_document(project: Project) -> None:
    project.config(CONFIG)
    (project.root / "empty").mkdir()
    code, out, err = project.run("check", "empty", "--format", "json")
    assert code == 0 and err == NOTHING + "\n"
    assert json.loads(out)["summary"] == {"files": 0, "violations": 0, "fixable": 0}


def test_stdin_for_an_excluded_path_stays_quiet(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config(CONFIG)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"import pickle\n"), encoding="utf-8"))
    code, _, err = project.run("check", "--stdin-filename", "examples/a.py", "-")
    assert (code, err) == (0, "")
