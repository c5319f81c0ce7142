"""The graph under an architecture contract's reading of an import (`scope`, `type_checking`).

`scope: module` is the pass's own graph (`Project`): what runs while a module is imported,
as Python runs it, `import a.b.c` running `a` and `a.b` first; with `type_checking: check` an
import under `if TYPE_CHECKING:` at import time is an edge too (the code a type checker reads).
`scope: any` is import-linter's (grimp's) reading: every import statement, function bodies
included, is one edge, to the module it names and to no parent package: `import a.b.c` and
`from a.b import c` are edges to `a.b.c` where it is a module (to `a.b` where `c` is a name in
it); dynamic imports (`importlib.import_module("x")`) are no edge, as grimp reads none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from import_policy.facts.records.model import FileFacts, ImportFact
from import_policy.graph.chains import Link
from import_policy.graph.judge import Environment
from import_policy.graph.question import Question, Scope
from import_policy.graph.reach import Project
from import_policy.patterns import module_heads

class ScopedProject(Project):
    """`Project` whose edges are read under a contract's scope."""

    def __init__(
        self, question: Question, modules: Mapping[str, str], load: Callable[[str], FileFacts | None],
        exports: Mapping[str, str] | None = None, installed: Environment | None = None,
        scope: Scope = "module", type_checking: bool = False,
    ) -> None:
        super().__init__(question, modules, load, exports, installed)
        self.scope = scope
        self.type_checking = type_checking

    def _find_edges(self, facts: FileFacts) -> list[Link]:
        if self.scope == "module":
            links = super()._find_edges(facts)
            if self.type_checking:
                links = _merged(links, self._typing_edges(facts))
            return links
        return self._any_edges(facts)

    def _named(self, fact: ImportFact) -> str | None:
        """The project module an import statement names: the longest prefix of its name that
        is one (`from a.b import c`: `a.b.c` where it is a module, else `a.b`)."""
        found = None
        for head in module_heads(fact.name):
            if head in self.module_path:
                found = head
        return found

    def _any_edges(self, facts: FileFacts) -> list[Link]:
        seen: set[str] = set()
        links: list[Link] = []
        for fact in sorted(facts.imports, key=lambda f: (f.span.line, f.span.column)):
            if fact.kind == "dynamic" or (fact.context.type_checking and not self.type_checking):
                continue
            target = self._named(fact)
            if target is None or target == facts.module or target in seen:
                continue
            seen.add(target)
            links.append(Link(facts.module or "", target, facts.path, fact.span.line, "import", _spelled(fact)))
        return links

    def _typing_edges(self, facts: FileFacts) -> list[Link]:
        links: list[Link] = []
        for fact in facts.imports:
            if not (fact.context.type_checking and fact.context.import_time) or fact.kind == "dynamic":
                continue
            for head in module_heads(fact.name):
                if head in self.module_path and head != facts.module:
                    links.append(Link(facts.module or "", head, facts.path, fact.span.line, "import", _spelled(fact)))
        return links


def _merged(first: list[Link], more: list[Link]) -> list[Link]:
    seen = {link.target for link in first}
    out = list(first)
    for link in more:
        if link.target not in seen:
            seen.add(link.target)
            out.append(link)
    return out


def _spelled(fact: ImportFact) -> str:
    if fact.kind == "from":
        return f"from {fact.module} import {fact.member}"
    return f"import {fact.name}"


__all__ = ["Scope", "ScopedProject"]
