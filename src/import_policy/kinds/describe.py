"""Rules as people read them: the `rules` table and `explain RULE`."""

from __future__ import annotations

import json
from typing import Any

from import_policy.config.model import Policy, Profile, Rule
from import_policy.config.platforms import profile_named
from import_policy.kinds.builtin import BuiltinRule
from import_policy.kinds.registry import BUILTIN, kind_of
from import_policy.patterns import PathGlob


def builtins_in_force(policy: Policy) -> list[BuiltinRule]:
    """Opt-in rules are not in force until selected by name, so `rules` does not list them."""
    return [b for b in BUILTIN if b.in_force(policy) and not b.opt_in]


def opt_in_builtins() -> list[BuiltinRule]:
    """Built-in rules that are off unless selected by name (valid --select ids, explained)."""
    return [b for b in BUILTIN if b.opt_in]


def _fixable(rule: Rule) -> str:
    return kind_of(rule).fixable(rule)


def fix_applicability(fixable: str) -> str | None:
    """`rules --format json`'s word for a `fixable` cell: check JSON's `fix.applicability`."""
    return {"yes": "safe", "unsafe": "unsafe"}.get(fixable)


def _source(source: str) -> str:
    return source.replace("preset:", "preset ")


def rule_rows(policy: Policy) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for rule in policy.rules:
        rows.append({
            "id": rule.id, "kind": rule.kind, "severity": rule.severity, "fixable": _fixable(rule),
            "source": f"{_source(rule.origin.source)}:{rule.origin.line}", "message": kind_of(rule).says(rule),
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
        return _describe(rule, policy)
    for builtin in builtins_in_force(policy) + opt_in_builtins():
        if builtin.id == rule_id:
            return _describe_builtin(builtin, policy)
    return None


def _describe(rule: Rule, policy: Policy) -> str:
    kind = kind_of(rule)
    lines = [
        f"{rule.id}",
        f"  kind:          {rule.kind}",
        f"  declared in:   {_source(rule.origin.source)}:{rule.origin.line}",
        f"  severity:      {rule.severity}",
        f"  message:       {rule.message or '(default)'}",
        *kind.explain_patterns(rule),
        f"  files:         {_globs(rule.files) if rule.files else '(everywhere)'}",
        f"  allow_in:      {_globs(rule.allow_in)}",
        *kind.explain_options(rule),
        *_platform(rule, policy),
    ]
    lines.extend(_examples("flag", rule.examples.flag))
    lines.extend(_examples("allow", rule.examples.allow))
    return "\n".join(lines) + "\n"


def _platform(rule: Rule, policy: Policy) -> list[str]:
    """What the profile a graph rule's `platform:` names holds, one line a key."""
    name = getattr(rule, "platform", None)
    profile = profile_named(policy, name) if isinstance(name, str) else None
    return [f"    {line}" for line in describe_profile(profile)] if profile is not None else []


def describe_profile(profile: Profile) -> list[str]:
    """A platform profile as `rules` and `explain` show it."""
    origin = "built in" if profile.origin.source == "built-in" else _source(str(profile.origin))
    values = ", ".join(f"{name}: {json.dumps(value)}" for name, value in profile.values)  # as YAML spells them
    return [
        f"guards: {', '.join(profile.guards) or '(none)'}",
        f"true:   {', '.join(profile.true) or '(none)'}",
        f"values: {values or '(none)'}",
        f"from:   {origin}",
    ]


def platforms_in_force(policy: Policy) -> list[str]:
    """The profiles the configuration declares and those its rules name, for `rules`."""
    names = [p.name for p in policy.platforms]
    names += [n for rule in policy.rules if isinstance(n := getattr(rule, "platform", None), str)]
    lines = []
    for name in dict.fromkeys(names):
        profile = profile_named(policy, name)
        if profile is not None:
            lines += [f"  {name}:", *(f"    {line}" for line in describe_profile(profile))]
    return lines


def _globs(globs: tuple[PathGlob, ...]) -> str:
    return ", ".join(g.text for g in globs) if globs else "(none)"


def _examples(title: str, snippets: tuple[str, ...]) -> list[str]:
    if not snippets:
        return []
    out = [f"  examples ({title}):"]
    for snippet in snippets:
        body = snippet.rstrip("\n").split("\n")
        out.append(f"    - {body[0]}")
        out.extend(f"      {line}" for line in body[1:])
    return out


def _describe_builtin(builtin: BuiltinRule, policy: Policy) -> str:
    head = [builtin.id, f"  kind:          {builtin.kind}", f"  fixable:       {builtin.fixable}"]
    if builtin.opt_in:
        head.append("  in force:      only when selected by name (--select, --extend-select)")
    head.extend(builtin.settings(policy))
    return "\n".join(head) + f"\n\n{builtin.doc().strip()}\n"


__all__ = ["BUILTIN", "describe_rule", "rule_rows"]
