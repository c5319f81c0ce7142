"""`import-policy why MODULE`: the shortest eager chain from each entry module to MODULE
(`--all`: every route, one chain per import of the module holding the site, each the shortest
ending that way)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from import_policy.rocm import run as rocm_pass
from import_policy.cache.facts import FactsCache
from import_policy.commands import EXIT_OK, UsageError
from import_policy.config.model import Policy
from import_policy.pipeline.extract import read_file
from import_policy.project.graph import Chain
from import_policy.report.why import RENDERERS


class WhyError(Exception):
    """The policy cannot answer: no `rocm_safety` section, or no entry modules."""


def why(policy: Policy, target: str, fmt: str, cwd: Path, every: bool = False) -> tuple[str, list[str]]:
    """The rendered chains, and warnings for stderr."""
    rocm = policy.rocm_safety
    if rocm is None:
        raise WhyError("the policy has no rocm_safety section, so no entry modules to start from")
    plan = rocm_pass.make_plan(policy, lambda rule: True)
    assert plan is not None
    if not plan.entries:
        raise WhyError(
            f"rocm_safety has no entry_modules (declared at {rocm.origin}) and the project has no top-level package "
            "(a folder with an __init__.py under roots) to start from; name the modules a process imports "
            "in rocm_safety.entry_modules"
        )
    graph = rocm_pass.project(plan, {}, read_file, FactsCache(policy.root))
    warnings = [
        f"entry module {entry!r} is not a module of this project"
        for entry in plan.entries
        if entry not in graph.module_path
    ]
    chains: list[tuple[str, Chain | None]] = []
    for entry in plan.entries:
        found = graph.why_all(entry, target) if every else [c for c in [graph.why(entry, target)] if c is not None]
        chains.extend((entry, chain) for chain in found)
        if not found:
            chains.append((entry, None))

    def shown(path: str) -> str:
        return Path(os.path.relpath(policy.root / path, cwd)).as_posix()

    return RENDERERS[fmt](target, chains, shown), warnings


def command(policy: Policy, target: str, fmt: str, every: bool = False) -> int:
    """`why MODULE`: the chains on stdout, warnings on stderr; no chain is an answer, not a failure."""
    try:
        text, warnings = why(policy, target, fmt, Path.cwd(), every)
    except WhyError as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"import-policy: {warning}", file=sys.stderr)
    sys.stdout.write(text)
    return EXIT_OK
