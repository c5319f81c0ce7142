"""`kind: import-time` (contract section 2): what importing an entry must never load.

A project kind: each rule states its question of the graph (`question`: its `forbid`
patterns are what counts as a site, its entries where the import starts, its platform how
the branches are judged) and checks the answer (`ImportTimePass`), the graph's sites
(imports, import-time calls of project functions that import, probes, decorators) and
shortest chains, kept between runs as a `ModuleGraph`, over the per-file records every
question shares (each file parsed once, then read from the facts cache). Rules that differ
only in what they forbid (and where their import starts) share one graph: its links and each
entry's reach are derived once for them all, what their import-time calls load is walked once
(`graph.witness`), and each rule reads only its own sites from it. With `platform: any` no guard keeps a branch off: only what never runs while a
module is imported (`if TYPE_CHECKING:`, `if __name__ == "__main__":`, function bodies)
does. With `platform: NAME` the branches are judged on that profile (`rocm`, `cuda`, `cpu`,
`xpu`, or one declared under `platforms:`), as the ROCm rules judge theirs.

Its findings are reported where `files` applies, obeying the hook rule (`graph.hook`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Protocol

from import_policy.config.model import Policy, Profile, RocmSafety, RuleBase
from import_policy.config.platforms import profile_named
from import_policy.diagnostics import Diagnostic
from import_policy.graph.chains import Chain
from import_policy.graph.hook import Finding
from import_policy.graph.plan import GraphPlan
from import_policy.graph.platform import Platform as GraphPlatform
from import_policy.graph.question import Question
from import_policy.graph.reach import HeavySite
from import_policy.kinds.base import RuleFault
from import_policy.kinds.project import ProjectContext
from import_policy.patterns import DottedPattern, Verdict, judge
from import_policy.project.modules import ProjectModules

# Validation and the YAML tree are imported by the parse functions: a run that takes its
# policy from the cache (cache.policy) imports neither.
if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator

KIND = "import-time"


@dataclass(frozen=True)
class ImportTimeRule(RuleBase):
    entry: tuple[str, ...] = ()
    forbid: tuple[DottedPattern, ...] = ()
    platform: str = "any"  # `any`, or a profile's name (checked against the policy's when it is merged)
    platform_line: int = field(default=0, compare=False)
    installed: str = "any"  # or "environment": see RocmSafety.installed
    entry_lines: tuple[int, ...] = field(default=(), compare=False)  # of each entry, for errors
    kind: str = field(default=KIND, kw_only=True)

    def forbids(self, name: str) -> bool:
        return judge(name, self.forbid, ()).forbidden


def rocm_platform(rocm: RocmSafety) -> GraphPlatform:
    """The ROCm process `rocm_safety` describes: its guards false, its `rocm` names true, its values."""
    return GraphPlatform("rocm", rocm.guards, rocm.rocm, rocm.values)


def question(rule: ImportTimeRule, policy: Policy) -> Question:
    """The rule's question of the graph: its forbid patterns as what counts as a site; the
    probes the policy declares (a probe imports what it probes, on any platform); the names
    its platform's profile holds false, true and set (none with `platform: any`); and on
    every platform the oldest Python the project supports (the policy's), which decides
    whether a lazy import is lazy."""
    rocm = policy.rocm_safety
    probes = rocm.probes if rocm is not None else ()
    return Question(
        heavy=rule.forbid, probes=probes, platform=platform_question(rule.platform, policy), entries=rule.entry,
        python=policy.python, installed=rule.installed == "environment",
    )


def platform_question(name: str, policy: Policy) -> GraphPlatform | None:
    """The platform a rule's branches are judged on: `rocm_safety`'s own section for `rocm`
    (as the ROCm rules read it), else the profile of that name; None for `any`."""
    rocm = policy.rocm_safety
    if name == "rocm" and rocm is not None:
        return rocm_platform(rocm)
    profile = None if name == "any" else profile_named(policy, name)
    return GraphPlatform(profile.name, profile.guards, profile.true, profile.values) if profile is not None else None


def platform_of(rule: ImportTimeRule, policy: Policy) -> Profile | None:
    """The profile the rule's branches are judged on; None for `any`."""
    return None if rule.platform == "any" else profile_named(policy, rule.platform)


class ImportTimePass:
    """The `import-time` rules in force, each its own question of the graph."""

    def __init__(self, rules: Sequence[ImportTimeRule], policy: Policy) -> None:
        self.asked = tuple((rule, question(rule, policy)) for rule in rules)

    def questions(self) -> tuple[Question, ...]:
        return tuple(asked for _, asked in self.asked)

    def wants_file(self, plan: GraphPlan, source: bytes, path: str) -> bool:
        return False  # the graph reads what a chain reaches: no checked file needs a parse of its own

    def check(self, context: ProjectContext) -> list[Diagnostic]:
        if not context.parsed:
            return []
        found: list[Diagnostic] = []
        for rule, asked in self.asked:
            graph = context.graphs.ask(asked)
            reached = context.at_links(findings(rule, graph), rule.forbid)
            found.extend(context.report(reached, rule.applies_to, graph))
            if context.exempted is not None and rule.allow_in:
                context.exempted([
                    d for d in (finding.site for finding in reached)
                    if _kept_out(rule, d.path) and not context.comments(d.path).covers(d.rule, d.suppress_lines)
                ])
        return context.unsuppressed(found)


def _kept_out(rule: RuleBase, path: str) -> bool:
    """Whether `files` covers the path and `allow_in` exempts it."""
    return replace(rule, allow_in=()).applies_to(path) and not rule.applies_to(path)


class Reaches(Protocol):
    """What a rule asks of the graph (`ModuleGraph`, or a `Project`)."""

    def first_reached(self, entries: Iterable[str]) -> Iterator[tuple[Chain, HeavySite]]: ...


def findings(rule: ImportTimeRule, graph: Reaches) -> Iterator[Finding]:
    """Each site an entry reaches, once, with the shortest chain from the first entry; `graph`
    answers this rule's `question`."""
    for chain, site in graph.first_reached(rule.entry):
        if site.module is not None and rule.forbids(site.module):
            continue  # inside a forbidden project module: loading that module is the finding
        yield Finding(_diagnostic(rule, chain, site), chain, site.heavy if site.kind != "jit" else site.detail)


def message(rule: ImportTimeRule, chain: Chain, site: HeavySite) -> str:
    pattern = judge(site.heavy, rule.forbid, ()).pattern
    if rule.message:
        text = rule.message.replace("{name}", site.heavy).replace("{pattern}", pattern.text if pattern else site.heavy)
    else:
        text = f"importing `{chain.entry}` loads `{site.heavy}` at import time"
    how = "" if site.kind == "import" else f" ({site.detail}{site.also_text()})"
    return f"{text}: {' -> '.join(chain.modules)}{how}{chain.if_installed()}"


def _diagnostic(rule: ImportTimeRule, chain: Chain, site: HeavySite) -> Diagnostic:
    span = site.span
    return Diagnostic(
        rule=rule.id, severity=rule.severity, path=site.path, line=span.line, column=span.column,
        end_line=span.end_line, end_column=span.end_column, message=message(rule, chain, site),
        suppress_lines=(span.line, site.statement_line), chain=chain.modules,
    )


class ImportTimeKind:
    """`kind: import-time`: forbidden modules an entry loads at import time, through the project (a project kind)."""

    name = KIND
    language: Literal["python"] = "python"
    keys = ("entry", "forbid", "platform", "installed")

    def parse(self, v: Validator, items: Items, common: RuleFields) -> ImportTimeRule:
        from import_policy.config.validate import DOTTED, INSTALLED
        from import_policy.config.yamltree import Seq

        line = common["origin"].line
        entries: list[str] = []
        lines: list[int] = []
        if "entry" not in items:
            v.error(line, f"rule {common['id']!r} needs an entry list (the modules whose import is checked)")
        else:
            before = len(v.errors)
            for text, at in v.strings(items["entry"][1], "entry"):
                if DOTTED.fullmatch(text):
                    entries.append(text)
                    lines.append(at)
                else:
                    v.error(at, f"entry must be a dotted module name like 'pkg.mod', got {text!r}")
            if not entries and len(v.errors) == before:
                v.error(items["entry"][1].line, "entry must name at least one module")
        platform, platform_line = "any", 0
        if "platform" in items:  # a profile's name: the merged policy says which exist
            platform_line = items["platform"][1].line
            platform = v.string(items["platform"][1], "platform (any, or a platform profile's name)") or "any"
        forbid = v.dotted_patterns(items["forbid"][1] if "forbid" in items else Seq([], line), "forbid")
        installed = v.choice(items["installed"][1], "installed", INSTALLED) if "installed" in items else "any"
        return ImportTimeRule(
            entry=tuple(entries), forbid=tuple(forbid), platform=platform, platform_line=platform_line,
            installed=installed or "any", entry_lines=tuple(lines), **common,
        )

    def fixable(self, rule: ImportTimeRule) -> str:
        return "no"

    def says(self, rule: ImportTimeRule) -> str:
        return rule.message or f"importing `{rule.entry[0] if rule.entry else '<entry>'}` loads `<name>` at import time"

    def explain_patterns(self, rule: ImportTimeRule) -> list[str]:
        return [
            f"  entry:         {', '.join(rule.entry)}",
            f"  forbid:        {', '.join(p.text for p in rule.forbid) or '(none)'}",
        ]

    def explain_options(self, rule: ImportTimeRule) -> list[str]:
        judged = "every branch runs but TYPE_CHECKING" if rule.platform == "any" else "judged on that profile as the ROCm pass judges ROCm"
        return [
            f"  platform:      {rule.platform} ({judged})",
            "  checked:       through the whole project's eager import graph (`why MODULE --rule "
            f"{rule.id}` prints the chains); files says where findings are reported",
        ]

    def name_excepts(self, rule: ImportTimeRule) -> Sequence[DottedPattern]:
        return ()

    def prepare(self, rule: ImportTimeRule, policy: Policy) -> ImportTimeRule:
        """An entry that is not a module of the project would check nothing: a silent pass. A
        built-in preset's entry is another matter: it is written for trees this may not be, and
        no user can edit it (there the rule finds nothing from a missing entry)."""
        if rule.origin.source.startswith("preset:"):
            return rule
        modules = ProjectModules(policy, {})
        for number, entry in enumerate(rule.entry):
            if entry not in modules:
                line = rule.entry_lines[number] if number < len(rule.entry_lines) else rule.origin.line
                raise RuleFault(line, f"rule {rule.id!r}: entry {entry!r} is not a module of the project")
        return rule

    def project_pass(self, rules: Sequence[ImportTimeRule], policy: Policy) -> ImportTimePass:
        return ImportTimePass(rules, policy)

    def forbids(self, rule: ImportTimeRule, name: str) -> bool:
        return rule.forbids(name)

    def verdict(self, rule: ImportTimeRule, name: str) -> Verdict:
        return judge(name, rule.forbid, ())


def rules_of(rules: Sequence[RuleBase]) -> tuple[ImportTimeRule, ...]:
    return tuple(rule for rule in rules if isinstance(rule, ImportTimeRule))


__all__ = ["ImportTimeKind", "ImportTimePass", "ImportTimeRule", "findings", "question", "rocm_platform", "rules_of"]
