"""The module graph as plain JSON values and back, for the sealed store (cache.store).

Two records: the index (the inputs log, each file's sites, each entry's reach), which every
run reads, and the modules' links, which only a run that must derive a reach again reads.
Both carry the same generation, so an index is never paired with another run's links. The
inputs log is read whole (a run checks it first); each derived item stays as read until it
is asked for, so a warm run builds only the sites and chains it reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator, Mapping, Sequence

from import_policy.cache.stat import Stat
from import_policy.facts.records.model import Span
from import_policy.graph.chains import Link
from import_policy.graph.reach import HeavySite, SiteKind
from import_policy.graph.value_uses import ValueUse

Json = Any
_SITE_KINDS: tuple[SiteKind, ...] = ("import", "probe", "call", "jit")
# name -> (how many observations of the log it was derived from, its encoded form)
Items = dict[str, tuple[int, Json]]
# (listing digest or ABSENT, the folder's stat data or None), its `.gitignore`'s stat data and digest
Folder = tuple["tuple[str, Stat | None]", "Stat | None", "str | None"]


@dataclass
class Log:
    """What the derivations read, each observation with its place in the order first read.

    files: path -> (place, how, stat or None, digest or None); how is "e" (the engine's facts
    of it), "r" (read and parsed by the pass) or "s" (read by the pass, its prefilter said skip); digest None: it could not be read; stat None: changed
    too recently to be trusted. folders: folder -> ((its listing's digest or ABSENT, its stat data or None); its
    `.gitignore`'s stat data and digest, or None), each folder on a lookup's way: not
    observations in order but what to watch (a change looks the lookups it decides up again). lookups: module -> (place, file
    or None, whether the files passed gave it). listing: (place, digest) when the whole module
    map was listed."""

    count: int = 0
    files: dict[str, tuple[int, str, Stat | None, str | None]] = field(default_factory=dict)
    folders: dict[str, Folder] = field(default_factory=dict)
    lookups: dict[str, Json] = field(default_factory=dict)
    passed: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    listing: tuple[int, str] | None = None
    # The stat data of git's index (None: too recent to trust) and the lookups whose answer
    # depended on which files it tracks, when any did.
    index: tuple[Stat | None, list[str]] | None = None


@dataclass
class Stored:
    log: Log = field(default_factory=Log)
    # Per question asked of the graph (`Question.sites_key`), each file's heavy sites.
    sites: dict[str, Items] = field(default_factory=dict)
    reach: Items = field(default_factory=dict)
    generation: str = ""
    # Each file's uses of the `values` keys (graph.value_uses), for the warning of a key only called.
    uses: Items = field(default_factory=dict)


@dataclass
class StoredEdges:
    generation: str
    edges: Items


def _str(value: Json) -> str:
    if not isinstance(value, str):
        raise ValueError("expected a string")
    return value


def _opt_str(value: Json) -> str | None:
    return None if value is None else _str(value)


def _int(value: Json) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("expected an integer")
    return value


def _list(value: Json) -> list[Json]:
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return value


def _dict(value: Json) -> dict[str, Json]:
    if not isinstance(value, dict):
        raise ValueError("expected an object")
    return value


def _place(value: Json, count: int) -> int:
    place = _int(value)
    if not 0 <= place < count:
        raise ValueError("an observation out of the log")
    return place


def _stat(value: Json) -> Stat | None:
    if value is None:
        return None
    mtime, ctime, size, inode = _list(value)
    return Stat(_int(mtime), _int(ctime), _int(size), _int(inode))


def lookup_place(value: Json) -> int:
    return value if isinstance(value, int) else int(value[0])


def lookup_path(value: Json) -> str | None:
    return None if isinstance(value, int) else _str(value[1])


def encode_log(log: Log) -> Json:
    return {
        "n": log.count,
        "f": {path: [place, how, None if stat is None else list(stat), hashed]
              for path, (place, how, stat, hashed) in log.files.items()},
        "d": {folder: [[mark[0], None if mark[1] is None else list(mark[1])], None if stat is None else list(stat), hashed]
              for folder, (mark, stat, hashed) in log.folders.items()},
        "m": log.lookups,
        "p": {module: list(item) for module, item in log.passed.items()},
        "a": None if log.listing is None else list(log.listing),
        "g": None if log.index is None else [None if log.index[0] is None else list(log.index[0]), log.index[1]],
    }


def decode_log(data: Json) -> Log:
    data = _dict(data)
    count = _int(data["n"])
    log = Log(count)
    for path, item in _dict(data["f"]).items():
        place, how, stat, hashed = _list(item)
        if how not in ("e", "r", "s"):
            raise ValueError("unknown kind of read")
        log.files[_str(path)] = (_place(place, count), how, _stat(stat), _opt_str(hashed))
    for folder, item in _dict(data["d"]).items():
        mark, stat, hashed = _list(item)
        names, seen = _list(mark)
        log.folders[_str(folder)] = ((_str(names), _stat(seen)), _stat(stat), _opt_str(hashed))
    lookups = _dict(data["m"])
    # Read as they are (thousands of them); only their shape is checked here.
    if not all(type(v) is int or (type(v) is list and len(v) == 2 and type(v[0]) is int) for v in lookups.values()):
        raise ValueError("a malformed lookup")
    log.lookups = lookups
    for module, item in _dict(data["p"]).items():
        place, path = _list(item)
        log.passed[_str(module)] = (_place(place, count), _opt_str(path))
    if data["a"] is not None:
        place, hashed = _list(data["a"])
        log.listing = (_place(place, count), _str(hashed))
    if data["g"] is not None:
        stat, modules = _list(data["g"])
        log.index = (_stat(stat), [_str(module) for module in _list(modules)])
    return log


def _items(value: Json) -> Items:
    out: Items = {}
    for name, item in _dict(value).items():
        mark, raw = _list(item)
        out[_str(name)] = (_int(mark), raw)
    return out


class GraphCodec:
    """The index: the inputs log, sites and reach."""

    name = "module-graph"
    version = 11  # a file's sites are followed by where its imports' lazy loaders cut a chain; the sites of every question that shares the graph, each under its own key; each file's uses of the values keys; a call site names every heavy module it loads; stat data in cache.stat's order (mtime, ctime, size, inode); a folder is watched by its listing; lookups that asked git's index; a site carries the tests it runs under that the pass could not judge

    def encode(self, stored: Stored) -> Json:
        return {
            "generation": stored.generation, "log": encode_log(stored.log),
            "sites": {asked: {name: list(item) for name, item in items.items()} for asked, items in stored.sites.items()},
            "reach": {name: list(item) for name, item in stored.reach.items()},
            "uses": {name: list(item) for name, item in stored.uses.items()},
        }

    def decode(self, data: Json) -> Stored:
        data = _dict(data)
        sites = {_str(asked): _items(items) for asked, items in _dict(data["sites"]).items()}
        return Stored(decode_log(data["log"]), sites, _items(data["reach"]), _str(data["generation"]), _items(data["uses"]))


class EdgesCodec:
    """Each module's links, read only to derive a reach again."""

    name = "module-graph-edges"
    version = 1

    def encode(self, stored: StoredEdges) -> Json:
        return {"generation": stored.generation, "edges": {name: list(item) for name, item in stored.edges.items()}}

    def decode(self, data: Json) -> StoredEdges:
        data = _dict(data)
        return StoredEdges(_str(data["generation"]), _items(data["edges"]))


# --- one item at a time -----------------------------------------------------------
# A module's links all start in its own file: [path, [target, line, kind, detail], ...].


def encode_links(path: str, links: list[Link]) -> Json:
    return [path, *([l.target, l.line, l.kind, l.detail, *_requires(l.requires)] for l in links)]


def _requires(requires: tuple[str, ...]) -> list[Json]:
    """A link's (or site's) `requires`, written only where it has some."""
    return [list(requires)] if requires else []


def _names(raw: list[Json]) -> tuple[str, ...]:
    """`requires` as `_requires` wrote it (none: an empty tuple)."""
    return tuple(_str(name) for name in _list(raw[0])) if raw else ()


def decode_links(source: str, raw: Json) -> list[Link]:
    path, *links = _list(raw)
    path = _str(path)
    return [
        Link(source, _str(t), path, _int(line), _str(k), _str(d), _names(rest))
        for t, line, k, d, *rest in (_list(item) for item in links)
    ]


def encode_sites(sites: list[HeavySite], cuts: Sequence[str] = ()) -> Json:
    """The file's sites, then where its imports' lazy loaders cut a chain (`["cut", text]`)."""
    return [*_site_rows(sites), *(["cut", text] for text in cuts)]


def _site_rows(sites: list[HeavySite]) -> Json:
    return [
        [
            s.module, s.heavy, *_span(s.span), s.statement_line, s.kind, s.detail, s.trial, s.eager_lazy, s.loaded_by,
            list(s.unjudged), [[name, way] for name, way in s.also], *_requires(s.requires),
        ]
        for s in sites
    ]


def encode_uses(uses: list[ValueUse]) -> Json:
    return [[key, called, line] for key, called, line in uses]


def decode_uses(raw: Json) -> list[ValueUse]:
    found: list[ValueUse] = []
    for item in _list(raw):
        key, called, line = _list(item)
        if not isinstance(called, bool):
            raise ValueError("a use's flag is a boolean")
        found.append((_str(key), called, _int(line)))
    return found


def _span(span: Span) -> list[int]:
    return [span.line, span.column, span.end_line, span.end_column]


def decode_sites(path: str, raw: Json) -> list[HeavySite]:
    found: list[HeavySite] = []
    for item in _list(raw):
        if len(_list(item)) == 2:
            continue  # a cut (`decode_cuts`)
        (
            module, heavy, line, column, end_line, end_column, statement_line, kind, detail, trial, eager_lazy, loaded_by,
            unjudged, also, *requires,
        ) = _list(item)
        if kind not in _SITE_KINDS:
            raise ValueError("unknown site kind")
        if not isinstance(trial, bool) or not isinstance(eager_lazy, bool):
            raise ValueError("a site's flags are booleans")
        span = Span(_int(line), _int(column), _int(end_line), _int(end_column))
        found.append(HeavySite(
            path, _opt_str(module), _str(heavy), span, _int(statement_line), kind, _str(detail),
            trial, eager_lazy, _opt_str(loaded_by), tuple(_str(text) for text in _list(unjudged)),
            tuple((_str(pair[0]), _str(pair[1])) for pair in map(_list, _list(also))), _names(requires),
        ))
    return found


def decode_cuts(raw: Json) -> list[str]:
    """The cuts `encode_sites` kept after a file's sites."""
    return [_str(item[1]) for item in map(_list, _list(raw)) if len(item) == 2 and item[0] == "cut"]


# An entry's reach: each module reached, in the order reached, with its file and the link
# that first reached it (none for the entry itself): [module, file, source, path, line, kind, detail].


def encode_reach(parents: Mapping[str, Link | None], paths: Mapping[str, str]) -> Json:
    if isinstance(parents, Parents):
        return parents.raw  # never decoded: written back as read
    return [
        [module, paths[module], *([] if link is None else [
            link.source, link.path, link.line, link.kind, link.detail, *_requires(link.requires),
        ])]
        for module, link in parents.items()
    ]


class Parents(Mapping[str, "Link | None"]):
    """A stored reach, each link decoded when a chain asks for it."""

    def __init__(self, raw: Json) -> None:
        self.raw = _list(raw)
        self._items: dict[str, list[Json]] = {_str(item[0]): item for item in map(_list, self.raw)}
        self.paths: dict[str, str] = {module: _str(item[1]) for module, item in self._items.items()}
        self._links: dict[str, Link | None] = {}

    def __getitem__(self, module: str) -> Link | None:
        if module not in self._links:
            rest = self._items[module][2:]
            if not rest:
                self._links[module] = None
            else:
                source, where, line, kind, detail, *requires = rest
                self._links[module] = Link(
                    _str(source), module, _str(where), _int(line), _str(kind), _str(detail), _names(requires),
                )
        return self._links[module]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
