"""What every architecture contract shares: its options (`ignore_imports`, `scope`,
`type_checking`, `platform`), the graph as a contract reads it (`View`: the project's links
with the ignored imports left out), what a broken contract is (`Broken`: a chain of links), and
the kind protocol's parts no contract does differently (no per-file check: the findings come
from the whole graph, in the project phase)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from import_policy.config.model import Policy, RuleBase
from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts
from import_policy.facts.shared.usegate import UseGate
from import_policy.graph.chains import Link
from import_policy.graph.question import Scope
from import_policy.kinds.base import RuleFault
from import_policy.kinds.contracts.expressions import ExpressionError, ImportExpression, ModuleExpression
from import_policy.patterns import DottedPattern, Verdict, judge

if TYPE_CHECKING:
    from import_policy.config.validate import Items, Validator

Alerting = Literal["error", "warning", "none"]
# The platforms a contract may be judged on: every branch (`any`), or as the ROCm pass judges.
PLATFORMS = ("any", "rocm")
CONTRACT_KEYS = ("ignore_imports", "unmatched_ignore_imports", "scope", "type_checking", "platform")


@dataclass(frozen=True)
class ContractRule(RuleBase):
    ignore_imports: tuple[ImportExpression, ...] = ()
    unmatched_ignore_imports: Alerting = "warning"
    scope: Scope = "module"
    type_checking: Literal["ignore", "check"] = "ignore"
    platform: str = "any"

    @property
    def reading(self) -> tuple[Scope, bool]:
        """What the graph it asks reads as an edge (`graph.scoped`)."""
        return (self.scope, self.type_checking == "check")


@dataclass(frozen=True)
class Broken:
    """One illegal chain: its links in order (the first is the import that begins it), and
    what it breaks, as the finding says it (`low` must not import `high`)."""

    links: tuple[Link, ...]
    says: str
    # A finding that is no chain (a module in no layer of an exhaustive contract): the module
    # it is reported in (at its first line).
    module: str | None = None


class View:
    """The project's graph as a contract reads it: `modules` (every module, for descendants
    and children), each module's links, the `ignore_imports` ones left out. An ignored import
    under `scope: module` takes with it the links its statement makes to the parent packages
    of what it names (`import a.b.c` runs `a` and `a.b`: ignored, it runs none of them)."""

    def __init__(
        self, modules: Collection[str], edges: Callable[[str], Sequence[Link]], ignored: Sequence[ImportExpression] = (),
    ) -> None:
        self.modules = modules
        self._raw = edges
        self._ignored = tuple(ignored)
        self._edges: dict[str, Sequence[Link]] = {}

    def raw(self, module: str) -> Sequence[Link]:
        return self._raw(module)

    def edges(self, module: str) -> Sequence[Link]:
        found = self._edges.get(module)
        if found is not None:
            return found
        links = self._raw(module)
        if self._ignored:
            dropped = [link for link in links if any(e.matches(link.source, link.target) for e in self._ignored)]
            if dropped:
                links = [link for link in links if link not in dropped and not _parent_of(link, dropped)]
        self._edges[module] = links
        return links

    def unmatched(self) -> list[ImportExpression]:
        """The `ignore_imports` entries no link of the graph matches (import-linter's rule: an
        entry that ignores nothing is stale)."""
        out = []
        for expression in self._ignored:
            importers: Iterable[str] = (
                [m for m in self.modules if expression.importer.matches(m)] if expression.importer.wildcard
                else [expression.importer.text] if expression.importer.text in self.modules else []
            )
            if not any(expression.imported.matches(link.target) for m in importers for link in self._raw(m)):
                out.append(expression)
        return out


def _parent_of(link: Link, dropped: Sequence[Link]) -> bool:
    return link.kind == "import" and any(
        (d.path, d.line) == (link.path, link.line) and d.target.startswith(link.target + ".") for d in dropped
    )


def descendants(modules: Iterable[str], name: str) -> set[str]:
    under = getattr(modules, "under", None)
    if under is not None:
        return set(under(name))
    prefix = name + "."
    return {m for m in modules if m == name or m.startswith(prefix)}


def children(modules: Iterable[str], name: str) -> set[str]:
    prefix = name + "."
    return {m for m in modules if m.startswith(prefix) and "." not in m[len(prefix):]}


def expand(modules: Collection[str], expressions: Iterable[ModuleExpression]) -> set[str]:
    """The modules the expressions name (a name without wildcard stands for itself)."""
    found: set[str] = set()
    for expression in expressions:
        if expression.wildcard:
            found.update(m for m in modules if expression.matches(m))
        else:
            found.add(expression.text)
    return found


# --- parsing ----------------------------------------------------------------------------


def parse_options(v: Validator, items: Items) -> dict[str, Any]:
    """The options every contract takes, parsed (defaults where absent)."""
    out: dict[str, Any] = {}
    if "ignore_imports" in items:
        found = []
        for text, line in v.strings(items["ignore_imports"][1], "ignore_imports"):
            try:
                found.append(ImportExpression.compile(text, line))
            except ExpressionError as error:
                v.error(line, f"bad ignore_imports entry: {error}")
        out["ignore_imports"] = tuple(found)
    for key, choices in (
        ("unmatched_ignore_imports", ("error", "warning", "none")), ("scope", ("module", "any")),
        ("type_checking", ("ignore", "check")), ("platform", PLATFORMS),
    ):
        if key in items:
            value = v.choice(items[key][1], key, choices)
            if value is not None:
                out[key] = value
    return out


def module_expressions(v: Validator, node: Any, what: str) -> list[tuple[ModuleExpression, int]]:
    out = []
    for text, line in v.strings(node, what):
        try:
            out.append((ModuleExpression.compile(text), line))
        except ExpressionError as error:
            v.error(line, f"bad {what} entry: {error}")
    return out


def required(v: Validator, items: Items, key: str, common: Mapping[str, Any], what: str) -> Any | None:
    if key not in items:
        v.error(common["origin"].line, f"rule {common['id']!r} needs {key}: {what}")
        return None
    return items[key][1]


def missing(policy: Policy, names: Iterable[tuple[str, int]], rule: RuleBase, what: str, where: str = "") -> None:
    """A named module that is not a module of the project checks nothing: a silent pass, so a
    configuration error at its line (import-linter's `Module '...' does not exist`)."""
    from import_policy.project.modules import ProjectModules

    modules = ProjectModules(policy, {})
    for name, line in names:
        if name not in modules:
            raise RuleFault(line or rule.origin.line, f"rule {rule.id!r}: {what} {name!r}{where} is not a module of the project")


def project_modules(policy: Policy) -> Collection[str]:
    from import_policy.project.modules import ProjectModules

    return set(ProjectModules(policy, {}))


# --- the kind protocol's common parts -----------------------------------------------------


class ContractKind:
    """What no contract kind does differently: a project kind (each kind's `project_pass` is a
    `ContractsPass` over its rules in force and what it finds broken), nothing to fix."""

    language: Literal["python"] = "python"

    def fixable(self, rule: ContractRule) -> str:
        return "no"

    def name_excepts(self, rule: ContractRule) -> Sequence[DottedPattern]:
        return ()

    def forbids(self, rule: ContractRule, name: str) -> bool:
        return False

    def verdict(self, rule: ContractRule, name: str) -> Verdict:
        return judge(name, (), ())

    def explain_options(self, rule: ContractRule) -> list[str]:
        ignores = [f"  ignore_imports: {e.text}" for e in rule.ignore_imports] or ["  ignore_imports: (none)"]
        read = (
            "imports that run at import time, parent packages' __init__ included"
            if rule.scope == "module" else "every import statement, function bodies included (import-linter's reading)"
        )
        return [
            *ignores,
            f"  unmatched_ignore_imports: {rule.unmatched_ignore_imports}",
            f"  scope:         {rule.scope} ({read})",
            f"  type_checking: {rule.type_checking}",
            f"  platform:      {rule.platform}",
            f"  checked:       through the whole project's import graph (`why A --to B` prints the chains)",
        ]


def rules_of(rules: Sequence[RuleBase]) -> tuple[ContractRule, ...]:
    return tuple(rule for rule in rules if isinstance(rule, ContractRule))


def chained(links: Sequence[Link]) -> Iterator[str]:
    if links:
        yield links[0].source
    for link in links:
        yield link.target


__all__ = [
    "Broken", "CONTRACT_KEYS", "ContractKind", "ContractRule", "View", "chained", "children", "descendants",
    "expand", "missing", "module_expressions", "parse_options", "project_modules", "required", "rules_of",
]
