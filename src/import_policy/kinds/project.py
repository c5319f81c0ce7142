"""What a project pass is given (`ProjectContext`): the run's files, the graph to ask its
questions of, and the reporting every pass shares (the hook rule, links, suppressions).

One context per run, built by the engine once every file has been read; the passes run in
turn over it (`pipeline.engine`), each asking its questions (`graphs.ask`), and the engine
reports what no graph could read (`asked`) once they are done.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.facts.records.model import FileFacts, Suppressions
from import_policy.facts.shared.comments import suppressions
from import_policy.graph import hook, links, through
from import_policy.graph.once_per_link import in_dependencies
from import_policy.graph.run import GraphRun
from import_policy.graph.store import ModuleGraph
from import_policy.patterns import DottedPattern


@dataclass
class ProjectContext:
    policy: Policy
    # The Python files the run checked, as the graph keeps them (`GraphPlan.record`).
    passed: Mapping[str, FileFacts]
    read: Callable[[SourceFile], bytes]
    graphs: GraphRun
    # Those named on the command line: a finding whose chain passes through one is reported too.
    named: Collection[str] = ()
    # Stale-allowlist tracking: sees the findings an `allow_in` keeps out (None: not tracked).
    exempted: Callable[[Sequence[Diagnostic]], None] | None = None
    _quiet: dict[str, Suppressions] = field(default_factory=dict, init=False)
    _lines: dict[str, list[str] | None] = field(default_factory=dict, init=False)
    _resolved: links.Resolved | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # The files a finding may stand in: parsed, and not stubs.
        self.parsed = {
            path: facts for path, facts in self.passed.items()
            if facts.syntax_error is None and not path.endswith(".pyi")
        }

    @property
    def resolved(self) -> links.Resolved:
        """The files passed, by real path: a link inside the root counts as the file it leads to."""
        if self._resolved is None:
            self._resolved = links.Resolved(self.policy.root, self.parsed)
        return self._resolved

    def comments(self, path: str) -> Suppressions:
        """The file's suppression comments; a file the engine did not parse has them read only
        where a finding stands."""
        if path not in self._quiet:
            facts = self.parsed.get(path)
            self._quiet[path] = facts.suppressions if facts is not None and facts.parsed else self._read_comments(path)
        return self._quiet[path]

    def lines_of(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read_lines(path)
        return self._lines[path]

    def at_links(self, findings: Iterable[hook.Finding], names: Iterable[DottedPattern]) -> list[hook.Finding]:
        """The findings, each in a followed dependency moved to the project's link into it, and
        there once per link and name (`names`: the patterns the pass's sites are named by)."""
        followed = self.graphs.plan.followed
        return in_dependencies(through.at_links(findings, followed, self.lines_of), followed, names)

    def report(
        self, findings: Iterable[hook.Finding], applies_to: Callable[[str], bool], graph: ModuleGraph,
    ) -> list[Diagnostic]:
        """Every report of each finding (`at_links` first) that nothing silences (the hook
        rule); `applies_to`: the files the pass's findings may stand in."""

        def reports_in(path: str) -> bool:
            return not path.endswith(".pyi") and applies_to(path)

        checked = links.Standing({path for path in self.parsed if reports_in(path)}, self.resolved)
        where = hook.Where(
            named=links.Standing(self.named, self.resolved), checked=checked, reports_in=reports_in,
            facts=lambda path: graph.project.facts(path), lines=self.lines_of, quiet=self.comments,
        )
        return hook.reports(findings, where)

    def unsuppressed(self, found: Iterable[Diagnostic]) -> list[Diagnostic]:
        """The findings no comment silences (a reachability finding was judged whole by `report`)."""
        return [d for d in found if d.places or not self.comments(d.path).covers(d.rule, d.suppress_lines)]

    def _read_lines(self, path: str) -> list[str] | None:
        try:
            source = self.read(SourceFile(self.policy.root / path, path, "python"))
        except OSError:
            return None
        return source.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def _read_comments(self, path: str) -> Suppressions:
        try:
            return suppressions(self.read(SourceFile(self.policy.root / path, path, "python")))
        except OSError:
            return Suppressions()


__all__ = ["ProjectContext"]
