"""`rules`: `fixable` as check's JSON has it (a boolean), values true to the settings in force,
and a message for every rule, defaults included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Project, snapshot
from import_policy.cli import main

REPO = Path(__file__).resolve().parents[2]


def _rows(project: Project) -> dict[str, dict[str, object]]:
    code, out, _ = project.run("rules", "--format", "json")
    assert code == 0
    return {row["id"]: row for row in json.loads(out)}


def test_the_example_listed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO / "examples")
    for fmt, name in (("text", "example.rules.txt"), ("json", "example.rules.json")):
        assert main(["rules", "--format", fmt]) == 0
        snapshot(name, capsys.readouterr().out)


def test_fixable_is_a_boolean_with_its_applicability(project: Project) -> None:
    project.config(
        "extends: [rocm-safety]\nrules:\n"
        "  - id: re\n    forbid: [re]\n    fix: {replace_module: regex}\n"
        "  - id: pickle\n    forbid: [pickle]\n"
    )
    rows = _rows(project)
    assert (rows["re"]["fixable"], rows["re"]["fix_applicability"]) == (True, "safe")
    assert (rows["pickle"]["fixable"], rows["pickle"]["fix_applicability"]) == (False, None)
    # The preset maps `_has_module` to `_has_module_spec`: a probe's fix, unsafe; a reached probe
    # call is a heavy-import-reachable finding and carries the same fix.
    for rule in ("trial-import-probe", "heavy-import-reachable"):
        assert (rows[rule]["fixable"], rows[rule]["fix_applicability"]) == (True, "unsafe")
    assert (rows["import-time-jit"]["fixable"], rows["syntax-error"]["fixable"]) == (False, False)


def test_probes_that_map_to_null_still_leave_the_inline_probes_fix(project: Project) -> None:
    # A probe call mapped to null has no fix, but an inline probe (`try: import x`) always has
    # one (find_spec), so both rules that report probes stay `unsafe`, as their findings show.
    project.config("extends: [rocm-safety]\nrocm_safety:\n  probes: {_has_module: null, has_lib: null}\n")
    rows = _rows(project)
    for rule in ("trial-import-probe", "heavy-import-reachable"):
        assert (rows[rule]["fixable"], rows[rule]["fix_applicability"]) == (True, "unsafe")
    project.write("pkg/__init__.py", "from pkg.util import _has_module\nOK = _has_module('aiter')\n")
    project.write("pkg/util.py", "def _has_module(name):\n    return True\n")
    project.write(
        "pkg/late.py",
        "def has_aiter():\n    try:\n        import aiter\n        return True\n    except ImportError:\n        return False\n",
    )
    _, out, _ = project.run("check", "--unsafe-fixes")
    lines = out.splitlines()
    assert lines[0].startswith("pkg/__init__.py:2:6: heavy-import-reachable ")  # the null-mapped call: no fix
    assert "[*]" not in lines[0]
    assert any(line.startswith("pkg/late.py:3:16: trial-import-probe [*] ") for line in lines), lines


def test_every_rule_has_a_message(project: Project) -> None:
    project.config(
        "rules:\n"
        "  - id: rel\n    kind: relative-imports\n"
        "  - id: every-rel\n    kind: relative-imports\n    ban: all\n"
        "  - id: plain\n    forbid: [pickle]\n"
        "  - id: named\n    forbid:\n      - {name: torch.cuda.synchronize, message: '`{name}()` stalls'}\n      - os\n"
        "  - id: inc\n    kind: include\n    forbid: ['ATen/**']\n"
        "  - id: tok\n    kind: token\n    forbid: ['TORCH_LIBRARY']\n"
        "  - id: light\n    kind: import-time\n    entry: [app]\n    forbid: [cv2]\n"
    )
    project.write("app/__init__.py", "")
    rows = _rows(project)
    assert {rule: row["message"] for rule, row in rows.items()} == {
        "rel": "Prefer absolute imports over relative imports from parent modules: `from <absolute module> import ...`",
        "every-rel": "Prefer absolute imports over relative imports: `from <absolute module> import ...`",
        "plain": "`<name>` is forbidden",
        "named": "`torch.cuda.synchronize()` stalls | `<name>` is forbidden",
        "inc": "`#include <header>` is forbidden",
        "tok": "`<matched text>` is forbidden",
        "light": "importing `app` loads `<name>` at import time",
        "syntax-error": "A file that does not parse.",
    }
