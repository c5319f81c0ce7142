"""One file's facts: from the cache, else the cheapest parse that gives what its rules need.

A file no rule could report in (judged from its bytes), and that the ROCm pass does not
read, is not parsed at all, not even syntax-checked; for the others the CPython parser (and `symtable`, for uses through the file's scopes) gives the facts
wherever they equal libcst's, and libcst runs only for a spelling `ast` does not place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from import_policy.cache.facts import content_digest

from import_policy.config.model import RuleBase
from import_policy.discovery.files import SourceFile
from import_policy.project.modules import module_name
from import_policy.facts.records.model import FileFacts
from import_policy.facts.prefilter.pytext import python_text
from import_policy.pipeline import slow
from import_policy.pipeline.plan import Plan


Reader = Callable[[SourceFile], bytes]


def read_file(file: SourceFile) -> bytes:
    return file.path.read_bytes()


def python_facts(
    plan: Plan, file: SourceFile, source: bytes, rules: Sequence[RuleBase], cached_only: bool = False
) -> FileFacts | None:
    """The file's facts: from the cache, else a parse (None if `cached_only` and not cached),
    with the digest of `source` (what the ROCm pass logs of the file).

    A file whose bytes cannot hold a finding of its rules, nor anything the ROCm pass reads,
    is not parsed at all, not even syntax-checked: it has no facts (contract section 1)."""
    content = content_digest(source)
    facts = _facts(plan, file, source, content, rules, cached_only)
    return facts if facts is None or not facts.parsed else replace(facts, content=content)


def _facts(
    plan: Plan, file: SourceFile, source: bytes, content: str, rules: Sequence[RuleBase], cached_only: bool,
) -> FileFacts | None:
    module, is_package = module_name(file.relative, plan.policy.roots)
    needs = plan.needs(rules)
    text = python_text(source)  # what the prefilter searches: the text as Python decodes it
    for_rules = bool(rules) and needs.could_report(text, module)
    # Only a project pass reads the file: CPython's parse gives its facts (facts.from_ast).
    graph = plan.graph
    for_graph = not for_rules and graph is not None and plan.wants_file(text, file.relative)
    if not for_rules and not for_graph:
        return FileFacts(file.relative, module, is_package, parsed=False)
    want_uses = for_rules and needs.uses_matter(text, module)
    # The facts depend on the bytes, where the file sits and what was asked (the use gate's rules).
    if for_rules:
        mode = "uses:" + needs.fingerprint if want_uses else "facts"
    else:
        assert graph is not None
        mode = graph.cache_mode
    cache = plan.cache
    key = cache.key_of(content, file.relative, module, is_package, mode) if cache is not None else ""
    if cache is not None:
        cached = cache.get(key)
        if cached is not None or cached_only:
            return cached
    if cached_only:
        return None
    gate = needs.gate() if want_uses else None
    # Imported at the first parse: a batch whose files all skip it (and hit the cache) never loads the extractor.
    from import_policy.facts.cpython.from_ast import rule_facts

    started = time.process_time()
    facts: FileFacts | None = None
    if for_graph and plan.fast_facts and graph is not None:
        facts = graph.extract(source, file.relative, module, is_package)
    elif plan.fast_facts:
        # CPython's parse and `symtable` give libcst's facts exactly (tests/facts/test_extractors_agree.py),
        # uses included, unless `ast` does not place a spelling.
        facts = rule_facts(source, file.relative, module, is_package, gate)
    if facts is None:
        # libcst costs 0.2 s to import: a run whose files all skip the parse never loads it.
        # The import is the run's cost, not this file's: it is not timed.
        paused = time.process_time()
        from import_policy.facts.cst.from_cst import extract

        started += time.process_time() - paused
        facts = extract(source, file.relative, module, is_package, want_uses=want_uses, use_gate=gate)
    took = time.process_time() - started
    if plan.slow_after is not None and took > plan.slow_after:
        slow.tell(plan.policy.root, file.relative, took)
    if for_graph and graph is not None:
        facts = graph.slim(facts)  # as the graph's own loads cache them: one entry serves both
    if cache is not None:
        cache.put(key, facts)
    return facts
