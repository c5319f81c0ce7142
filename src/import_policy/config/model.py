"""The policy as the checks see it: frozen, validated, with where each piece came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from import_policy.diagnostics import Severity
from import_policy.facts.records.model import Value
from import_policy.patterns import DottedPattern, PathGlob, any_match


@dataclass(frozen=True)
class Origin:
    """Where a rule or setting was declared: a file path, or `preset:NAME`, and a 1-based line."""

    source: str
    line: int

    def __str__(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class Follow:
    """Which installed distributions the graph reads through (`follow:`), in which environment
    (`environment.python`, absolute, resolved against the folder of the file that gave it)."""

    names: tuple[str, ...]  # distribution names as written (`follow: all` gives none)
    every: bool  # `follow: all`
    python: str | None
    origin: Origin  # the `follow:` key (the `environment:` key when only it is given)
    lines: tuple[int, ...] = field(default=(), compare=False)  # of each name, for warnings


@dataclass(frozen=True)
class Examples:
    flag: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    flag_lines: tuple[int, ...] = ()
    allow_lines: tuple[int, ...] = ()


@dataclass(frozen=True)
class GatewayFix:
    gateway: str
    exports: tuple[tuple[str, str], ...]  # forbidden dotted name -> name the gateway exports


@dataclass(frozen=True)
class ModuleFix:
    replace_module: str


Fix = Union[GatewayFix, ModuleFix]


@dataclass(frozen=True)
class RuleBase:
    id: str
    message: str
    files: tuple[PathGlob, ...]
    allow_in: tuple[PathGlob, ...]
    severity: Severity
    examples: Examples
    origin: Origin
    # The `kind:` value; each kind's rule type sets its own.
    kind: str = field(default="", kw_only=True)

    def applies_to(self, path: str) -> bool:
        """`path` is relative to the project root."""
        if self.files and any_match(self.files, path) is None:
            return False
        return any_match(self.allow_in, path) is None


# Every kind's rule type derives from `RuleBase` (they live in `kinds/`, one module per kind).
Rule = RuleBase


@dataclass(frozen=True)
class RocmSafety:
    heavy_modules: tuple[DottedPattern, ...]
    probes: tuple[tuple[str, str | None], ...]
    guards: tuple[str, ...]
    files: tuple[PathGlob, ...]
    entry_modules: tuple[str, ...]
    origin: Origin
    rocm: tuple[str, ...] = ()  # names true in a ROCm process (`is_rocm`, `is_hip`)
    reasons: tuple[tuple[str, str], ...] = ()  # heavy module -> why it is heavy, when given
    # Where each setting came from, for `rules` and `explain` and for faults found in the
    # tree: (key, name, origin) for each name of a map (`heavy_modules`, `probes`) and each
    # entry of a list (`entry_modules`, ...); `removed` holds the names a `name: false` took out.
    origins: tuple[tuple[str, str, Origin], ...] = field(default=(), compare=False)
    removed: tuple[tuple[str, str, Origin], ...] = field(default=(), compare=False)
    # What a name (a last name, or a full dotted one) holds in a ROCm process.
    values: tuple[tuple[str, Value], ...] = ()
    # The oldest Python the project supports (`target_version`, else `requires-python`'s lower
    # bound, else 3.10): a lazy import is lazy only where every supported Python runs it so.
    python: tuple[int, int] = (3, 10)
    # `any`: an answer holds whatever is installed; `environment`: a `try:` import of a module
    # the environment lacks raises there (its handler runs).
    installed: str = "any"

    def applies_to(self, path: str) -> bool:
        return not self.files or any_match(self.files, path) is not None

    def origin_of(self, key: str, name: str) -> Origin:
        """Where `name` of `key` was declared; the section's origin when not recorded."""
        for k, n, origin in self.origins:
            if k == key and n == name:
                return origin
        return self.origin

    def reason(self, heavy: str) -> str | None:
        """Why a heavy module is heavy: the reason of the longest configured name covering it."""
        best: tuple[int, str] | None = None
        for name, reason in self.reasons:
            if heavy == name or heavy.startswith(name + "."):
                if best is None or len(name) > best[0]:
                    best = (len(name), reason)
        return best[1] if best is not None else None


@dataclass(frozen=True)
class Profile:
    """A platform profile as the configuration gives it (contract section 2): names false on
    the platform (`guards`), names true there (`true`) and what names hold (`values`), judged
    as the ROCm pass judges its own section. The graph's `Platform` is built from one."""

    name: str
    guards: tuple[str, ...] = ()
    true: tuple[str, ...] = ()
    values: tuple[tuple[str, Value], ...] = ()
    origin: Origin = field(default=Origin("built-in", 0), compare=False)


@dataclass(frozen=True)
class Policy:
    root: Path
    rules: tuple[Rule, ...]
    rocm_safety: RocmSafety | None = None
    exclude: tuple[PathGlob, ...] = ()
    roots: tuple[str, ...] = (".",)
    sources: tuple[str, ...] = field(default=())  # every file or preset read, in order
    ignore: tuple[str, ...] = ()  # rule ids turned off by the configuration
    enable: tuple[str, ...] = ()  # rule ids, off by default, turned on by the configuration
    target_version: tuple[int, int] | None = None  # the top-level `target_version`, when given
    # The oldest Python the project supports, as `RocmSafety.python`: what the ROCm pass and
    # `kind: import-time` rules judge lazy imports by, with or without a `rocm_safety` section.
    python: tuple[int, int] = (3, 10)
    follow: Follow | None = None  # `environment:` and `follow:`, when either is given
    # The platform profiles the configuration declares (`platforms:`), each resolved through its
    # `extends`; and the built-in `rocm` where no `rocm_safety` section gives it and a rule needs it.
    platforms: tuple[Profile, ...] = ()

    def rule(self, rule_id: str) -> Rule | None:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        return None
