"""Baselines across renames and partial runs: a file git sees as renamed keeps its entries; an
entry whose file is gone is named as stale with its old path; `--write-baseline` on named
files keeps the entries of the files it did not check."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import Project, git

CONFIG = "rules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n"
A = "import os\nimport pickle\n\n\ndef f():\n    return pickle.dumps(os.name)\n"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def repo(project: Project) -> Project:
    project.config(CONFIG)
    project.write("pkg/a.py", A)
    project.write("pkg/b.py", "import pickle\n")
    git(project.root, "init", "-q")
    assert project.run("check", "--write-baseline", "baseline.json")[0] == 0
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "legacy")
    return project


@needs_git
def test_a_file_git_sees_as_renamed_keeps_its_entries(repo: Project) -> None:
    git(repo.root, "mv", "pkg/a.py", "pkg/c.py")
    assert repo.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")
    # Renamed and edited a little, as git still matches it by content.
    (repo.root / "pkg" / "c.py").write_text(A + "\n\ndef g():\n    return 1\n")
    assert repo.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")
    # Named alone, as pre-commit passes the renamed file.
    assert repo.run("check", "--baseline", "baseline.json", "pkg/c.py") == (0, "All checks passed!\n", "")


@needs_git
def test_a_committed_rename_keeps_its_entries(repo: Project) -> None:
    """In CI every rename is committed: the base is the commit that last wrote the baseline
    (`git log -1 -- BASELINE`), not HEAD."""
    git(repo.root, "mv", "pkg/a.py", "pkg/c.py")
    git(repo.root, "commit", "-qm", "rename")
    (repo.root / "pkg" / "b.py").write_text("import pickle\nimport os\n")
    git(repo.root, "commit", "-qam", "later work")
    assert repo.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")
    assert repo.run("check", "--baseline", "baseline.json", "pkg/c.py") == (0, "All checks passed!\n", "")
    # A baseline written (and committed) after the rename is keyed by the new path already.
    assert repo.run("check", "--write-baseline", "baseline.json")[0] == 0
    git(repo.root, "commit", "-qam", "baseline again")
    assert repo.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")


@needs_git
def test_an_entry_whose_file_is_gone_is_stale_and_named(repo: Project) -> None:
    (repo.root / "pkg" / "b.py").unlink()
    code, out, err = repo.run("check", "--baseline", "baseline.json")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines() == [
        "import-policy: warning: baseline.json: entry no longer matches: no-pickle in pkg/b.py (the file is gone): "
        "'import pickle'; shrink the baseline with --write-baseline",
    ]


@needs_git
def test_a_rename_git_cannot_see_names_the_old_path(repo: Project) -> None:
    """Moved without git and rewritten: the finding is new, and the old entry is named."""
    (repo.root / "pkg" / "a.py").rename(repo.root / "pkg" / "c.py")
    (repo.root / "pkg" / "c.py").write_text("import pickle as p\n")
    code, out, err = repo.run("check", "--baseline", "baseline.json")
    assert code == 1 and out.startswith("pkg/c.py:1:8: no-pickle")
    assert "no-pickle in pkg/a.py (the file is gone)" in err


def test_write_baseline_on_named_files_keeps_the_others(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/a.py", A)
    project.write("pkg/b.py", "import pickle\n")
    assert project.run("check", "--write-baseline", "baseline.json")[0] == 0
    project.write("pkg/b.py", "import os\nimport pickle\n")
    assert project.run("check", "--write-baseline", "baseline.json", "pkg/b.py")[0] == 0
    paths = sorted(entry["path"] for entry in json.loads((project.root / "baseline.json").read_text())["entries"])
    assert paths == ["pkg/a.py", "pkg/b.py"]
    assert project.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")


def test_one_baseline_serves_a_monorepo_whatever_files_a_run_names(project: Project) -> None:
    """pre-commit names the files of one package or of several: the same baseline matches both."""
    project.write("alpha/import-policy.yaml", CONFIG)
    project.write("alpha/a.py", "import pickle\n")
    project.write("beta/import-policy.yaml", CONFIG)
    project.write("beta/b.py", "import pickle\n")
    assert project.run("check", "--write-baseline", "baseline.json", "alpha/a.py", "beta/b.py")[0] == 0
    clean = (0, "All checks passed!\n", "")
    assert project.run("check", "--baseline", "baseline.json", "alpha/a.py") == clean
    assert project.run("check", "--baseline", "baseline.json", "alpha/a.py", "beta/b.py") == clean
    assert project.run("check", "--baseline", "baseline.json") == clean
    (project.root / "baseline.json").unlink()
    assert project.run("check", "--write-baseline", "baseline.json", "alpha/a.py")[0] == 0
    assert project.run("check", "--write-baseline", "baseline.json", "beta/b.py")[0] == 0
    assert project.run("check", "--baseline", "baseline.json") == clean
