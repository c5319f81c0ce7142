"""Rules that are not declared in YAML: `syntax-error`, and the ROCm-safety pass's four."""

from __future__ import annotations

from dataclasses import dataclass

from import_policy.config.model import Policy


@dataclass(frozen=True)
class BuiltinRule:
    id: str
    kind: str
    summary: str
    fixable: str
    needs_rocm: bool
    doc: str


BUILTIN = (
    BuiltinRule(
        "syntax-error", "builtin", "A file that does not parse.", "no", False,
        """
What it does: reports a Python file that does not parse, at the parser's line and column.
Why: a file that does not parse cannot be checked, so it is never passed silently.
Options: none; it cannot be ignored with --ignore, only excluded or suppressed with
`# import-policy: ignore-file`.
""",
    ),
    BuiltinRule(
        "trial-import-probe", "rocm-safety", "A probe that imports a heavy module to see if it exists.",
        "unsafe", True, "See docs/rules.md#trial-import-probe.",
    ),
    BuiltinRule(
        "eager-heavy-import", "rocm-safety", "A heavy module imported at import time, unguarded.",
        "no", True, "See docs/rules.md#eager-heavy-import.",
    ),
    BuiltinRule(
        "import-time-jit", "rocm-safety", "A decorator from a heavy module applied at import time.",
        "no", True, "See docs/rules.md#import-time-jit.",
    ),
    BuiltinRule(
        "heavy-import-reachable", "rocm-safety", "A heavy module reached from an entry module by eager imports.",
        "no", True, "See docs/rules.md#heavy-import-reachable.",
    ),
)


def builtins_in_force(policy: Policy) -> list[BuiltinRule]:
    return [b for b in BUILTIN if not b.needs_rocm or policy.rocm_safety is not None]
