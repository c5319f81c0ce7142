"""Facts of many Python files in a process pool; checks stay in the calling process.

Workers read, prefilter and parse; they return facts (or why a file could not
be read) in the order given, so the merged result is the same for any number
of jobs. Small batches never start a pool: its start-up would cost more than
it saves.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Union

from import_policy.discovery.files import SourceFile
from import_policy.facts.records.model import FileFacts
from import_policy.pipeline.extract import python_facts
from import_policy.pipeline.plan import Plan

# Below this many files a pool does not pay for its start-up.
MIN_FILES = 64
Outcome = Union[FileFacts, str]  # facts, or why the file could not be read

_plan: Plan | None = None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worth_it(jobs: int, files: int) -> bool:
    return jobs > 1 and files >= MIN_FILES


def facts(plan: Plan, files: Sequence[SourceFile], jobs: int) -> list[Outcome]:
    """Each file's outcome, in the order of `files`."""
    size = max(8, len(files) // (jobs * 8))
    chunks = [list(files[i : i + size]) for i in range(0, len(files), size)]
    # The observers (stale tracking) run in this process, over the merged facts.
    shipped = replace(plan, observe=None, exempted=None)
    from concurrent.futures import ProcessPoolExecutor  # 20 ms of imports a small batch never needs

    with ProcessPoolExecutor(max_workers=jobs, initializer=_start, initargs=(shipped,)) as pool:
        return [outcome for chunk in pool.map(_chunk, chunks) for outcome in chunk]


def _start(plan: Plan) -> None:
    global _plan
    _plan = plan
    # Forked from a run that turned the cyclic collector off; a worker parses one file after
    # another and keeps nothing, so it collects, but never walks what it inherited.
    gc.freeze()
    gc.enable()


def _chunk(files: list[SourceFile]) -> list[Outcome]:
    plan = _plan
    assert plan is not None, "the pool's initializer sets the plan"
    out: list[Outcome] = []
    for file in files:
        try:
            source = file.path.read_bytes()
        except OSError as error:
            out.append(error.strerror or str(error))
            continue
        facts = python_facts(plan, file, source, plan.judged_for(file.relative))
        assert facts is not None
        out.append(plan.kept(facts))  # only what the run reads crosses back
    return out
