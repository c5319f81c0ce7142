"""This repository's own policy (import-policy.yaml): libcst is imported lazily, and every
import points down the layers.

.ci/run checks it too; here it is held to catching the regression it exists for.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from import_policy.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_the_source_tree_keeps_libcst_lazy(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO)
    assert main(["check", "--no-cache", "src"]) == 0, capsys.readouterr().out


@pytest.mark.slow  # each case copies the source tree and checks it whole
@pytest.mark.parametrize(
    ("module", "line", "rule"),
    [
        ("src/import_policy/report/extra.py", "import libcst as cst\n", "lazy-libcst"),
        ("src/import_policy/engine_extra.py", "from import_policy.fix.apply import fix_bytes\n", "lazy-parser-modules"),
        ("src/import_policy/facts/extra.py", "def f():\n    from import_policy.kinds.registry import KINDS\n", "layers"),
        ("src/import_policy/kinds/syntax.py", "from import_policy.pipeline.plan import Plan\n", "layers"),
        ("src/import_policy/kinds/extra.py", "X = 1\n", "kinds-listed"),
        ("src/import_policy/graph/extra.py", "from import_policy.rocm.reachability import RocmPass\n", "layers"),
        ("src/import_policy/graph/extra.py", "from import_policy.config.model import RocmSafety\n", "graph-neutral"),
        ("src/import_policy/project/extra.py", "from import_policy.graph.chains import Chain\n", "layers"),
        ("src/import_policy/pipeline/extra.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from import_policy.commands.check import check\n", "layers"),
        # through a chain: the low module imports nothing above it itself
        ("src/import_policy/facts/extra.py", "from import_policy.kinds_helper import x\n", "layers"),
        ("src/import_policy/graph/cyclic_a.py", "from import_policy.graph import cyclic_b\n", "acyclic"),
    ],
)
def test_a_module_level_libcst_import_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], module: str, line: str, rule: str
) -> None:
    shutil.copy(REPO / "import-policy.yaml", tmp_path / "import-policy.yaml")
    shutil.copytree(REPO / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / module).write_text(line, encoding="utf-8")
    # a module in no layer that imports the registry: the chain facts -> it -> kinds is illegal
    (tmp_path / "src/import_policy/kinds_helper.py").write_text("from import_policy.kinds.registry import KINDS as x\n")
    (tmp_path / "src/import_policy/graph/cyclic_b.py").write_text("from import_policy.graph import cyclic_a\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "src"]) == 1
    out = capsys.readouterr().out
    assert f"{module}:" in out and rule in out


def test_its_rule_examples_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["test-rules"]) == 0
