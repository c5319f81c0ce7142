"""What `--fix` and `--diff` must not do besides the edit: change a file's owner or mode,
rewrite a read-only file, change bytes outside the edit in an encoding that is not
ASCII-compatible, print a diff that `git apply` or `patch -p1` refuses, or leave a
temporary file behind when the run is stopped by a signal."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Project

POLICY = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".import-policy"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_keeps_the_owner_and_the_mode(project: Project) -> None:
    project.config(POLICY)
    path = project.write("m.py", "import re\n")
    os.chown(path, 4321, 8765)
    path.chmod(0o640)
    code, _, err = project.run("check", "--fix", "--no-cache", ".")
    assert (code, err) == (0, "")
    assert path.read_text(encoding="utf-8") == "import regex as re\n"
    status = path.stat()
    assert (status.st_uid, status.st_gid, oct(status.st_mode & 0o7777)) == (4321, 8765, "0o640")


def test_a_read_only_file_is_not_rewritten(project: Project) -> None:
    # As ruff: an error that names the file, exit 2; root included, who could replace it.
    project.config(POLICY)
    locked = project.write("locked.py", "import re\n")
    free = project.write("free.py", "import re\n")
    locked.chmod(0o444)
    code, out, err = project.run("check", "--fix", "--no-cache", ".")
    assert code == 2
    assert locked.read_text(encoding="utf-8") == "import re\n"
    assert free.read_text(encoding="utf-8") == "import regex as re\n"
    assert err.splitlines() == ["import-policy: cannot write locked.py: the file is read-only"]
    assert out.splitlines()[0] == "locked.py:1:8: no-re [*] `re` is forbidden"
    assert _leftovers(project.root) == []


UTF7 = b"# -*- coding: utf-7 -*-\nimport re\nx = '+AOk-'\n"


@pytest.mark.parametrize(
    ("encoding", "source"),
    [
        ("utf-7", UTF7),
        ("iso2022_jp", "# coding: iso2022_jp\nimport re\nx = '\u3042'\n".encode("iso2022_jp")),
    ],
)
def test_no_fix_in_an_encoding_that_is_not_ascii_compatible(project: Project, encoding: str, source: bytes) -> None:
    project.config(POLICY)
    path = project.write_bytes("m.py", source)
    note = f"(not fixable: the file's encoding, {encoding}, is not ASCII-compatible)"
    code, out, _ = project.run("check", "--no-cache", ".")
    assert (code, out) == (1, f"m.py:2:8: no-re `re` is forbidden {note}\nFound 1 violation (0 fixable with --fix).\n")
    code, out, _ = project.run("check", "--fix", "--no-cache", ".")
    assert code == 1 and path.read_bytes() == source
    assert project.run("check", "--diff", "--no-cache", ".")[:2] == (0, "")


def test_an_ascii_compatible_encoding_is_still_fixed(project: Project) -> None:
    project.config(POLICY)
    path = project.write_bytes("m.py", "# coding: latin-1\nimport re\nx = 'é'\n".encode("latin-1"))
    assert project.run("check", "--fix", "--no-cache", ".")[0] == 0
    assert path.read_bytes() == "# coding: latin-1\nimport regex as re\nx = 'é'\n".encode("latin-1")


LINE_ENDINGS = {
    "lf.py": b"import os\nimport re\nx = 1\n",
    "crlf.py": b"import os\r\nimport re\r\nx = 1\r\n",
    "cr.py": b"import os\rimport re\rx = 1\r",
    "mixed.py": b"import os\r\nimport re\rx = 1\n",
    "formfeed.py": b"import re\n\x0cx = 1\n\x0c\ny = 2",
    "separators.py": "import re\nx = '\u2028'  # \u2029 \x85\ny = 1\n".encode("utf-8"),
    "latin1.py": "# coding: latin-1\nimport re\nx = 'é'\n".encode("latin-1"),
    "pkg/sub dir/deep.py": b"import re\n",
}


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="needs git and patch")
@pytest.mark.parametrize("tool", ["git apply", "patch -p1"])
def test_diff_applies_with_git_apply_and_patch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes], tool: str
) -> None:
    from import_policy.cli import main

    tree, fixed = tmp_path / "tree", tmp_path / "fixed"
    for root in (tree, fixed):
        (root / "import-policy.yaml").parent.mkdir(parents=True)
        (root / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
        for name, data in LINE_ENDINGS.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
    monkeypatch.chdir(tree)
    assert main(["check", "--diff", "--no-cache", "."]) == 1
    patch = capsysbinary.readouterr().out
    assert b"\n--- a/" in b"\n" + patch
    monkeypatch.chdir(fixed)
    assert main(["check", "--fix", "--no-cache", "."]) == 0
    if tool == "git apply":
        subprocess.run(["git", "init", "-q", "."], cwd=tree, check=True)
        command = ["git", "apply", "--whitespace=nowarn", "-"]
    else:
        command = ["patch", "-p1", "--quiet", "--batch"]
    applied = subprocess.run(command, cwd=tree, input=patch, capture_output=True)
    assert applied.returncode == 0, applied.stderr.decode() + applied.stdout.decode()
    for name in LINE_ENDINGS:
        assert (tree / name).read_bytes() == (fixed / name).read_bytes(), name


_SLOW_FSYNC = """
import os, signal, sys, time
# A suite started with SIGINT ignored (nohup, a background job) hands that on: Python then
# leaves it ignored. The user at a terminal has it raise KeyboardInterrupt, as here.
signal.signal(signal.SIGINT, signal.default_int_handler)
from import_policy.cli import main
real = os.fsync
def fsync(fd):
    open(sys.argv[1], "w").close()  # the temporary file exists: tell the test
    time.sleep(60)
    real(fd)
os.fsync = fsync
sys.exit(main(["check", "--fix", "--no-cache", "."]))
"""


@pytest.mark.parametrize("which", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_write_leaves_no_temporary_file(tmp_path: Path, which: signal.Signals) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    (project / "m.py").write_text("import re\n", encoding="utf-8")
    marker = tmp_path / "writing"
    process = subprocess.Popen([sys.executable, "-c", _SLOW_FSYNC, str(marker)], cwd=project)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists()
        assert _leftovers(project) != []  # the hole is there to be cleaned up
        process.send_signal(which)
        code = process.wait(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert code in (128 + which, -which)  # by the signal itself, or its exit status
    assert _leftovers(project) == []
    assert (project / "m.py").read_text(encoding="utf-8") == "import re\n"
