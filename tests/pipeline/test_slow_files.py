"""A file that takes over a second gets one stderr line with its path and time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project
from import_policy.pipeline import slow


@pytest.fixture
def tree(project: Project) -> Project:
    project.config("rules:\n  - id: p\n    forbid: [pickle]\n  - id: inc\n    kind: include\n    forbid: [thread]\n")
    project.write("pkg/a.py", "import pickle\n")
    project.write("pkg/b.py", "import os\n")  # no rule could fire: never parsed, never timed
    project.write("k.cpp", "#include <thread>\n")
    return project


def test_a_fast_run_says_nothing(tree: Project) -> None:
    assert tree.run("check", "--no-cache")[2] == ""


def test_a_slow_file_is_named_once_with_its_time(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slow, "SECONDS", -1.0)  # every file counts as slow
    code, _, err = tree.run("check", "--no-cache")
    assert code == 1
    lines = err.splitlines()
    assert [line.rsplit(" took ", 1)[0] for line in lines] == [
        "import-policy: slow file: k.cpp", "import-policy: slow file: pkg/a.py",
    ]
    assert all(line.endswith(" s") for line in lines)


def test_paths_are_shown_from_where_the_user_stands(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slow, "SECONDS", -1.0)
    monkeypatch.chdir(tree.root / "pkg")
    _, _, err = tree.run("check", "--no-cache", ".")
    assert err.splitlines()[0].startswith("import-policy: slow file: a.py took ")


def test_quiet_and_cached_files_say_nothing(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slow, "SECONDS", -1.0)
    assert tree.run("check", "--no-cache", "-q")[2] == ""
    tree.run("check", "pkg/a.py")
    assert tree.run("check", "pkg/a.py")[2] == ""  # its facts came from the cache: nothing was parsed


def test_files_parsed_in_the_pool_are_named_too(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text("rules:\n  - id: p\n    forbid: [pickle]\n")
    for i in range(70):
        (tmp_path / f"m{i:02}.py").write_text("import pickle\n")
    script = (
        "import sys; from import_policy.pipeline import slow; slow.SECONDS = -1.0; "
        "from import_policy.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "check", "--no-cache", "--jobs", "2"], cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1
    named = sorted(line.split(" ")[3] for line in done.stderr.splitlines())
    assert named == [f"m{i:02}.py" for i in range(70)]
