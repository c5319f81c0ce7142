"""Installed distributions, read from their `.dist-info` folders (never imported), and the
modules of the followed ones as the graph looks them up.

A distribution's folder is `NAME-VERSION.dist-info` in `site-packages`; its name is compared as
packaging normalizes it (PEP 503: `Unsloth_Zoo` is `unsloth-zoo`). Its top-level modules are
`top_level.txt`'s lines where it has one, else the first part of every Python file its
`RECORD` lists. A followed module is looked up in `site-packages` as Python's path finder
does (a package before a module of its name), under a top-level name a followed
distribution installed; its path is absolute, which is how the graph tells a dependency's
file from the project's (whose paths are relative to the project root).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from import_policy.graph.environment import Environment

_SEPARATORS = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()


@dataclass(frozen=True)
class Distribution:
    name: str  # as its folder spells it
    version: str
    info: str  # the `.dist-info` folder
    site: str  # the `site-packages` it is installed in
    tops: tuple[str, ...]  # top-level modules and packages it installs
    stamp: str  # its RECORD's stat data: what a reinstall or upgrade changes

    def files(self) -> list[str]:
        """The absolute paths of its Python files, as its RECORD lists them."""
        return [os.path.join(self.site, *relative.split("/")) for relative in _python_files(self.info)]


def installed(site: str) -> dict[str, str]:
    """Normalized name -> `.dist-info` folder, for every distribution in `site`."""
    found: dict[str, str] = {}
    try:
        names = sorted(os.listdir(site))
    except OSError:
        return found
    for name in names:
        if name.endswith(".dist-info"):
            found.setdefault(normalize(name[: -len(".dist-info")].split("-")[0]), os.path.join(site, name))
    return found


def read(info: str, site: str) -> Distribution:
    """The distribution a `.dist-info` folder describes; its RECORD is parsed only where no
    `top_level.txt` names its modules (a big one takes milliseconds every run)."""
    folder = os.path.basename(info)[: -len(".dist-info")]
    name, _, version = folder.partition("-")
    listed = [line.strip().replace("/", ".") for line in _text(os.path.join(info, "top_level.txt")).splitlines()]
    if not any(listed):
        listed = [first[: -len(".py")] if first.endswith(".py") else first
                  for first in (relative.split("/")[0] for relative in _python_files(info))]
    tops = [top for top in listed if top.isidentifier() and top != "__pycache__"]
    try:
        stat = os.stat(os.path.join(info, "RECORD"))
        stamp = f"{stat.st_mtime_ns}:{stat.st_size}:{stat.st_ino}"
    except OSError:
        stamp = ""
    return Distribution(name, version, info, site, tuple(dict.fromkeys(tops)), stamp)


def _python_files(info: str) -> list[str]:
    """The Python files a RECORD lists inside site-packages, `/`-separated."""
    out: list[str] = []
    for row in csv.reader(io.StringIO(_text(os.path.join(info, "RECORD")))):
        if not row or not row[0].endswith(".py"):
            continue
        relative = row[0].replace("\\", "/")
        if not relative.startswith(("../", "/")) and ".dist-info/" not in relative:
            out.append(relative)  # not a script or data file outside site-packages
    return out


def _text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


@dataclass(frozen=True)
class Followed:
    """The followed distributions of one environment: their modules as the graph sees them."""

    environment: Environment | None
    distributions: tuple[Distribution, ...]
    missing: tuple[str, ...]  # followed names not installed (as written)
    tops: Mapping[str, str] = field(default_factory=dict, compare=False)  # top-level name -> site

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.tops)

    @property
    def identity(self) -> str:
        """What the followed modules' lookups depend on, beyond the files read: which
        distributions, where, as installed (a reinstall rewrites RECORD)."""
        described = repr(sorted((d.info, d.stamp, d.tops) for d in self.distributions))
        return hashlib.blake2b(described.encode(), digest_size=16).hexdigest()

    def files(self) -> Iterator[str]:
        for distribution in self.distributions:
            yield from distribution.files()

    def owns(self, path: str) -> bool:
        """Whether a graph path is a dependency's file (the project's are relative)."""
        return os.path.isabs(path)

    def find(self, module: str) -> str | None:
        """The followed module's file, as the path finder would pick it; None: not followed, or not there."""
        site = self.tops.get(module.partition(".")[0])
        if site is None:
            return None
        parts = module.split(".")
        if not all(part.isidentifier() for part in parts):
            return None
        inner = os.path.join(site, *parts)
        for candidate in (os.path.join(inner, "__init__.py"), inner + ".py"):
            if os.path.isfile(candidate):
                return candidate
        return None

    def module_of(self, path: str) -> tuple[str | None, bool]:
        """A dependency file's module name and whether it is a package's `__init__`."""
        for site in {s for s in self.tops.values()}:
            if path.startswith(site + os.sep):
                inner = path[len(site) + 1:].rsplit(".", 1)[0].split(os.sep)
                package = inner[-1] == "__init__"
                parts = inner[:-1] if package else inner
                if parts and all(part.isidentifier() for part in parts):
                    return ".".join(parts), package
        return None, False

    def shown(self, path: str) -> str:
        """A dependency file as a message names it: relative to its `site-packages`."""
        for site in {s for s in self.tops.values()}:
            if path.startswith(site + os.sep):
                return path[len(site) + 1:].replace(os.sep, "/")
        return path

    def distribution_of(self, module: str) -> str:
        top = module.partition(".")[0]
        for distribution in self.distributions:
            if top in distribution.tops:
                return distribution.name
        return top

    def every_module(self) -> Iterator[tuple[str, str]]:
        """Every followed module and its file (a package walk asks for all of them)."""
        for top, site in sorted(self.tops.items()):
            single = os.path.join(site, f"{top}.py")
            folder = os.path.join(site, top)
            if os.path.isdir(folder):
                for here, folders, files in os.walk(folder):
                    folders[:] = sorted(f for f in folders if f.isidentifier())
                    relative = os.path.relpath(here, site).split(os.sep)
                    for name in sorted(files):
                        if name.endswith(".py") and name[:-3].isidentifier():
                            parts = relative if name == "__init__.py" else [*relative, name[:-3]]
                            module = ".".join(parts)
                            if self.find(module) == os.path.join(here, name):
                                yield module, os.path.join(here, name)
            elif os.path.isfile(single):
                yield top, single


def follow(environment: Environment | None, names: Iterable[str], every: bool) -> Followed:
    """The followed distributions (`names`, or every one with `every`) in `environment`."""
    wanted = [(name, normalize(name)) for name in names]
    if environment is None:
        return Followed(None, (), tuple(name for name, _ in wanted))
    found: dict[str, Distribution] = {}
    tops: dict[str, str] = {}
    for site in environment.site_packages:
        infos = installed(site)
        chosen = infos if every else {key: infos[key] for _, key in wanted if key in infos}
        for key, info in chosen.items():
            if key in found:
                continue  # an earlier site-packages shadows it
            distribution = read(info, site)
            found[key] = distribution
            for top in distribution.tops:
                tops.setdefault(top, site)
    missing = tuple(name for name, key in wanted if key not in found)
    return Followed(environment, tuple(found.values()), missing, tops)


__all__ = ["Distribution", "Followed", "follow", "installed", "normalize", "read"]
