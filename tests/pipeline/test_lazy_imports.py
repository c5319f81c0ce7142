"""A pre-commit batch with nothing to parse never imports libcst (0.2 s of start-up)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """\
import sys
from import_policy.cli import main
code = main(sys.argv[1:])
print(code, 'libcst' in sys.modules)
"""

CONFIG = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
"""


def _run(root: Path, *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stderr == "", done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("extra", [[], ["--no-cache"], ["--jobs", "1"]])
def test_no_parse_no_libcst(tmp_path: Path, extra: list[str]) -> None:
    (tmp_path / "import-policy.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "a.py").write_text("import os\nprint(os.sep)\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import torch\nx = torch.ones(1)\n", encoding="utf-8")
    assert _run(tmp_path, "check", *extra, "a.py", "b.py").endswith("\n0 False")


def test_a_forbidden_import_is_found_without_libcst(tmp_path: Path) -> None:
    """CPython's parse gives the same import facts (facts.fast); libcst is not needed."""
    (tmp_path / "import-policy.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "a.py").write_text("import pickle\n", encoding="utf-8")
    out = _run(tmp_path, "check", "--no-cache", "a.py")
    assert "a.py:1:8: no-pickle" in out and out.endswith("\n1 False")


def test_a_use_is_resolved_without_libcst(tmp_path: Path) -> None:
    """`symtable` and the `ast` tree resolve `t.cuda.synchronize` through the alias (facts.uses_ast)."""
    (tmp_path / "import-policy.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "a.py").write_text(
        "import torch as t\nt.cuda.synchronize()\ndef f(t):\n    t.cuda.synchronize()\n", encoding="utf-8"
    )
    out = _run(tmp_path, "check", "--no-cache", "a.py")
    assert out.splitlines()[0].startswith("a.py:2:1: cuda-sync") and out.endswith("\n1 False")
    assert "a.py:4" not in out


ROCM = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [pkg]
"""


def test_the_rocm_pass_reads_graph_facts_without_libcst(tmp_path: Path) -> None:
    """Its facts come from CPython's parser (facts.fast), for passed files and the rest."""
    (tmp_path / "import-policy.yaml").write_text(ROCM, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from . import kernels\n", encoding="utf-8")
    (tmp_path / "pkg" / "kernels.py").write_text("import tilelang\n\n@tilelang.jit\ndef k():\n    pass\n", encoding="utf-8")
    out = _run(tmp_path, "check", "--no-cache", "pkg/__init__.py", "pkg/kernels.py")
    assert "pkg/kernels.py:1:8: heavy-import-reachable" in out
    assert "pkg/kernels.py:3:2: import-time-jit" in out
    assert "heavy-import-reachable" in out
    assert out.endswith("\n1 False")
