"""The engine: files -> facts -> each rule's kind checks them -> diagnostics.

Per file: read bytes once; the facts its rules need (`extract`, in a pool for
many files); then the check of every rule in force, looked up in the kinds
registry, as a pure function over the facts; suppressions last. Then the
project passes (`Plan.passes`) over the facts of the run, each asking the graph its
questions through one `ProjectContext`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from import_policy.config.model import RuleBase
from import_policy.diagnostics import Diagnostic, unfixable_where
from import_policy.discovery.files import SourceFile
from import_policy.discovery.overlay import Overlay
from import_policy.facts.source.encoding import unfixable_encoding
from import_policy.facts.records.model import FileFacts
from import_policy.kinds import cfamily
from import_policy.kinds.registry import c_kind, python_kind
from import_policy.kinds.syntax import syntax_error
from import_policy.pipeline import parallel, slow
from import_policy.pipeline.extract import Reader, python_facts, read_file
from import_policy.pipeline.plan import Plan
from import_policy.graph import through
from import_policy.graph.run import GraphRun
from import_policy.kinds.project import ProjectContext
from import_policy.rocm import gaps, gateway_closure


def check_python(plan: Plan, facts: FileFacts, rules: Iterable[RuleBase]) -> list[Diagnostic]:
    if facts.syntax_error is not None:
        return [syntax_error(facts.path, facts.syntax_error)]
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(python_kind(rule.kind).check(rule, facts))
    return [d for d in found if not facts.suppressions.covers(d.rule, d.suppress_lines)]


def check_c(rules: Sequence[RuleBase], path: str, source: bytes) -> list[Diagnostic]:
    """Every C-family rule in `rules` (selected, applying to `path`), suppressions applied."""
    if not rules:
        return []
    scan = cfamily.Scan(source)
    found = [d for rule in rules for d in c_kind(rule.kind).check(rule, scan, path)]
    return scan.unsuppressed(found)


@dataclass
class Result:
    diagnostics: list[Diagnostic]
    files: int
    unreadable: list[tuple[str, str]]  # (path, reason)


def _pool(plan: Plan, files: Sequence[SourceFile], jobs: int) -> dict[str, parallel.Outcome]:
    """Cached facts read here (a pool would only add overhead); the rest parsed in a pool if
    there are enough of them. Files left out are done one by one by the caller."""
    done: dict[str, parallel.Outcome] = {}
    missing: list[SourceFile] = [] if plan.cache is not None else list(files)
    for file in files if plan.cache is not None else ():
        try:
            facts = python_facts(plan, file, read_file(file), plan.judged_for(file.relative), cached_only=True)
        except OSError:
            continue  # the caller reports it
        if facts is None:
            missing.append(file)
        else:
            done[file.relative] = plan.kept(facts)
    if parallel.worth_it(jobs, len(missing)):
        done.update(zip((f.relative for f in missing), parallel.facts(plan, missing, jobs)))
    return done


def run(
    plan: Plan, files: Sequence[SourceFile], read: Reader = read_file, jobs: int = 1, overlay: Overlay | None = None,
) -> Result:
    """`overlay`: buffers that stand for their files wherever a file is read (an editor's)."""
    if overlay:
        read = overlay.reader(read)
    # A run holds the facts of thousands of files: acyclic records the cyclic collector would
    # walk again at every collection, for nothing (its passes grow with the heap, so a big tree
    # cost more than linearly). What cycles a parse leaves are collected once the run is over.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(plan, files, read, jobs, overlay)
    finally:
        if collecting:
            gc.enable()


def _run(plan: Plan, files: Sequence[SourceFile], read: Reader, jobs: int, overlay: Overlay | None) -> Result:
    from import_policy.cache.racy import now_ns

    reading = now_ns()  # before any file is read: the racy-clean rule's moment for the graph's log
    diagnostics: list[Diagnostic] = []
    unreadable: list[tuple[str, str]] = []
    python: dict[str, FileFacts] = {}  # for the project passes
    pooled: dict[str, parallel.Outcome] = {}
    python_files = [file for file in files if file.language == "python"]
    if read is read_file and parallel.worth_it(jobs, len(python_files)):
        pooled = _pool(plan, python_files, jobs)
    for file in files:
        outcome = pooled.get(file.relative)
        rules = plan.rules_for(file.relative) if file.language == "python" else []
        if outcome is None:
            try:
                source = read(file)
            except OSError as error:
                outcome = error.strerror or str(error)
            else:
                if file.language == "c":
                    started = time.process_time()
                    diagnostics.extend(check_c(plan.c_rules_for(file.relative), file.relative, source))
                    exempted_c = plan.c_exempted_from(file.relative)
                    if exempted_c and plan.exempted is not None:
                        plan.exempted(check_c(exempted_c, file.relative, source))
                    took = time.process_time() - started
                    if plan.slow_after is not None and took > plan.slow_after:
                        slow.tell(plan.policy.root, file.relative, took)
                    continue
                facts = python_facts(plan, file, source, plan.judged_for(file.relative))
                assert facts is not None
                outcome = plan.kept(facts)
        if isinstance(outcome, str):
            unreadable.append((file.relative, outcome))
            continue
        if plan.observe is not None:
            plan.observe(outcome, rules)
        exempted = plan.exempted_from(file.relative)
        if exempted and plan.exempted is not None:
            plan.exempted(check_python(plan, outcome, exempted))
        diagnostics.extend(check_python(plan, outcome, rules))
        if plan.graph is not None:
            python[file.relative] = plan.graph.record(outcome)
    if plan.graph is not None:
        named = frozenset(file.relative for file in files if file.named)
        diagnostics.extend(project_phase(plan, python, read, named, overlay, reading))
    if any(d.fixable for d in diagnostics):
        # A gateway fix in a module the gateway runs while it loads would make it import itself.
        diagnostics = gateway_closure.refuse_in_closures(plan.policy, diagnostics, python, read, plan.cache, overlay)
        diagnostics = _unfixable_in_their_encoding(diagnostics, files, read)
    diagnostics.sort(key=Diagnostic.sort_key)
    return Result(diagnostics, len(files), unreadable)


def project_phase(
    plan: Plan, python: dict[str, FileFacts], read: Reader, named: frozenset[str], overlay: Overlay | None,
    since: int,
) -> list[Diagnostic]:
    """Every project pass's findings over one context; then a module a graph reached and
    could not parse, checked or not (`gaps`: nothing silences it)."""
    assert plan.graph is not None
    shared = sum(len(found.questions()) for found in plan.passes) > 1
    graphs = GraphRun(plan.graph, python, read, plan.cache, overlay, since, plan.graphs, shared)
    context = ProjectContext(
        plan.policy, python, read, graphs, named, plan.exempted if plan.track_allow_in else None,
    )
    found = [d for project_pass in plan.passes for d in project_pass.check(context)]
    gaps.tell_cuts(graphs.asked)  # before saving: the cuts are kept with the sites they derive
    graphs.save()
    through.PROGRESS.done()
    return found + gaps.reports(graphs.asked, python, plan.policy.roots)


def _unfixable_in_their_encoding(
    diagnostics: list[Diagnostic], files: Sequence[SourceFile], read: Reader
) -> list[Diagnostic]:
    """Findings in a file whose encoding a fix could not write back byte for byte (UTF-7,
    ISO-2022) are reported, not fixable, and say why."""
    by_path = {file.relative: file for file in files}

    def why_not(path: str) -> str | None:
        file = by_path.get(path)
        if file is None:
            return None
        try:
            encoding = unfixable_encoding(read(file))
        except OSError:
            return None
        return None if encoding is None else f"the file's encoding, {encoding}, is not ASCII-compatible"

    return unfixable_where(diagnostics, why_not)
