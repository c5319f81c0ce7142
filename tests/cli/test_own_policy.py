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


@pytest.mark.parametrize(
    ("module", "line", "rule"),
    [
        ("src/import_policy/report/extra.py", "import libcst as cst\n", "lazy-libcst"),
        ("src/import_policy/engine_extra.py", "from import_policy.fix.apply import fix_bytes\n", "lazy-parser-modules"),
        ("src/import_policy/facts/extra.py", "def f():\n    from import_policy.kinds.registry import KINDS\n", "layer-records"),
        ("src/import_policy/kinds/extra.py", "from import_policy.pipeline.plan import Plan\n", "layer-kinds"),
        ("src/import_policy/graph/extra.py", "from import_policy.rocm.reachability import RocmPass\n", "layer-graph"),
        ("src/import_policy/project/extra.py", "from import_policy.graph.chains import Chain\n", "layer-infrastructure"),
        ("src/import_policy/pipeline/extra.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from import_policy.commands.check import check\n", "layer-pipeline"),
    ],
)
def test_a_module_level_libcst_import_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], module: str, line: str, rule: str
) -> None:
    shutil.copy(REPO / "import-policy.yaml", tmp_path / "import-policy.yaml")
    (tmp_path / module).parent.mkdir(parents=True)
    (tmp_path / module).write_text(line, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "src"]) == 1
    out = capsys.readouterr().out
    assert f"{module}:" in out and rule in out


def test_its_rule_examples_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["test-rules"]) == 0
