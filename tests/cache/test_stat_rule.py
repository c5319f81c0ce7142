"""Every cache that reuses an answer by stat data follows git's racy-clean rule: size, mtime,
ctime and inode must all match, and an mtime within the entry's own write second is unknown."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Project
from import_policy.cache.stat import Stat, stat_of, trusted
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
    path = tmp_path / "f.py"
    path.write_text("x = 1\n", encoding="utf-8")
    now = stat_of(path)
    assert now is not None
    later = now.mtime_ns
    assert not trusted(now, now, written_ns=later)  # written in the file's own second
    assert not trusted(now, now, written_ns=later - later % 1_000_000_000 + 999_999_999)
    assert trusted(now, now, written_ns=later + 1_000_000_000 - later % 1_000_000_000)  # the next second
    # A file system with whole-second timestamps: the mtime is the second's first nanosecond,
    # and an entry written in that second still cannot trust it.
    whole = now._replace(mtime_ns=later - later % 1_000_000_000)
    assert not trusted(whole, whole, written_ns=whole.mtime_ns)
    assert not trusted(whole, whole, written_ns=whole.mtime_ns + 999_999_999)
    assert trusted(whole, whole, written_ns=whole.mtime_ns + 1_000_000_000)
    changed = now._replace(ctime_ns=now.ctime_ns + 1)
    assert not trusted(changed, now, written_ns=later + 10_000_000_000)  # ctime moved
    for field in range(4):
        other = Stat(*(v + 1 if i == field else v for i, v in enumerate(now)))
        assert not trusted(other, now, written_ns=later + 10_000_000_000)
    assert not trusted(None, now, written_ns=later + 10_000_000_000)
