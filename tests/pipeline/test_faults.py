"""Faults in the tool's own state, and never running what it checks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Project

MARKER_CODE = "open({marker!r}, 'a').write(__name__)\nimport re\nimport tilelang\n"


@pytest.mark.slow
def test_never_runs_what_it_checks(tmp_path: Path) -> None:
    marker = str(tmp_path / "MARKER")
    (tmp_path / "import-policy.yaml").write_text(
        "version: 1\nextends: [rocm-safety]\nrules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n"
        "    examples: {flag: ['import re'], allow: ['import regex as re']}\n"
        "rocm_safety:\n  entry_modules: [app]\n",
        encoding="utf-8",
    )
    for name in ("app/__init__.py", "app/mod.py", "conftest.py", "setup.py", "app/__main__.py"):
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(MARKER_CODE.format(marker=marker) + ("from app import mod\n" if name == "app/__init__.py" else ""), encoding="utf-8")
    for argv in (["check", "."], ["check", "--fix", "."], ["why", "tilelang"], ["test-rules"], ["check", "--diff", "."]):
        done = subprocess.run(
            [sys.executable, "-m", "import_policy", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode in (0, 1), (argv, done.stderr)
        assert not Path(marker).exists(), argv
    assert "import regex as re" in (tmp_path / "app" / "mod.py").read_text(encoding="utf-8")


def test_write_failure_under_fix_is_reported_and_the_file_left_alone(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CI runs as root, where a read-only file can still be replaced: make the rename fail instead.
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    project.write("locked.py", "import re\n")
    project.write("free.py", "import re\n")
    real = os.replace

    def replace(src: str, dst: str) -> None:
        if str(dst).endswith("locked.py"):
            raise PermissionError(13, "Permission denied")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    code, out, err = project.run("check", "--fix", "--no-cache", ".")
    assert (project.root / "locked.py").read_text() == "import re\n"
    assert (project.root / "free.py").read_text() == "import regex as re\n"
    assert "import-policy: cannot write locked.py: Permission denied" in err.splitlines()
    assert out.splitlines()[0].startswith("locked.py:1:8: no-re ")
    assert code == 2  # as ruff: a fix that could not be written is an error
    assert [p.name for p in project.root.iterdir() if p.name.endswith(".import-policy")] == []


# The tool as `python -m import_policy` runs it, each atomic replace followed by a pause (and the
# first one by a marker file), so that a kill lands while files are being written.
SLOW_WRITES = """\
import os, sys, time
real = os.replace
def replace(src, dst):
    real(src, dst)
    open("WRITING", "a").close()
    time.sleep(0.02)
os.replace = replace
from import_policy.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_killed_fix_leaves_each_file_whole(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(
        "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n", encoding="utf-8"
    )
    before = "import os\nimport re\n" + "".join(f"def f{i}(x):\n    return re.sub('a', 'b', x)\n" for i in range(120))
    after = before.replace("import re\n", "import regex as re\n", 1)
    for i in range(120):
        (tmp_path / f"m{i:03}.py").write_text(before, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITES, "check", "--fix", "--no-cache", "."], cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "WRITING").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.1)  # a few files in
        process.kill()
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the run ended before the kill: nothing was tested"
    texts = [(tmp_path / f"m{i:03}.py").read_text(encoding="utf-8") for i in range(120)]
    assert all(text in (before, after) for text in texts)
    assert before in texts and after in texts, "the kill must land mid-run: some files fixed, some not"
