"""`import-policy rules` (the rules in force, as a table or JSON) and `import-policy explain RULE`."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from import_policy.commands import EXIT_OK, UsageError
from import_policy.policy.load import Loaded
from import_policy.kinds.describe import describe_rule, fix_applicability, platforms_in_force, rule_rows
from import_policy.commands.selectors import did_you_mean

_HEADERS = ("id", "kind", "severity", "fixable", "source", "message")


def _heading(loaded: Loaded) -> str:
    policy = loaded.policy
    return f"{policy.sources[-1].replace('preset:', 'preset ') if policy.sources else '(built-in)'}:"


def rules(every: Sequence[Loaded], fmt: str) -> int:
    """The rules in force of each configuration (one table each, headed by its file where
    there are several); JSON: every configuration's rows, a rule declared in a shared base
    once."""
    if fmt == "json":
        seen: set[tuple[str, str]] = set()
        document = []
        for loaded in every:
            for row in rule_rows(loaded.policy):
                if (row["id"], row["source"]) in seen:
                    continue
                seen.add((row["id"], row["source"]))
                # `fixable` is a boolean, as in check's JSON; how safe the fix is goes beside it.
                document.append({**row, "fixable": row["fixable"] != "no", "fix_applicability": fix_applicability(row["fixable"])})
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return EXIT_OK
    for index, loaded in enumerate(every):
        if len(every) > 1:
            sys.stdout.write(("\n" if index else "") + _heading(loaded) + "\n")
        _table(loaded)
    return EXIT_OK


def _table(loaded: Loaded) -> None:
    rows = rule_rows(loaded.policy)
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


def explain(every: Sequence[Loaded], rule: str) -> int:
    """RULE as each configuration that has it declares it (once where they agree)."""
    texts: list[str] = []
    for loaded in every:
        text = describe_rule(loaded.policy, rule)
        if text is not None and text not in texts:
            texts.append(text)
    if not texts:
        ids = list(dict.fromkeys(row["id"] for loaded in every for row in rule_rows(loaded.policy)))
        raise UsageError(f"unknown rule {rule!r}{did_you_mean(rule, ids)}; rules in force: {', '.join(ids)}")
    sys.stdout.write("\n".join(texts))
    return EXIT_OK
