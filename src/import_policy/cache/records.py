"""This package's frozen records as JSON and back, for cache entries that hold a built policy.

Only plain values are written: strings, numbers, booleans, None, tuples, lists, frozensets,
string-keyed maps, paths, and dataclass instances of `import_policy` modules, each by its
module, class name and the fields its constructor takes (fields it computes itself are
computed again). Reading builds nothing else: a name outside the package, or a class that is
not a dataclass, is refused (ValueError), so an entry is data, never code, like every other.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path, PurePath
from typing import Any

_PACKAGE = "import_policy."


def encode(value: object) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"t": [encode(item) for item in value]}
    if isinstance(value, list):
        return {"l": [encode(item) for item in value]}
    if isinstance(value, frozenset):
        return {"f": [encode(item) for item in value]}
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise ValueError("a map whose keys are not all strings")
        return {"d": {key: encode(item) for key, item in value.items()}}
    if isinstance(value, PurePath):
        return {"p": str(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        if not kind.__module__.startswith(_PACKAGE):
            raise ValueError(f"a record of another package: {kind.__module__}")
        fields = {field.name: encode(getattr(value, field.name)) for field in dataclasses.fields(value) if field.init}
        return {"c": f"{kind.__module__}:{kind.__qualname__}", "v": fields}
    raise ValueError(f"a value that is not a plain record: {type(value).__name__}")


def decode(data: Any) -> Any:
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict):
        raise ValueError("not an encoded record")
    keys = set(data)
    if keys == {"c", "v"}:
        kind = _record_class(str(data["c"]))
        values = data["v"]
        if not isinstance(values, dict):
            raise ValueError("a record without fields")
        if set(values) != {field.name for field in dataclasses.fields(kind) if field.init}:
            raise ValueError(f"a record of another shape: {kind.__qualname__}")  # written by other code
        return kind(**{str(name): decode(item) for name, item in values.items()})
    if len(keys) != 1:
        raise ValueError("not an encoded record")
    [tag] = keys
    inner = data[tag]
    if tag == "p" and isinstance(inner, str):
        return Path(inner)
    if tag == "d" and isinstance(inner, dict):
        return {str(key): decode(item) for key, item in inner.items()}
    if not isinstance(inner, list):
        raise ValueError("not an encoded record")
    if tag == "t":
        return tuple(decode(item) for item in inner)
    if tag == "l":
        return [decode(item) for item in inner]
    if tag == "f":
        return frozenset(decode(item) for item in inner)
    raise ValueError("not an encoded record")


def _record_class(name: str) -> type:
    module, _, qualname = name.partition(":")
    if not module.startswith(_PACKAGE) or not qualname or "." in qualname:
        raise ValueError(f"not a record of this package: {name!r}")
    kind = getattr(importlib.import_module(module), qualname, None)
    if not isinstance(kind, type) or not dataclasses.is_dataclass(kind):
        raise ValueError(f"not a record of this package: {name!r}")
    return kind
