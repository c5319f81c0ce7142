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
from collections.abc import Iterable

from import_policy.graph.distributions import normalize

# A key importlib.metadata looks a name up by: ("info", normalized) or ("egg", legacy).
Key = tuple[str, str]


def keys_in(folder: str, entries: Iterable[str]) -> frozenset[Key]:
    """The keys under which the distributions of one path folder (its entries' names) are found."""
    found: set[Key] = set()
    base = os.path.basename(folder.rstrip("/" + os.sep)).lower()
    for entry in entries:
        low = entry.lower()
        if low.endswith((".dist-info", ".egg-info")):
            found.add(("info", normalize(low.rpartition(".")[0].partition("-")[0])))
        elif low == "egg-info" and base.endswith(".egg"):
            found.add(("egg", legacy(base.rpartition(".")[0].partition("-")[0])))
    return frozenset(found)


def legacy(name: str) -> str:
    return name.lower().replace("-", "_")


def finds(name: str, keys: frozenset[Key]) -> bool:
    """Whether `importlib.metadata.version(name)` finds a distribution among `keys`."""
    return bool(name) and (("info", normalize(name)) in keys or ("egg", legacy(name)) in keys)


__all__ = ["Key", "finds", "keys_in"]
