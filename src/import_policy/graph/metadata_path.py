"""Which distributions `importlib.metadata.version(NAME)` (and `distribution`, `metadata`) finds
on an environment's path, as its path finder (`MetadataPathFinder`: `FastPath`, `Lookup`,
`Prepared`) finds them. In each folder of the path, every entry named `....dist-info` or
`....egg-info` (a folder, or a distutils `.egg-info` file that is PKG-INFO itself) is the
distribution named by the entry's name up to its first `-`, compared as packaging normalizes
names (PEP 503: `Foo_Bar`, `foo-bar` and `FOO.bar` are one); a path folder that is itself an
`.egg` (easy_install's `.pth` lines add them) holding `EGG-INFO` is the distribution named by
the folder's name up to its first `-`, compared lowercased with `-` read as `_` only
(importlib's "legacy" name: `Egg.Pkg` is not `egg-pkg`). Nothing is run or opened."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

# A key importlib.metadata looks a name up by: ("info", normalized) or ("egg", legacy).
Key = tuple[str, str]

_SEPARATORS = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    """A distribution's name as packaging normalizes it (PEP 503)."""
    return _SEPARATORS.sub("-", name).lower()


def found_in(folder: str, entries: Iterable[str]) -> Iterator[tuple[str, str, Key]]:
    """(entry, name as the entry spells it, key) for each distribution of one path folder,
    in name order (importlib's: `.dist-info` and `.egg-info` entries, then the `.egg`'s own)."""
    base = os.path.basename(folder.rstrip("/" + os.sep))
    eggs: list[tuple[str, str, Key]] = []
    for entry in sorted(entries):
        low = entry.lower()
        if low.endswith((".dist-info", ".egg-info")):
            name = entry.rpartition(".")[0].partition("-")[0]
            yield entry, name, ("info", normalize(name))
        elif low == "egg-info" and base.lower().endswith(".egg"):
            name = base.rpartition(".")[0].partition("-")[0]
            eggs.append((entry, name, ("egg", legacy(name))))
    yield from eggs


def keys_in(folder: str, entries: Iterable[str]) -> frozenset[Key]:
    """The keys under which the distributions of one path folder (its entries' names) are found."""
    return frozenset(key for _, _, key in found_in(folder, entries))


def legacy(name: str) -> str:
    return name.lower().replace("-", "_")


def finds(name: str, keys: frozenset[Key]) -> bool:
    """Whether `importlib.metadata.version(name)` finds a distribution among `keys`."""
    return bool(name) and (("info", normalize(name)) in keys or ("egg", legacy(name)) in keys)


__all__ = ["Key", "finds", "found_in", "keys_in", "legacy", "normalize"]
