"""What a reader keeps of a file's calls: the graph keeps few of them (`GraphPlan.keeps`),
and the extractor asks before it places any (facts.from_ast)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from import_policy.facts.records.model import Argument, FileFacts

# Asked once the rest of a file's facts are known: which callees the reader keeps (a call
# with a string first argument is kept whatever its callee).
CallFilter = Callable[[FileFacts], Callable[[str], bool]]


# `find_spec(n)` on a function's parameter: the literal a caller passes is followed to it.
FIND_SPEC = "importlib.util.find_spec"


def is_kept(callee: str, first: str | None, arguments: tuple[Argument, ...], kept: Callable[[str], bool]) -> bool:
    """A call with a string first argument, `find_spec` on a parameter (or `name=`), or a callee kept."""
    return first is not None or (bool(arguments) and callee == FIND_SPEC) or kept(callee)


def kept_calls(facts: FileFacts, keeps: CallFilter | None) -> FileFacts:
    """The facts with only the calls `keeps` keeps, and the attribute reads of names it keeps
    (a lazy loader that answers one is a module of the project's, or of a followed dependency's)."""
    if keeps is None:
        return facts
    kept = keeps(facts)
    calls = tuple(call for call in facts.calls if is_kept(call.callee, call.first_string, call.arguments, kept))
    attributes = tuple(read for read in facts.attributes if kept(read.qualified))
    if len(calls) == len(facts.calls) and len(attributes) == len(facts.attributes):
        return facts
    return replace(facts, calls=calls, attributes=attributes)


def imports_of(facts: FileFacts) -> FileFacts:
    """A file's import statements alone (and its suppression comments, or its syntax error): the
    record of a graph whose every question reads an import as an edge to the module it names
    (`scope: any`). Exact in what such a graph reads of each import (its kind, names, places,
    statement line and `TYPE_CHECKING` context); no calls, bindings, probes or lazy reads."""
    return replace(
        facts, uses=(), calls=(), decorators=(), functions=(), classes=(), assigns=(), returns=(), scans=(), reads=(),
        attributes=(), loader=None, exports=(),
    )
