"""What a heavy site is, on one call or name: a heavy module, a probe on one, the parent
`find_spec` imports, the name a gateway re-export stands for (contract section 4).

Pure over the question asked (`graph.question`); the graph (`reach`) asks them of every file it reads.
"""

from __future__ import annotations

from import_policy.facts.records.model import CallFact
from import_policy.graph.question import Question


def is_heavy(question: Question, name: str) -> bool:
    """A heavy module, or anything under one (`tilelang.language`)."""
    return question.is_heavy(name)


def probe_of(question: Question, call: CallFact) -> tuple[str, str | None] | None:
    """(probe, alternative) when `call` is a configured probe on a heavy module."""
    if call.first_string is None or not is_heavy(question, call.first_string):
        return None
    for probe, alternative in question.probes:
        if probe in (call.tail, call.callee):
            return probe, alternative
    return None


# `find_spec("a.b")` imports `a` (and runs its __init__) to find `a.b`.
FIND_SPEC = "importlib.util.find_spec"


def find_spec_of(question: Question, call: CallFact) -> str | None:
    """The heavy parent that `importlib.util.find_spec("a.b")` imports (`a`); None for a top-level name."""
    if call.callee != FIND_SPEC or call.first_string is None or "." not in call.first_string:
        return None
    parent = call.first_string.rpartition(".")[0]
    return parent if is_heavy(question, parent) else None


def through_gateway(name: str, exports: dict[str, str]) -> str:
    """The name a gateway re-export stands for (`vllm.tilelang_utils.tilelang.jit` -> `tilelang.jit`)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        original = exports.get(".".join(parts[:cut]))
        if original is not None:
            return ".".join([original, *parts[cut:]])
    return name
