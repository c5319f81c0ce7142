"""What a run asks of the graph: the questions, and what every file must hold to matter.

Worked out once per run from the questions the project passes state (`Question`), the
project's layout and what it follows: one prefilter and one kind of per-file record serve
every question, so a file reached by several is read and parsed once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from import_policy.facts.prefilter.literal_imports import literal_imports
from import_policy.facts.prefilter.prefilter import RELATIVE_IMPORT
from import_policy.facts.records.kept import kept_calls
from import_policy.facts.records.model import FileFacts
from import_policy.facts.shared.walkstate import DYNAMIC_IMPORTERS
from import_policy.graph.distributions import Followed
from import_policy.graph.question import Question
from import_policy.graph.records import GRAPH_MODE
from import_policy.graph.through import Availability
from import_policy.project.layout import top_level_names
from import_policy.project.modules import Layout


@dataclass(frozen=True)
class GraphPlan:
    layout: Layout  # where the project's modules are (the policy)
    # The question this plan asks (`asking`): the run's plan holds the first one stated.
    question: Question
    # Names a gateway re-exports (`pk.triton_utils.triton` -> `triton`), as the graph reads them.
    exports: dict[str, str] = field(compare=False)
    # One of these must occur in a file for it to matter to the graph; None: every file matters.
    tokens: tuple[bytes, ...] | None
    # Top-level modules and packages of the project: a call can reach project code only through one.
    project_names: frozenset[str] = frozenset()
    # Top-level names an import must start with to be an edge, a site or a platform test's
    # source (project, heavy, gateway, dotted platform names); None: every import may be.
    import_heads: frozenset[str] | None = None
    # The top-level names of every question's heavy modules: an inline probe's file spells one and `try`.
    heavy_heads: tuple[bytes, ...] = ()
    # Installed distributions the graph reads through (`follow:`); their top-level names are
    # among `project_names`, so their imports and calls are kept as the project's are.
    followed: Followed | None = field(default=None, compare=False)
    # What is installed, for a question the environment decides (`Question.installed`).
    installed: Availability | None = field(default=None, compare=False)
    # Every question reads an import statement as an edge to the module it names and nothing
    # else of a file (a contract's `scope: any`): a file's record is its imports alone
    # (`facts.records.kept.imports_of`), and a file without `import` holds none.
    imports_only: bool = False
    # Every question the run asks (`question` is the first): rules that share a graph derive
    # their sites together (`graph.run.GraphRun.ask`).
    questions: tuple[Question, ...] = field(default=(), compare=False, repr=False)

    def asking(self, question: Question) -> GraphPlan:
        """The same files, prefilter and records, asking `question` (its graph is kept apart:
        the question is part of the store's key)."""
        return replace(self, question=question)

    @property
    def cache_mode(self) -> str:
        """The facts cache mode of the graph's records: what `slim` keeps depends on the
        project's top-level names, so they are part of the key."""
        names = ",".join(sorted(self.project_names))
        mode = f"{GRAPH_MODE}:{hashlib.blake2b(names.encode(), digest_size=8).hexdigest()}"
        return f"{mode}:imports" if self.imports_only else mode

    def extract(self, source: bytes, path: str, module: str | None, is_package: bool) -> FileFacts:
        """A file's record as this plan's graph reads it, parsed (`wants_parse` said yes)."""
        from import_policy.facts.cpython.from_ast import graph_facts  # a warm batch parses nothing: never loaded

        return graph_facts(source, path, module, is_package, self.keeps, self.imports_only)

    def slim(self, facts: FileFacts) -> FileFacts:
        """What the graph keeps of a file: calls that may be probes (a string argument), walk a
        package (a computed dynamic import) or reach a project function (this file's, a method
        of one of its classes, or one under a project package). A whole project's calls would
        not fit in the memory budget."""
        return kept_calls(facts, self.keeps)

    def keeps(self, facts: FileFacts) -> Callable[[str], bool]:
        """Which callees of the file `slim` keeps (with a string argument, every call is kept);
        the extractor asks it before it places the calls (`facts.from_ast.CallFilter`)."""
        local = {function.name for function in facts.functions}
        methods = {name.rpartition(".")[2] for name in local if "." in name}
        local |= {c.name for c in facts.classes}  # `Loader()`, and `Loader.m()` through a base
        instances = {assign.name for assign in facts.assigns}
        project_names = self.project_names
        # A class with a base of the project's: `self.m()` may find `m` in that base's file.
        inherits = any(
            base in local or base.partition(".")[0] in project_names for c in facts.classes for base in c.bases
        )

        def kept(callee: str) -> bool:
            root, _, rest = callee.partition(".")
            owner = callee.rpartition(".")[0]
            return (
                callee in local or owner in local or root in project_names or callee in DYNAMIC_IMPORTERS
                # `self.m()`, `cls._instance.m()`, `super().m()`
                or (root in ("self", "cls", "super") and bool(rest) and (inherits or rest.rpartition(".")[2] in methods))
                or (bool(rest) and root in instances)
            )

        return kept

    def record(self, facts: FileFacts) -> FileFacts:
        """What the run holds of a checked file until the whole run is read: no uses (the
        import rules are done with them), and only the imports that can be an edge or a site
        (of a project module, a heavy module or a gateway), so a big tree fits the budget."""
        heads = self.import_heads
        imports = facts.imports
        if heads is not None:
            imports = tuple(
                fact for fact in imports
                if fact.level or fact.kind == "dynamic" or fact.name.partition(".")[0] in heads
            )
        if not facts.uses and not facts.escapes and len(imports) == len(facts.imports):
            return facts
        return replace(facts, uses=(), escapes=(), imports=imports)

    def wants_parse(self, source: bytes, path: str) -> bool:
        """`source`: the file's text as `pytext.python_text` gives it (facts.prefilter says why
        that is Python's reading); a dynamic import whose name the text does not spell may be
        of anything, so that file is parsed."""
        if path.endswith(".pyi"):
            return True  # stubs never run, but `attach_stub` reads its table from one
        if self.tokens is None or path.endswith("__init__.py"):
            return True  # what a package binds decides whether `from pkg import name` is the submodule
        if any(token in source for token in self.tokens) or RELATIVE_IMPORT.search(source) is not None:
            return True
        return (b"import_module" in source or b"__import__" in source) and literal_imports(source).unknown


def make_plan(
    layout: Layout, questions: Sequence[Question], exports: Mapping[str, str], followed: Followed | None,
    prefilter: bool = True, installed: Callable[[frozenset[str]], Availability | None] | None = None,
) -> GraphPlan:
    """The plan asking `questions` (at least one) of the project; `prefilter=False` reads
    every file (the soundness checks compare that with a run). `installed`: what is installed,
    given the project's top-level names (None: no question asks)."""
    top = frozenset(top_level(layout))
    project_names = top | (followed.names if followed is not None else frozenset())
    plain = GraphPlan(
        layout, questions[0], dict(exports), None, project_names, followed=followed,
        installed=installed(top) if installed is not None else None, questions=tuple(questions),
    )
    if not prefilter:
        return plain
    if all(q.reading is not None and q.reading[0] == "any" for q in questions):
        # An edge is an import statement (`import` or `from ... import`): nothing else matters.
        return replace(plain, tokens=(b"import",), import_heads=project_names, imports_only=True)
    heads: set[str] = set()
    for pattern in (p for question in questions for p in question.heavy):
        head = pattern.literal_head
        if head is None:
            return plain
        heads.add(head)
    platforms = [q.platform for q in questions if q.platform is not None]
    named = [name for p in platforms for name in (*p.guards, *p.true)]
    valued = [name for p in platforms for name, _ in p.values]
    import_heads = frozenset(
        heads | {gateway.split(".")[0] for gateway in exports} | project_names
        | {name.split(".")[0] for name in (*named, *valued) if "." in name}
    )
    heavy_heads = tuple(sorted(h.encode() for h in heads if h))
    heads.update(probe.rpartition(".")[2] for q in questions for probe, _ in q.probes)
    heads.update(gateway.split(".")[0] for gateway in exports)
    heads.update(project_names)
    # Platform tests and package walks: a file defining `def supported(): return is_cuda()`
    # or walking a package matters even when it imports nothing of the project.
    heads.update(name.lstrip("_") for name in named if name != "TYPE_CHECKING")
    # `DEVICE_TYPE == "npu"` in a platform test; `env["has_te"]` spells `env`
    heads.update(name.partition("[")[0].rpartition(".")[2] for name in valued)
    heads.update(("find_spec", "iter_modules", "walk_packages"))
    if any(question.installed for question in questions):
        heads.add("metadata")  # `importlib.metadata.version("x")` in a `try:`: judged from the environment
        # `try: import x` / `HAS_X = True` / `except ImportError: HAS_X = False`: a flag the
        # environment decides, in a file that may import nothing the question names
        heads.update(("ImportError", "ModuleNotFoundError"))
    # A lazy loader: `from module import name` may import what its table names.
    heads.update(("__getattr__", "_LazyModule"))
    # A class's method may run a subclass's override through `self` (a base in a file that
    # imports nothing of the project still runs a subclass's heavy import).
    heads.add("class")
    tokens = tuple(sorted(h.encode() for h in heads if h))
    return replace(plain, tokens=tokens, import_heads=import_heads, heavy_heads=heavy_heads)


def top_level(layout: Layout) -> list[str]:
    """The project's top-level modules and packages, under every root."""
    return [name for name, _, _ in top_level_names(layout.root, layout.roots)]


# Top-level packages that hold no code a process runs: never default entry modules.
NOT_RUNTIME = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "benchmarks", "scripts", "tools"})


def default_entries(top: Iterable[tuple[str, bool]]) -> tuple[str, ...]:
    """The project's top-level packages (not plain modules, not tests or docs), sorted."""
    return tuple(sorted(name for name, package in top if package and name not in NOT_RUNTIME))


def default_entries_of(layout: Layout) -> tuple[str, ...]:
    """The modules a process imports when none are named: `default_entries` of the layout."""
    return default_entries((name, package) for name, _, package in top_level_names(layout.root, layout.roots))


__all__ = ["GraphPlan", "NOT_RUNTIME", "default_entries", "default_entries_of", "make_plan", "top_level"]
