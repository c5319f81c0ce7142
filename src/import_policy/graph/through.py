"""The graph through followed dependencies (contract section 4, "Through dependencies").

A followed distribution's modules join the project's module map after the project's own (a
project module of the same name shadows one installed, as the project's root comes first on
`sys.path`). A site inside a dependency is reported at the project's link into it: the last
import in the chain that stands in a project file, which is what the user can edit, and what
a suppression or baseline entry names; its message says where in the dependency the site is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from import_policy.config.model import Follow, Policy
from import_policy.graph.distributions import Followed, follow, normalize, unfound
from import_policy.graph.environment import Environment, environment_variables, passed_over, project_environment
from import_policy.graph.hook import Finding
from import_policy.graph.search_path import SearchPath


def dependencies(policy: Policy) -> Followed | None:
    """The distributions the policy follows, in the project's environment; None without `follow:`."""
    return dependencies_of(policy.root, policy.follow)


def dependencies_of(root: Path, wanted: Follow | None) -> Followed | None:
    """Read once per process while the environment's site-packages folders are unchanged (an
    install, upgrade or removal rewrites their listing): the index is kept warm."""
    if wanted is None or not (wanted.names or wanted.every):
        return None
    environment = project_environment(root, wanted.python)
    key = (environment, wanted.names, wanted.every, _stamps(environment))
    if _LAST and _LAST[0][0] == key and (_LAST[0][1].search is None or _LAST[0][1].search.fresh()):
        return _LAST[0][1]
    found = follow(environment, wanted.names, wanted.every)
    _LAST[:] = [(key, found)]
    return found


_LAST: list[tuple[object, Followed]] = []


def _stamps(environment: Environment | None) -> tuple[tuple[int, int], ...]:
    out = []
    for folder in environment.site_packages if environment is not None else ():
        try:
            stat = os.stat(folder)
        except OSError:
            out.append((0, 0))
            continue
        out.append((stat.st_mtime_ns, stat.st_ino))
    return tuple(out)


def warnings(policy: Policy) -> list[str]:
    """`file:line: warning: ...` for each followed name that is not installed."""
    followed = dependencies(policy)
    wanted = policy.follow
    if followed is None or wanted is None or followed.environment is None:
        return []
    where = followed.environment
    return [
        f"{wanted.origin.source}:{_line(wanted, name)}: warning: follow: {name!r} is not installed in {where.prefix} "
        f"(found by {where.how}); it is not followed"
        for name in followed.missing
    ]


def errors(policy: Policy, followed: Followed | None) -> list[tuple[str, int, str]]:
    """(file, line, message) for a `follow` that cannot read what it names: no environment,
    none of its distributions installed, or one installed none of whose modules is found."""
    wanted = policy.follow
    if followed is None or wanted is None:
        return []
    where = followed.environment
    if where is None and wanted.python is not None:
        return [(wanted.origin.source, wanted.origin.line, (
            f"follow: environment.python {wanted.python} is no environment: no lib/pythonX.Y/site-packages "
            "(nor Lib/site-packages) there"
        ))]
    if where is None:
        return [(wanted.origin.source, wanted.origin.line, (
            "follow: no environment to read dependencies from: no environment.python, no .venv under the "
            f"project root ({policy.root / '.venv'}), {_virtual_env()}; set environment.python"
        ))]
    looked = f"{where.prefix} (found by {where.how}; site-packages: {', '.join(where.site_packages)})"
    if not followed.distributions:
        return [(wanted.origin.source, wanted.origin.line, (
            f"follow: none of {', '.join(wanted.names) if wanted.names else 'its distributions'} is installed in {looked}"
        ))]
    out = []
    # Under `follow: all` an environment holds distributions of scripts, data or native
    # libraries only (nvidia's): only a name the user wrote must be found.
    for distribution in unfound(followed) if not followed.every else ():
        name = next((n for n in wanted.names if normalize(n) == distribution.key), distribution.name)
        tops = ", ".join(distribution.tops) or "none told by RECORD, top_level.txt or its name"
        out.append((wanted.origin.source, _line(wanted, name), (
            f"follow: {name!r} is installed ({distribution.info}) but none of its modules ({tops}) is found on "
            f"the environment's path ({', '.join(followed.search.folders) if followed.search else looked})"
        )))
    return out


def _virtual_env() -> str:
    environ = environment_variables()
    virtual = environ.get("VIRTUAL_ENV")
    if not virtual:
        return "no $VIRTUAL_ENV"
    why = passed_over(virtual, environ, sys.prefix)
    return f"$VIRTUAL_ENV {virtual} passed over ({why})" if why else f"$VIRTUAL_ENV {virtual} holds no site-packages"


def _line(wanted: Follow, name: str) -> int:
    return wanted.lines[wanted.names.index(name)] if name in wanted.names and wanted.lines else wanted.origin.line


class Availability:
    """Whether a module is installed, for `installed: environment`: a project module, one of
    the standard library's, or one the environment's path finds. `identity`: what the answers
    depend on (the stat data of the path's folders: an install or removal moves them)."""

    def __init__(self, search: SearchPath | None, project: frozenset[str]) -> None:
        self.search = search
        self.project = project
        self._memo: dict[str, bool] = {}
        folders = search.folders if search is not None else ()
        self.identity = repr([(folder, _folder_stat(folder)) for folder in folders])

    def __call__(self, module: str) -> bool:
        found = self._memo.get(module)
        if found is None:
            top = module.partition(".")[0]
            found = (
                top in self.project or top in sys.builtin_module_names or top in _STDLIB
                or (self.search is not None and self.search.find(module) is not None)
            )
            self._memo[module] = found
        return found


_STDLIB: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))


def _folder_stat(folder: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(folder)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_ino


def asks_installed(policy: Policy) -> bool:
    """Whether a rule in force or `rocm_safety` lets the environment decide (`installed: environment`)."""
    rocm = policy.rocm_safety
    return (rocm is not None and rocm.installed == "environment") or any(
        getattr(rule, "installed", "any") == "environment" for rule in policy.rules
    )


def availability(policy: Policy, followed: Followed | None, project: frozenset[str]) -> Availability | None:
    """What is installed, where the policy asks: the followed environment's path, else the
    project's environment's (None: nothing asks)."""
    if not asks_installed(policy):
        return None
    if followed is not None and followed.search is not None:
        return Availability(followed.search, project)
    environment = project_environment(policy.root, policy.follow.python if policy.follow is not None else None)
    return Availability(SearchPath(environment.site_packages) if environment is not None else None, project)


# Followed dependency files that do not parse, told by the pass as it reads them: path -> warning.
_UNPARSED: dict[str, str] = {}


def unparsed_dependency(path: str, line: int, message: str) -> None:
    """A dependency file the graph read and could not parse: importing it raises."""
    _UNPARSED.setdefault(path, (
        f"warning: {path}:{line}: a followed dependency's file does not parse ({message}); importing it "
        "raises, so the chains through it stop there"
    ))


def take_unparsed() -> list[str]:
    """The warnings told since the last call, once each."""
    out = [_UNPARSED[path] for path in sorted(_UNPARSED)]
    _UNPARSED.clear()
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
        message = (
            f"{site.message} (in dependency `{followed.distribution_of_file(site.path)}`, "
            f"{followed.shown(site.path)}:{site.line})"
        )
        moved = replace(
            site, path=link.path, line=link.line, column=column, end_line=link.line,
            end_column=max(len(line.rstrip()) + 1, column), message=message, suppress_lines=(link.line,),
        )
        out.append(replace(finding, site=moved))
    return out


__all__ = [
    "Modules", "at_links", "dependencies", "dependencies_of", "errors", "take_unparsed", "unparsed_dependency", "warnings",
]
