"""`import-policy rules` (the rules in force, as a table or JSON) and `import-policy explain RULE`."""

from __future__ import annotations

import json
import sys

from import_policy.commands import EXIT_OK, UsageError
from import_policy.policy.load import Loaded
from import_policy.kinds.describe import describe_rule, fix_applicability, platforms_in_force, rule_rows
from import_policy.commands.selectors import did_you_mean

_HEADERS = ("id", "kind", "severity", "fixable", "source", "message")


def rules(loaded: Loaded, fmt: str) -> int:
    rows = rule_rows(loaded.policy)
    if fmt == "json":
        # `fixable` is a boolean, as in check's JSON; how safe the fix is goes beside it.
        document = [
            {**row, "fixable": row["fixable"] != "no", "fix_applicability": fix_applicability(row["fixable"])}
            for row in rows
        ]
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return EXIT_OK
    table = [_HEADERS] + [tuple(str(row[h]).replace("\n", " ") for h in _HEADERS) for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(_HEADERS) - 1)]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")
    if loaded.policy.rocm_safety is not None:
        from import_policy.rocm.rules import settings

        # The pass's settings as `extends` merged them, each name with where it came from.
        sys.stdout.write("\nrocm_safety (merged):\n" + "".join(f"{line}\n" for line in settings(loaded.policy)))
    platforms = platforms_in_force(loaded.policy)
    if platforms:
        # The platform profiles the graph rules judge on (and those declared), as resolved.
        sys.stdout.write("\nplatforms (in force):\n" + "".join(f"{line}\n" for line in platforms))
    return EXIT_OK


def explain(loaded: Loaded, rule: str) -> int:
    text = describe_rule(loaded.policy, rule)
    if text is None:
        ids = [row["id"] for row in rule_rows(loaded.policy)]
        raise UsageError(f"unknown rule {rule!r}{did_you_mean(rule, ids)}; rules in force: {', '.join(ids)}")
    sys.stdout.write(text)
    return EXIT_OK
