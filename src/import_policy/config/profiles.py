"""`platforms:` as one file writes it: each profile's keys, checked, with their lines.

A profile names what is false on its platform (`guards`), what is true there (`true`) and
what names hold (`values`), and may start from another profile (`extends`: a built-in one or
one declared in this configuration). Lists replace what the profile started from;
`extend_guards` and `extend_true` add to it. `policy.load` merges the files of an `extends`
chain and resolves each profile (`policy.platforms`).
"""

from __future__ import annotations

import re
from typing import Protocol

from import_policy.config.platforms import ANY, BUILTIN
from import_policy.config.yamltree import Map, Node, describe_node


class Validator(Protocol):
    """What parsing a profile needs of `config.validate.Validator`."""

    def error(self, line: int, message: str) -> None: ...

    def keys(self, node: Map, allowed: tuple[str, ...], where: str) -> None: ...

    def string(self, node: Node, what: str) -> str | None: ...

    def test_names(self, node: Node, key: str) -> list[tuple[object, int]]: ...

    def values(self, node: Node, where: str = ...) -> dict[str, tuple[object, int]]: ...


PLATFORM_KEYS = ("extends", "guards", "extend_guards", "true", "extend_true", "values")
PLATFORM_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
Settings = dict[str, tuple[object, int]]


def platforms(v: Validator, node: Node) -> dict[str, tuple[Settings, int]]:
    """name -> (its checked keys, the name's line). A built-in name (`cuda`) adds to the built-in
    profile; `rocm` is the `rocm_safety` section's and `any` is no profile, so neither is declared."""
    if not isinstance(node, Map):
        v.error(node.line, f"platforms must map profile names to their settings (mycuda: {{extends: cuda, guards: [...]}}), got {describe_node(node)}")
        return {}
    out: dict[str, tuple[Settings, int]] = {}
    for name, (line, value) in node.items.items():
        if name == ANY:
            v.error(line, "platform 'any' is not a profile (every branch runs but type-checking-only code); choose another name")
        elif name == "rocm":
            v.error(line, "platform 'rocm' is the rocm_safety section's: set rocm_safety.guards, rocm and values (or extend_guards, extend_rocm), or declare a profile that extends: rocm")
        elif not PLATFORM_NAME.fullmatch(name):
            v.error(line, f"platform name {name!r} must be lowercase letters, digits, '_' and '-', like 'cuda-sm90'")
        elif not isinstance(value, Map):
            v.error(value.line, f"platform {name!r} must be a map of guards, true, values (and extends), got {describe_node(value)}")
        else:
            out[name] = (_profile(v, name, value), line)
    return out


def _profile(v: Validator, name: str, node: Map) -> Settings:
    v.keys(node, PLATFORM_KEYS, f"platform {name!r}")
    items = node.items
    out: Settings = {}
    if "extends" in items:
        base = v.string(items["extends"][1], f"platforms.{name}.extends")
        if base is not None and name in BUILTIN:
            v.error(items["extends"][1].line, f"platform {name!r} is built in: its entry adds to the built-in profile, it extends nothing; declare a profile of another name to extend {base!r}")
        elif base is not None:
            out["extends"] = (base, items["extends"][1].line)
    for key in ("guards", "extend_guards", "true", "extend_true"):
        if key in items:
            out[key] = (v.test_names(items[key][1], f"platforms.{name}.{key}"), items[key][0])
    if "values" in items:
        out["values"] = (v.values(items["values"][1], f"on {name}"), items["values"][0])
    return out


__all__ = ["PLATFORM_KEYS", "platforms"]
