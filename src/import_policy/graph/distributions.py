"""Installed distributions, found as importlib.metadata finds them on the environment's path
(never imported), and the modules of the followed ones as the graph looks them up.

A distribution is a `NAME-VERSION.dist-info` folder, or a legacy `.egg-info` (folder or file)
or `.egg` (graph/egg_info.py), in a folder of the path (site-packages, or one a `.pth` file
adds, as `setup.py develop` does); its name is compared as importlib.metadata compares it
(PEP 503 for an `-info`: `Unsloth_Zoo` is `unsloth-zoo`; an `.egg`'s lowercased with `-` as
`_`), and the first of a name on the path wins. Modules are found on the environment's path
(graph/search_path.py) as Python finds them, and a found file belongs to the distribution that
owns it: the one whose `RECORD` (an `.egg-info`'s `installed-files.txt`) lists it or the folder
it is in (a file added after the install belongs to its package's distribution), else the one
whose `top_level.txt` names its top-level module in the folder holding its metadata, else the
one whose name is the folder's; an `.egg` folder owns what it holds. An editable install owns
what its finder maps and what its `.pth` file adds. `follow` reads the modules of the followed
distributions; a followed module's path is absolute, which is how the graph tells a
dependency's file from the project's (whose paths are relative to the project root).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from import_policy.cache.racy import racy
from import_policy.cache.stat import Stat, stat_of
from import_policy.graph.egg_info import Told, egg_folder, egg_info, is_zipped_egg, top_level_names, zipped_egg
from import_policy.graph.environment import Environment
from import_policy.graph.metadata_path import Key, finds, found_in, legacy, normalize
from import_policy.graph.search_path import SearchPath, Spec, file_text


@dataclass(frozen=True)
class Distribution:
    name: str  # as its folder spells it
    version: str
    info: str  # the `.dist-info` folder (an `.egg-info` folder or file, an `.egg`'s `EGG-INFO`)
    site: str  # the path folder it is found in (a `site-packages`, a `.pth`'s folder, the `.egg`), RECORD's base
    tops: tuple[str, ...]  # top-level modules and packages it installs (as far as it tells)
    stamp: str  # its RECORD's stat data (an egg's: of the files it is told by): what a reinstall or upgrade changes
    record: tuple[str, ...] = field(default=(), compare=False, repr=False)  # RECORD's paths, `/`-separated
    kind: str = "dist-info"  # or "egg-info" (a folder or a file), "egg" (a folder), "zipped-egg" (an archive)

    @property
    def key(self) -> str:
        return normalize(self.name)

    @property
    def lookup(self) -> Key:
        """The key importlib.metadata finds it under (graph.metadata_path)."""
        return ("egg", legacy(self.name)) if self.kind in ("egg", "zipped-egg") else ("info", self.key)

    def files(self) -> list[str]:
        """The absolute paths of its Python files, as its RECORD lists them."""
        return [os.path.join(self.site, *relative.split("/")) for relative in self.record
                if relative.endswith(".py") and _inside(relative)]


def found(search: SearchPath) -> dict[str, Distribution]:
    """Every distribution on the path by key, as importlib.metadata finds them: in each path
    folder in order, then the `.egg` archives a `.pth` adds; the first of a key wins."""
    everything: dict[str, Distribution] = {}
    for folder in search.folders:
        listing = search.listing(folder)
        for entry, name, key in found_in(folder, listing.folders | listing.files):
            path = os.path.join(folder, entry)
            if key[0] == "egg":
                inside = (entry for entry in sorted(listing.folders | set(listing.modules)) if entry != "EGG-INFO")
                distribution = _told(egg_folder(folder, name), path, folder, "egg", inside)
            elif not entry.lower().endswith(".egg-info"):
                if entry not in listing.folders:
                    continue
                distribution = read(path, folder)
            else:
                distribution = _told(egg_info(path, folder, name, entry in listing.files), path, folder, "egg-info")
            everything.setdefault(distribution.key, distribution)
    for archive in search.archives:
        if is_zipped_egg(archive):
            distribution = _told(zipped_egg(archive), os.path.join(archive, "EGG-INFO"), archive, "zipped-egg")
            everything.setdefault(distribution.key, distribution)
    return everything


def named(name: str, everything: Mapping[str, Distribution]) -> Distribution | None:
    """The distribution `importlib.metadata.distribution(name)` finds among `everything`."""
    distribution = everything.get(normalize(name))
    return distribution if distribution is not None and finds(name, frozenset({distribution.lookup})) else None


def _told(told: Told, info: str, site: str, kind: str, inside: Iterable[str] = ()) -> Distribution:
    """A legacy distribution: its top-level modules are those `top_level.txt` names (an `.egg`
    folder's: and every module and folder `inside` it), else those its file list holds, else its name's."""
    listed = [*told.listed, *inside]
    if not listed:
        listed = [_top_of(relative) for relative in told.record if _inside(relative) and not _metadata(relative)]
    if not listed and not told.record:
        listed = [told.name.replace("-", "_").replace(".", "_")]  # nothing tells: the folder of its name
    tops = [top for top in listed if top.isidentifier() and top != "__pycache__"]
    stamp = ";".join(":".join(str(part) for part in stat_of(path) or ()) for path in told.read)
    return Distribution(told.name, told.version, info, site, tuple(dict.fromkeys(tops)), stamp, told.record, kind)


def _metadata(relative: str) -> bool:
    """A path inside a distribution's own metadata folder."""
    return ".dist-info/" in relative or relative.split("/")[0].lower().endswith(".egg-info")


def read(info: str, site: str) -> Distribution:
    """The distribution a `.dist-info` folder describes."""
    folder = os.path.basename(info)[: -len(".dist-info")]
    name, _, version = folder.rpartition("-") if "-" in folder else (folder, "", "")
    record = tuple(record_paths(file_text(os.path.join(info, "RECORD"))))
    listed = list(top_level_names(os.path.join(info, "top_level.txt")))
    if not any(listed):
        listed = [_top_of(relative) for relative in record if _inside(relative) and not _metadata(relative)]
    if not any(listed) and not record:
        listed = [name.replace("-", "_").replace(".", "_")]  # nothing tells: the folder of its name
    tops = [top for top in listed if top.isidentifier() and top != "__pycache__"]
    stat = stat_of(os.path.join(info, "RECORD"))
    stamp = "" if stat is None else ":".join(str(part) for part in stat)
    return Distribution(name, version, info, site, tuple(dict.fromkeys(tops)), stamp, record)


def record_paths(text: str) -> Iterator[str]:
    """The first field of each RECORD row (a CSV file), `/`-separated: read without csv's
    field limit and without failing on any input (a broken row gives what it holds)."""
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith('"'):
            out: list[str] = []
            at = 1
            while at < len(line):
                end = line.find('"', at)
                if end < 0:
                    out.append(line[at:])
                    break
                out.append(line[at:end])
                if line.startswith('"', end + 1):  # a doubled quote is one quote
                    out.append('"')
                    at = end + 2
                    continue
                break
            path = "".join(out)
        else:
            path = line.partition(",")[0]
        if path:
            yield path.replace("\\", "/")


def _top_of(relative: str) -> str:
    first = relative.split("/")[0]
    if "/" not in relative:
        for suffix in (".py", ".pyc"):
            if first.endswith(suffix):
                return first[: -len(suffix)]
        return first.split(".")[0] if first.endswith((".so", ".pyd")) else ""
    return first


def _inside(relative: str) -> bool:
    """A RECORD path inside site-packages (not a script or data file outside it)."""
    return not relative.startswith(("../", "/")) and ":" not in relative.split("/")[0]


def _metadata_name(info: str) -> str | None:
    """The `Name:` its METADATA (an egg's PKG-INFO) gives (as the project spells it; the
    folder's name is escaped)."""
    if os.path.isfile(info):
        metadata = info  # a distutils `.egg-info` file is PKG-INFO itself
    else:
        metadata = os.path.join(info, "PKG-INFO" if info.lower().endswith("egg-info") else "METADATA")
    try:
        with open(metadata, encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    for line in head.splitlines():
        if not line:
            break
        key, _, value = line.partition(":")
        if key.strip().lower() == "name" and value.strip():
            return value.strip()
    return None


class Owners:
    """Which distributions own a path: those whose RECORD lists it or a folder above it
    (the longest such prefix decides), else by `top_level.txt`, else by the folder's name."""

    def __init__(self, distributions: Iterable[Distribution], search: SearchPath) -> None:
        self._by_path: dict[str, list[str]] = {}
        self._memo: dict[str, tuple[str, ...]] = {}
        added_by: dict[str, list[str]] = {}  # a `.pth` or finder file -> the folders or files it adds
        for added, pth in search.pth.items():
            added_by.setdefault(pth, []).append(added)
        for mapped, finder in search.editable.values():
            added_by.setdefault(finder, []).append(mapped)
        for distribution in distributions:
            listed = False
            key = distribution.key
            for relative in distribution.record:
                if not _inside(relative) or _metadata(relative) or "__pycache__" in relative:
                    continue
                at = distribution.site
                for part in relative.split("/"):  # each folder on its way, then the file
                    if part in ("", "."):
                        continue
                    at = f"{at}{os.sep}{part}"
                    self._claim(at, key)
                listed = True
                for added in added_by.get(at, ()):
                    self._claim(added, key)
            if distribution.kind == "egg":  # an `.egg` folder holds only what it installs
                self._claim(distribution.site, key)
            elif not listed:  # top_level.txt, else the folder of its name
                for top in distribution.tops:
                    self._claim(os.path.join(distribution.site, top), distribution.key)
                    self._claim(os.path.join(distribution.site, top + ".py"), distribution.key)
        self._sites = search.sites

    def _claim(self, path: str, key: str) -> None:
        keys = self._by_path.get(path)
        if keys is None:
            self._by_path[path] = [key]
        elif key not in keys:
            keys.append(key)

    def of(self, path: str) -> tuple[str, ...]:
        """The keys of the distributions that own `path` (none: no distribution tells)."""
        found = self._memo.get(path)
        if found is None:
            found = ()
            at = os.path.normpath(path)
            while True:
                keys = self._by_path.get(at)
                if keys:
                    found = tuple(keys)
                    break
                parent = os.path.dirname(at)
                if parent == at or at in self._sites:
                    break
                at = parent
            self._memo[path] = found
        return found


@dataclass(frozen=True)
class Followed:
    """The followed distributions of one environment: their modules as the graph sees them."""

    environment: Environment | None
    distributions: tuple[Distribution, ...]
    missing: tuple[str, ...]  # followed names not installed (as written)
    tops: Mapping[str, str] = field(default_factory=dict, compare=False)  # top-level name -> distribution key
    search: SearchPath | None = field(default=None, compare=False, repr=False)
    owners: Owners | None = field(default=None, compare=False, repr=False)
    every: bool = False
    names_by_key: Mapping[str, str] = field(default_factory=dict, compare=False)  # key -> name as its folder spells it

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.tops)

    @cached_property
    def identity(self) -> str:
        """What the followed modules' lookups depend on, beyond the files read: which
        distributions, where, as installed (a reinstall rewrites RECORD), the path, and the
        stat data of every folder a lookup lists (a module added or removed moves it)."""
        folders = self.search.folders if self.search is not None else ()
        mapped = sorted(self.search.editable.items()) if self.search is not None else []
        listed = self._listed
        described = repr((sorted((d.info, d.stamp, d.tops) for d in self.distributions), folders, mapped, listed))
        return hashlib.blake2b(described.encode(), digest_size=16).hexdigest()

    @cached_property
    def _listed(self) -> list[tuple[str, Stat | None]]:
        return [(folder, stat_of(folder)) for folder in sorted(set(self.read()[1]))]  # memoized

    @property
    def settled(self) -> bool:
        """Whether the stat data `identity` holds stands for the listings read (cache.racy):
        a graph is kept under it only then."""
        since = self.search.since if self.search is not None else 0
        return all(stat is None or not racy(stat, since) for _, stat in self._listed)

    def files(self) -> Iterator[str]:
        for distribution in self.distributions:
            yield from distribution.files()

    def owns(self, path: str) -> bool:
        """Whether a graph path is a dependency's file (the project's are relative)."""
        return os.path.isabs(path)

    def followed(self, path: str) -> bool:
        """Whether a found file belongs to a followed distribution."""
        if self.owners is None:
            return False
        keys = self.owners.of(path)
        return any(key in self.names_by_key for key in keys)

    def spec(self, module: str) -> Spec | None:
        if self.search is None or module.partition(".")[0] not in self.tops:
            return None
        return self.search.find(module)

    def find(self, module: str) -> str | None:
        """The followed module's file, as the path finder would pick it; None: not followed, or not there."""
        spec = self.spec(module)
        if spec is None or spec.file is None or not spec.file.endswith(".py"):
            return None
        return spec.file if self.followed(spec.file) else None

    def module_of(self, path: str) -> tuple[str | None, bool]:
        """A dependency file's module name and whether it is a package's `__init__`."""
        if self.search is None:
            return None, False
        for folder, prefix in self.search.roots_of(path):
            if path.startswith(folder + os.sep):
                inner = path[len(folder) + 1:].rsplit(".", 1)[0].split(os.sep)
                package = inner[-1] == "__init__"
                parts = [*([prefix] if prefix else []), *(inner[:-1] if package else inner)]
                if parts and all(part.isidentifier() for part in parts) and self.find(".".join(parts)) == path:
                    return ".".join(parts), package
        return None, False

    def shown(self, path: str) -> str:
        """A dependency file as a message names it: relative to the path folder it is found in."""
        module, package = self.module_of(path)
        if module is not None:
            return "/".join(module.split(".")) + ("/__init__.py" if package else ".py")
        return path

    def distribution_of_file(self, path: str) -> str:
        """The distribution that holds a dependency's file, as its folder spells it."""
        keys = self.owners.of(path) if self.owners is not None else ()
        followed = [key for key in keys if key in self.names_by_key] or list(keys)
        if not followed:
            return os.path.basename(path)
        distribution = next((d for d in self.distributions if d.key == followed[0]), None)
        return _metadata_name(distribution.info) or distribution.name if distribution is not None else followed[0]

    def every_module(self) -> Iterator[tuple[str, str]]:
        """Every followed module and its file (a package walk asks for all of them)."""
        for top in sorted(self.tops):
            spec = self.spec(top)
            if spec is not None:
                yield from self._walk(spec)

    def _walk(self, spec: Spec) -> Iterator[tuple[str, str]]:
        if spec.file is not None and spec.file.endswith(".py") and self.followed(spec.file):
            yield spec.name, spec.file
        if self.search is not None and spec.locations:
            for inner in self.search.submodules(spec):
                yield from self._walk(inner)

    def read(self) -> tuple[list[str], list[str]]:
        """What the graph may read of the followed distributions: every followed module's file,
        and the folders listed to find them (the path's, and each followed package's); walked once."""
        return self._read

    @cached_property
    def _read(self) -> tuple[list[str], list[str]]:
        files: list[str] = []
        folders: list[str] = list(self.search.folders) if self.search is not None else []
        for top in sorted(self.tops):
            spec = self.spec(top)
            if spec is not None:
                self._gather(spec, files, folders)
        return files, folders

    def _gather(self, spec: Spec, files: list[str], folders: list[str]) -> None:
        if spec.file is not None and spec.file.endswith(".py") and self.followed(spec.file):
            files.append(spec.file)
        if self.search is not None and spec.locations:
            folders.extend(spec.locations)
            for inner in self.search.submodules(spec):
                self._gather(inner, files, folders)


def follow(environment: Environment | None, names: Iterable[str], every: bool) -> Followed:
    """The followed distributions (`names`, or every one with `every`) in `environment`."""
    wanted = [(name, normalize(name)) for name in names]
    if environment is None:
        return Followed(None, (), tuple(name for name, _ in wanted))
    search = SearchPath(environment.site_packages)
    everything = found(search)  # an earlier folder of the path shadows a later one
    chosen = everything if every else {
        distribution.key: distribution for distribution in (named(name, everything) for name, _ in wanted)
        if distribution is not None
    }
    tops: dict[str, str] = {}
    for key, distribution in chosen.items():
        for top in _tops(distribution, search):
            tops.setdefault(top, key)
    missing = tuple(name for name, _ in wanted if named(name, everything) is None)
    owners = Owners(everything.values(), search)
    by_key = {key: distribution.name for key, distribution in chosen.items()}
    return Followed(environment, tuple(chosen.values()), missing, tops, search, owners, every, by_key)


def _tops(distribution: Distribution, search: SearchPath) -> list[str]:
    """The top-level names a distribution installs, its editable finder's and `.pth` folders' included."""
    out = list(distribution.tops)
    for relative in distribution.record:
        if "/" in relative or not relative.endswith((".pth", ".py")):
            continue  # finders and `.pth` files stand at the top of site-packages
        target = os.path.join(distribution.site, relative)
        for top, (_, finder) in search.editable.items():
            if finder == target:
                out.append(top)
        for added, pth in search.pth.items():
            if pth == target:
                listing = search.listing(added)
                out.extend(f for f in listing.folders if f.isidentifier())
                out.extend(f[:-3] for f in listing.files if f.endswith(".py") and f[:-3].isidentifier())
    return [top for top in dict.fromkeys(out) if top.isidentifier() and not top.startswith("__editable__")]


def unfound(followed: Followed) -> list[Distribution]:
    """The followed distributions none of whose modules the path finds (or that tell none); a
    zipped `.egg`'s modules are never read (zipimport reads them, the graph does not)."""
    search = followed.search
    if search is None:
        return []
    out = []
    for distribution in followed.distributions:
        if distribution.kind == "zipped-egg":
            out.append(distribution)
            continue
        tops = [top for top, key in followed.tops.items() if key == distribution.key]
        tops += [top for top in _tops(distribution, search) if top not in tops]
        if not any(search.find(top) is not None for top in tops):
            out.append(distribution)
    return out


__all__ = ["Distribution", "Followed", "Owners", "follow", "found", "named", "normalize", "read", "record_paths", "unfound"]
