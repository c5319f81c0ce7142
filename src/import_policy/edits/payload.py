"""What a `Diagnostic.fix` holds: plain frozen records, no libcst, and their JSON codecs.

Checks build these (they are pure); the fixer (`import_policy.fix.apply`) finds the
node again by the diagnostic's line and column in its own parse and applies
them through the applier registered under the payload's tag. The engine never
looks inside; the run cache stores them with `encode` / `decode`.

A payload type is: a frozen record with a `tag`, `safe`, `encode()` and a
`decode` classmethod, one line in `PAYLOADS`, and one applier under the same
tag in `import_policy.fix.apply.APPLIERS` (a test holds the two tables equal).

Safety: a payload's `safe` decides whether `--fix` applies it (True) or only
`--fix --unsafe-fixes` does (False). `Diagnostic.fixable` says a fix exists;
`applies(d, unsafe)` says whether it would be applied with the flags given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from import_policy.config.model import GatewayFix, ModuleFix
from import_policy.diagnostics import Diagnostic, FixPayload
from import_policy.patterns import DottedPattern, longest_match

if TYPE_CHECKING:  # facts.model costs a warm run, which only decodes payloads, 6 ms to import
    from import_policy.facts.records.model import ImportFact


@dataclass(frozen=True)
class AliasEdit:
    """How one imported name of an import statement is rewritten.

    `written`: the name as the statement spells it (`a.b` in `import a.b`, `x`
    in `from m import x`). `aliased`: whether it has `as` (for `import`, the
    fixer checks the node agrees). `bound`: the name the statement binds, which
    the rewrite keeps.
    gateway set: becomes `from <gateway> import <target> [as <bound>]`.
    gateway None: a module fix; for `import`, `target` is the new dotted name
    (`import <target> as <bound>`); for `from`, the new module (`from <target> import x`).
    """

    written: str
    aliased: bool
    bound: str
    target: str
    gateway: str | None = None
    # A gateway fix of `import a.b` as the facts see it (they cannot tell `import a.b`, which
    # binds `a`, from `import a.b as a`, which binds the module `a.b`): the gateway's name for
    # `a.b`, which the fixer takes where the statement says `as a`; None when it exports none.
    dotted_target: str | None = None


@dataclass(frozen=True)
class ImportFix:
    """Payload of an import-rule finding: the edits of the statement at the finding's position.

    The position is an imported name's (or, for a forbidden `from` module, the
    module's) start, as `ImportFact.span` / `module_span` give it.
    """

    tag: ClassVar[str] = "import"
    kind: Literal["import", "from"]
    edits: tuple[AliasEdit, ...]
    safe: bool = True

    def encode(self) -> dict[str, Any]:
        return {"kind": self.kind, "safe": self.safe,
                "edits": [[e.written, e.aliased, e.bound, e.target, e.gateway, e.dotted_target] for e in self.edits]}

    @classmethod
    def decode(cls, raw: Mapping[str, Any]) -> ImportFix:
        kind = raw["kind"]
        if kind not in ("import", "from"):
            raise ValueError(f"an import fix of kind {kind!r}")
        edits = tuple(
            AliasEdit(str(w), bool(a), str(b), str(t), None if g is None else str(g), None if d is None else str(d))
            for w, a, b, t, g, *rest in raw["edits"] for d in [rest[0] if rest else None]
        )
        return cls(kind, edits, bool(raw["safe"]))


@dataclass(frozen=True)
class ProbeFix:
    """Payload for the ROCm pass's `trial-import-probe` finding (unsafe).

    To plug in: build `Diagnostic(..., fixable=True, fix=ProbeFix(probe, replacement))`
    where the diagnostic's line/column are the probe *call's* start (the
    `CallFact.span` of `_has_module("x")`), `probe` is the probe as configured
    (`_has_module`, plain or dotted: only its last segment is used) and
    `replacement` the configured spec-only alternative (`_has_module_spec`).
    Leave the finding unfixable when the probe maps to null.

    The fixer renames the callee (`_has_module(...)` or `mod._has_module(...)`)
    and, for a bare name, updates the `from m import _has_module` that bound it:
    it adds `_has_module_spec`, or renames the imported name when nothing else in
    the file still refers to `_has_module`. A probe the file does not import
    (and whose replacement it neither imports nor defines) is left alone, with a
    note on the finding.
    """

    tag: ClassVar[str] = "probe"
    probe: str
    replacement: str
    safe: bool = False

    def encode(self) -> dict[str, Any]:
        return {"probe": self.probe, "replacement": self.replacement, "safe": self.safe}

    @classmethod
    def decode(cls, raw: Mapping[str, Any]) -> ProbeFix:
        return cls(str(raw["probe"]), str(raw["replacement"]), bool(raw["safe"]))


@dataclass(frozen=True)
class InlineProbeFix:
    """Payload for an inline probe's `trial-import-probe` finding (unsafe): the `try:` that
    imports `module` only to see whether it can becomes `importlib.util.find_spec` of it.

    The finding points at the import inside the `try:`. Two shapes are rewritten, the
    `try:` whole: `return True` / `return False` in body and handler becomes
    `return importlib.util.find_spec("m") is not None`, and `NAME = True` / `NAME = False`
    becomes `NAME = importlib.util.find_spec("m") is not None`; `import importlib.util` is
    added at the top when the file lacks it. Any other shape is left alone, with a note.
    """

    tag: ClassVar[str] = "inline-probe"
    module: str
    safe: bool = False

    def encode(self) -> dict[str, Any]:
        return {"module": self.module, "safe": self.safe}

    @classmethod
    def decode(cls, raw: Mapping[str, Any]) -> InlineProbeFix:
        return cls(str(raw["module"]), bool(raw["safe"]))


# tag -> how a stored payload is read back. One line per payload type.
PAYLOADS: dict[str, Callable[[Mapping[str, Any]], FixPayload]] = {
    ImportFix.tag: ImportFix.decode,
    ProbeFix.tag: ProbeFix.decode,
    InlineProbeFix.tag: InlineProbeFix.decode,
}


class UnknownPayload(ValueError):
    """A payload whose tag this version does not know (a cache written by another version, say)."""


def encode(payload: FixPayload) -> dict[str, Any]:
    """The payload as JSON values, tagged with its type."""
    if payload.tag not in PAYLOADS:
        raise UnknownPayload(f"a fix payload with no codec: {payload.tag!r}")
    return {"type": payload.tag, **payload.encode()}


def decode(raw: Mapping[str, Any]) -> FixPayload:
    read = PAYLOADS.get(raw["type"])
    if read is None:
        raise UnknownPayload(f"an unknown fix payload: {raw['type']!r}")
    return read(raw)


def is_safe(d: Diagnostic) -> bool:
    return d.fix is None or d.fix.safe


def applies(d: Diagnostic, unsafe: bool) -> bool:
    """Would `--fix` (with `--unsafe-fixes` when `unsafe`) apply this finding's fix?"""
    return d.fixable and d.fix is not None and (unsafe or is_safe(d))


# --- planning an import fix (pure; used by kinds/imports.py) ------------------------------


def _matched_prefix(name: str, forbid: tuple[DottedPattern, ...]) -> str | None:
    """The longest prefix of `name` a forbid pattern matches: the part a module fix replaces."""
    size = longest_match(name, forbid)[0]
    return ".".join(name.split(".")[:size]) if size else None


def _falls_back_from(fact: ImportFact, gateway: str) -> bool:
    """The import stands in a handler of a failed import of the gateway (or of a name from it)."""
    return any(name == gateway or name.startswith(gateway + ".") for name in fact.fallback_for)


def plan_edit(
    fix: GatewayFix | ModuleFix, fact: ImportFact, forbid: tuple[DottedPattern, ...]
) -> AliasEdit | str:
    """The edit for one forbidden imported name, or why there is none."""
    if fact.kind == "dynamic":
        return "a dynamic import is not rewritten"
    if fact.lazy == "keyword":
        return "a `lazy` import is not rewritten (the fixer's parser may not read the keyword)"
    if fact.member == "*":
        return "a star import is not rewritten"
    if isinstance(fix, GatewayFix) and _falls_back_from(fact, fix.gateway):
        # `try: from G import x` / `except ImportError: import x`: through G, the fallback
        # would fail exactly when it is needed.
        return f"it is the fallback for a failed import of the gateway `{fix.gateway}`"
    if fact.kind == "import":
        root = fact.name.split(".")[0]
        aliased = fact.bound != root
        bound = fact.bound or root
        if isinstance(fix, GatewayFix):
            exports = dict(fix.exports)
            # `import m.sub` binds `m`: what the gateway must export is `m` itself.
            key = fact.name if aliased else root
            export = exports.get(key)
            if export is None:
                why = f"`{fix.gateway}` does not export `{key}`"
                if key != fact.name:
                    why += f" (`import {fact.name}` binds `{root}`)"
                return why
            dotted = exports.get(fact.name) if "." in fact.name and not aliased else None
            return AliasEdit(fact.name, aliased, bound, export, fix.gateway, dotted)
        if "." in fact.name and not aliased:
            return f"`import {fact.name}` binds `{root}`; write it with `as` to let it be rewritten"
        prefix = _matched_prefix(fact.name, forbid)
        if prefix is None:
            return "no forbidden prefix"
        return AliasEdit(fact.name, aliased, bound, fix.replace_module + fact.name[len(prefix):])
    member = fact.member or ""
    bound = fact.bound or member
    aliased = bound != member
    if isinstance(fix, GatewayFix):
        export = dict(fix.exports).get(fact.name)
        if export is None:
            return f"`{fix.gateway}` does not export `{fact.name}`"
        return AliasEdit(member, aliased, bound, export, fix.gateway)
    if fact.level:
        return "a relative import is not rewritten to another module"
    prefix = _matched_prefix(fact.name, forbid)
    if prefix is None or len(prefix) > len(fact.module):
        return f"`{fact.name}` is not a module under `{fact.module}`'s forbidden prefix"
    return AliasEdit(member, aliased, bound, fix.replace_module + fact.module[len(prefix):])
