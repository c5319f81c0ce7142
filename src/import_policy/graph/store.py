"""The ROCm pass's graph as a structure kept between runs (what a language server would hold).

Per module: the links importing it makes run; per file: its heavy sites; per entry: its
reach (every module importing it runs, with the link that first reached it). `Project`
derives each from the records of many files (a flag bound in another module, a function
called across modules), so the graph keeps an inputs log: in the order first seen, every
file a derivation read (stat data and the hash of its bytes) and every module lookup
(module -> file, or none). An item derived when the log held n observations depends on
those n at most (the log only grows while `Project` works), so:

- a warm run checks the log in order and cuts it at the first observation that no longer
  holds (a changed file, a module that appeared or went away); every item derived within
  the part kept is used as stored, and nothing of it is decoded until it is asked for;
- every other item is derived again by a `Project` made only then, which reads the per-file
  records from the facts cache: the changed file is parsed again, no other file is;
- `forget(path)` does the same for one file an editor says has changed.

What this costs is precision, never soundness: an item derived late in the log is derived
again after a change to any file read before it.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from import_policy.cache.facts import content_digest
from import_policy.cache.seal import read_regular
from import_policy.facts.model import SyntaxErrorFact
from import_policy.graph.chains import Chain, ImportGraph, Link
from import_policy.graph.reach import HeavySite, Project, first_reached, with_site
from import_policy.graph.codec import (
    Items,
    Log,
    Stat,
    Stored,
    StoredEdges,
    decode_links,
    Parents,
    lookup_path,
    lookup_place,
    decode_sites,
    encode_links,
    encode_reach,
    encode_sites,
)

_DECODE_ERRORS = (ValueError, TypeError, KeyError, IndexError)
# A file changed within this long before it was read may change again within the same
# mtime tick: its stat data is not trusted, its bytes are hashed next time (as git does).
_RACY_NS = 2_000_000_000


digest = content_digest


def stat_of(path: Path | str) -> Stat | None:
    try:
        data = os.stat(path)
    except OSError:
        return None
    # The ctime too, as git: an edit that keeps the size and restores the mtime changes it.
    return (data.st_mtime_ns, data.st_size, data.st_ino, data.st_ctime_ns)


class Tree(Protocol):
    """The tree as it is now, to check the log against (`File` answers: holds, or holds with
    new stat data, or not)."""

    def file(self, path: str, how: str, stat: Stat | None, hashed: str | None) -> bool | Stat: ...

    def folder(self, folder: str) -> int | None:
        """The folder's mtime now; None when it is no folder."""
        ...

    def passed(self) -> Mapping[str, str]:
        """Module -> file of the files passed now (the module map gives them first)."""
        ...

    def lookup(self, module: str, path: str | None) -> bool: ...

    def listing(self, hashed: str) -> bool: ...


class Inputs:
    """The inputs log as the derivations add to it."""

    def __init__(self, root: Path, log: Log | None = None, roots: tuple[str, ...] = (".",)) -> None:
        self.root = root
        self.log = log or Log()
        # Where each root's modules start, as a folder path ("" for the project root).
        self.prefixes = tuple("" if r in (".", "") else r.strip("/") + "/" for r in roots)
        self._root = str(root)
        self._seen: dict[str, bool] = {}  # folders looked at this run: whether each is one

    def __len__(self) -> int:
        return self.log.count

    def _place(self) -> int:
        self.log.count += 1
        return self.log.count - 1

    def check(self, tree: Tree) -> tuple[int, bool]:
        """Where the log stops holding (its length when it all holds), and whether stat data was
        renewed; the log is cut there."""
        log = self.log
        first = log.count
        renewed = False
        for path, (place, how, stat, hashed) in list(log.files.items()):
            if place >= first:
                continue
            verdict = tree.file(path, how, stat, hashed)
            if verdict is False:
                first = place
            elif verdict is not True:
                log.files[path] = (place, how, verdict, hashed)
                renewed = True
        listing, ignores = self._check_folders(tree)
        if listing or ignores:
            again: list[str] = []
            for module, raw in log.lookups.items():
                place = lookup_place(raw)
                if place < first and self._depends(module, listing, ignores):
                    if tree.lookup(module, lookup_path(raw)):
                        again.append(module)
                    else:
                        first = place
            for module in again:  # still right: what it depends on now is watched from now on
                self.log_way(module)
            renewed = True
        for module, (place, found) in log.passed.items():
            if place < first and not tree.lookup(module, found):
                first = place
        for module, path in tree.passed().items():  # found in the tree then, given by a file passed now
            raw = log.lookups.get(module)
            if raw is not None and lookup_place(raw) < first and lookup_path(raw) != path:
                first = lookup_place(raw)
        if log.listing is not None and log.listing[0] < first and not tree.listing(log.listing[1]):
            first = log.listing[0]
        self.cut(first)
        return first, renewed

    def _check_folders(self, tree: Tree) -> tuple[set[str], set[str]]:
        """The folders whose listing changed, and those whose `.gitignore` did; each renewed."""
        listing: set[str] = set()
        ignores: set[str] = set()
        for folder, (mark, stat, hashed) in list(self.log.folders.items()):
            now = tree.folder(folder)
            if mark is None or now != (None if mark == ABSENT else mark):
                listing.add(folder)
                mark = _folder_mark(now)
            ignore = _ignore_of(folder)
            if hashed is not None:
                verdict: bool | Stat = tree.file(ignore, "g", stat, hashed)
            else:  # none was there: one that appears changes the folder's listing
                verdict = folder not in listing or self.stat(ignore) is None
            if verdict is False:
                ignores.add(folder)
                stat, hashed = self._ignore_state(ignore)
            elif verdict is not True:
                stat = verdict
            self.log.folders[folder] = (mark, stat, hashed)
        return listing, ignores

    def _depends(self, module: str, listing: set[str], ignores: set[str]) -> bool:
        """Whether a lookup's answer may have changed: a `.gitignore` on its way changed, or the
        listing of a folder that would hold its file (`a/b` for `a/b/c.py`, `a/b/c` for its
        `__init__.py`) or of the first folder on its way that was not there. Every other
        folder on its way is watched itself, so a change there shows as one of these."""
        parts = module.split(".")
        for prefix in self.prefixes:
            way = folders_on_way(prefix, parts)
            for folder in way:
                if folder in ignores:
                    return True
                mark = self.log.folders.get(folder)
                if mark is None or mark[0] == ABSENT:
                    if folder in listing:
                        return True
                    break
            if way[-2] in listing or way[-1] in listing:
                return True
        return False

    def log_way(self, module: str) -> None:
        """Watch the folders on a lookup's way, up to the first that is not there."""
        for prefix in self.prefixes:
            for folder in folders_on_way(prefix, module.split(".")):
                if not self._watch(folder):
                    break

    def _watch(self, relative: str) -> bool:
        known = self._seen.get(relative)
        if known is not None:
            return known
        try:
            data = os.stat(f"{self._root}/{relative}" if relative else self._root)
        except OSError:
            data = None
        is_folder = data is not None and stat.S_ISDIR(data.st_mode)
        self._seen[relative] = is_folder
        if relative not in self.log.folders or self.log.folders[relative][0] != _folder_mark(
            data.st_mtime_ns if data is not None and is_folder else None
        ):
            mark = _folder_mark(data.st_mtime_ns if data is not None and is_folder else None)
            ignore = self._ignore_state(_ignore_of(relative)) if is_folder else (None, None)
            self.log.folders[relative] = (mark, *ignore)
        return is_folder

    def _ignore_state(self, path: str) -> tuple[Stat | None, str | None]:
        before = self.stat(path)
        if before is None:
            return None, None
        try:
            source = read_regular(self.root / path)
        except OSError:
            return None, None
        return (None if before[0] >= time.time_ns() - _RACY_NS else before), digest(source)

    def cut(self, count: int) -> None:
        log = self.log
        if count >= log.count:
            return
        log.files = {k: v for k, v in log.files.items() if v[0] < count}
        log.lookups = {k: v for k, v in log.lookups.items() if lookup_place(v) < count}
        log.passed = {k: v for k, v in log.passed.items() if v[0] < count}
        if log.listing is not None and log.listing[0] >= count:
            log.listing = None
        log.count = count

    def looked_up(self, module: str) -> bool:
        return module in self.log.lookups or module in self.log.passed

    def stat(self, path: str) -> Stat | None:
        """Taken before the file is read: a change after it shows as new stat data."""
        return stat_of(f"{self._root}/{path}")

    def content(self, path: str) -> str | None:
        """The digest of a file's bytes when the log holds it (checked against the tree this run)."""
        found = self.log.files.get(path)
        return found[3] if found is not None else None

    def file(self, path: str, how: str, stat: Stat | None, source: bytes | None) -> None:
        if path in self.log.files:
            return
        if source is not None and stat is not None and stat[0] >= time.time_ns() - _RACY_NS:
            stat = None
        self.log.files[path] = (self._place(), how, stat, None if source is None else digest(source))

    def lookup(self, module: str, path: str | None, known: bool) -> None:
        if self.looked_up(module):
            return
        if known:
            self.log.passed[module] = (self._place(), path)
        else:
            place = self._place()
            self.log.lookups[module] = place if path is None else [place, path]


    def listed(self, modules: Mapping[str, str]) -> None:
        if self.log.listing is None:
            self.log.listing = (self._place(), listing_digest(modules))


ABSENT = -1  # a folder's mark in the log when it was not there


def _folder_mark(mtime: int | None) -> int | None:
    """How a folder is logged: its mtime, ABSENT, or None when changed too recently to trust."""
    if mtime is None:
        return ABSENT
    return None if mtime >= time.time_ns() - _RACY_NS else mtime


def _ignore_of(folder: str) -> str:
    return f"{folder}/.gitignore" if folder else ".gitignore"


def folders_on_way(prefix: str, parts: list[str]) -> list[str]:
    """The folders from the project root to where a module's package would be: for `a.b.c`
    under the root, "", "a", "a/b" (which would hold `c.py`) and "a/b/c" (its `__init__.py`)."""
    way = [""]
    for part in [*prefix.strip("/").split("/"), *parts]:
        if part:
            way.append(f"{way[-1]}/{part}" if way[-1] else part)
    return way


def listing_digest(modules: Mapping[str, str]) -> str:
    return digest("\0".join(f"{module}\0{path}" for module, path in sorted(modules.items())).encode())


class Recorder(Mapping[str, str]):
    """The project's module map as `Project` sees it, every lookup logged.

    A module the files passed do not name is found in the tree (`ProjectModules`), and
    whether it is there depends only on the folders on its way (their listings, whose
    mtime changes with every entry added, removed or renamed), their `.gitignore` files and
    the configuration: those are logged before the lookup, so a warm run checks a few
    hundred folders instead of looking thousands of modules up again."""

    def __init__(self, modules: Mapping[str, str], known: Mapping[str, str], inputs: Inputs) -> None:
        self.modules = modules
        self.known = known  # module -> file of the files passed, which the map gives first
        self.inputs = inputs

    def __getitem__(self, module: str) -> str:
        path: str | None = self.known.get(module)
        from_known = path is not None
        if path is None:
            if not self.inputs.looked_up(module):
                self.inputs.log_way(module)
            try:
                path = self.modules[module]
            except KeyError:
                path = None
        self.inputs.lookup(module, path, from_known)
        if path is None:
            raise KeyError(module)
        return path

    def __iter__(self) -> Iterator[str]:
        self.inputs.listed(self.modules)
        return iter(self.modules)

    def __len__(self) -> int:
        self.inputs.listed(self.modules)
        return len(self.modules)


# Makes the `Project` that derives what is missing, over the logged module map.
MakeProject = Callable[[Mapping[str, str], Inputs], Project]
# Gives the stored links of the modules (None: none kept), read only when first needed.
LoadEdges = Callable[[], "StoredEdges | None"]


class ModuleGraph:
    """Edges, sites and reach, from storage while their inputs hold, else derived."""

    def __init__(
        self, root: Path, modules: Mapping[str, str], make: MakeProject, stored: Stored | None = None,
        tree: Tree | None = None, load_edges: LoadEdges | None = None, known: Mapping[str, str] | None = None,
        roots: tuple[str, ...] = (".",),
    ) -> None:
        if stored is None or tree is None:
            stored = Stored()
        self.inputs = Inputs(root, stored.log, roots)
        before = len(self.inputs)
        kept, renewed = self.inputs.check(tree) if tree is not None else (0, False)
        self._raw_sites = {name: item for name, item in stored.sites.items() if item[0] <= kept}
        self._raw_reach = {name: item for name, item in stored.reach.items() if item[0] <= kept}
        self.generation = stored.generation
        self._load_edges = load_edges if kept > 0 else None
        self._raw_edges: Items | None = None  # read on first need
        self.cut = kept < before  # what was derived after the cut went with it
        self.changed = renewed or self.cut  # whether anything here differs from what was stored
        self.modules = Recorder(modules, known or {}, self.inputs)
        self._make = make
        self._project: Project | None = None
        self._edges: dict[str, tuple[int, list[Link]]] = {}
        self._sites: dict[str, tuple[int, list[HeavySite]]] = {}
        self._reach: dict[str, tuple[int, Mapping[str, Link | None], Mapping[str, str]]] = {}
        self._graph = ImportGraph(self.modules, self.edges)
        self._edges_changed = False
        self.derived = 0  # items derived in this run rather than taken from storage (a test hook)

    @property
    def project(self) -> Project:
        """The derivation, made on first need: a fully warm run never builds one."""
        if self._project is None:
            self._project = self._make(self.modules, self.inputs)
        return self._project

    @property
    def unparsed(self) -> Mapping[str, SyntaxErrorFact]:
        """Files this run's derivation read and could not parse (none when nothing was derived)."""
        return self._project.unparsed if self._project is not None else {}

    def _stored_edges(self) -> Items:
        if self._raw_edges is None:
            found = self._load_edges() if self._load_edges is not None else None
            kept = len(self.inputs)
            self._raw_edges = {} if found is None or found.generation != self.generation else {
                name: item for name, item in found.edges.items() if item[0] <= kept
            }
        return self._raw_edges

    def forget(self, path: str) -> None:
        """A file changed: cut the log where it was first read, and drop what came after."""
        self._stored_edges()
        found = self.inputs.log.files.get(path)
        if found is None:
            return
        at = found[0]
        self.inputs.cut(at)
        for table in (self._stored_edges(), self._raw_sites, self._raw_reach):
            for name in [name for name, item in table.items() if item[0] > at]:
                del table[name]
        for name in [name for name, item in self._edges.items() if item[0] > at]:
            del self._edges[name]
        for name in [name for name, item in self._sites.items() if item[0] > at]:
            del self._sites[name]
        for name in [name for name, item in self._reach.items() if item[0] > at]:
            del self._reach[name]
        self._project = None
        self._graph = ImportGraph(self.modules, self.edges)
        self.cut = self.changed = True

    # --- per module ---------------------------------------------------------------

    def edges(self, module: str) -> list[Link]:
        """The links importing `module` makes run (in source order, one per target)."""
        found = self._edges.get(module)
        if found is not None:
            return found[1]
        raw = self._stored_edges().pop(module, None)
        if raw is not None:
            try:
                links = decode_links(module, raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                self._edges[module] = (raw[0], links)
                return links
        links = list(self.project.edges(module))
        self._edges[module] = (len(self.inputs), links)
        self._edges_changed = True
        self._derived()
        return links

    def sites(self, path: str) -> list[HeavySite]:
        """The heavy sites of one file, in source order."""
        found = self._sites.get(path)
        if found is not None:
            return found[1]
        raw = self._raw_sites.pop(path, None)
        if raw is not None:
            try:
                sites = decode_sites(path, raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                self._sites[path] = (raw[0], sites)
                return sites
        sites = list(self.project.sites(path))
        self._sites[path] = (len(self.inputs), sites)
        self._derived()
        return sites

    def _derived(self) -> None:
        self.derived += 1
        self.changed = True

    # --- per entry ----------------------------------------------------------------

    def _reached(self, entry: str) -> tuple[Mapping[str, Link | None], Mapping[str, str]]:
        found = self._reach.get(entry)
        if found is not None:
            return found[1], found[2]
        raw = self._raw_reach.pop(entry, None)
        if raw is not None:
            try:
                stored = Parents(raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                self._reach[entry] = (raw[0], stored, stored.paths)
                return stored, stored.paths
        parents = self._graph.reach(entry)
        paths = {module: self.modules[module] for module in parents}
        self._reach[entry] = (len(self.inputs), parents, paths)
        self._derived()
        return parents, paths

    def reach(self, entry: str) -> Mapping[str, Link | None]:
        """Every module that importing `entry` runs, with the link it was first reached by (BFS)."""
        return self._reached(entry)[0]

    chain = staticmethod(ImportGraph.chain)

    def reachable_sites(self, entry: str) -> Iterator[tuple[Chain, HeavySite]]:
        """Each heavy site `entry` reaches, with the shortest chain to it."""
        parents, paths = self._reached(entry)
        for module in parents:
            for site in self.sites(paths[module]):
                yield with_site(self.chain(entry, parents, module), site), site

    def first_reached(self, entries: Iterable[str]) -> Iterator[tuple[Chain, HeavySite]]:
        return first_reached(entries, self.reachable_sites)

    # --- storage ------------------------------------------------------------------

    def stored(self) -> tuple[Stored, StoredEdges | None]:
        """What to keep: the log and every item still derived from it; the links only when
        they changed (else the stored ones stay, under the same generation)."""
        edges: StoredEdges | None = None
        generation = self.generation
        if self.cut or self._edges_changed or not generation:
            import secrets  # only a graph that changed is stored

            generation = secrets.token_hex(8)
            encoded = {m: (mark, encode_links(links[0].path if links else "", links)) for m, (mark, links) in self._edges.items()}
            edges = StoredEdges(generation, {**self._stored_edges(), **encoded})
        out = Stored(self.inputs.log, generation=generation)
        out.sites = {**self._raw_sites, **{p: (mark, encode_sites(sites)) for p, (mark, sites) in self._sites.items()}}
        out.reach = {**self._raw_reach, **{
            e: (mark, encode_reach(parents, paths)) for e, (mark, parents, paths) in self._reach.items()
        }}
        return out, edges


