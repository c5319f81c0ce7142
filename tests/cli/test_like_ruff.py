"""Output a ruff user compares line by line: where the fix mark stands, colours, JSON fixes.

Expectations come from what ruff prints (`ruff check --output-format concise`,
`--output-format json`, `--diff` with FORCE_COLOR), not from our own output.
"""

from __future__ import annotations

import pytest

from conftest import Project, snapshot

CONFIG = """\
rules:
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
  - id: no-pickle
    message: "no pickle"
    forbid: [pickle]
  - id: sync
    forbid: [torch.cuda.synchronize]
    severity: warning
  - id: old-re
    forbid: [sre_compile]
    severity: warning
    fix: {replace_module: re}
"""
SOURCE = "import re\nimport pickle\nimport sre_compile\nimport torch\ntorch.cuda.synchronize()\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", SOURCE)
    return project


def test_the_fix_mark_follows_the_rule_id(tree: Project) -> None:
    # ruff: `a.py:1:8: F401 [*] `os` imported but unused`.
    code, out, _ = tree.run("check")
    assert code == 1
    assert out.splitlines()[:4] == [
        "a.py:1:8: no-re [*] `re` is forbidden",
        "a.py:2:8: no-pickle no pickle",
        "a.py:3:8: old-re [*] warning: `sre_compile` is forbidden",
        "a.py:5:1: sync warning: `torch.cuda.synchronize` is forbidden",
    ]
    snapshot("fix-mark.txt", out)


def test_the_coloured_fix_mark_is_ruffs(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # ruff, FORCE_COLOR=1: `\e[1ma.py\e[0m\e[36m:\e[0m1...\e[1m\e[31mF401\e[0m [\e[36m*\e[0m] message`.
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = tree.run("check")
    first = out.splitlines()[0]
    assert first == (
        "\033[1ma.py\033[0m\033[36m:\033[0m1\033[36m:\033[0m8\033[36m:\033[0m "
        "\033[1m\033[31mno-re\033[0m [\033[36m*\033[0m] `re` is forbidden"
    )
    snapshot("fix-mark.colour.txt", out)
