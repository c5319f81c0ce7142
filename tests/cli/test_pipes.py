"""`import-policy check | head`: a reader that closes the pipe early ends the run quietly, through a real pipe.

The reader here is gone before the first write (as `head -n 0`, or `head` that has
its lines while a big report is still being written), so every write meets a
closed pipe; a pipe the reader keeps open can buffer a whole report and hide the fault.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {**os.environ, "NO_COLOR": "1"}


def _tree(root: Path) -> None:
    (root / "import-policy.yaml").write_text("rules:\n  - id: p\n    forbid: [pickle]\n    fix: {replace_module: json}\n")
    for i in range(20):
        (root / f"m{i}.py").write_text("import pickle\n" * 20)


def _into_a_closed_pipe(root: Path, *argv: str) -> tuple[int, str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader: the first write fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "import_policy", *argv], cwd=root, env=ENV,
            stdout=write_end, stderr=subprocess.PIPE, timeout=120,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr.decode()


@pytest.mark.slow
@pytest.mark.parametrize("argv,code", [
    (("check", "--no-cache"), 1),
    (("check", "--no-cache", "--statistics"), 1),
    (("check", "--no-cache", "--format", "json"), 1),
    (("check", "--no-cache", "--format", "sarif"), 1),
    (("check", "--no-cache", "--format", "github"), 1),
    (("check", "--no-cache", "--exit-zero"), 0),
    (("check", "--no-cache", "--diff"), 1),
    (("rules",), 0),
    (("explain", "p"), 0),
])
def test_a_closed_pipe_is_not_an_internal_error(tmp_path: Path, argv: tuple[str, ...], code: int) -> None:
    _tree(tmp_path)
    returncode, err = _into_a_closed_pipe(tmp_path, *argv)
    assert "Traceback" not in err and "internal error" not in err and "BrokenPipe" not in err
    assert returncode == code
    if argv[-1] == "--diff":
        assert err == "Would fix 400 violations.\n"
    else:
        assert err == ""


@pytest.mark.skipif(shutil.which("head") is None or shutil.which("bash") is None, reason="needs bash and head")
@pytest.mark.parametrize("lines", [0, 2])
def test_check_piped_into_head(tmp_path: Path, lines: int) -> None:
    _tree(tmp_path)
    shell = f'"{sys.executable}" -m import_policy check --no-cache | head -n {lines}; exit "${{PIPESTATUS[0]}}"'
    done = subprocess.run(["bash", "-c", shell], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == ["m0.py:1:8: p [*] `pickle` is forbidden", "m0.py:2:8: p [*] `pickle` is forbidden"][:lines]
    assert done.stderr == "" and done.returncode == 1


def test_test_rules_into_a_closed_pipe_still_says_whether_examples_failed(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(
        "rules:\n  - id: p\n    forbid: [pickle]\n    examples:\n      flag: ['import json']\n"
    )
    assert _into_a_closed_pipe(tmp_path, "test-rules") == (1, "")
