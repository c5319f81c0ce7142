"""A whole-tree run over an unchanged tree is answered from the last run (runcache), exactly."""

from __future__ import annotations

import os

import pytest

from conftest import Project
from import_policy.pipeline import engine
from import_policy.cache.facts import FOLDER

CONFIG = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [pkg]
rules:
  - id: re-regex
    forbid: [re]
    fix: {replace_module: regex}
    allow_in: [pkg/stale_entry.py]
  - id: no-pickle
    forbid: [pickle]
"""


def _tree(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "from . import kernels\n")
    project.write("pkg/kernels.py", "import tilelang\nimport re\n\n@tilelang.jit\ndef k():\n    pass\n")
    project.write("pkg/other.py", "import pickle  # import-policy: ignore[no-pickle]\nimport os\n")


def _no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the engine ran")

    monkeypatch.setattr(engine, "run", refuse)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_an_unchanged_tree_is_answered_from_the_last_run(
    project: Project, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    _tree(project)
    first = project.run("check", "--format", fmt, ".")
    assert first[0] == 1 and "re-regex" in first[1] and "stale_entry" in first[2]
    assert list((project.root / FOLDER / "runs").glob("*.json"))
    _no_engine(monkeypatch)
    assert project.run("check", "--format", fmt, ".") == first


def test_touched_files_with_the_same_bytes_still_hit(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    first = project.run("check", ".")
    path = project.root / "pkg" / "other.py"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    _no_engine(monkeypatch)
    assert project.run("check", ".") == first


def test_a_hit_confirmed_by_bytes_records_the_new_stat_data(
    project: Project, monkeypatch: pytest.MonkeyPatch, later: None,
) -> None:
    """As `git status` refreshes the index: after a checkout or a hard-link copy moved every
    file's ctime, one run confirms the bytes, and the runs after it trust the stat data again."""
    from import_policy.cache import run as runcache

    _tree(project)
    old = 1_000_000_000 * 1_600_000_000
    files = [p for p in project.root.rglob("*") if p.is_file() and FOLDER not in p.parts]
    for path in files:
        os.utime(path, ns=(old, old))
    first = project.run("check", ".")
    for path in files:  # the same mtime, a new ctime: stat data no longer stands for the bytes
        os.utime(path, ns=(old, old))
    hashed: list[bytes] = []
    digest = runcache._digest

    def counting(data: bytes) -> str:
        hashed.append(data)
        return digest(data)

    monkeypatch.setattr(runcache, "_digest", counting)
    _no_engine(monkeypatch)
    assert project.run("check", ".") == first
    assert len(hashed) == 3  # the three files checked, each confirmed by its bytes
    hashed.clear()
    assert project.run("check", ".") == first
    assert hashed == []


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "pkg" / "other.py").write_text("import pickle\n", encoding="utf-8"),  # a byte
        lambda root: (root / "pkg" / "new.py").write_text("import re\n", encoding="utf-8"),  # a file
        lambda root: (root / "pkg" / "other.py").unlink(),  # one fewer
        lambda root: (root / "import-policy.yaml").write_text(CONFIG.replace("pickle]", "pickle, os]"), encoding="utf-8"),
    ],
    ids=["byte", "new-file", "removed-file", "policy"],
)
def test_any_change_is_a_miss(project: Project, change: object) -> None:
    _tree(project)
    project.run("check", ".")
    change(project.root)  # type: ignore[operator]
    again = project.run("check", ".")
    fresh = project.run("check", "--no-cache", ".")
    assert again == fresh


def test_other_selections_and_partial_runs_do_not_share_the_entry(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    whole = project.run("check", ".")
    selected = project.run("check", "--select", "no-pickle", ".")
    assert selected != whole and "re-regex" not in selected[1]
    partial = project.run("check", "pkg/other.py")
    assert "kernels" not in partial[1]


def test_a_corrupt_entry_is_a_miss_and_is_rewritten(project: Project) -> None:
    _tree(project)
    first = project.run("check", ".")
    for entry in (project.root / FOLDER / "runs").glob("*.json"):
        entry.write_text('{"key": ', encoding="utf-8")
    assert project.run("check", ".") == first
    assert all(e.read_text(encoding="utf-8").startswith('{"mac":"') for e in (project.root / FOLDER / "runs").glob("*.json"))


def test_fix_and_no_cache_never_use_it(project: Project) -> None:
    _tree(project)
    project.run("check", ".")
    code, out, _ = project.run("check", "--fix", ".")
    assert "import regex as re" in (project.root / "pkg" / "kernels.py").read_text(encoding="utf-8")
    assert project.run("check", ".") == project.run("check", "--no-cache", ".")
    assert code == 1 and "Found" in out


def test_selections_used_in_turn_each_stay_warm(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    whole = project.run("check", ".")
    selected = project.run("check", "--select", "no-pickle", ".")
    _no_engine(monkeypatch)
    assert project.run("check", ".") == whole
    assert project.run("check", "--select", "no-pickle", ".") == selected


def test_the_key_does_not_depend_on_string_hashing(project: Project) -> None:
    """Two processes with different hash seeds share the entry (a set's repr would not)."""
    import subprocess
    import sys

    _tree(project)
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "import_policy", "check", "--ignore", "re-regex,import-time-jit", "."],
            cwd=project.root, capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert done.returncode == 1, done.stderr
    assert len(list((project.root / FOLDER / "runs").glob("*.json"))) == 1
