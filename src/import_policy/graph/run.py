"""The questions of one run, asked of the graph: each answered by a module graph that a
long-lived process keeps (`KeptGraphs`), or one built for the run from what the stores kept,
and stored again once the run is over.

The graph covers every Python file under the project root, whichever files were passed
(pre-commit passes only the changed ones). A file outside those passed is parsed only when a
chain from an entry module or a call from a passed file reaches it, and not even then when it
cannot matter (`GraphPlan.wants_parse`).
"""

from __future__ import annotations

from collections.abc import Mapping

from import_policy.cache.facts import FactsCache
from import_policy.discovery.overlay import Overlay
from import_policy.facts.records.model import FileFacts
from import_policy.graph.build import KeptGraphs, graph_stores, module_graph, save_graph
from import_policy.graph.derive import Reader
from import_policy.graph.plan import GraphPlan
from import_policy.graph.question import Question
from import_policy.graph.records import Memo, Records
from import_policy.graph.store import ModuleGraph

# A graph a run read, with the entries its reach was derived from (for the chain of a gap).
Asked = tuple[ModuleGraph, tuple[str, ...]]


class GraphRun:
    """The graph as one run asks it: `passed` (the facts the engine parsed, as `plan.record`
    keeps them) stand as given; `overlay`: buffers that stand for their files (`read` reads
    through it), whose graphs are never stored; `since`: when the engine began reading the
    files passed; `kept`: the graphs a long-lived process holds (read through `read`, never
    from `passed`), used instead of building and storing one per run. `shared`: more than one
    question is asked, so without a cache a file's record is kept in memory between them."""

    def __init__(
        self, plan: GraphPlan, passed: Mapping[str, FileFacts], read: Reader, cache: FactsCache | None = None,
        overlay: Overlay | None = None, since: int = 0, kept: KeptGraphs | None = None, shared: bool = False,
    ) -> None:
        self.plan = plan
        self.passed = passed
        self.read = read
        self.records: Records | None = cache if cache is not None or not shared else Memo()
        self.stores = graph_stores(cache)
        self.overlay = overlay
        self.since = since
        self.kept = kept
        self.asked: list[Asked] = []
        self._built: list[tuple[GraphPlan, ModuleGraph]] = []
        self._answers: dict[Question, ModuleGraph] = {}  # a question asked twice is one graph
        # Questions that differ only in what counts as a site share one graph (`Question.graph_key`).
        self._graphs: dict[Question, ModuleGraph] = {}

    def ask(self, question: Question, reached: bool = True) -> ModuleGraph:
        """The graph answering `question`; `reached`: its reach from the entries is derived
        this run (a gap's chain is looked up only in a reach derived anyway). The graph, its
        links and every entry's reach are derived once for every question sharing its
        `graph_key` (many `kind: import-time` rules); each question has only its own sites, a
        file's derived for all of them at once (`ModuleGraph.share`)."""
        graph = self._answers.get(question)
        if graph is None:
            key = question.graph_key
            shared = self._graphs.get(key)
            if shared is None:
                shared = self._graphs[key] = self._graph(key)
                shared.share(asked for asked in self.plan.questions if asked.graph_key == key)
            graph = self._answers[question] = shared.asking(question)
        self.asked.append((graph, question.entries if reached else ()))
        return graph

    def _graph(self, question: Question) -> ModuleGraph:
        plan = self.plan.asking(question)
        if self.kept is not None:
            graph = self.kept.graph(plan, self.read, self.records)
        else:
            graph = module_graph(plan, self.passed, self.read, self.records, self.stores, self.overlay, self.since)
            if not self.overlay:  # a buffer's log holds the disk's stat data with its bytes: never kept
                self._built.append((plan, graph))
        return graph

    def save(self) -> None:
        """Every graph built this run, stored for the next (a graph with a gap never is)."""
        for plan, graph in self._built:
            save_graph(plan, graph, self.stores)


__all__ = ["Asked", "GraphRun"]
