"""`import-policy why MODULE`: the shortest eager chain from each entry module to MODULE
(`--all`: every route, one chain per import of the module holding the site, each the shortest
ending that way)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from import_policy.quoting import quote_path
from import_policy.rocm import run as rocm_pass
from import_policy.kinds.import_time import ImportTimeRule
from import_policy.rocm.predicates import RULE_IDS as ROCM_RULE_IDS
from import_policy.graph.sites import is_heavy
from import_policy.cache.facts import FactsCache
from import_policy.commands import EXIT_OK, UsageError
from import_policy.config.model import Policy
from import_policy.policy.load import Loaded
from import_policy.pipeline.extract import read_file
from import_policy.graph.chains import Chain
from import_policy.report.why import RENDERERS


class WhyError(Exception):
    """The policy cannot answer: no `rocm_safety` section, or no entry modules."""


def why(
    policy: Policy, target: str, fmt: str, cwd: Path, every: bool = False, rule: str | None = None,
) -> tuple[str, list[str]]:
    """The rendered chains, and warnings for stderr. `rule`: an `import-time` rule's chains
    (its entries, judged on its platform); a ROCm pass rule's id is the pass's own."""
    rocm = policy.rocm_safety
    declared = policy.rule(rule) if rule is not None else None
    if declared is not None and not isinstance(declared, ImportTimeRule):
        raise WhyError(f"rule {rule!r} is of kind {declared.kind!r}; why follows the import-time rules and the ROCm pass")
    if rule is not None and declared is None and rule not in ROCM_RULE_IDS:
        known = [r.id for r in policy.rules if isinstance(r, ImportTimeRule)] + (list(ROCM_RULE_IDS) if rocm else [])
        raise WhyError(f"unknown rule {rule!r}; rules with chains: {', '.join(known) or '(none)'}")
    if rocm is None and declared is None:
        timed = [r.id for r in policy.rules if isinstance(r, ImportTimeRule)]
        if timed:  # the chains are the rules': say which, and how to ask
            raise WhyError(
                f"the policy has no rocm_safety section; its import-time rules ({', '.join(timed)}) have chains: "
                f"ask with --rule ID (e.g. `import-policy why {target} --rule {timed[0]}`)"
            )
        raise WhyError("the policy has no rocm_safety section, so no entry modules to start from")
    plan = rocm_pass.make_plan(policy, lambda rule: True, rules=(declared,) if declared is not None else ())
    assert plan is not None
    asked = rocm_pass.rule_plan(plan, declared) if declared is not None else plan
    graph = rocm_pass.project(asked, {}, read_file, FactsCache(policy.root))
    entries = declared.entry if declared is not None else plan.entries
    if not entries:
        assert rocm is not None
        raise WhyError(
            f"rocm_safety has no entry_modules (declared at {rocm.origin}) and the project has no top-level package "
            "(a folder with an __init__.py under roots) to start from; name the modules a process imports "
            "in rocm_safety.entry_modules"
        )
    if declared is None and rocm is not None and target not in graph.module_path and not is_heavy(rocm, target):
        raise WhyError(
            f"{target} is neither a heavy module (rocm_safety.heavy_modules) nor a module of this project; "
            "the pass follows only imports of those, so it has no chain to show"
        )
    warnings = [
        f"entry module {entry!r} is not a module of this project"
        for entry in entries
        if entry not in graph.module_path
    ]
    chains: list[tuple[str, Chain | None]] = []
    for entry in entries:
        found = graph.why_all(entry, target) if every else [c for c in [graph.why(entry, target)] if c is not None]
        chains.extend((entry, chain) for chain in found)
        if not found:
            chains.append((entry, None))

    def shown(path: str) -> str:
        # Quoted as git quotes it (JSON escapes on its own): a file name cannot forge a line.
        relative = Path(os.path.relpath(policy.root / path, cwd)).as_posix()
        return relative if fmt == "json" else quote_path(relative)

    return RENDERERS[fmt](target, chains, shown), warnings


def command_over(configs: Sequence[Loaded], target: str, fmt: str, every: bool = False, rule: str | None = None) -> int:
    """`why MODULE [PATH ...]`: the chains in each project the paths reach (`configs`), as
    `check` judges it; a project that cannot answer (no entry modules, no such rule) is
    passed over where another answers."""
    from import_policy.policy.tree import against_tree

    if len(configs) == 1:
        return command(against_tree(configs[0].policy).policy, target, fmt, every, rule)
    answers: list[tuple[Policy, str, list[str]]] = []
    refused: list[str] = []
    for loaded in configs:
        policy = against_tree(loaded.policy).policy
        try:
            text, warnings = why(policy, target, fmt, Path.cwd(), every, rule)
        except WhyError as error:
            refused.append(str(error))
            continue
        answers.append((policy, text, warnings))
    if not answers:
        raise UsageError(refused[0])
    if fmt != "text" and len(answers) > 1:
        raise UsageError(
            f"{len(answers)} projects answer, and --format {fmt} holds one; name a path inside one project "
            f"(`import-policy why {target} PATH`)"
        )
    for index, (policy, text, warnings) in enumerate(answers):
        for warning in warnings:
            print(f"import-policy: {warning}", file=sys.stderr)
        if len(answers) > 1:
            source = policy.sources[-1] if policy.sources else "(built-in)"
            sys.stdout.write(("\n" if index else "") + f"{source.replace('preset:', 'preset ')}:\n")
        sys.stdout.write(text)
    return EXIT_OK


def command(policy: Policy, target: str, fmt: str, every: bool = False, rule: str | None = None) -> int:
    """`why MODULE`: the chains on stdout, warnings on stderr; no chain is an answer, not a failure."""
    try:
        text, warnings = why(policy, target, fmt, Path.cwd(), every, rule)
    except WhyError as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"import-policy: {warning}", file=sys.stderr)
    sys.stdout.write(text)
    return EXIT_OK
