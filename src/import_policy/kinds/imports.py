"""`kind: import` rules (contract section 3): forbidden imports and uses of forbidden names."""

from __future__ import annotations

from collections.abc import Iterator

from import_policy.config.model import ImportRule
from import_policy.diagnostics import Diagnostic
from import_policy.fix.payload import AliasEdit, ImportFix, plan_edit
from import_policy.facts.model import Context, FileFacts, ImportFact, Span
from import_policy.patterns import Verdict, judge


def counts(rule: ImportRule, context: Context) -> bool:
    if rule.scope == "module" and not context.import_time:
        return False
    return not (rule.type_checking == "ignore" and context.type_checking)


def verdict(rule: ImportRule, name: str) -> Verdict:
    return judge(name, rule.forbid, rule.except_)


def message(rule: ImportRule, name: str) -> str:
    return rule.message or f"`{name}` is forbidden"


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
