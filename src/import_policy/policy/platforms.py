"""`platforms:` across `extends`, each profile resolved, and every `platform:` checked.

Files merge a profile name by name, as `rocm_safety` merges: a later file's `guards` or
`true` replaces the list merged so far, its `extend_guards` / `extend_true` add to it, its
`values` merge name by name (`false` removes a name given before, the base profile's
included), its `extends` replaces the earlier one. A profile then starts from what it
extends (a declared profile, or a built-in one: `cuda`, `cpu`, `xpu`, and `rocm`, which is
the `rocm_safety` section's where there is one); a built-in name adds to the built-in
profile; a profile with no `extends` starts from nothing. A rule's `platform:` must name a
profile or `any`: an unknown name fails with the valid choices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from import_policy.config.model import Origin, Profile, RocmSafety, Rule
from import_policy.config.platforms import ANY, BUILTIN, BUILTIN_NAMES
from import_policy.facts.records.model import Value

if TYPE_CHECKING:
    from import_policy.config.validate import ConfigError

# A list key that adds to the merged list instead of replacing it (ruff's `extend-select`).
EXTEND = "extend_"
# The list keys of a profile, and the key of the judge's data each fills.
_LISTS = ("guards", "true")


@dataclass
class _Declared:
    origin: Origin  # where the name was first declared
    extends: tuple[str, Origin] | None = None
    lists: dict[str, list[str] | None] = field(default_factory=lambda: {key: None for key in _LISTS})
    extra: dict[str, list[str]] = field(default_factory=lambda: {key: [] for key in _LISTS})
    values: dict[str, Value] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


class PlatformMerge:
    def __init__(self) -> None:
        self.declared: dict[str, _Declared] = {}

    def add(self, source: str, platforms: Mapping[str, tuple[dict[str, tuple[object, int]], int]]) -> None:
        for name, (settings, line) in platforms.items():
            entry = self.declared.setdefault(name, _Declared(Origin(source, line)))
            if "extends" in settings:
                base, at = settings["extends"]
                entry.extends = (str(base), Origin(source, at))
            for key in _LISTS:
                if key in settings:
                    entry.lists[key] = [str(text) for text, _ in settings[key][0]]  # type: ignore[attr-defined]
                    entry.extra[key] = []
                if EXTEND + key in settings:
                    entry.extra[key] += [str(text) for text, _ in settings[EXTEND + key][0]]  # type: ignore[attr-defined]
            given = settings.get("values", ({}, 0))[0]
            for held_name, (held, _) in given.items():  # type: ignore[attr-defined]
                if held is False and held_name in entry.values:
                    del entry.values[held_name]  # `false` removes a name an earlier file gave
                    entry.removed.add(held_name)
                else:
                    entry.removed.discard(held_name)
                    entry.values.pop(held_name, None)
                    entry.values[held_name] = held

    def resolve(self, rocm: RocmSafety | None) -> tuple[tuple[Profile, ...], list[ConfigError]]:
        """Each declared profile through its `extends` (cycles and unknown names are errors)."""
        from import_policy.config.validate import ConfigError

        errors: list[ConfigError] = []
        done: dict[str, Profile] = {}
        failed: set[str] = set()

        def profile(name: str, chain: tuple[str, ...]) -> Profile | None:
            if name in done or name in failed:
                return done.get(name)
            entry = self.declared.get(name)
            if entry is None:
                return _builtin(name, rocm)
            base: Profile | None = _builtin(name, rocm)
            if entry.extends is not None:
                target, where = entry.extends
                if target in chain or target == name:
                    cycle = " -> ".join([*(chain[chain.index(target):] if target in chain else ()), name, target])
                    errors.append(ConfigError(where.source, where.line, f"platform {name!r}: circular extends: {cycle}"))
                    return None
                known = target in self.declared or target in BUILTIN
                base = checked(target, (*chain, name)) if known else None
                if not known:
                    errors.append(ConfigError(where.source, where.line, f"platform {name!r} extends unknown platform {target!r}; platforms: {', '.join(choices(self.declared))}"))
                    return None
                if base is None:
                    return None
            done[name] = _built(name, entry, base)
            return done[name]

        def checked(name: str, chain: tuple[str, ...]) -> Profile | None:
            found = profile(name, chain)
            if found is None and name in self.declared:
                failed.add(name)
            return found

        for name in self.declared:
            checked(name, ())
        return tuple(done[name] for name in self.declared if name in done), errors


def _builtin(name: str, rocm: RocmSafety | None) -> Profile | None:
    if name == "rocm" and rocm is not None:
        return Profile("rocm", rocm.guards, rocm.rocm, rocm.values, rocm.origin)
    return BUILTIN.get(name)


def _built(name: str, entry: _Declared, base: Profile | None) -> Profile:
    lists: dict[str, tuple[str, ...]] = {}
    for key in _LISTS:
        given = entry.lists[key]
        start = list(given) if given is not None else list(getattr(base, key, ()) if base is not None else ())
        lists[key] = tuple(dict.fromkeys([*start, *entry.extra[key]]))
    values = dict(base.values) if base is not None else {}
    for held_name in entry.removed:
        values.pop(held_name, None)
    for held_name, held in entry.values.items():
        if held is False and held_name in values:
            del values[held_name]  # `false` removes what the base profile said
        else:
            values[held_name] = held
    return Profile(name, lists["guards"], lists["true"], tuple(values.items()), entry.origin)


def choices(declared: Iterable[str]) -> list[str]:
    """What a `platform:` may name: `any`, the built-in profiles, the declared ones."""
    return [ANY, *BUILTIN_NAMES, *(name for name in declared if name not in BUILTIN_NAMES)]


def check_rules(rules: Iterable[Rule], declared: Iterable[str]) -> list[ConfigError]:
    """Every graph rule's `platform:` names a profile or `any`."""
    from import_policy.config.validate import ConfigError

    names = choices(declared)
    errors = []
    for rule in rules:
        platform = getattr(rule, "platform", None)
        if isinstance(platform, str) and platform not in names:
            line = getattr(rule, "platform_line", 0) or rule.origin.line
            errors.append(ConfigError(
                rule.origin.source, line,
                f"rule {rule.id!r}: unknown platform {platform!r}; platforms: {', '.join(names)} "
                "(declare one under platforms:)",
            ))
    return errors


__all__ = ["EXTEND", "PlatformMerge", "check_rules", "choices"]
