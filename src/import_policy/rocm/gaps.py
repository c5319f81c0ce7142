"""What the pass could not read: a module it reached that does not parse.

Its imports cannot be followed, so any chain through it (to a hazard, through any file)
may be missing. It is a `syntax-error` at the broken file in every run whose pass read
it, whether or not that file was checked: a run that names a few files (pre-commit passes
the changed ones) reads the same graph as a whole-tree run, and must not pass over the gap
that run reports. Where the file was not checked, the message says why it is reported and
by which chain the pass reached it. Nothing silences it, as nothing silences the whole-tree
`syntax-error`: no line of the file was checked.

A followed dependency's file that does not parse is no finding of the project: Python raises
when it imports it, so the chains through it stop there, and one stderr warning names it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace

from import_policy.diagnostics import Diagnostic
from import_policy.facts.records.model import FileFacts, SyntaxErrorFact
from import_policy.kinds.syntax import syntax_error
from import_policy.graph import through
from import_policy.graph.chains import Chain
from import_policy.project.modules import module_name
from import_policy.graph.store import ModuleGraph

# A graph the pass read, with the entries its question starts from.
Asked = tuple[ModuleGraph, tuple[str, ...]]


def reports(asked: Iterable[Asked], passed: Mapping[str, FileFacts], roots: tuple[str, ...]) -> list[Diagnostic]:
    """A `syntax-error` for each file a graph read and could not parse, but the files the
    engine parsed itself (it has reported them)."""
    graphs = list(asked)
    out: dict[str, Diagnostic] = {}
    for graph, _ in graphs:
        for path, error in list(graph.unparsed.items()):
            if os.path.isabs(path):  # a followed dependency's file: importing it raises, its chain stops
                through.unparsed_dependency(path, error.line, error.message)
                continue
            facts = passed.get(path)
            if path in out or facts is not None and facts.parsed:
                continue
            out[path] = syntax_error(path, error) if facts is not None else _unchecked(path, error, graphs, roots)
    return list(out.values())


def tell_cuts(asked: Iterable[Asked]) -> None:
    """Where a lazy loader an entry reaches could not be told what it imports: the chains
    through it are cut there, so a forbidden (or heavy) name may be loaded unseen; `check`
    names each cut once on stderr (`why` names them too)."""
    for graph, entries in asked:
        for entry in entries:
            for cut in graph.cuts(entry):
                through.cut_chain(cut)


def _unchecked(path: str, error: SyntaxErrorFact, graphs: list[Asked], roots: tuple[str, ...]) -> Diagnostic:
    plain = syntax_error(path, error)
    module = module_name(path, roots)[0]
    chain = _chain(module, graphs) if module is not None else None
    if chain is None:  # read to follow a call, not reached by an import
        return replace(plain, message=(
            f"{plain.message}; a call is followed into it and it cannot be read, so a finding may be missing"
        ))
    return replace(plain, chain=chain.modules, message=(
        f"{plain.message}; importing `{chain.entry}` runs it, so its imports cannot be followed "
        f"and a chain through it may be missing: {' -> '.join(chain.modules)}"
    ))


def _chain(module: str, graphs: list[Asked]) -> Chain | None:
    """The shortest chain to `module` from the first entry (in the order given) that reaches it."""
    for graph, entries in graphs:
        for entry in entries:
            parents = graph.reach(entry)
            if module in parents:
                return graph.chain(entry, parents, module)
    return None


__all__ = ["reports"]
