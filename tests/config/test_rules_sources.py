"""`rules` names where each rule comes from; `explain` shows examples, also for extended files."""

from __future__ import annotations

import json

from conftest import Project


def _tree(project: Project) -> None:
    project.write("policies/base.yaml", "rules:\n  - id: base-rule\n    forbid: [x]\n  - id: replaced\n    forbid: [y]\n")
    project.config(
        "extends: [rocm-safety, policies/base.yaml]\n"
        "rules:\n"
        "  - id: replaced\n"
        "    message: the later file wins\n"
        "    forbid: [z]\n"
        "    examples:\n"
        "      flag: ['import z']\n"
        "      allow: ['import y']\n"
    )


def test_rules_shows_file_or_preset(project: Project) -> None:
    _tree(project)
    code, out, _ = project.run("rules", "--format", "json")
    assert code == 0
    sources = {row["id"]: row["source"] for row in json.loads(out)}
    assert sources["base-rule"] == "policies/base.yaml:2"
    assert sources["replaced"] == "import-policy.yaml:3"
    assert sources["syntax-error"] == "built-in"
    assert sources["heavy-import-reachable"].startswith("preset rocm-safety:")
    code, out, _ = project.run("rules")
    row = next(line for line in out.splitlines() if line.startswith("base-rule "))
    assert "policies/base.yaml:2" in row


def test_explain_replaced_rule_with_examples(project: Project) -> None:
    _tree(project)
    code, out, _ = project.run("explain", "replaced")
    assert code == 0
    assert out.splitlines()[2] == "  declared in:   import-policy.yaml:3"
    assert "  forbid:        z" in out
    assert out.endswith("  examples (flag):\n    - import z\n  examples (allow):\n    - import y\n")


def test_explain_builtin(project: Project) -> None:
    _tree(project)
    code, out, _ = project.run("explain", "syntax-error")
    assert code == 0
    assert out.startswith("syntax-error\n  kind:          builtin\n")
