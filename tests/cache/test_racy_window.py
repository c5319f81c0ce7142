"""Each cache that reuses an answer by stat data applies the racy-clean rule (cache.racy): a
file rewritten in place with the same size, on a file system whose clock has not moved since
the entry was made (`one_tick`: its stat data is exactly as it was), is read again. Without
its call to the rule, each cache here would answer from what the file held before.

The module graph's log and the followed distributions' stamp have theirs in
tests/graph/test_store.py and tests/graph/test_follow.py (`-k racy_window`)."""

from __future__ import annotations

from pathlib import Path

from conftest import Project, Tick
from import_policy.cache.stat import stat_of
from import_policy.discovery.files import discover

CONFIG = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
"""


def _walk(root: Path) -> list[str]:
    return [f.relative for f in discover([root], root, (), remember=True)]


def test_the_run_cache_reads_a_file_rewritten_within_the_window(project: Project, one_tick: Tick) -> None:
    project.config(CONFIG)
    path = project.write("pkg/m.py", "import os\n")
    assert project.run("check", ".")[0] == 0  # the whole-tree answer is recorded
    before = stat_of(path)
    path.write_text("import re\n", encoding="utf-8")  # the same size, in place
    assert stat_of(path) == before  # nothing in its stat data tells the edit
    code, out, _ = project.run("check", ".")
    assert code == 1 and "pkg/m.py:1:8: no-re" in out, out


def test_the_walk_cache_lists_again_a_folder_changed_within_the_window(tmp_path: Path, one_tick: Tick) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("x = 1\n", encoding="utf-8")
    assert _walk(tmp_path) == ["a/x.py"]
    before = stat_of(tmp_path / "a")
    (tmp_path / "a" / "y.py").write_text("y = 1\n", encoding="utf-8")
    assert stat_of(tmp_path / "a") == before
    assert _walk(tmp_path) == ["a/x.py", "a/y.py"]


def test_the_walk_cache_reads_again_a_gitignore_rewritten_within_the_window(tmp_path: Path, one_tick: Tick) -> None:
    for name in ("x.py", "y.py"):
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    ignore = tmp_path / ".gitignore"
    ignore.write_text("x.py\n", encoding="utf-8")
    (tmp_path / ".import_policy_cache").mkdir()  # as after a first run
    one_tick.age(tmp_path)  # the folder's listing is trusted: only its `.gitignore` tells
    assert _walk(tmp_path) == ["y.py"]
    ignore.write_text("y.py\n", encoding="utf-8")  # the same size, in place
    assert _walk(tmp_path) == ["x.py"]


def test_the_server_reads_a_configuration_rewritten_within_the_window(tmp_path: Path, one_tick: Tick) -> None:
    """An editor that watches no file: the server looks at its configuration's stat data on
    each message, and where the rule says it cannot tell, at its bytes."""
    from import_policy.server.documents import Documents
    from import_policy.server.projects import Projects

    config = tmp_path / "import-policy.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    (tmp_path / "m.py").write_text("import re\n", encoding="utf-8")
    projects = Projects(Documents(), tmp_path)
    projects.for_file(tmp_path / "m.py")
    assert not projects.moved_on_disk()  # looked at: as loaded
    assert not projects.moved_on_disk()
    config.write_text(CONFIG.replace("[re]", "[os]"), encoding="utf-8")  # the same size, in place
    assert projects.moved_on_disk()
