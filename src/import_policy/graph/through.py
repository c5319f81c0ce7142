"""The graph through followed dependencies (contract section 4, "Through dependencies").

A followed distribution's modules join the project's module map after the project's own (a
project module of the same name shadows one installed, as the project's root comes first on
`sys.path`). A site inside a dependency is reported at the project's link into it: the last
import in the chain that stands in a project file, which is what the user can edit, and what
a suppression or baseline entry names; its message says where in the dependency the site is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from import_policy.config.model import Follow, Policy
from import_policy.graph.distributions import Followed, follow
from import_policy.graph.environment import project_environment
from import_policy.graph.hook import Finding


def dependencies(policy: Policy) -> Followed | None:
    """The distributions the policy follows, in the project's environment; None without `follow:`."""
    return dependencies_of(policy.root, policy.follow)


def dependencies_of(root: Path, wanted: Follow | None) -> Followed | None:
    if wanted is None or not (wanted.names or wanted.every):
        return None
    return follow(project_environment(root, wanted.python), wanted.names, wanted.every)


def warnings(policy: Policy) -> list[str]:
    """`file:line: warning: ...` for each followed name that is not installed."""
    followed = dependencies(policy)
    wanted = policy.follow
    if followed is None or wanted is None:
        return []
    where = followed.environment
    if where is None:
        return [
            f"{wanted.origin}: warning: follow: no environment to read dependencies from (environment.python, "
            "$VIRTUAL_ENV or a .venv under the project root); nothing is followed"
        ]
    out = []
    for name in followed.missing:
        line = wanted.lines[wanted.names.index(name)] if name in wanted.names and wanted.lines else wanted.origin.line
        out.append(
            f"{wanted.origin.source}:{line}: warning: follow: {name!r} is not installed in {where.prefix} "
            f"(found by {where.how}); it is not followed"
        )
    return out


class Modules(Mapping[str, str]):
    """The project's module map, then the followed distributions' modules."""

    def __init__(self, project: Mapping[str, str], followed: Followed) -> None:
        self.project = project
        self.followed = followed
        self.known: Mapping[str, str] = getattr(project, "known", {})
        self._all: dict[str, str] | None = None

    def __getitem__(self, module: str) -> str:
        try:
            return self.project[module]
        except KeyError:
            path = self.followed.find(module)
            if path is None:
                raise
            return path

    def _everything(self) -> dict[str, str]:
        if self._all is None:
            found = dict(self.followed.every_module())
            found.update((module, self.project[module]) for module in self.project)
            self._all = found
        return self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())


def at_links(
    findings: Iterable[Finding], followed: Followed | None, lines: Callable[[str], list[str] | None],
) -> list[Finding]:
    """Each finding whose site is in a dependency moved to the project's link into it (dropped
    when the chain has no project link: an entry module inside a dependency)."""
    out: list[Finding] = []
    for finding in findings:
        site = finding.site
        if followed is None or not followed.owns(site.path):
            out.append(finding)
            continue
        links = [link for link in finding.chain.links if not followed.owns(link.path)]
        if not links or links[-1].kind == "package":
            continue
        link = links[-1]
        text = lines(link.path) or []
        line = text[link.line - 1] if 0 < link.line <= len(text) else ""
        column = len(line) - len(line.lstrip()) + 1
        holder = followed.module_of(site.path)[0] or link.target  # the distribution that holds the site
        message = (
            f"{site.message} (in dependency `{followed.distribution_of(holder)}`, "
            f"{followed.shown(site.path)}:{site.line})"
        )
        moved = replace(
            site, path=link.path, line=link.line, column=column, end_line=link.line,
            end_column=max(len(line.rstrip()) + 1, column), message=message, suppress_lines=(link.line,),
        )
        out.append(replace(finding, site=moved))
    return out


__all__ = ["Modules", "at_links", "dependencies", "dependencies_of", "warnings"]
