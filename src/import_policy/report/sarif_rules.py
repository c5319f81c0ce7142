"""SARIF's rule table kept in the project's cache under the policy's digest (the one the run
cache keys a whole-tree answer by), so a warm `--format sarif` is answered as a warm
`--format json` is: from the run cache, without building the policy (`commands.check.answer_warm`).

The table is a function of the policy alone (`sarif.rule_table`); the tool's version is in
every entry's key (`cache.store`), so a release that describes rules otherwise misses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from import_policy.cache.store import Store
from import_policy.config.model import Policy
from import_policy.report.sarif import RuleTable, rule_table

_NAME = "rules"


class RuleTableCodec:
    name = "sarif-rules"
    version = 1

    def encode(self, record: RuleTable) -> Any:
        return {"rows": list(record.rows), "opt_in": record.opt_in}

    def decode(self, data: Any) -> RuleTable:
        rows, opt_in = data["rows"], data["opt_in"]
        if not isinstance(rows, list) or not all(isinstance(row, dict) and isinstance(row.get("id"), str) for row in rows):
            raise TypeError("rows of another shape")
        if not isinstance(opt_in, dict) or not all(isinstance(row, dict) for row in opt_in.values()):
            raise TypeError("opt-in rules of another shape")
        return RuleTable(tuple(rows), opt_in)


def kept_table(cache_root: Path, policy_digest: str) -> RuleTable | None:
    """The table the last SARIF report of this policy kept; None when none was."""
    return Store(cache_root, RuleTableCodec()).get(policy_digest, _NAME)


def table_of(policy: Policy, cache_root: Path | None) -> RuleTable:
    """The policy's table, kept for the next warm report when the run has a cache."""
    from import_policy.cache.run import policy_digest

    table = rule_table(policy)
    digest = policy_digest(policy) if cache_root is not None else None
    if cache_root is not None and digest is not None:
        Store(cache_root, RuleTableCodec()).put(digest, _NAME, table)
    return table


__all__ = ["RuleTableCodec", "kept_table", "table_of"]
