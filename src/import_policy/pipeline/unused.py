"""`unused-suppression`, the step `check` and the editor server share: whether the opt-in
rule is in force, and the comments that silenced nothing in the files checked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from import_policy.config.model import Policy
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.discovery.files import SourceFile

if TYPE_CHECKING:
    from import_policy.cache.facts import FactsCache
    from import_policy.pipeline.plan import Selection

UNUSED_SUPPRESSION = "unused-suppression"  # kinds.unused_suppression's id, held equal by a test


def wants_unused_suppression(selection: Selection) -> bool:
    """The opt-in rule is in force when selected by name (`--select`, `--extend-select`) or
    turned on by the configuration's `enable:`, and not turned off: the selection's own rule,
    with the rule off by default whether or not the selection was put under a policy yet."""
    opt_in = replace(selection, off_by_default=selection.off_by_default | {UNUSED_SUPPRESSION})
    return opt_in.wants(UNUSED_SUPPRESSION)


def unused_suppressions(
    policy: Policy, selection: Selection, files: Sequence[SourceFile], read: Callable[[SourceFile], bytes],
    facts: FactsCache | None, jobs: int,
) -> list[Diagnostic]:
    """`unused-suppression`: the files that hold a suppression are checked again with every
    suppression neutralised, under every rule in force (whatever `--select` narrowed this run
    to), and each comment is judged on what it silenced."""
    from import_policy.facts.shared.comments import MARKER as SUPPRESSION_MARKER
    from import_policy.kinds import unused_suppression as unused
    from import_policy.kinds.describe import opt_in_builtins, rule_rows
    from import_policy.pipeline.engine import run
    from import_policy.pipeline.plan import Plan, Selection

    marked: dict[str, tuple[SourceFile, bytes]] = {}
    for file in files:
        try:
            source = read(file)
        except OSError:
            continue  # the run reports it
        if SUPPRESSION_MARKER in source:
            marked[file.relative] = (file, source)
    if not marked:
        return []
    judging = Selection(None, selection.ignore - {UNUSED_SUPPRESSION})
    plan = Plan(policy, judging, cache=facts)
    revealed = run(plan, [file for file, _ in marked.values()], lambda file: unused.neutralise(read(file)), jobs=jobs)
    by_path: dict[str, list[Diagnostic]] = {}
    for d in revealed.diagnostics:
        by_path.setdefault(d.path, []).append(d)
    rows = rule_rows(policy)
    known = {row["id"] for row in rows} | {rule.id for rule in opt_in_builtins()}
    judged = {row["id"] for row in rows if judging.wants(row["id"])}
    out = []
    for path, (file, source) in marked.items():
        found = by_path.get(path, [])
        if any(d.rule == SYNTAX_ERROR for d in found):
            continue  # nothing in a file that does not parse was checked, so nothing was silenced
        comments = unused.comments(source, file.language)
        for d in unused.check(path, comments, found, judged, known):
            # Only a comment that names the rule silences it: a blanket one is what is judged.
            if not any(UNUSED_SUPPRESSION in c.rules and c.line in d.suppress_lines for c in comments):
                out.append(d)
    return out
