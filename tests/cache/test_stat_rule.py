"""Every cache that reuses an answer by stat data follows one racy-clean rule (cache.racy):
size, mtime, ctime and inode must all match, and stat data whose mtime or ctime is within
`WINDOW_NS` of the moment the entry stands for (or after it) is unknown."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Project
from import_policy.cache.racy import WINDOW_NS, kept, racy, trusted
from import_policy.cache.stat import Stat, stat_of
from import_policy.discovery.files import discover

CONFIG = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
"""


def _keep_mtime(path: Path, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _age(*paths: Path) -> None:
    """Timestamps well before any cache entry: nothing is racily clean."""
    for path in paths:
        os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))


def test_a_same_size_edit_that_keeps_the_mtime_is_seen(project: Project) -> None:
    project.config(CONFIG)
    path = project.write("pkg/m.py", "import os\n")
    _age(path)
    assert project.run("check", ".")[0] == 0  # the whole-tree result is cached
    before = path.stat()
    with open(path, "w", encoding="utf-8") as out:  # in place: same inode, same size
        out.write("import re\n")
    _keep_mtime(path, before)
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino
    code, out, _ = project.run("check", ".")
    assert code == 1 and "pkg/m.py:1:8: no-re" in out, out


def test_a_file_added_to_a_folder_whose_mtime_is_restored_is_seen(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/m.py", "import os\n")
    folder = project.root / "pkg"
    _age(folder)
    assert project.run("check", ".")[0] == 0  # the walk and the result are cached
    before = folder.stat()
    project.write("pkg/new.py", "import re\n")
    _keep_mtime(folder, before)
    code, out, _ = project.run("check", ".")
    assert code == 1 and "pkg/new.py:1:8: no-re" in out, out


def test_the_walk_cache_agrees_after_a_restored_folder_mtime(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("x = 1\n", encoding="utf-8")
    _age(tmp_path / "a")
    assert [f.relative for f in discover([tmp_path], tmp_path, (), remember=True)] == ["a/x.py"]
    before = (tmp_path / "a").stat()
    (tmp_path / "a" / "y.py").write_text("y = 1\n", encoding="utf-8")
    _keep_mtime(tmp_path / "a", before)
    assert [f.relative for f in discover([tmp_path], tmp_path, (), remember=True)] == ["a/x.py", "a/y.py"]


def test_racily_clean_entries_are_unknown(tmp_path: Path) -> None:
    """The boundary: stat data whose mtime or ctime is at `since - WINDOW_NS` or later cannot
    stand for the bytes; one nanosecond older, it can."""
    path = tmp_path / "f.py"
    path.write_text("x = 1\n", encoding="utf-8")
    now = stat_of(path)
    assert now is not None
    edge = max(now.mtime_ns, now.ctime_ns) + WINDOW_NS  # the last `since` that cannot trust it
    assert racy(now, edge) and not racy(now, edge + 1)
    for mtime, ctime in ((0, 10**9), (10**9, 0), (10**9, 10**9)):  # each timestamp alone decides
        stat = now._replace(mtime_ns=mtime, ctime_ns=ctime)
        assert racy(stat, 10**9 + WINDOW_NS)  # at the window's edge: racily clean
        assert not racy(stat, 10**9 + WINDOW_NS + 1)  # one nanosecond later: trusted
        assert racy(stat, 10**9)  # within it, or after
        assert not trusted(stat, stat, 10**9 + WINDOW_NS) and trusted(stat, stat, 10**9 + WINDOW_NS + 1)
        assert kept(stat, 10**9 + WINDOW_NS) is None and kept(stat, 10**9 + WINDOW_NS + 1) == stat
    # A file system with timestamps in whole seconds (or FAT's even ones): an edit any time
    # after `since` gets a timestamp after `since - 2 s`, so it is never taken for the old one.
    whole = now._replace(mtime_ns=now.mtime_ns - now.mtime_ns % 2_000_000_000, ctime_ns=0)
    assert racy(whole, whole.mtime_ns + 1_999_999_999) and racy(whole, whole.mtime_ns + WINDOW_NS)
    old = edge + 1
    assert trusted(now, now, old)
    for field in range(4):  # every field must match
        other = Stat(*(v + 1 if i == field else v for i, v in enumerate(now)))
        assert not trusted(other, now, old)
    assert not trusted(None, now, old) and kept(None, old) is None
