""".gitignore verdicts kept between runs for single-path lookups (cache.ignores): the same
answers as compiling the rules, keyed by the rules' bytes, off with --no-cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project
from import_policy.cache import ignores
from import_policy.cache.seal import FOLDER
from import_policy.policy.load import load
from import_policy.discovery import files
from import_policy.project.modules import ProjectModules

CONFIG = """\
version: 1
rocm_safety:
  heavy_modules: [triton]
"""
FILES = ["pkg/__init__.py", "pkg/a.py", "pkg/ignored/y.py", "pkg/dropped.py", "pkg/kept_again.py", "pkg/b/c.py"]
NAMES = ["pkg", "pkg.a", "pkg.ignored.y", "pkg.dropped", "pkg.kept_again", "pkg.b.c", "missing"]


def _tree(root: Path) -> None:
    (root / "import-policy.yaml").write_text(CONFIG, encoding="utf-8")
    (root / ".gitignore").write_text("pkg/ignored/\n*dropped*\n*kept*\n", encoding="utf-8")
    for relative in FILES:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("x = 1\n", encoding="utf-8")
    (root / "pkg" / ".gitignore").write_text("!kept_again.py\n", encoding="utf-8")


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a later run starts from: nothing known in memory, nothing compiled."""
    monkeypatch.setattr(ignores, "_open", {})
    files._compiled.cache_clear()


def _lookups(root: Path, remember: bool) -> dict[str, str | None]:
    modules = ProjectModules(load(None, root).policy, {}, remember)
    return {name: modules.get(name) for name in NAMES}


def _refuse_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: bytes) -> object:
        raise AssertionError("a .gitignore was compiled")

    monkeypatch.setattr(files, "_compiled", refuse)


def test_a_later_run_answers_lookups_from_the_verdicts_without_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path)
    walked = dict(ProjectModules(load(None, tmp_path).policy, {}).items())  # the walk: rules compiled
    expected = {name: walked.get(name) for name in NAMES}
    assert expected["pkg.ignored.y"] is None and expected["pkg.dropped"] is None
    assert expected["pkg.kept_again"] == "pkg/kept_again.py"  # the deeper negation wins, as in git
    _new_process(monkeypatch)
    assert _lookups(tmp_path, remember=True) == expected
    ignores.save_all()
    _new_process(monkeypatch)
    _refuse_compiling(monkeypatch)
    assert _lookups(tmp_path, remember=True) == expected


def test_an_edited_gitignore_is_asked_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    _new_process(monkeypatch)
    assert _lookups(tmp_path, remember=True)["pkg.b.c"] == "pkg/b/c.py"
    ignores.save_all()
    (tmp_path / ".gitignore").write_text("pkg/ignored/\n*dropped*\n*kept*\npkg/b/\n", encoding="utf-8")
    _new_process(monkeypatch)
    assert _lookups(tmp_path, remember=True)["pkg.b.c"] is None


def test_a_forged_entry_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    _new_process(monkeypatch)
    _lookups(tmp_path, remember=True)
    ignores.save_all()
    entry = tmp_path / FOLDER / "ignores" / "verdicts.json"
    data = entry.read_bytes()
    assert b"true" in data
    entry.write_bytes(data.replace(b"true", b"false"))  # every rule now says "not ignored"
    _new_process(monkeypatch)
    assert _lookups(tmp_path, remember=True)["pkg.ignored.y"] is None


def test_without_remember_nothing_is_read_or_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    _new_process(monkeypatch)
    _lookups(tmp_path, remember=False)
    ignores.save_all()
    assert not (tmp_path / FOLDER / "ignores").exists()


ROCM = """\
version: 1
rocm_safety:
  heavy_modules: [triton]
  entry_modules: [pkg]
"""


def test_check_keeps_verdicts_and_no_cache_keeps_none(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config(ROCM)
    project.write(".gitignore", "build/\n")
    project.write("pkg/__init__.py", "from pkg import side\n")
    project.write("pkg/side.py", "import triton\n")
    monkeypatch.setattr(ignores, "_open", {})
    code, out, _ = project.run("check", "--no-cache", "pkg/__init__.py")
    assert code == 1 and "heavy-import-reachable" in out
    assert not (project.root / FOLDER / "ignores").exists()
    first = project.run("check", "pkg/__init__.py")
    assert first[0] == 1 and (project.root / FOLDER / "ignores" / "verdicts.json").is_file()
    _new_process(monkeypatch)
    _refuse_compiling(monkeypatch)
    assert project.run("check", "pkg/__init__.py") == first


def test_a_later_listing_of_every_module_reuses_the_walk_without_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: None
) -> None:
    """A contract lists every module of the project: with the caches, that walk keeps what each
    folder held (cache.walk), so an unchanged tree is listed again without matching `.gitignore`
    rules; the same listing as a walk without the caches."""
    _tree(tmp_path)
    fresh = dict(ProjectModules(load(None, tmp_path).policy, {}).items())
    _new_process(monkeypatch)
    assert dict(ProjectModules(load(None, tmp_path).policy, {}, True).items()) == fresh  # the cache folder made
    _new_process(monkeypatch)
    assert dict(ProjectModules(load(None, tmp_path).policy, {}, True).items()) == fresh  # folders kept as they are
    _new_process(monkeypatch)
    _refuse_compiling(monkeypatch)
    assert sorted(ProjectModules(load(None, tmp_path).policy, {}, True)) == sorted(fresh)  # the walk alone
    assert "pkg.kept_again" in fresh and "pkg.dropped" not in fresh
