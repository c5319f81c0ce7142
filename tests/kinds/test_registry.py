"""The rule-kind registry: its keys are the valid `kind:` values, every piece asks it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from import_policy.policy.load import load
from import_policy.kinds.describe import describe_rule
from import_policy.kinds.registry import BUILTIN, KINDS, UnknownKind
from import_policy.pipeline.plan import Plan, Selection
from import_policy.config.model import RuleBase

from conftest import Project

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
CONFIGURATION = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def documented_kinds() -> list[str]:
    """The `kind:` values the configuration reference promises users, in its order."""
    row = next(line for line in CONFIGURATION.read_text(encoding="utf-8").splitlines() if line.startswith("| `kind` |"))
    return re.findall(r"`([a-z-]+)`", re.split(r"(?<!\\)\|", row)[2])


def test_documented_kinds_are_the_kinds_there_are() -> None:
    assert documented_kinds() == ["import", "include", "token", "relative-imports", "import-time", "layers", "independence", "protected", "acyclic"]
    assert list(KINDS) == documented_kinds()


def test_an_unknown_kind_is_refused_with_the_documented_choices(project: Project) -> None:
    project.write("import-policy.yaml", "version: 1\nrules:\n  - id: r\n    kind: nope\n    forbid: [x]\n")
    code, _, err = project.run("check")
    assert code == 2
    assert err.splitlines()[0] == (
        "import-policy: import-policy.yaml:4: kind must be one of: import, include, token, relative-imports, import-time, layers, independence, protected, acyclic; got 'nope'"
    )


def test_an_unregistered_kind_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text("version: 1\nrules:\n  - id: r\n    forbid: [x]\n")
    policy = load(tmp_path / "import-policy.yaml", tmp_path).policy

    @dataclass(frozen=True)
    class Stray(RuleBase):
        kind: str = field(default="stray", kw_only=True)

    rule = policy.rules[0]
    stray = Stray(rule.id, rule.message, rule.files, rule.allow_in, rule.severity, rule.examples, rule.origin)
    with pytest.raises(UnknownKind, match="'stray', which is not registered"):
        Plan(replace(policy, rules=(stray,)), Selection())


@pytest.mark.parametrize("builtin", [b for b in BUILTIN if b.needs_rocm], ids=lambda b: b.id)
def test_builtin_docs_ship_the_text_of_docs_rules_md(builtin: object) -> None:
    rule_id = builtin.id  # type: ignore[attr-defined]
    text = DOCS.read_text(encoding="utf-8")
    section = re.search(r"^## " + re.escape(rule_id) + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section is not None, rule_id
    assert builtin.doc().strip() == section.group(1).strip()  # type: ignore[attr-defined]


def test_explain_builtin_prints_its_doc_and_the_settings_in_force(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(
        "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [pkg]\n"
    )
    policy = load(tmp_path / "import-policy.yaml", tmp_path).policy
    text = describe_rule(policy, "trial-import-probe")
    assert text is not None
    assert "    _has_module -> _has_module_spec  [preset rocm-safety:22]\n" in text
    assert "  entry modules: pkg  [import-policy.yaml:4]\n" in text
    assert "**What it does.**" in text and "**Use instead.**" in text and "**Options.**" in text
