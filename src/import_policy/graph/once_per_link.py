"""One finding per project link and forbidden name (contract section 4, "Reported at the
project's link, once per name").

Sites inside a followed dependency are reported at the project's link into it
(`through.at_links`); one `import peft` reaches hundreds of `import torch` inside the
dependency, which would be as many findings at one line. They are one: the shortest chain,
where the first site in the dependency is, and how many more sites lead there, with the
`why` command that lists every chain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from import_policy.graph.distributions import Followed
from import_policy.graph.hook import Finding
from import_policy.patterns import DottedPattern, judge

# The name a finding is about, as its rule names it (a forbidden pattern, a heavy module).
NameOf = Callable[[Finding], str]


def once_per_link(findings: Iterable[Finding], moved: Callable[[Finding], bool], name_of: NameOf) -> list[Finding]:
    """`findings` as `at_links` gives them; each group of moved ones at the same link for the
    same rule and name becomes its shortest, with the count of the others in its message."""
    out: list[Finding] = []
    groups: dict[tuple[str, str, int, str], list[Finding]] = {}
    order: list[tuple[str, str, int, str] | int] = []
    for finding in findings:
        if not moved(finding):
            order.append(len(out))
            out.append(finding)
            continue
        site = finding.site
        key = (site.rule, site.path, site.line, name_of(finding))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(finding)
    result: list[Finding] = []
    for item in order:
        if isinstance(item, int):
            result.append(out[item])
            continue
        group = groups[item]
        first = min(group, key=lambda finding: len(finding.chain.links))  # the earliest of the shortest
        result.append(_counted(first, len(group) - 1, item[3]))
    return result


def in_dependencies(
    findings: Iterable[Finding], followed: Followed | None, patterns: Iterable[DottedPattern]
) -> list[Finding]:
    """`once_per_link` for a rule whose names are `patterns` (its `forbid`, the heavy modules)."""
    if followed is None:
        return list(findings)
    kept = tuple(patterns)

    def name_of(finding: Finding) -> str:
        reached = finding.reached.lstrip("@")  # a decorator's site (`@torch.no_grad`) is its module's
        pattern = judge(reached, kept, ()).pattern
        text = pattern.text if pattern is not None else reached
        return text if text.replace(".", "").replace("_", "").isalnum() else reached

    return once_per_link(findings, lambda finding: any(followed.owns(l.path) for l in finding.chain.links), name_of)


def _counted(finding: Finding, others: int, name: str) -> Finding:
    """The finding's message with the other sites' count and the command that lists them."""
    if not others:
        return finding
    site = finding.site
    more = f"and {others} more site{'s' if others != 1 else ''}; import-policy why {name} --rule {site.rule}"
    message = f"{site.message[:-1]}, {more})" if site.message.endswith(")") else f"{site.message} ({more})"
    return replace(finding, site=replace(site, message=message))


__all__ = ["in_dependencies", "once_per_link"]
