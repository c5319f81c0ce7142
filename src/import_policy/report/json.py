"""`--format json` (contract section 5), each finding with ruff's `fix`: `{applicability,
edits}` (`null` where there is none), edits in the document's own line/column terms."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from import_policy.diagnostics import Diagnostic
from import_policy.report.text import statistics

if TYPE_CHECKING:
    from import_policy.report.fix_edits import Edits, EditsFor

VERSION = 1


def fix_dict(edits: Edits | None) -> dict[str, Any] | None:
    """ruff's `fix` (without its `message`): `applicability` is `safe` (applied by `--fix`) or
    `unsafe` (only with `--unsafe-fixes`), whatever the flags of this run, as in ruff."""
    if edits is None:
        return None
    return {
        "applicability": "safe" if edits.safe else "unsafe",
        "edits": [
            {"content": r.text, "line": r.line, "column": r.column, "end_line": r.end_line, "end_column": r.end_column}
            for r in edits.replacements
        ],
    }


def diagnostic_dict(d: Diagnostic, edits_for: EditsFor | None = None) -> dict[str, Any]:
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
        "fix": fix_dict(edits_for(d)) if edits_for is not None and d.fix is not None else None,
    }
    if d.chain is not None:
        out["chain"] = list(d.chain)
    return out


def render(diagnostics: Sequence[Diagnostic], files: int, edits_for: EditsFor | None = None) -> str:
    document = {
        "version": VERSION,
        "diagnostics": [diagnostic_dict(d, edits_for) for d in diagnostics],
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
