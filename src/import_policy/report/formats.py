"""The document formats of `check --format`, one registry line each: the keys are the valid
choices after the default `text` (which commands/check.py renders with its own options:
colour, summary, fixes). Each renderer's module is imported only when its format is asked for."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic


@dataclass(frozen=True)
class Report:
    diagnostics: Sequence[Diagnostic]  # sorted, paths as shown (relative to `cwd`)
    files: int  # how many files were checked
    policy: Policy | None  # None for a run the caches answered without one (never for SARIF: commands.check.answer_warm)
    cwd: Path
    stdin: Mapping[str, bytes]  # shown path -> the bytes read from stdin (`--stdin-filename`)
    cache_root: Path | None = None  # the project whose cache keeps fix edits; None: --no-cache, or several projects


def _json(report: Report) -> str:
    from import_policy.report import json
    from import_policy.report.fix_edits import edits_hook

    return json.render(report.diagnostics, report.files, edits_hook(report.cwd, report.stdin, report.cache_root))


def _sarif(report: Report) -> str:
    from import_policy.report import sarif
    from import_policy.report.fix_edits import fix_hook

    assert report.policy is not None, "a SARIF report is never answered without the policy"
    return sarif.render(report.diagnostics, report.policy, report.cwd, fix_hook(report.cwd, report.stdin, report.cache_root))


def _github(report: Report) -> str:
    from import_policy.report import github

    return github.render(report.diagnostics)


FORMATS: dict[str, Callable[[Report], str]] = {
    "json": _json,
    "sarif": _sarif,
    "github": _github,
}
