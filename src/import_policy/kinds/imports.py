"""`kind: import` rules (contract section 3): forbidden imports and uses of forbidden names."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from import_policy.config.model import Fix, GatewayFix, ModuleFix, Policy, RuleBase
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import Context, FileFacts, ImportFact, Span
from import_policy.facts.shared.usegate import UseGate
from import_policy.edits.payload import AliasEdit, ImportFix, plan_edit
from import_policy.kinds.base import Candidates, EVERY_FILE
from import_policy.patterns import DottedPattern, Verdict, judge
from import_policy.facts.prefilter.prefilter import Prefilter

# Validation and the YAML tree are imported by the parse functions: a run that takes its
# policy from the cache (cache.policy) imports neither.
if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator
    from import_policy.config.yamltree import Node


@dataclass(frozen=True)
class ImportRule(RuleBase):
    forbid: tuple[DottedPattern, ...]
    except_: tuple[DottedPattern, ...]
    scope: Literal["module", "anywhere"] = "anywhere"
    type_checking: Literal["ignore", "check"] = "ignore"
    fix: Fix | None = None
    # `forbid` entries written `{name: PATTERN, message: TEXT}`: (pattern text, message) for the
    # names those patterns decide; the rule's `message` speaks for the others.
    messages: tuple[tuple[str, str], ...] = ()
    kind: str = field(default="import", kw_only=True)
    # The file of `fix.gateway` once the tree is read (config.tree): the gateway's own imports
    # are what it is for, so the rule never reports, nor rewrites, there.
    gateway_file: str | None = field(default=None, kw_only=True)

    def applies_to(self, path: str) -> bool:
        return path != self.gateway_file and super().applies_to(path)


def counts(rule: ImportRule, context: Context) -> bool:
    if rule.scope == "module" and not context.import_time:
        return False
    return not (rule.type_checking == "ignore" and context.type_checking)


def verdict(rule: ImportRule, name: str) -> Verdict:
    return judge(name, rule.forbid, rule.except_)


def message(rule: ImportRule, name: str) -> str:
    """The message for a forbidden `name`: its forbid entry's own, else the rule's, else a
    default; `{name}` and `{pattern}` in it say the name found and the pattern that matched."""
    pattern = verdict(rule, name).pattern
    text = pattern.text if pattern is not None else name
    own = next((m for p, m in rule.messages if p == text), None) if rule.messages else None
    template = own or rule.message
    if not template:
        return f"`{name}` is forbidden"
    return template.replace("{name}", name).replace("{pattern}", text)


def check(rule: ImportRule, facts: FileFacts) -> list[Diagnostic]:
    return [*_imports(rule, facts), *_uses(rule, facts)]


def _diagnostic(
    rule: ImportRule, facts: FileFacts, span: Span, statement_line: int, name: str,
    fixed: list[ImportFact] | None = None,
) -> Diagnostic:
    text, fix = message(rule, name), None
    if rule.fix is not None and fixed:
        edits = [plan_edit(rule.fix, fact, rule.forbid) for fact in fixed]
        why = next((e for e in edits if isinstance(e, str)), None)
        if why is None:
            fix = ImportFix(
                "import" if fixed[0].kind == "import" else "from",
                tuple(e for e in edits if isinstance(e, AliasEdit)),
            )
        else:
            text += f" (not fixable: {why})"
    return Diagnostic(
        rule=rule.id, severity=rule.severity, path=facts.path,
        line=span.line, column=span.column, end_line=span.end_line, end_column=span.end_column,
        message=text, suppress_lines=(span.line, statement_line), fixable=fix is not None, fix=fix,
    )


def _imports(rule: ImportRule, facts: FileFacts) -> Iterator[Diagnostic]:
    statements: dict[int, list[ImportFact]] = {}
    for fact in facts.imports:
        if fact.kind == "from":
            statements.setdefault(fact.statement, []).append(fact)
        elif counts(rule, fact.context) and verdict(rule, fact.name).forbidden:
            yield _diagnostic(rule, facts, fact.span, fact.statement_line, fact.name, [fact])
    for group in statements.values():
        first = group[0]
        if not counts(rule, first.context):
            continue
        forbidden = [fact for fact in group if verdict(rule, fact.name).forbidden]
        if not forbidden:
            continue
        if verdict(rule, first.module).forbidden:
            # A forbidden module is one finding, however many names come from it.
            yield _diagnostic(rule, facts, first.module_span, first.statement_line, first.module, forbidden)
        else:
            for fact in forbidden:
                yield _diagnostic(rule, facts, fact.span, fact.statement_line, fact.name, [fact])


def _uses(rule: ImportRule, facts: FileFacts) -> Iterator[Diagnostic]:
    if not facts.uses:
        return
    # Names bound by an import the rule forbids were judged at the import.
    judged = {
        fact.bound
        for fact in facts.imports
        if fact.bound is not None and verdict(rule, fact.name).forbidden
    }
    for use in facts.uses:
        if use.root in judged or not counts(rule, use.context):
            continue
        for name in use.qualified_names:
            if verdict(rule, name).forbidden:
                yield _diagnostic(rule, facts, use.span, use.statement_line, name)
                break


class ImportKind:
    """`kind: import` (the default): forbidden modules and names, and uses of them."""

    name = "import"
    language: Literal["python"] = "python"
    keys = ("forbid", "except", "scope", "type_checking", "fix")

    def parse(self, v: Validator, items: Items, common: RuleFields) -> ImportRule:
        from import_policy.config.yamltree import Seq

        line = common["origin"].line
        scope = v.choice(items["scope"][1], "scope", ("module", "anywhere")) if "scope" in items else "anywhere"
        type_checking = (
            v.choice(items["type_checking"][1], "type_checking", ("ignore", "check"))
            if "type_checking" in items else "ignore"
        )
        forbid, messages = _forbid_entries(v, items["forbid"][1] if "forbid" in items else Seq([], line))
        return ImportRule(
            forbid=forbid,
            messages=messages,
            except_=tuple(v.dotted_patterns(items["except"][1] if "except" in items else Seq([], line), "except")),
            scope="module" if scope == "module" else "anywhere",
            type_checking="check" if type_checking == "check" else "ignore",
            fix=_fix(v, items["fix"][1]) if "fix" in items else None,
            **common,
        )

    def fixable(self, rule: ImportRule) -> str:
        return "yes" if rule.fix is not None else "no"

    def says(self, rule: ImportRule) -> str:
        # A forbid entry's own message reads best with its pattern in place of the name found.
        own = [text.replace("{name}", pattern).replace("{pattern}", pattern) for pattern, text in rule.messages]
        if len(own) < len(rule.forbid) or rule.message:
            own.append(rule.message or "`<name>` is forbidden")
        return " | ".join(own)

    def explain_patterns(self, rule: ImportRule) -> list[str]:
        lines = [f"  forbid:        {_texts(rule.forbid)}"]
        lines.extend(f"    {pattern}: {text}" for pattern, text in rule.messages)
        lines.append(f"  except:        {_texts(rule.except_)}")
        return lines

    def explain_options(self, rule: ImportRule) -> list[str]:
        lines = [f"  scope:         {rule.scope}", f"  type_checking: {rule.type_checking}"]
        if isinstance(rule.fix, GatewayFix):
            exports = ", ".join(f"{k} -> {v}" for k, v in rule.fix.exports) or "(none)"
            lines.append(f"  fix:           through gateway {rule.fix.gateway} (exports: {exports})")
        elif isinstance(rule.fix, ModuleFix):
            lines.append(f"  fix:           replace the module with {rule.fix.replace_module}")
        else:
            lines.append("  fix:           (none)")
        return lines

    def name_excepts(self, rule: ImportRule) -> Sequence[DottedPattern]:
        return rule.except_

    def prepare(self, rule: ImportRule, policy: Policy) -> ImportRule:
        return rule

    def candidates(self, rules: Sequence[ImportRule]) -> Candidates:
        return Prefilter.for_patterns(p for rule in rules for p in rule.forbid) or EVERY_FILE

    def uses(self, rules: Sequence[ImportRule]) -> tuple[Candidates, UseGate, str] | None:
        # Uses matter only below an imported module: `torch.cuda.synchronize`, not `pickle`.
        dotted = Prefilter.for_patterns(p for rule in rules for p in rule.forbid if "." in p.text)
        return dotted or EVERY_FILE, use_gate(rules), _fingerprint(rules)

    def check(self, rule: ImportRule, facts: FileFacts) -> list[Diagnostic]:
        return check(rule, facts)

    def forbids(self, rule: ImportRule, name: str) -> bool:
        return judge(name, rule.forbid, ()).forbidden

    def verdict(self, rule: ImportRule, name: str) -> Verdict:
        return verdict(rule, name)


def _forbid_entries(v: Validator, node: Node) -> tuple[tuple[DottedPattern, ...], tuple[tuple[str, str], ...]]:
    """`forbid`: dotted-name patterns, each a string or a map `{name: PATTERN, message: TEXT}`
    (ruff's banned-api table: a message per name, in one rule), in the order written."""
    from import_policy.config.yamltree import Map, Seq

    if not isinstance(node, (Seq, Map)):
        return tuple(v.dotted_patterns(node, "forbid")), ()
    patterns: list[DottedPattern] = []
    messages: list[tuple[str, str]] = []
    for item in node.items if isinstance(node, Seq) else [node]:
        if not isinstance(item, Map):
            patterns.extend(v.dotted_patterns(Seq([item], item.line), "forbid"))
            continue
        v.keys(item, ("name", "message"), "a forbid entry")
        if "name" not in item.items:
            v.error(item.line, "a forbid entry written as a map needs a name: {name: PATTERN, message: TEXT}")
            continue
        name_node = item.items["name"][1]
        compiled = v.dotted_patterns(Seq([name_node], name_node.line), "forbid")
        text = v.string(item.items["message"][1], "a forbid entry's message") if "message" in item.items else None
        patterns.extend(compiled)
        if text and compiled:
            messages.append((compiled[0].text, text))
    return tuple(patterns), tuple(messages)


def gateways(rules: Iterable[RuleBase]) -> dict[str, str]:
    """`vllm.tilelang_utils.tilelang` -> `tilelang`: what the gateways of these rules' fixes export."""
    out: dict[str, str] = {}
    for rule in rules:
        # Only this kind's rules carry a gateway fix.
        if isinstance(rule, ImportRule) and isinstance(rule.fix, GatewayFix):
            for original, exported in rule.fix.exports:
                out[f"{rule.fix.gateway}.{exported}"] = original
    return out


def _texts(patterns: Sequence[DottedPattern]) -> str:
    return ", ".join(p.text for p in patterns) if patterns else "(none)"


def _fingerprint(rules: Sequence[ImportRule]) -> str:
    text = repr([(r.id, [p.text for p in r.forbid], [p.text for p in r.except_]) for r in rules])
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def use_gate(rules: Sequence[ImportRule]) -> UseGate:
    """Whether a use resolving to `name` could be judged by one of `rules`: some forbid
    pattern matches it or a prefix, and its root is not bound by an import the rule already
    forbids (the check judges that at the import); or an `except` entry matches it, so the
    stale-allowlist tracker sees every name an entry could decide."""

    def gate(name: str, imported: Sequence[str]) -> bool:
        for rule in rules:
            if rule.except_ and judge(name, (), rule.except_).pattern is not None:
                return True
            if judge(name, rule.forbid, ()).forbidden and not any(
                judge(n, rule.forbid, rule.except_).forbidden for n in imported
            ):
                return True
        return False

    return gate


def _fix(v: Validator, node: Node) -> Fix | None:
    from import_policy.config.validate import DOTTED, IDENTIFIER
    from import_policy.config.yamltree import describe_node
    from import_policy.config.yamltree import Map

    if not isinstance(node, Map):
        v.error(node.line, f"fix must be a map with gateway/exports or replace_module, got {describe_node(node)}")
        return None
    v.keys(node, ("gateway", "exports", "replace_module"), "fix")
    items = node.items
    if "replace_module" in items:
        if "gateway" in items or "exports" in items:
            v.error(node.line, "fix takes either replace_module, or gateway with exports, not both")
            return None
        target = v.dotted(items["replace_module"][1], "fix.replace_module")
        return ModuleFix(target) if target else None
    if "gateway" not in items:
        v.error(node.line, "fix needs gateway (with exports) or replace_module")
        return None
    gateway = v.dotted(items["gateway"][1], "fix.gateway")
    exports: list[tuple[str, str]] = []
    if "exports" in items:
        exports_node = items["exports"][1]
        if not isinstance(exports_node, Map):
            v.error(exports_node.line, f"fix.exports must map forbidden dotted names to exported names, got {describe_node(exports_node)}")
        else:
            for key, (line, value) in exports_node.items.items():
                name = v.string(value, f"fix.exports[{key!r}]")
                if not DOTTED.fullmatch(key):
                    v.error(line, f"fix.exports key {key!r} must be a dotted module name")
                elif name is not None and not IDENTIFIER.fullmatch(name):
                    v.error(value.line, f"fix.exports[{key!r}] must be an identifier, got {name!r}")
                elif name is not None:
                    exports.append((key, name))
    return GatewayFix(gateway, tuple(exports)) if gateway else None
