"""Rules as people read them: the `rules` table and `explain RULE`."""

from __future__ import annotations

from typing import Any

from import_policy.kinds.builtin import BUILTIN, BuiltinRule, builtins_in_force
from import_policy.config.model import GatewayFix, ImportRule, IncludeRule, ModuleFix, Policy, Rule, TokenRule


def _fixable(rule: Rule) -> str:
    return "yes" if isinstance(rule, ImportRule) and rule.fix is not None else "no"


def _source(source: str) -> str:
    return source.replace("preset:", "preset ")


def rule_rows(policy: Policy) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for rule in policy.rules:
        rows.append({
            "id": rule.id, "kind": rule.kind, "severity": rule.severity, "fixable": _fixable(rule),
            "source": f"{_source(rule.origin.source)}:{rule.origin.line}", "message": rule.message,
        })
    for builtin in builtins_in_force(policy):
        source = "built-in"
        if builtin.needs_rocm and policy.rocm_safety is not None:
            source = f"{_source(policy.rocm_safety.origin.source)}:{policy.rocm_safety.origin.line}"
        rows.append({
            "id": builtin.id, "kind": builtin.kind, "severity": "error", "fixable": builtin.fixable,
            "source": source, "message": builtin.summary,
        })
    return rows


def describe_rule(policy: Policy, rule_id: str) -> str | None:
    rule = policy.rule(rule_id)
    if rule is not None:
        return _describe(rule)
    for builtin in builtins_in_force(policy):
        if builtin.id == rule_id:
            return _describe_builtin(builtin)
    return None


def _list(items: object) -> str:
    values = [getattr(i, "text", i) for i in items]  # type: ignore[attr-defined]
    return ", ".join(str(v) for v in values) if values else "(none)"


def _describe(rule: Rule) -> str:
    lines = [
        f"{rule.id}",
        f"  kind:          {rule.kind}",
        f"  declared in:   {_source(rule.origin.source)}:{rule.origin.line}",
        f"  severity:      {rule.severity}",
        f"  message:       {rule.message or '(default)'}",
        f"  forbid:        {_list(rule.forbid)}",
    ]
    if isinstance(rule, (ImportRule, IncludeRule)):
        lines.append(f"  except:        {_list(rule.except_)}")
    lines.append(f"  files:         {_list(rule.files) if rule.files else '(everywhere)'}")
    lines.append(f"  allow_in:      {_list(rule.allow_in)}")
    if isinstance(rule, ImportRule):
        lines.append(f"  scope:         {rule.scope}")
        lines.append(f"  type_checking: {rule.type_checking}")
        if isinstance(rule.fix, GatewayFix):
            exports = ", ".join(f"{k} -> {v}" for k, v in rule.fix.exports) or "(none)"
            lines.append(f"  fix:           through gateway {rule.fix.gateway} (exports: {exports})")
        elif isinstance(rule.fix, ModuleFix):
            lines.append(f"  fix:           replace the module with {rule.fix.replace_module}")
        else:
            lines.append("  fix:           (none)")
    if isinstance(rule, TokenRule):
        pass
    lines.extend(_examples("flag", rule.examples.flag))
    lines.extend(_examples("allow", rule.examples.allow))
    return "\n".join(lines) + "\n"


def _examples(title: str, snippets: tuple[str, ...]) -> list[str]:
    if not snippets:
        return []
    out = [f"  examples ({title}):"]
    for snippet in snippets:
        body = snippet.rstrip("\n").split("\n")
        out.append(f"    - {body[0]}")
        out.extend(f"      {line}" for line in body[1:])
    return out


def _describe_builtin(builtin: BuiltinRule) -> str:
    return f"{builtin.id}\n  kind:          {builtin.kind}\n  fixable:       {builtin.fixable}\n\n{builtin.doc.strip()}\n"


__all__ = ["BUILTIN", "describe_rule", "rule_rows"]
