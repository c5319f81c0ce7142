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
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from import_policy.cache.racy import racy
from import_policy.cache.stat import stat_of
from import_policy.graph.distributions import Followed, follow
from import_policy.graph.environment import Environment, project_environment
from import_policy.graph.hook import Finding
from import_policy.graph.metadata_path import Key, finds, keys_in
from import_policy.graph.search_path import SearchPath


def dependencies_of(root: Path, names: tuple[str, ...], every: bool, python: str | None) -> Followed | None:
    """The distributions `names` (or, `every`, all installed) in the project's environment
    (`python`: the interpreter the configuration names, else found from `root`); None when
    nothing is to be followed. Read once per process while the environment's site-packages
    folders are unchanged (an install, upgrade or removal rewrites their listing): the index
    is kept warm."""
    if not (names or every):
        return None
    environment = project_environment(root, python)
    key = (environment, names, every)
    if _LAST and _LAST[0][0] == key and (_LAST[0][1].search is None or _LAST[0][1].search.fresh()):
        return _LAST[0][1]  # every folder listed (each site-packages first) as it was
    found = follow(environment, names, every)
    _LAST[:] = [(key, found)]
    return found


_LAST: list[tuple[object, Followed]] = []


class Availability:
    """Whether a module is installed, for `installed: environment`: a project module, one of
    the standard library's, or one the environment's path finds. `identity`: what the answers
    depend on (the stat data of the path's folders: an install or removal moves them)."""

    def __init__(self, search: SearchPath | None, project: frozenset[str]) -> None:
        self.search = search
        self.project = project
        self._memo: dict[str, bool] = {}
        self._metadata: dict[str, frozenset[Key]] = {}  # each path folder's distributions
        folders = search.folders if search is not None else ()
        stats = [(folder, stat_of(folder)) for folder in folders]
        self.identity = repr(stats)
        # Whether that stat data stands for the listings (cache.racy): a graph is kept under it only then.
        since = search.since if search is not None else 0
        self.settled = all(stat is None or not racy(stat, since) for _, stat in stats)

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


    def distribution(self, name: str) -> bool:
        """Whether `importlib.metadata.version(name)` finds the distribution: a `.dist-info` or
        `.egg-info` of that name in one of the path's folders, or an `.egg` folder on it, found
        and compared as importlib.metadata does (graph.metadata_path)."""
        key = "dist:" + name
        found = self._memo.get(key)
        if found is None:
            search = self.search
            found = search is not None and any(finds(name, self._keys(folder)) for folder in search.folders)
            self._memo[key] = found
        return found

    def _keys(self, folder: str) -> frozenset[Key]:
        keys = self._metadata.get(folder)
        if keys is None:
            assert self.search is not None
            listing = self.search.listing(folder)
            keys = self._metadata[folder] = keys_in(folder, listing.folders | listing.files)
        return keys


_STDLIB: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))


class Progress:
    """A long cold run over dependencies says how far it is, on stderr where that is a terminal:
    one line rewritten in place (`\\r`), from `after` seconds on, at most every `every` seconds,
    and wiped when the run is done. Nothing at all on a pipe, in CI or in an editor."""

    def __init__(self, stream: TextIO | None = None, after: float = 2.0, every: float = 0.5) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.shown = False
        self.files = 0
        self.start = time.monotonic()
        self.after = after
        self.every = every
        self.last = 0.0
        try:
            self.live = self.stream.isatty()
        except (AttributeError, ValueError):
            self.live = False

    def read(self, path: str) -> None:
        """A dependency file read (and parsed) for the graph."""
        self.files += 1
        if not self.live:
            return
        now = time.monotonic()
        if now - self.start >= self.after and now - self.last >= self.every:
            self.last = now
            self.stream.write(f"\rimport-policy: reading dependencies: {self.files} files ({now - self.start:.0f} s)")
            self.stream.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


# One per process: a run's dependency reads, shown where stderr is a terminal.
PROGRESS = Progress()


# Followed dependency files that do not parse, told by the pass as it reads them: path -> warning.
_UNPARSED: dict[str, str] = {}
_CUTS: dict[str, str] = {}


def unparsed_dependency(path: str, line: int, message: str) -> None:
    """A dependency file the graph read and could not parse: importing it raises."""
    _UNPARSED.setdefault(path, (
        f"warning: {path}:{line}: a followed dependency's file does not parse ({message}); importing it "
        "raises, so the chains through it stop there"
    ))


def cut_chain(text: str) -> None:
    """A lazy loader a rule's entry reaches imports what the pass cannot tell: a chain (to a
    forbidden name or not) may be cut there, and `check` says where, once."""
    _CUTS.setdefault(text, f"warning: {text}; a name it loads is not checked (`import-policy why` shows the chains)")


def take_warnings() -> list[str]:
    """The warnings told since the last call, once each: unparsed dependency files, then cut chains."""
    out = [_UNPARSED[path] for path in sorted(_UNPARSED)] + list(_CUTS.values())
    _UNPARSED.clear()
    _CUTS.clear()
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


__all__ = ["Availability", "Modules", "at_links", "dependencies_of", "cut_chain", "take_warnings", "unparsed_dependency"]
