"""The document formats of `check --format`, one registry line each: the keys are the valid
choices after the default `text` (which commands/check.py renders with its own options:
colour, summary, fixes). Each renderer's module is imported only when its format is asked for."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic

if TYPE_CHECKING:
    from import_policy.report.sarif import RuleTable


@dataclass(frozen=True)
class Report:
    diagnostics: Sequence[Diagnostic]  # sorted, paths as shown (relative to `cwd`)
    files: int  # how many files were checked
    policy: Policy | None  # None for a run the caches answered without one (commands.check.answer_warm)
    cwd: Path
    stdin: Mapping[str, bytes]  # shown path -> the bytes read from stdin (`--stdin-filename`)
    cache_root: Path | None = None  # the project whose cache keeps fix edits; None: --no-cache, or several projects
    rule_table: RuleTable | None = None  # SARIF's rules as the cache kept them, for a run answered without the policy


def _json(report: Report) -> str:
    from import_policy.report import json
    from import_policy.report.fix_edits import edits_hook

    return json.render(report.diagnostics, report.files, edits_hook(report.cwd, report.stdin, report.cache_root))


def _sarif(report: Report) -> str:
    from import_policy.report import sarif
    from import_policy.report.fix_edits import fix_hook

    if report.policy is not None:
        from import_policy.report.sarif_rules import table_of

        table = table_of(report.policy, report.cache_root)
    else:
        assert report.rule_table is not None, "a SARIF report answered without the policy has its kept rule table"
        table = report.rule_table
    return sarif.render(report.diagnostics, table, report.cwd, fix_hook(report.cwd, report.stdin, report.cache_root))


def _github(report: Report) -> str:
    from import_policy.report import github

    return github.render(report.diagnostics)


FORMATS: dict[str, Callable[[Report], str]] = {
    "json": _json,
    "sarif": _sarif,
    "github": _github,
}
