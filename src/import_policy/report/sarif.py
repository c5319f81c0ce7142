"""`--format sarif`: SARIF 2.1.0 for code-scanning uploads, with fixes.

Shape follows the OASIS 2.1.0 schema: one run, `tool.driver.rules` holding
every rule in force, one result per finding with a region, and `fixes`
(artifactChanges with replacements) for findings the fixer can rewrite.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from import_policy import __version__
from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


@dataclass(frozen=True)
class Replacement:
    """Replace the text from (line, column) up to (end_line, end_column), 1-based, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    description: str
    replacements: tuple[Replacement, ...]


FixFor = Callable[[Diagnostic], "Fix | None"]


@dataclass(frozen=True)
class RuleTable:
    """`tool.driver.rules` as the policy decides it: a descriptor per rule in force (in the
    `rules` table's order), and one per opt-in built-in (listed only when a finding is of it).
    A finding of any other id gets a descriptor made of the id alone. Plain JSON values, so
    the cache keeps it under the policy's digest (`report.sarif_rules`)."""

    rows: tuple[dict[str, Any], ...]
    opt_in: dict[str, dict[str, Any]]


def rule_table(policy: Policy) -> RuleTable:
    # Imported here: a report the caches answer (`sarif_rules`) never loads the rules' kinds.
    from import_policy.kinds.describe import opt_in_builtins, rule_rows

    rows = rule_rows(policy)
    known = {row["id"] for row in rows}
    extra = [
        {"id": rule.id, "severity": "error", "message": rule.id, "kind": "builtin"}
        for rule in opt_in_builtins() if rule.id not in known
    ]
    return RuleTable(tuple(_descriptor(policy, row) for row in rows), {row["id"]: _descriptor(policy, row) for row in extra})


def _descriptor(policy: Policy, row: dict[str, Any]) -> dict[str, Any]:
    from import_policy.kinds.describe import describe_rule

    short = str(row["message"]).strip() or f"{row['kind']} rule {row['id']}"
    full = describe_rule(policy, row["id"]) or short
    descriptor: dict[str, Any] = {
        "id": row["id"],
        "name": row["id"],
        "shortDescription": {"text": short.splitlines()[0]},
        "fullDescription": {"text": short},
        "help": {"text": full},
        "defaultConfiguration": {"level": "error" if row["severity"] == "error" else "warning"},
        "properties": {"kind": row["kind"]},
    }
    if "source" in row:
        descriptor["properties"]["source"] = row["source"]
    return descriptor


def _rules(table: RuleTable, used: Sequence[str]) -> list[dict[str, Any]]:
    known = {row["id"] for row in table.rows}
    out = [dict(row) for row in table.rows]
    for rule_id in used:
        if rule_id in known:
            continue
        found = table.opt_in.get(rule_id)
        # No rule of the policy, no built-in: `explain` has nothing, the id says it all.
        out.append(found if found is not None else _descriptor_of_id(rule_id))
    return out


def _descriptor_of_id(rule_id: str) -> dict[str, Any]:
    return {
        "id": rule_id, "name": rule_id, "shortDescription": {"text": rule_id}, "fullDescription": {"text": rule_id},
        "help": {"text": rule_id}, "defaultConfiguration": {"level": "error"}, "properties": {"kind": "builtin"},
    }


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    region = {"startLine": max(line, 1), "startColumn": max(column, 1)}
    if end_line >= line:
        region["endLine"] = end_line
        region["endColumn"] = max(end_column, 1)
    return region


def _location(path: str) -> dict[str, str]:
    # A relative URI reference: every byte but unreserved ones and `/` percent-encoded, so a
    # name holding ` `, `#`, `?`, `%` or a control character is still the file's own URI.
    from urllib.parse import quote

    return {"uri": quote(os.fsencode(path), safe="/"), "uriBaseId": SRCROOT}


def _result(d: Diagnostic, index: int, fix_for: FixFor | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.rule,
        "ruleIndex": index,
        "level": "error" if d.severity == "error" else "warning",
        "message": {"text": d.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": _location(d.path),
                "region": _region(d.line, d.column, d.end_line, d.end_column),
            }
        }],
    }
    if d.chain:
        result["properties"] = {"chain": list(d.chain)}
    # Every finding with a fix gets it, safe or not: SARIF fixes are offers, the description says which.
    fix = fix_for(d) if fix_for is not None and d.fix is not None else None
    if fix is not None and fix.replacements:
        result["fixes"] = [{
            "description": {"text": fix.description},
            "artifactChanges": [{
                "artifactLocation": _location(d.path),
                "replacements": [
                    {
                        "deletedRegion": _region(r.line, r.column, r.end_line, r.end_column),
                        "insertedContent": {"text": r.text},
                    }
                    for r in fix.replacements
                ],
            }],
        }]
    return result


def document(
    diagnostics: Sequence[Diagnostic], policy: Policy | RuleTable, base: Path, fix_for: FixFor | None = None
) -> dict[str, Any]:
    """`base`: the folder the diagnostics' paths are relative to (the uri base %SRCROOT%);
    `policy`: the policy, or the rule table made of it (`rule_table`)."""
    table = policy if isinstance(policy, RuleTable) else rule_table(policy)
    rules = _rules(table, sorted({d.rule for d in diagnostics}))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "import-policy",
                    "version": __version__,
                    "semanticVersion": __version__,
                    "rules": rules,
                }
            },
            # Our columns count code points, as Python strings do; SARIF's default is UTF-16 units.
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {SRCROOT: {"uri": _folder_uri(base)}},
            "results": [_result(d, index[d.rule], fix_for) for d in diagnostics],
        }],
    }


def _folder_uri(base: Path) -> str:
    uri = base.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def render(diagnostics: Sequence[Diagnostic], policy: Policy | RuleTable, base: Path, fix_for: FixFor | None = None) -> str:
    import json

    return json.dumps(document(diagnostics, policy, base, fix_for), indent=2) + "\n"
