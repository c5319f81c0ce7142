"""The module graph as a structure kept between runs (what a language server would hold).

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
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

from import_policy.cache.facts import content_digest
from import_policy.cache.racy import kept, now_ns
from import_policy.cache.stat import Stat, of_result, stat_of
from import_policy.cache.seal import read_regular
from import_policy.discovery.tracked import index_stat
from import_policy.facts.records.model import SyntaxErrorFact
from import_policy.project.modules import ProjectModules
from import_policy.graph.chains import Chain, ImportGraph, Link
from import_policy.graph.question import Question
from import_policy.graph.reach import HeavySite, Project, first_reached, with_site
from import_policy.graph.value_uses import ValueUse
from import_policy.graph.codec import (
    Items,
    Log,
    Stored,
    StoredEdges,
    decode_cuts,
    decode_links,
    Parents,
    lookup_path,
    lookup_place,
    decode_sites,
    decode_uses,
    encode_links,
    encode_uses,
    encode_reach,
    encode_sites,
)

_DECODE_ERRORS = (ValueError, TypeError, KeyError, IndexError)


digest = content_digest


class Tree(Protocol):
    """The tree as it is now, to check the log against (`File` answers: holds, or holds with
    new stat data, or not)."""

    def file(self, path: str, how: str, stat: Stat | None, hashed: str | None) -> bool | Stat: ...

    def folder(self, folder: str) -> Stat | None:
        """The folder's stat data now; None when it is no folder."""
        ...

    def names(self, folder: str) -> str:
        """The digest of the folder's listing now (`listing_of`); ABSENT when it is no folder."""
        ...

    def passed(self) -> Mapping[str, str]:
        """Module -> file of the files passed now (the module map gives them first)."""
        ...

    def lookup(self, module: str, path: str | None) -> bool: ...

    def index(self) -> Stat | None:
        """The stat data of git's index now (None without one)."""
        ...

    def listing(self, hashed: str) -> bool: ...


class Inputs:
    """The inputs log as the derivations add to it."""

    def __init__(self, root: Path, log: Log | None = None, roots: tuple[str, ...] = (".",), since: int = 0) -> None:
        """`since`: when the engine began reading the files whose facts it passes (0: now),
        before anything the log records is read: the racy-clean rule's moment (cache.racy)."""
        self.root = root
        self.since = since or now_ns()
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
        if log.index is not None:
            now = tree.index()
            if log.index[0] is None or now != log.index[0]:  # which files git tracks may have changed
                for module in log.index[1]:
                    raw = log.lookups.get(module)
                    if raw is not None and lookup_place(raw) < first and not tree.lookup(module, lookup_path(raw)):
                        first = lookup_place(raw)
                log.index = (kept(now, self.since), log.index[1])
                renewed = True
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
            # A folder's stat data moves with every entry added, removed or renamed (its ctime
            # even where `cp -a`, `rsync -a` or `tar` restores its mtime); where it moved, or
            # was too recent to trust, its listing is what is compared.
            now = tree.folder(folder)
            if mark[1] is None or now != mark[1]:
                names = tree.names(folder)
                if names != mark[0]:
                    listing.add(folder)
                mark = (names, kept(now, self.since))
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
            for folder in walk_way(prefix, parts):
                if folder in ignores:
                    return True
                mark = self.log.folders.get(folder)
                if mark is None or mark[0][0] == ABSENT:
                    if folder in listing:
                        return True
                    break
            holder, package = _last_two(prefix, parts)
            if holder in listing or package in listing:
                return True
        return False

    def log_way(self, module: str) -> None:
        """Watch the folders on a lookup's way, up to the first that is not there."""
        for prefix in self.prefixes:
            for folder in walk_way(prefix, module.split(".")):
                if not self._watch(folder):
                    break

    def _watch(self, relative: str) -> bool:
        known = self._seen.get(relative)
        if known is not None:
            return known
        path = f"{self._root}/{relative}" if relative else self._root
        now = folder_stat(path)  # before its listing: a change after it moves it again
        is_folder = now is not None
        self._seen[relative] = is_folder
        if relative not in self.log.folders:  # else checked against the tree at this run's start
            ignore = self._ignore_state(_ignore_of(relative)) if is_folder else (None, None)
            self.log.folders[relative] = ((listing_of(path), kept(now, self.since)), *ignore)
        return is_folder

    def _ignore_state(self, path: str) -> tuple[Stat | None, str | None]:
        before = self.stat(path)
        if before is None:
            return None, None
        try:
            source = read_regular(self.root / path)
        except OSError:
            return None, None
        return kept(before, self.since), digest(source)

    def asked_git(self, module: str, index: Stat | None) -> None:
        """A lookup whose answer depended on which files git tracks (`index`: the stat data of
        its index, taken before): looked up again whenever the index changes."""
        if self.log.index is None:
            self.log.index = (kept(index, self.since), [])
        elif index != self.log.index[0]:
            self.log.index = (None, self.log.index[1])
        self.log.index[1].append(module)

    def cut(self, count: int) -> None:
        log = self.log
        if count >= log.count:
            return
        log.files = {k: v for k, v in log.files.items() if v[0] < count}
        log.lookups = {k: v for k, v in log.lookups.items() if lookup_place(v) < count}
        if log.index is not None:
            kept = [module for module in log.index[1] if module in log.lookups]
            log.index = (log.index[0], kept) if kept else None
        log.passed = {k: v for k, v in log.passed.items() if v[0] < count}
        if log.listing is not None and log.listing[0] >= count:
            log.listing = None
        log.count = count

    def looked_up(self, module: str) -> bool:
        return module in self.log.lookups or module in self.log.passed

    def stat(self, path: str) -> Stat | None:
        """Taken before the file is read: a change after it shows as new stat data."""
        return stat_of(os.path.join(self._root, path))  # a followed dependency's path is absolute

    def how(self, path: str) -> str | None:
        """How the log's derivation read a file: "e" (the engine's facts), "r" (read and
        parsed by the pass), "s" (read, and turned down by the prefilter)."""
        found = self.log.files.get(path)
        return found[1] if found is not None else None

    def content(self, path: str) -> str | None:
        """The digest of a file's bytes when the log holds it (checked against the tree this run)."""
        found = self.log.files.get(path)
        return found[3] if found is not None else None

    def file(self, path: str, how: str, stat: Stat | None, hashed: str | None) -> None:
        """`hashed`: the digest of the bytes the derivation read (None: unreadable); `stat`,
        taken before them, or (the engine's files, "e") after the engine read them, which it
        did after `since`: either way stat data racily clean at `since` (cache.racy: a change
        after it may not have moved it) is not kept, and the bytes are hashed next time."""
        if path in self.log.files:
            return
        if hashed is not None:
            stat = kept(stat, self.since)
        self.log.files[path] = (self._place(), how, stat, hashed)

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


ABSENT = ""  # a folder's listing in the log when it was not there


# The log's stat data of git's index where there is none (no work tree, or no index yet): a
# value no file's stat data takes, so that it compares equal run after run, and unequal once an
# index appears. The log's None means something else: stat data too recent to trust.
NO_INDEX = Stat(0, 0, 0, 0)


def index_of(root: Path) -> Stat:
    """The stat data of git's index for the work tree holding `root` (NO_INDEX without one)."""
    found = index_stat(root)
    return NO_INDEX if found is None else found


def folder_stat(path: str) -> Stat | None:
    """A folder's stat data (as `stat_of`); None when it is no folder."""
    try:
        data = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(data.st_mode):
        return None
    return of_result(data)


def listing_of(path: str) -> str:
    """What a folder holds, as a digest: each name, and whether it is a folder (a link is
    what it leads to, as a lookup sees it); ABSENT when it is no folder."""
    try:
        with os.scandir(path) as entries:
            names = sorted(f"{entry.name}/" if _is_dir(entry) else entry.name for entry in entries)
    except OSError:
        return ABSENT
    return digest("\0".join(names).encode("utf-8", "surrogateescape"))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _ignore_of(folder: str) -> str:
    return f"{folder}/.gitignore" if folder else ".gitignore"


def walk_way(prefix: str, parts: list[str]) -> Iterator[str]:
    """The folders from the project root to where a module's package would be: for `a.b.c`
    under the root, "", "a", "a/b" (which would hold `c.py`) and "a/b/c" (its `__init__.py`),
    one at a time: a caller that stops at the first folder that is not there pays for the
    folders up to it, however many segments the name has."""
    last = ""
    yield last
    for part in [*prefix.strip("/").split("/"), *parts]:
        if part:
            last = f"{last}/{part}" if last else part
            yield last


def _last_two(prefix: str, parts: list[str]) -> tuple[str, str]:
    """The last two folders of `walk_way` (the one holding the module's file, and its package's)."""
    pieces = [part for part in (*prefix.strip("/").split("/"), *parts) if part]
    return "/".join(pieces[:-1]), "/".join(pieces)


def listing_digest(modules: Mapping[str, str]) -> str:
    return digest("\0".join(f"{module}\0{path}" for module, path in sorted(modules.items())).encode())


class Recorder(Mapping[str, str]):
    """The project's module map as `Project` sees it, every lookup logged.

    A module the files passed do not name is found in the tree (`ProjectModules`), and
    whether it is there depends only on the folders on its way (their listings, whose
    mtime changes with every entry added, removed or renamed), their `.gitignore` files and
    the configuration: those are logged before the lookup, so a warm run checks a few
    hundred folders instead of looking thousands of modules up again."""

    def __init__(
        self, modules: Mapping[str, str], known: Mapping[str, str], inputs: Inputs, index: Stat | None = None,
    ) -> None:
        self.modules = modules
        self.known = known  # module -> file of the files passed, which the map gives first
        self.inputs = inputs
        self.index = index  # git's index as it was before any lookup asked which files it tracks

    def __getitem__(self, module: str) -> str:
        # The tree is asked even for a module a passed file stands for: a package, or a file
        # under an earlier root, is the one Python imports whatever the run names.
        first = not self.inputs.looked_up(module)
        if first:
            self.inputs.log_way(module)
        path: str | None
        try:
            path = self.modules[module]
        except KeyError:
            path = None
        if first and isinstance(self.modules, ProjectModules) and self.modules.asked_git(module):
            self.inputs.asked_git(module, self.index)
        from_known = path is not None and path == self.known.get(module)
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


class _Shared:
    """What every question asked of one graph shares: the inputs log, the links, each entry's
    reach and the derivation; only the heavy sites are each question's own (`ModuleGraph.asking`)."""

    def __init__(
        self, root: Path, modules: Mapping[str, str], make: MakeProject, stored: Stored | None,
        tree: Tree | None, load_edges: LoadEdges | None, known: Mapping[str, str] | None,
        roots: tuple[str, ...], since: int,
    ) -> None:
        if stored is None or tree is None:
            stored = Stored()
        self.inputs = Inputs(root, stored.log, roots, since)
        before = len(self.inputs)
        kept, renewed = self.inputs.check(tree) if tree is not None else (0, False)
        # Per question (`sites_key`): each file's sites as stored, kept where their inputs hold.
        self.raw_sites = {
            asked: {name: item for name, item in items.items() if item[0] <= kept} for asked, items in stored.sites.items()
        }
        self.raw_reach = {name: item for name, item in stored.reach.items() if item[0] <= kept}
        self.raw_uses = {name: item for name, item in stored.uses.items() if item[0] <= kept}
        self.generation = stored.generation
        self.load_edges = load_edges if kept > 0 else None
        self.raw_edges: Items | None = None  # read on first need
        self.cut = kept < before  # what was derived after the cut went with it
        self.changed = renewed or self.cut  # whether anything here differs from what was stored
        self.modules = Recorder(modules, known or {}, self.inputs, index_of(root))
        self.make = make
        self.project: Project | None = None
        self.projects: dict[str, Project] = {}  # each question's view of `project`
        # Every question the run asks of this graph, by `sites_key`: a file's sites are derived
        # for all of those sharing probes at once (`ModuleGraph.sites`).
        self.together: dict[str, Question] = {}
        self.edges: dict[str, tuple[int, list[Link]]] = {}
        self.sites: dict[str, dict[str, tuple[int, list[HeavySite]]]] = {}
        self.reach: dict[str, tuple[int, Mapping[str, Link | None], Mapping[str, str]]] = {}
        self.uses: dict[str, tuple[int, list[ValueUse]]] = {}
        # Per file: where its imports' lazy loaders cut a chain (kept with its sites; no question's own).
        self.cuts: dict[str, list[str]] = {}
        self.graph: ImportGraph | None = None
        self.edges_changed = False
        self.derived = 0


class ModuleGraph:
    """Edges, sites and reach, from storage while their inputs hold, else derived.

    One graph answers every question that differs only in what counts as a site
    (`Question.sites_key`): `asking` gives the same graph under another such question,
    sharing its log, links, reach and derivation (each file is read, and each entry's reach
    derived, once for them all); only each question's sites are its own."""

    def __init__(
        self, root: Path, modules: Mapping[str, str], make: MakeProject, stored: Stored | None = None,
        tree: Tree | None = None, load_edges: LoadEdges | None = None, known: Mapping[str, str] | None = None,
        roots: tuple[str, ...] = (".",), since: int = 0,
    ) -> None:
        self._s = _Shared(root, modules, make, stored, tree, load_edges, known, roots, since)
        self._s.graph = ImportGraph(self._s.modules, self.edges)
        self._key = ""  # the question the derivation was made with
        self._question: Question | None = None

    def asking(self, question: Question) -> ModuleGraph:
        """The same graph, its sites those of `question` (which must differ from the graph's
        own only in what counts as a site: `Question.graph_key`)."""
        view = ModuleGraph.__new__(ModuleGraph)
        view._s = self._s
        view._key = question.sites_key
        view._question = question
        self._s.together.setdefault(question.sites_key, question)
        return view

    def share(self, questions: Iterable[Question]) -> None:
        """The questions the run will ask of this graph (each with this graph's `graph_key`): a
        file's sites, derived for one of them, are derived for every one with the same probes
        (what their import-time calls load is walked once for them all: `Project.sites_for`)."""
        for question in questions:
            self._s.together.setdefault(question.sites_key, question)

    @property
    def inputs(self) -> Inputs:
        return self._s.inputs

    @property
    def modules(self) -> Recorder:
        return self._s.modules

    @property
    def changed(self) -> bool:
        return self._s.changed

    @property
    def derived(self) -> int:
        """Items derived in this run rather than taken from storage, by every question (a test hook)."""
        return self._s.derived

    @property
    def _project(self) -> Project | None:
        return self._s.project

    @property
    def project(self) -> Project:
        """The derivation, made on first need: a fully warm run never builds one; under this
        graph's question (its memos of links, calls and classes shared with every other)."""
        shared = self._s
        if shared.project is None:
            shared.project = shared.make(shared.modules, shared.inputs)
            shared.projects.clear()
        if self._question is None:
            return shared.project
        found = shared.projects.get(self._key)
        if found is None:
            found = shared.projects[self._key] = shared.project.asking(self._question)
        return found

    @property
    def unparsed(self) -> Mapping[str, SyntaxErrorFact]:
        """Files this run's derivation read and could not parse (none when nothing was derived)."""
        return self._s.project.unparsed if self._s.project is not None else {}

    def _stored_edges(self) -> Items:
        shared = self._s
        if shared.raw_edges is None:
            found = shared.load_edges() if shared.load_edges is not None else None
            kept = len(shared.inputs)
            shared.raw_edges = {} if found is None or found.generation != shared.generation else {
                name: item for name, item in found.edges.items() if item[0] <= kept
            }
        return shared.raw_edges

    def _reset(self) -> None:
        """The derivation's memos hold what changed: made again on next need."""
        shared = self._s
        shared.project = None
        shared.projects.clear()
        shared.graph = ImportGraph(shared.modules, self.edges)

    def forget(self, path: str, others_unchanged: bool = False) -> None:
        """A file changed: cut the log where it was first read, and drop what came after.
        `others_unchanged`: the caller knows every other file's bytes are as the log holds
        them (an editor server is told of every change), so the files read after this one
        are logged again, in their order, after the cut: what is derived again finds their
        records by digest without reading them. Logged before any item is derived again,
        they only make later items depend on more than they read (precision, not soundness)."""
        shared = self._s
        self._stored_edges()
        found = shared.inputs.log.files.get(path)
        if found is None:
            return
        at = found[0]
        later = sorted(
            (entry[0], name, entry) for name, entry in shared.inputs.log.files.items() if entry[0] > at and name != path
        ) if others_unchanged else []
        shared.inputs.cut(at)
        for _, name, (_, how, stat, hashed) in later:
            shared.inputs.log.files[name] = (shared.inputs._place(), how, stat, hashed)
        for table in (self._stored_edges(), *shared.raw_sites.values(), shared.raw_reach, shared.raw_uses):
            for name in [name for name, item in table.items() if item[0] > at]:
                del table[name]
        _drop_after(shared.edges, at)
        _drop_after(shared.uses, at)
        for sites in shared.sites.values():
            _drop_after(sites, at)
        for name in [name for name, item in shared.reach.items() if item[0] > at]:
            del shared.reach[name]
        self._reset()
        shared.cut = shared.changed = True

    def renew(self, path: str, hashed: str, moved: str | None = None, how: str | None = None) -> None:
        """A file's bytes changed but not its record (what every derivation reads of it): the
        log holds its new digest and every item stands. `moved`: its record changed only in
        where its facts stand (the same facts in the same order, at other lines and columns:
        a line inserted above them), or in facts only the module's own items read
        (graph/local_change.py), so only what holds those is derived again: the module's
        links and the file's sites (theirs are its lines), and every reach (its links hold
        them); no other item holds a position of another file. `how`: how the
        derivations read the new bytes from now on (`Inputs.how`; None: as before)."""
        shared = self._s
        found = shared.inputs.log.files.get(path)
        if found is None:
            return
        place, logged, stat, _ = found
        shared.inputs.log.files[path] = (place, how or logged, stat, hashed)
        shared.changed = True
        if moved is None:
            return
        self._stored_edges().pop(moved, None)
        shared.edges.pop(moved, None)
        for raw in shared.raw_sites.values():
            raw.pop(path, None)
        for sites in shared.sites.values():
            sites.pop(path, None)
        shared.raw_uses.pop(path, None)
        shared.uses.pop(path, None)
        shared.raw_reach.clear()
        shared.reach.clear()
        self._reset()  # its memos hold the old positions
        shared.edges_changed = True

    # --- per module ---------------------------------------------------------------

    def edges(self, module: str) -> list[Link]:
        """The links importing `module` makes run (in source order, one per target)."""
        shared = self._s
        found = shared.edges.get(module)
        if found is not None:
            return found[1]
        raw = self._stored_edges().pop(module, None)
        if raw is not None:
            try:
                links = decode_links(module, raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                shared.edges[module] = (raw[0], links)
                return links
        links = list(self.project.edges(module))
        shared.edges[module] = (len(shared.inputs), links)
        shared.edges_changed = True
        self._derived()
        return links

    def sites(self, path: str) -> list[HeavySite]:
        """The heavy sites of one file under this graph's question, in source order."""
        shared = self._s
        mine = shared.sites.setdefault(self._key, {})
        found = mine.get(path)
        if found is not None:
            return found[1]
        raw = shared.raw_sites.get(self._key, {}).pop(path, None)
        if raw is not None:
            try:
                sites = decode_sites(path, raw[1])
                shared.cuts[path] = decode_cuts(raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                mine[path] = (raw[0], sites)
                return sites
        if self._question is None:
            sites = list(self.project.sites(path)) or _NO_SITES
            shared.cuts[path] = self.project.cuts_at(path)
            mine[path] = (len(shared.inputs), sites)
            self._derived()
            return sites
        self._derive_sites(path, self._question)
        return mine[path][1]

    def _derive_sites(self, path: str, question: Question) -> None:
        """The file's sites for `question` and for every other question asked with it that
        shares its probes and has them neither derived nor stored, in one walk."""
        shared = self._s
        asking = [question, *(
            other for key, other in shared.together.items()
            if key != self._key and other.probes == question.probes
            and path not in shared.sites.get(key, {}) and path not in shared.raw_sites.get(key, {})
        )]
        found = self.project.sites_for(path, asking)
        shared.cuts[path] = self.project.cuts_at(path)
        for other, sites in zip(asking, found):
            shared.sites.setdefault(other.sites_key, {})[path] = (len(shared.inputs), sites or _NO_SITES)
            self._derived()

    def cuts(self, entry: str) -> list[str]:
        """Where a lazy loader that importing `entry` asks could not be told what it imports:
        each cut once, in the order reached."""
        parents, paths = self._reached(entry)
        found: list[str] = []
        for module in parents:
            self.sites(paths[module])
            found.extend(cut for cut in self._s.cuts.get(paths[module], ()) if cut not in found)
        return found

    def value_uses(self, path: str) -> list[ValueUse]:
        """The file's uses of the `values` keys (graph.value_uses), kept as its sites are (the
        platform's, so every question of the graph shares them)."""
        shared = self._s
        found = shared.uses.get(path)
        if found is not None:
            return found[1]
        raw = shared.raw_uses.pop(path, None)
        if raw is not None:
            try:
                uses = decode_uses(raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                shared.uses[path] = (raw[0], uses)
                return uses
        uses = self.project.value_uses(path)
        shared.uses[path] = (len(shared.inputs), uses)
        self._derived()
        return uses

    def _derived(self) -> None:
        self._s.derived += 1
        self._s.changed = True

    # --- per entry ----------------------------------------------------------------

    def _reached(self, entry: str) -> tuple[Mapping[str, Link | None], Mapping[str, str]]:
        shared = self._s
        found = shared.reach.get(entry)
        if found is not None:
            return found[1], found[2]
        raw = shared.raw_reach.pop(entry, None)
        if raw is not None:
            try:
                stored = Parents(raw[1])
            except _DECODE_ERRORS:
                pass
            else:
                shared.reach[entry] = (raw[0], stored, stored.paths)
                return stored, stored.paths
        assert shared.graph is not None
        parents = shared.graph.reach(entry)
        paths = {module: shared.modules[module] for module in parents}
        shared.reach[entry] = (len(shared.inputs), parents, paths)
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
        """What to keep: the log and every item still derived from it, the sites of every
        question asked of it (this run or before); the links only when they changed (else the
        stored ones stay, under the same generation)."""
        shared = self._s
        edges: StoredEdges | None = None
        generation = shared.generation
        if shared.cut or shared.edges_changed or not generation:
            import secrets  # only a graph that changed is stored

            generation = secrets.token_hex(8)
            encoded = {m: (mark, encode_links(links[0].path if links else "", links)) for m, (mark, links) in shared.edges.items()}
            edges = StoredEdges(generation, {**self._stored_edges(), **encoded})
        out = Stored(shared.inputs.log, generation=generation)
        for asked in {*shared.raw_sites, *shared.sites}:
            derived = shared.sites.get(asked, {})
            out.sites[asked] = {
                **shared.raw_sites.get(asked, {}),
                **{p: (mark, encode_sites(sites, shared.cuts.get(p, ()))) for p, (mark, sites) in derived.items()},
            }
        out.uses = {**shared.raw_uses, **{p: (mark, encode_uses(uses)) for p, (mark, uses) in shared.uses.items()}}
        out.reach = {**shared.raw_reach, **{
            e: (mark, encode_reach(parents, paths)) for e, (mark, parents, paths) in shared.reach.items()
        }}
        return out, edges


_T = TypeVar("_T")


def _drop_after(table: dict[str, tuple[int, _T]], at: int) -> None:
    """Every item derived after the log's place `at`."""
    for name in [name for name, item in table.items() if item[0] > at]:
        del table[name]


# A file with no heavy site: one list for all of them, never changed (memory per question stays small).
_NO_SITES: list[HeavySite] = []
