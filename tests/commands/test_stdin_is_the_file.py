"""`--stdin-filename PATH`: the buffer is the file, for every rule and the whole-project graph;
the result is what `check PATH` gives with those bytes on disk, and nothing of the buffer is
seen anywhere else."""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import Project, age
from import_policy.cli import main

ROCM = "version: 1\nrocm_safety:\n  heavy_modules: [xformers]\n"


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_the_buffer_is_in_the_graph(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config(ROCM)
    project.write("pkg/__init__.py", "import pkg.a\n")
    project.write("pkg/a.py", "x = 1\n")
    _stdin(monkeypatch, b"import xformers\n")
    code, out, _ = project.run("check", "--no-cache", "--stdin-filename", "pkg/a.py")
    assert code == 1
    assert out.splitlines()[0].startswith("pkg/a.py:1:8: heavy-import-reachable importing `pkg` imports `xformers`")


def test_the_buffer_is_not_read_as_another_module(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The buffer for `pkg/__init__.py` must not stand for `pkg/a.py`, which holds `x = 1`."""
    project.config(ROCM)
    project.write("pkg/__init__.py", "import os\n")
    project.write("pkg/a.py", "x = 1\n")
    _stdin(monkeypatch, b"from pkg import a\nimport xformers\n")
    code, out, _ = project.run("check", "--no-cache", "--stdin-filename", "pkg/__init__.py")
    assert code == 1
    assert [line.split(" ")[0] for line in out.splitlines()[:-1]] == ["pkg/__init__.py:2:8:"]


def test_the_buffer_is_judged_by_its_folders_configuration(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write("python/import-policy.yaml", "version: 1\nrules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n")
    _stdin(monkeypatch, b"import pickle\n")
    code, out, err = project.run("check", "--no-cache", "--stdin-filename", "python/kern/__init__.py")
    assert (code, out.splitlines()[0]) == (1, "python/kern/__init__.py:1:8: no-pickle no pickle"), err


# Generated packages: a few modules, each importing some of the others, xformers, a probe or
# pickle; the buffer is any such module for one of them.
MODULES = ("pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/__init__.py", "pkg/sub/c.py")
LINES = st.sampled_from([
    "import pkg.a", "from pkg import b", "from pkg.sub import c", "from . import a", "import pkg.sub",
    "import xformers", "import pickle", "x = 1", "from pkg.a import x",
    "if TYPE_CHECKING:\n    import xformers", "def f():\n    import xformers", "import importlib\nimportlib.import_module('xformers')",
    "import pkg.a  # import-policy: ignore[heavy-import-reachable]",
])
SOURCE = st.lists(LINES, max_size=4).map(lambda lines: "\n".join(lines) + "\n")
CONFIG = (
    "version: 1\nrocm_safety:\n  heavy_modules: [xformers]\n"
    "rules:\n  - id: no-pickle\n    message: no pickle\n    forbid: [pickle]\n"
    "  - id: light\n    kind: import-time\n    entry: [pkg]\n    forbid: [pickle]\n"
)


def _run(root: Path, argv: list[str], stdin: bytes | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    import os

    before = os.getcwd()
    os.chdir(root)
    saved = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        capsys.readouterr()
        code = main(argv)
        return code, capsys.readouterr().out
    finally:
        sys.stdin = saved
        os.chdir(before)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tree=st.tuples(*(SOURCE for _ in MODULES)), which=st.sampled_from(MODULES), buffer=SOURCE)
def test_stdin_equals_the_same_bytes_on_disk(
    tree: tuple[str, ...], which: str, buffer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "import-policy.yaml").write_text(CONFIG)
        for relative, text in zip(MODULES, tree):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
        # With the caches too: a run over the disk first keeps a graph the buffer must not use.
        for fmt, cache in (("text", "--no-cache"), ("json", "--no-cache"), ("text", "--jobs=1")):
            _run(root, ["check", cache, which], None, capsys)
            editor = _run(root, ["check", cache, "--format", fmt, "--stdin-filename", which], buffer.encode(), capsys)
            (root / which).write_text(buffer)
            disk = _run(root, ["check", "--no-cache", "--format", fmt, which], None, capsys)
            (root / which).write_text(tree[MODULES.index(which)])
            assert editor == disk


def test_a_kept_graph_never_stands_for_the_buffer_nor_the_buffer_for_the_disk(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the caches: a graph kept from the disk is not used for a buffer that differs
    (the file's stat data is unchanged), and a buffer's graph is never kept for the disk."""
    project.config(ROCM)
    project.write("pkg/__init__.py", "import pkg.a\n")
    project.write("pkg/a.py", "x = 1\n")
    assert project.run("check", "pkg/a.py")[0] == 0
    assert project.run("check", "pkg/a.py")[0] == 0
    for _ in range(2):
        _stdin(monkeypatch, b"import xformers\n")
        code, out, _ = project.run("check", "--stdin-filename", "pkg/a.py")
        assert code == 1 and out.startswith("pkg/a.py:1:8: heavy-import-reachable")
        assert project.run("check", "pkg/a.py")[0] == 0
        assert project.run("check")[0] == 0


def test_fix_on_the_buffer_checks_again_with_the_buffer_in_its_place_only(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.config(ROCM + "rules:\n  - id: no-re\n    message: use regex\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    project.write("pkg/__init__.py", "import os\n")
    project.write("pkg/a.py", "x = 1\n")
    _stdin(monkeypatch, b"from pkg import a\nimport xformers\nimport re\n")
    code, out, err = project.run("check", "--no-cache", "--fix", "--stdin-filename", "pkg/__init__.py")
    assert out == "from pkg import a\nimport xformers\nimport regex as re\n"
    assert code == 1 and "pkg/__init__.py:2:8: heavy-import-reachable" in err
    assert "pkg/a.py" not in err


@pytest.mark.parametrize("config", [
    ROCM,
    "version: 1\nrules:\n  - id: light\n    kind: import-time\n    entry: [pkg]\n    forbid: [xformers]\n",
])
def test_a_buffer_s_graph_is_never_kept_for_later_disk_runs(
    project: Project, monkeypatch: pytest.MonkeyPatch, config: str, later: None,
) -> None:
    """The graph built from a buffer holds the disk's stat data with the buffer's bytes: kept,
    a later run over the unchanged disk would report the buffer's import."""
    project.config(config)
    project.write("pkg/__init__.py", "import pkg.a\n")
    project.write("pkg/a.py", "x = 1\n")
    age(project.root)  # older than any cache entry: the graph's log trusts its stat data
    assert project.run("check")[:2] == (0, "All checks passed!\n")  # the graph of the disk, kept
    _stdin(monkeypatch, b"import xformers\n")
    code, out, _ = project.run("check", "--stdin-filename", "pkg/a.py")
    assert code == 1 and out.startswith("pkg/a.py:1:8: "), out
    for argv in ([], ["pkg/a.py"], ["pkg/__init__.py"]):
        assert project.run("check", *argv)[:2] == (0, "All checks passed!\n"), argv
