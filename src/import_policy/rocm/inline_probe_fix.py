"""The inline probe fix (unsafe): a `try:` that imports a module only to see whether it can
becomes `importlib.util.find_spec("m") is not None`.

```python
try:                                       HAS_X = importlib.util.find_spec("x") is not None
    import x
    HAS_X = True             ->
except ImportError:
    HAS_X = False
```

and the same with `return True` / `return False` in a function. Only these shapes are
rewritten (one handler, no `else:` or `finally:`, nothing else in the body or the handler);
`import importlib.util` is added after the module's docstring and `__future__` imports when
the file does not have it at module level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import libcst as cst
from libcst.helpers import get_full_name_for_node

from import_policy.diagnostics import Diagnostic, FixPayload
from import_policy.facts.shared.identifiers import normal
from import_policy.edits.imports import Refused
from import_policy.edits.payload import InlineProbeFix

Rewrite = dict[cst.CSTNode, cst.CSTNode]


class InlineProbeJob(Protocol):
    tree: cst.Module
    replaced: Rewrite  # node -> what replaces it

    def candidates(self, d: Diagnostic) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]: ...


def plan_inline_probe(job: InlineProbeJob, d: Diagnostic, payload: FixPayload) -> None:
    if not isinstance(payload, InlineProbeFix):  # the tag chose this applier; do not trust a mislabelled record
        raise Refused(f"a `{payload.tag}` payload that is not an InlineProbeFix")
    imports = [node for node, _ in job.candidates(d) if isinstance(node, (cst.Import, cst.ImportFrom))]
    if not imports:
        raise Refused("the import was not found where the finding points")
    found = _enclosing_try(job.tree, imports[0])
    if found is None:
        raise Refused("the import is not straight in a `try:` body")
    statement = _replacement(found, payload.module.split(".")[0])
    if statement is None:
        raise Refused("only a `try:` that sets a flag or returns True / False is rewritten")
    job.replaced[found] = statement.with_changes(leading_lines=found.leading_lines)
    if not _imports_importlib_util(job.tree) and job.tree not in job.replaced:
        job.replaced[job.tree] = job.tree  # marks the module for `with_importlib_util`


def with_importlib_util(module: cst.Module) -> cst.Module:
    """The module with `import importlib.util` after its docstring and `__future__` imports."""
    body = list(module.body)
    body.insert(importlib_util_at(module), cst.parse_statement("import importlib.util\n"))
    return module.with_changes(body=body)


def importlib_util_at(module: cst.Module) -> int:
    """Where in the module's body `with_importlib_util` puts its import."""
    body = module.body
    at = 1 if body and _docstring(body[0]) else 0
    while at < len(body) and _future(body[at]):
        at += 1
    return at


def _enclosing_try(tree: cst.Module, target: cst.CSTNode) -> cst.Try | None:
    class Finder(cst.CSTVisitor):
        found: cst.Try | None = None

        def visit_Try(self, node: cst.Try) -> None:
            if self.found is None and any(target in _smalls(line) for line in _lines(node.body)):
                self.found = node

    finder = Finder()
    tree.visit(finder)
    return finder.found


def _lines(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else [suite]


def _smalls(line: cst.CSTNode) -> Sequence[cst.CSTNode]:
    return line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []


def _replacement(node: cst.Try, module: str) -> cst.BaseStatement | None:
    if len(node.handlers) != 1 or node.orelse is not None or node.finalbody is not None:
        return None
    body = [small for line in _lines(node.body) for small in _smalls(line)]
    handler = [small for line in _lines(node.handlers[0].body) for small in _smalls(line)]
    if len(body) != sum(1 for line in _lines(node.body) for _ in _smalls(line)) or not body:
        return None
    imports = [small for small in body if isinstance(small, (cst.Import, cst.ImportFrom))]
    rest = [small for small in body if small not in imports]
    if len(imports) != 1 or len(rest) != 1 or body[-1] is not rest[0] or len(handler) != 1:
        return None
    if len(list(_lines(node.body))) != len(body) or len(list(_lines(node.handlers[0].body))) != 1:
        return None  # a compound statement in the body or the handler
    spec = f'importlib.util.find_spec("{module}") is not None'
    yes, no = rest[0], handler[0]
    if isinstance(yes, cst.Return) and isinstance(no, cst.Return) and _is(yes.value, "True") and _is(no.value, "False"):
        return cst.parse_statement(f"return {spec}\n")
    if isinstance(yes, cst.Assign) and isinstance(no, cst.Assign) and _is(yes.value, "True") and _is(no.value, "False"):
        flag = _flag(yes)
        if flag is not None and flag == _flag(no):
            return cst.parse_statement(f"{flag} = {spec}\n")
    return None


def _is(value: cst.BaseExpression | None, name: str) -> bool:
    return isinstance(value, cst.Name) and normal(value.value) == name


def _flag(assign: cst.Assign) -> str | None:
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return normal(assign.targets[0].target.value)


def _imports_importlib_util(tree: cst.Module) -> bool:
    for line in tree.body:
        for small in _smalls(line):
            if isinstance(small, cst.Import) and any(
                normal(get_full_name_for_node(alias.name) or "") == "importlib.util" and alias.asname is None
                for alias in small.names
            ):
                return True
    return False


def _docstring(line: cst.CSTNode) -> bool:
    smalls = _smalls(line)
    return len(smalls) == 1 and isinstance(smalls[0], cst.Expr) and isinstance(
        smalls[0].value, (cst.SimpleString, cst.ConcatenatedString)
    )


def _future(line: cst.CSTNode) -> bool:
    return any(
        isinstance(small, cst.ImportFrom) and small.module is not None
        and normal(get_full_name_for_node(small.module) or "") == "__future__"  # `__ｆuture__` is one too
        for small in _smalls(line)
    )
