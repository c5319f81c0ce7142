"""Hostile files: huge, deeply nested, binary, symlink loops, vanishing or unreadable files,
paths with spaces and non-ASCII characters. Each ends as diagnostics, never a crash or hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


POLICY = "version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n"

DEEP = {
    "brackets": "x = " + "[" * 5000 + "]" * 5000,
    "attributes": "x = a" + ".b" * 8000,
    "binary-operators": "x = 1" + " + 1" * 8000,
    "unary-operators": "x = " + "-" * 50000 + "1",
    "calls": "x = " + "f(" * 3000 + ")" * 3000,
    "attributes-libcst-depth": "x = a" + ".b" * 2000,  # CPython accepts it; libcst's visitor recurses too deep
}


def test_deep_nesting_is_a_syntax_error_diagnostic(tmp_path: Path) -> None:
    # In a subprocess: before the fix libcst's native parser overflowed its stack (SIGSEGV) on
    # nesting CPython refuses, which no `except` can catch; the other files must still be checked.
    (tmp_path / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    for shape, text in DEEP.items():
        (tmp_path / f"{shape}.py").write_text(text + "\nimport re\n", encoding="utf-8")
    (tmp_path / "plain.py").write_text("import re\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"},
    )
    assert (done.returncode, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    for shape in DEEP:
        mine = [line for line in lines if line.startswith(f"{shape}.py:")]
        assert len(mine) == 1 and " syntax-error the file does not parse: " in mine[0], done.stdout
    assert "plain.py:1:8: no-re `re` is forbidden" in lines
    assert lines[-1] == f"Found {len(DEEP) + 1} violations (0 fixable with --fix)."
