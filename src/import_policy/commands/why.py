"""`import-policy why MODULE`: the shortest eager chain from each entry module to MODULE
(`--all`: every route, one chain per import of the module holding the site, each the shortest
ending that way)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from import_policy.quoting import quote_path
from import_policy.graph.derive import project
from import_policy.graph.platform import Platform as GraphPlatform
from import_policy.graph.question import Question
from import_policy.kinds.import_time import ImportTimeRule, question
from import_policy.policy.follow import graph_plan
from import_policy.rocm.predicates import RULE_IDS as ROCM_RULE_IDS
from import_policy.rocm.reachability import make_pass
from import_policy.cache.facts import FactsCache
from import_policy.commands import EXIT_OK, UsageError
from import_policy.config.model import Policy
from import_policy.config.platforms import ANY, profile_named
from import_policy.policy.load import Loaded
from import_policy.policy.platforms import choices
from import_policy.pipeline.extract import read_file
from import_policy.graph.chains import Chain
from import_policy.report.why import RENDERERS


class WhyError(Exception):
    """The policy cannot answer: no `rocm_safety` section, or no entry modules."""


def why(
    policy: Policy, target: str, fmt: str, cwd: Path, every: bool = False, rule: str | None = None,
    platform: str | None = None,
) -> tuple[str, list[str]]:
    """The rendered chains, and warnings for stderr. `rule`: an `import-time` rule's chains
    (its entries, judged on its platform); a ROCm pass rule's id is the pass's own.
    `platform`: the branches judged on that profile (or `any`) instead."""
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
    asked = _question(policy, declared)
    if platform is not None:
        asked = replace(asked, platform=_on(policy, platform))
    # Another platform's tests are other names than those the prefilter looks for: read every file.
    graph = project(graph_plan(policy, [asked], prefilter=platform is None), {}, read_file, FactsCache(policy.root))
    entries = asked.entries
    if not entries:
        assert rocm is not None
        raise WhyError(
            f"rocm_safety has no entry_modules (declared at {rocm.origin}) and the project has no top-level package "
            "(a folder with an __init__.py under roots) to start from; name the modules a process imports "
            "in rocm_safety.entry_modules"
        )
    if declared is None and rocm is not None and target not in graph.module_path and not asked.is_heavy(target):
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

    # A lazy loader whose import the pass could not tell cuts the chains through it: named.
    for entry in entries:
        for module in graph.reach(entry):
            warnings.extend(cut for cut in graph.cuts.get(module, ()) if cut not in warnings)

    def shown(path: str) -> str:
        # Quoted as git quotes it (JSON escapes on its own): a file name cannot forge a line.
        relative = Path(os.path.relpath(policy.root / path, cwd)).as_posix()
        return relative if fmt == "json" else quote_path(relative)

    return RENDERERS[fmt](target, chains, shown), warnings


def _question(policy: Policy, declared: ImportTimeRule | None) -> Question:
    """The question whose chains are shown: the rule's, else the ROCm rules'."""
    if declared is not None:
        return question(declared, policy)
    rocm_pass = make_pass(policy, lambda rule: True)
    assert rocm_pass is not None
    return rocm_pass.question


def _on(policy: Policy, name: str) -> GraphPlatform | None:
    """The platform `name` as the question's (`any`: no name known, None)."""
    profile = None if name == ANY else profile_named(policy, name)
    if profile is None and name != ANY:
        known = choices(p.name for p in policy.platforms)
        raise WhyError(f"unknown platform {name!r}; platforms: {', '.join(known)}")
    return GraphPlatform(profile.name, profile.guards, profile.true, profile.values) if profile is not None else None


def between(
    policy: Policy, source: str, target: str, fmt: str, cwd: Path, every: bool = False, rule: str | None = None,
) -> tuple[str, list[str]]:
    """`why A --to B`: the chains from A (or a module under it) to B (or a module under it) as a
    contract reads the graph: `--rule ID`'s scope, type_checking and platform, else
    `scope: module` on every platform. The shortest; with `--all`, every chain the contracts
    find (each found chain's links left out of the next search)."""
    from import_policy.config.model import Examples, Origin
    from import_policy.graph.paths import shortest_chains, within
    from import_policy.kinds.contracts.common import ContractRule
    from import_policy.kinds.contracts.project import question as contract_question

    declared = policy.rule(rule) if rule is not None else None
    if rule is not None and not isinstance(declared, (ContractRule, ImportTimeRule)):
        known = [r.id for r in policy.rules if isinstance(r, ContractRule)]
        raise WhyError(f"rule {rule!r} is no contract; contracts: {', '.join(known) or '(none)'}")
    asking = declared if isinstance(declared, ContractRule) else ContractRule(
        id="why", message="", files=(), allow_in=(), severity="error", examples=Examples(), origin=Origin("why", 0),
    )
    graph = project(graph_plan(policy, [contract_question(asking, policy)]), {}, read_file, FactsCache(policy.root))
    modules = set(graph.module_path)
    for name in (source, target):
        if name not in modules:
            raise WhyError(f"{name} is not a module of this project")
    found = shortest_chains(graph.edges, within(modules, source), within(modules, target))
    chains: list[tuple[str, Chain | None]] = []
    for links in found:
        chains.append((links[0].source, Chain(links[0].source, links)))
        if not every:
            break
    if not chains:
        chains.append((source, None))

    def shown(path: str) -> str:
        relative = Path(os.path.relpath(policy.root / path, cwd)).as_posix()
        return relative if fmt == "json" else quote_path(relative)

    return RENDERERS[fmt](target, chains, shown), []


def command_over(
    configs: Sequence[Loaded], target: str, fmt: str, every: bool = False, rule: str | None = None,
    to: str | None = None, platform: str | None = None,
) -> int:
    """`why MODULE [PATH ...]`: the chains in each project the paths reach (`configs`), as
    `check` judges it; a project that cannot answer (no entry modules, no such rule) is
    passed over where another answers."""
    from import_policy.policy.tree import against_tree

    if len(configs) == 1:
        return command(against_tree(configs[0].policy).policy, target, fmt, every, rule, to, platform)
    answers: list[tuple[Policy, str, list[str]]] = []
    refused: list[str] = []
    for loaded in configs:
        policy = against_tree(loaded.policy).policy
        try:
            if to is not None:
                text, warnings = between(policy, target, to, fmt, Path.cwd(), every, rule)
            else:
                text, warnings = why(policy, target, fmt, Path.cwd(), every, rule, platform)
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


def command(
    policy: Policy, target: str, fmt: str, every: bool = False, rule: str | None = None, to: str | None = None,
    platform: str | None = None,
) -> int:
    """`why MODULE`: the chains on stdout, warnings on stderr; no chain is an answer, not a failure."""
    if to is not None and platform is not None:
        raise UsageError("--platform judges the chains from the entry modules; with --to, the contract's --rule says the platform")
    try:
        if to is not None:
            text, warnings = between(policy, target, to, fmt, Path.cwd(), every, rule)
        else:
            text, warnings = why(policy, target, fmt, Path.cwd(), every, rule, platform)
    except WhyError as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"import-policy: {warning}", file=sys.stderr)
    sys.stdout.write(text)
    return EXIT_OK
