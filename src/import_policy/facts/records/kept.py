"""What a reader keeps of a file's calls: the graph keeps few of them (`GraphPlan.keeps`),
and the extractor asks before it places any (facts.from_ast)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from import_policy.facts.records.model import FileFacts

# Asked once the rest of a file's facts are known: which callees the reader keeps (a call
# with a string first argument is kept whatever its callee).
CallFilter = Callable[[FileFacts], Callable[[str], bool]]


def kept_calls(facts: FileFacts, keeps: CallFilter | None) -> FileFacts:
    """The facts with only the calls `keeps` keeps."""
    if keeps is None:
        return facts
    kept = keeps(facts)
    calls = tuple(call for call in facts.calls if call.first_string is not None or kept(call.callee))
    return replace(facts, calls=calls) if len(calls) < len(facts.calls) else facts
