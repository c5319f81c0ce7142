"""Stale allowlists: `allow_in` globs and `except` patterns that no longer excuse anything.

Reported only when the whole tree is checked, since a partial run cannot know. Both are
told from the one run (`Plan.observe` and `Plan.exempted`), never from a second one.

- `except` (import rules): an entry is live when, in some file the rule
  applies to, it decided the verdict on an imported or used name: a name some
  `forbid` pattern covers, which the entry carves back out. The engine hands
  each file's facts to `ExceptTracker.observe`, which re-judges the names the
  check judged: as cheap as the check itself, and no second parse.
- `allow_in` (every rule kind): a glob is live when at least one file it
  covers would have a finding of the rule without it. The engine judges each
  file by the rules its `allow_in` exempts it from too, and hands what they
  find (suppressions applied) to `ExceptTracker.exempted`; the run reports none of it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from import_policy.policy.load import preset_text
from import_policy.config.model import Origin, Policy, Rule
from import_policy.kinds.registry import kind_of, python_kind
from import_policy.config.yamltree import Map, Node, Seq, YamlError, parse
from import_policy.discovery.files import SourceFile
from import_policy.diagnostics import Diagnostic
from import_policy.pipeline.plan import Selection
from import_policy.facts.records.model import FileFacts
from import_policy.patterns import PathGlob


@dataclass
class ExceptTracker:
    """Which (rule id, except pattern) pairs decided a verdict somewhere, and which (rule id,
    path) pairs have a finding that `allow_in` kept out of the run."""

    used: set[tuple[str, str]] = field(default_factory=set)
    exempted_findings: set[tuple[str, str]] = field(default_factory=set)

    def observe(self, facts: FileFacts, rules: Sequence[Rule]) -> None:
        for rule in rules:
            if not kind_of(rule).name_excepts(rule):
                continue
            kind = python_kind(rule.kind)
            names = {fact.name for fact in facts.imports} | {fact.module for fact in facts.imports if fact.module}
            for use in facts.uses:
                names.update(use.qualified_names)
            for name in names:
                verdict = kind.verdict(rule, name)
                # An entry decides only a name some forbid pattern covers: `except: [foo]` with
                # `forbid: [foo.bar]` decides nothing for `foo.baz`, which was never forbidden.
                if not verdict.forbidden and verdict.pattern is not None and kind.forbids(rule, name):
                    self.used.add((rule.id, verdict.pattern.text))

    def exempted(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.exempted_findings.update((d.rule, d.path) for d in diagnostics)


@dataclass(frozen=True)
class Stale:
    rule: Rule
    key: str  # "allow_in" or "except"
    pattern: str
    why: str
    line: int  # of the entry in its YAML, or of the rule when it cannot be found

    def __str__(self) -> str:
        return (
            f"{self.rule.origin.source}:{self.line}: warning: {self.key} entry {self.pattern!r} of rule "
            f"{self.rule.id!r} {self.why}; remove it"
        )


def _editable(rule: Rule) -> bool:
    """A built-in preset is written for trees this one may not be, and no user can edit it."""
    return not rule.origin.source.startswith("preset:")


def stale_excepts(policy: Policy, selection: Selection, tracker: ExceptTracker) -> list[tuple[Rule, str, str]]:
    out: list[tuple[Rule, str, str]] = []
    for rule in policy.rules:
        if selection.wants(rule.id) and _editable(rule):
            for pattern in kind_of(rule).name_excepts(rule):
                if (rule.id, pattern.text) not in tracker.used:
                    out.append((rule, pattern.text, "matched no imported or used name"))
    return out


def stale_allow_in(
    policy: Policy, selection: Selection, files: Sequence[SourceFile], tracker: ExceptTracker
) -> list[tuple[Rule, str, str]]:
    candidates = [r for r in policy.rules if r.allow_in and selection.wants(r.id) and _editable(r)]
    out: list[tuple[Rule, str, str]] = []
    for rule in candidates:
        # Which files each glob exempts.
        per_glob: dict[str, list[str]] = {glob.text: [] for glob in rule.allow_in}
        for file in files:
            if rule.files and not any(g.matches(file.relative) for g in rule.files):
                continue
            for glob in rule.allow_in:
                if glob.matches(file.relative):
                    per_glob[glob.text].append(file.relative)
        for text, paths in per_glob.items():
            if not paths:
                out.append((rule, text, "matched no checked file" + _anchored_hint(text, files)))
            elif not any((rule.id, path) in tracker.exempted_findings for path in paths):
                out.append((rule, text, "exempts nothing: no file it covers has a finding of this rule"))
    return out


def _anchored_hint(text: str, files: Sequence[SourceFile]) -> str:
    """A slash-less glob (`*_utils.py`) is anchored at the root; say so when `**/` would match."""
    if "/" in text.rstrip("/"):
        return ""
    deeper = PathGlob.compile("**/" + text)
    if any(deeper.matches(file.relative) for file in files):
        return f" (globs are anchored at the project root: did you mean '**/{text}'?)"
    return ""


def find_stale(
    policy: Policy, selection: Selection, files: Sequence[SourceFile], tracker: ExceptTracker
) -> list[Stale]:
    found = [(r, "allow_in", p, why) for r, p, why in stale_allow_in(policy, selection, files, tracker)]
    found += [(r, "except", p, why) for r, p, why in stale_excepts(policy, selection, tracker)]
    return [Stale(rule, key, pattern, why, entry_line(rule.origin, key, pattern)) for rule, key, pattern, why in found]


@functools.lru_cache(maxsize=4)
def _rules_by_line(text: str) -> dict[int, Map]:
    """Each rule of a file by its line: thousands of stale entries in one file must neither
    parse it nor walk its rules thousands of times."""
    tree = parse(text)
    rules = tree.items.get("rules") if isinstance(tree, Map) else None
    if rules is None or not isinstance(rules[1], Seq):
        return {}
    return {node.line: node for node in rules[1].items if isinstance(node, Map)}


def entry_line(origin: Origin, key: str, pattern: str) -> int:
    """The line of `pattern` in the rule's `key` list; the rule's own line if it cannot be found.

    The model keeps a line per rule, not per glob: the YAML is read again only
    when something is stale.
    """
    if origin.source.startswith("preset:"):
        text = preset_text(origin.source[len("preset:"):])
    else:
        try:
            text = Path(origin.source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
    if text is None:
        return origin.line
    try:
        node = _rules_by_line(text).get(origin.line)
    except YamlError:
        return origin.line
    if node is not None and key in node.items:
        return _line_of(node.items[key][1], pattern) or origin.line
    return origin.line


def _line_of(node: Node, pattern: str) -> int | None:
    items = node.items if isinstance(node, Seq) else [node]
    for item in items:
        if not isinstance(item, (Seq, Map)) and item.value == pattern:
            return item.line
    return None

