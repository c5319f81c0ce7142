"""The architecture contracts as a project pass: each contract's question asked of the project's
graph under its reading (`scope`, `type_checking`, `platform`), its broken chains reported.

One module graph per reading, kept between runs as every question's is (the store's key
holds the question and so the reading), so a warm run decodes the links it stored and reads no file. A broken
chain is reported at the import that begins it (file:line:column), once per chain found, the
whole chain in the message and in `chain`; the hook rule applies (`graph.hook`): a batch run
that names a file on the chain but not the one that begins it reports at its link there.
An `ignore_imports` entry that ignores nothing is told at its YAML line (`warning:`, or an
error with `unmatched_ignore_imports: error`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts
from import_policy.graph import hook
from import_policy.graph.chains import Chain, Link
from import_policy.graph.plan import GraphPlan
from import_policy.graph.question import Question
from import_policy.graph.store import ModuleGraph
from import_policy.kinds.contracts.common import Broken, ContractRule, View, chained
from import_policy.kinds.import_time import rocm_platform
from import_policy.kinds.project import ProjectContext


def question(rule: ContractRule, policy: Policy) -> Question:
    """A contract's question: no heavy module, no entry; the rule's platform (every branch but
    TYPE_CHECKING with `any`, as the ROCm rules judge with `rocm`); its reading of an import."""
    rocm = policy.rocm_safety
    platform = rocm_platform(rocm) if rule.platform == "rocm" and rocm is not None else None
    return Question(
        heavy=(), probes=rocm.probes if rocm is not None else (), platform=platform, python=policy.python,
        reading=rule.reading,
    )


class ContractsPass:
    """The contracts of one kind in force: one graph per reading, their broken chains."""

    def __init__(
        self, rules: Sequence[ContractRule], policy: Policy, broken: Callable[[Any, View], Iterable[Broken]],
    ) -> None:
        self.broken = broken
        self.rules = tuple(rules)
        self.asked = tuple(question(rule, policy) for rule in rules)
        self.root = policy.root

    def questions(self) -> tuple[Question, ...]:
        return tuple(dict.fromkeys(self.asked))

    def wants_file(self, plan: GraphPlan, source: bytes, path: str) -> bool:
        return False  # the graph reads every file an import reaches

    def check(self, context: ProjectContext) -> list[Diagnostic]:
        """Every contract's findings for the files passed (and its links in the files named)."""
        checked = {path for path in context.passed if not path.endswith(".pyi")}
        found: list[Diagnostic] = []
        for rule, asked in zip(self.rules, self.asked):
            graph = context.graphs.ask(asked, reached=False)
            view = View(_Names(graph), graph.edges, rule.ignore_imports)
            findings = [_finding(rule, b, graph, context.lines_of) for b in _once(self.broken(rule, view))]
            reports_in = _reports_in(rule)
            where = hook.Where(
                named=context.named, checked={p for p in checked if reports_in(p)}, reports_in=reports_in,
                facts=_facts_of(graph), lines=context.lines_of, quiet=context.comments,
            )
            found.extend(hook.reports([f for f in findings if f is not None], where))
            if rule.unmatched_ignore_imports != "none":
                found.extend(_unmatched(rule, view, self.root))
        return found


def _once(found: Iterable[Broken]) -> Iterator[Broken]:
    """One finding per import statement and pair: under `scope: module`, `from a.b import c`
    is a link to `a.b` and one to `a.b.c`, one statement beginning two chains."""
    seen: set[tuple[str, str, int]] = set()
    for b in found:
        key = (b.says, b.links[0].path, b.links[0].line) if b.links else (b.says, b.module or "", 0)
        if key not in seen:
            seen.add(key)
            yield b


class _Names(Collection[str]):
    """The graph's module names, walked once (a lookup does not walk)."""

    def __init__(self, graph: ModuleGraph) -> None:
        self.graph = graph
        self._all: frozenset[str] | None = None
        self._children: dict[str, list[str]] | None = None

    @property
    def all(self) -> frozenset[str]:
        if self._all is None:
            self._all = frozenset(self.graph.modules)
        return self._all

    def __contains__(self, name: object) -> bool:
        return name in self.all

    def under(self, name: str) -> list[str]:
        """`name` and every module below it, from an index by parent built once."""
        if self._children is None:
            self._children = {}
            for module in self.all:
                parent = module.rpartition(".")[0]
                self._children.setdefault(parent, []).append(module)
        found = [name] if name in self.all else []
        stack = [name]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                found.append(child)
                stack.append(child)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)


def _facts_of(graph: ModuleGraph) -> Callable[[str], FileFacts | None]:
    return lambda path: graph.project.facts(path)


def _reports_in(rule: ContractRule) -> Callable[[str], bool]:
    return lambda path: not path.endswith(".pyi") and rule.applies_to(path)


def _finding(
    rule: ContractRule, b: Broken, graph: ModuleGraph, lines_of: Callable[[str], list[str] | None],
) -> hook.Finding | None:
    modules = tuple(chained(b.links))
    text = f"{rule.message.rstrip('.')}: {b.says}" if rule.message else b.says
    if not b.links:
        assert b.module is not None
        path = graph.modules.get(b.module)
        if path is None:
            return None
        site = Diagnostic(
            rule=rule.id, severity=rule.severity, path=path, line=1, column=1, end_line=1, end_column=1,
            message=text, suppress_lines=(1,), chain=(b.module,),
        )
        return hook.Finding(site, Chain(b.module, ()), b.module)
    head = b.links[0]
    line_text = ""
    found = lines_of(head.path)
    if found is not None and 0 < head.line <= len(found):
        line_text = found[head.line - 1]
    column, end = _columns(line_text, head)
    where = ", ".join(f"{link.path}:{link.line}" for link in b.links)
    site = Diagnostic(
        rule=rule.id, severity=rule.severity, path=head.path, line=head.line, column=column, end_line=head.line,
        end_column=end, message=f"{text}: {' -> '.join(modules)} ({where})",
        suppress_lines=(head.line, _statement_line(graph, head)), chain=modules,
    )
    # The hook rule reads every link but the last as a link of the chain to report in a named
    # file: a last link no statement makes ("package") keeps the real last one among them.
    closing = Link(modules[-1], modules[-1], head.path, 0, "package", "")
    return hook.Finding(site, Chain(modules[0], (*b.links, closing)), modules[-1])


def _statement_line(graph: ModuleGraph, link: Link) -> int:
    return link.line  # a multi-line statement's first line is the reported one (`import a` / `from a import (`)


def _columns(text: str, link: Link) -> tuple[int, int]:
    """The columns of the name an import's line spells for the link's target: the full dotted
    name, else its last segment; else the statement's first character."""
    last = link.target.rpartition(".")[2]
    for pattern in (r"(?<![\w.])" + re.escape(link.target) + r"(?!\w)", r"(?<!\w)" + re.escape(last) + r"(?!\w)"):
        match = re.search(pattern, text)
        if match is not None:
            return match.start() + 1, match.end() + 1
    column = len(text) - len(text.lstrip()) + 1
    return column, max(len(text.rstrip()) + 1, column)


def _unmatched(rule: ContractRule, view: View, root: os.PathLike[str] | str) -> list[Diagnostic]:
    source = rule.origin.source
    path = os.path.relpath(source, root) if os.path.isabs(source) else source
    out = []
    for expression in view.unmatched():
        line = expression.line or rule.origin.line
        out.append(Diagnostic(
            rule=rule.id, severity="error" if rule.unmatched_ignore_imports == "error" else "warning", path=path,
            line=line, column=1, end_line=line, end_column=1,
            message=f"ignore_imports entry `{expression.text}` matches no import of the project: remove it",
        ))
    return out


__all__ = ["ContractsPass", "question"]
