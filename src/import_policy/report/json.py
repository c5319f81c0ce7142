"""`--format json` (contract section 5)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from import_policy.diagnostics import Diagnostic
from import_policy.report.text import statistics

VERSION = 1


def diagnostic_dict(d: Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule": d.rule,
        "severity": d.severity,
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
        "message": d.message,
        "fixable": d.fixable,
    }
    if d.chain is not None:
        out["chain"] = list(d.chain)
    return out


def render(diagnostics: Sequence[Diagnostic], files: int) -> str:
    document = {
        "version": VERSION,
        "diagnostics": [diagnostic_dict(d) for d in diagnostics],
        "summary": {
            "files": files,
            "violations": len(diagnostics),
            "fixable": sum(d.fixable for d in diagnostics),
        },
    }
    return json.dumps(document, indent=2) + "\n"


def render_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    rows = [{"rule": rule, "count": n, "fixable_count": fixable} for n, rule, fixable in statistics(diagnostics)]
    return json.dumps(rows, indent=2) + "\n"
