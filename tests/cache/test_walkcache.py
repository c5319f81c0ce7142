"""A remembered walk lists exactly what a fresh walk lists, whatever changed in between."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import PAST, age
from import_policy.cache.facts import FOLDER
from import_policy.discovery.files import discover
from import_policy.patterns import PathGlob

# Trees here are dated an hour back (`age`): the caches' moment too, so they trust stat data.
pytestmark = pytest.mark.usefixtures("later")



def _listing(root: Path, remember: bool, exclude: tuple[PathGlob, ...] = ()) -> list[tuple[str, str]]:
    return [(f.relative, f.language) for f in discover([root], root, exclude, remember=remember)]


def _agree(root: Path, exclude: tuple[PathGlob, ...] = ()) -> list[tuple[str, str]]:
    fresh = _listing(root, False, exclude)
    assert _listing(root, True, exclude) == fresh  # fills or refreshes the cache
    assert _listing(root, True, exclude) == fresh  # answered from it
    return fresh


def _write(root: Path, relative: str, text: str = "x = 1\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _in_place(path: Path, text: str) -> None:
    """Rewrite a file without touching its folder (no rename, no new entry): its folder's
    stat data stays as the cache recorded it, only the file's own changes."""
    before = path.parent.stat()
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    assert path.parent.stat() == before


class _Scans:
    """How many folders a walk listed (the rest came from the cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = os.scandir

        def counted(path: object) -> object:
            self.count += 1
            return real(path)  # type: ignore[call-overload]

        monkeypatch.setattr(os, "scandir", counted)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for relative in ["a.py", "pkg/b.py", "pkg/sub/c.py", "pkg/sub/k.cu", "pkg/sub/notes.txt", "gen/d.py", "pkg/sub/deep/e.py"]:
        _write(tmp_path, relative)
    _write(tmp_path, ".gitignore", "gen/\n")
    (tmp_path / FOLDER).mkdir()  # as after a first run: its making changes the root's listing
    age(tmp_path)
    return tmp_path


def test_an_unchanged_tree(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed = _agree(tree)
    assert ("gen/d.py", "python") not in listed and ("pkg/sub/k.cu", "c") in listed
    assert list((tree / FOLDER / "walk").glob("*.json"))
    scans = _Scans(monkeypatch)
    assert _listing(tree, True) == listed
    assert scans.count == 0  # every folder's listing came from the cache


@pytest.mark.parametrize(
    "change",
    [
        lambda root: _write(root, "pkg/sub/new.py"),
        lambda root: (root / "pkg" / "sub" / "c.py").unlink(),
        lambda root: (root / "pkg" / "sub").rename(root / "pkg" / "moved"),
        lambda root: _in_place(root / ".gitignore", "pkg/sub/deep/\n"),
        lambda root: _in_place(root / ".gitignore", "gen/\n!gen/\n"),
        lambda root: _write(root, "pkg/.gitignore", "*.cu\n"),
        lambda root: _in_place(root / "pkg" / "sub" / "c.py", "import os\n"),
    ],
    ids=["new-file", "removed", "renamed-folder", "root-gitignore", "negation", "new-gitignore", "content-only"],
)
def test_changes_are_seen(tree: Path, change: object) -> None:
    before = _agree(tree)
    change(tree)  # type: ignore[operator]
    after = _agree(tree)
    assert after == _listing(tree, False)
    del before


def test_exclude_is_part_of_the_key(tree: Path) -> None:
    _agree(tree)
    assert ("pkg/b.py", "python") not in _agree(tree, (PathGlob.compile("pkg/b.py"),))


@pytest.mark.parametrize("damage", ["", "{", '{"folders": {"pkg": [1, null, [["x.py", "python"]]]}}', "[]"])
def test_a_damaged_cache_is_ignored(tree: Path, damage: str) -> None:
    fresh = _agree(tree)
    for entry in (tree / FOLDER / "walk").glob("*.json"):
        entry.write_text(damage, encoding="utf-8")
    assert _listing(tree, True) == fresh
