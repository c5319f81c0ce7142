"""A report's fix edits are kept in the project's cache, keyed by the file's bytes and the
finding: a warm JSON or SARIF report never runs the fixer again, a changed file never gets
another file's edits, and `--no-cache` keeps nothing."""

from __future__ import annotations

import json

import pytest

from conftest import Project
from import_policy.fix import apply

CONFIG = "rules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n"


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the fixer ran for a finding the cache holds")


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_warm_report_takes_the_edits_from_the_cache(
    project: Project, monkeypatch: pytest.MonkeyPatch, fmt: str,
) -> None:
    project.config(CONFIG)
    project.write("m.py", "import re\nx = 1\nfrom re import sub\n")
    code, cold, _ = project.run("check", "--format", fmt)
    assert code == 1 and "regex" in cold
    monkeypatch.setattr(apply, "fix_bytes", _refuse)
    code, warm, _ = project.run("check", "--format", fmt)
    assert code == 1
    assert warm == cold


def _replacement_texts(out: str) -> list[str]:
    return [e["content"] for d in json.loads(out)["diagnostics"] for e in (d.get("fix") or {}).get("edits", [])]


def test_a_changed_file_gets_its_own_edits(project: Project) -> None:
    project.config(CONFIG)
    project.write("m.py", "import re\n")
    project.run("check", "--format", "json")
    project.write("m.py", "import re  # a comment the edit keeps\n")
    _, warm, _ = project.run("check", "--format", "json")
    _, fresh, _ = project.run("check", "--no-cache", "--format", "json")
    assert warm == fresh
    assert any("a comment the edit keeps" in text for text in _replacement_texts(warm))


def test_no_cache_keeps_no_edits(project: Project) -> None:
    project.config(CONFIG)
    project.write("m.py", "import re\n")
    code, out, _ = project.run("check", "--no-cache", "--format", "json")
    assert code == 1 and _replacement_texts(out)
    assert not (project.root / ".import_policy_cache" / "edits").exists()


def _no_policy(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the policy was built for a report the caches answer")


def test_a_warm_sarif_report_is_answered_without_the_policy(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """As a warm JSON report: the run cache's answer, SARIF's rule table kept under the
    policy's digest; the document byte for byte the one a run that builds the policy writes."""
    from import_policy.commands import check

    project.config(CONFIG + "  - id: no-json\n    forbid: [json]\n    message: 'no json, please'\n")
    project.write("m.py", "import re\nimport json\n")
    code, cold, _ = project.run("check", "--format", "sarif")
    assert code == 1
    _, fresh, _ = project.run("check", "--no-cache", "--format", "sarif")
    assert fresh == cold
    monkeypatch.setattr(check, "gather", _no_policy)
    code, warm, _ = project.run("check", "--format", "sarif")
    assert code == 1
    assert warm == cold
    assert "no json, please" in warm


def test_a_warm_sarif_report_without_a_kept_rule_table_builds_the_policy(project: Project) -> None:
    """A run cache written by a text run has no rule table: SARIF takes the usual way, and
    keeps the table for the next run."""
    import shutil

    project.config(CONFIG)
    project.write("m.py", "import re\n")
    project.run("check")
    shutil.rmtree(project.root / ".import_policy_cache" / "sarif-rules", ignore_errors=True)
    code, warm, _ = project.run("check", "--format", "sarif")
    _, fresh, _ = project.run("check", "--no-cache", "--format", "sarif")
    assert code == 1 and warm == fresh
    assert (project.root / ".import_policy_cache" / "sarif-rules").is_dir()
