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

from import_policy.graph.distributions import Followed, follow
from import_policy.graph.environment import project_environment
from import_policy.graph.hook import Finding


def dependencies_of(root: Path, names: tuple[str, ...], every: bool, python: str | None) -> Followed | None:
    """The distributions `names` (or, `every`, all installed) in the project's environment
    (`python`: the interpreter the configuration names, else found from `root`); None when
    nothing is to be followed."""
    if not (names or every):
        return None
    return follow(project_environment(root, python), names, every)


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
        message = (
            f"{site.message} (in dependency `{followed.distribution_of(link.target)}`, "
            f"{followed.shown(site.path)}:{site.line})"
        )
        moved = replace(
            site, path=link.path, line=link.line, column=column, end_line=link.line,
            end_column=max(len(line.rstrip()) + 1, column), message=message, suppress_lines=(link.line,),
        )
        out.append(replace(finding, site=moved))
    return out


__all__ = ["Modules", "at_links", "dependencies_of"]
