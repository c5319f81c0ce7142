"""The ROCm-safety rules' messages: what a heavy site is, why it is heavy, what to do instead."""

from __future__ import annotations

from import_policy.config.model import RocmSafety
from import_policy.diagnostics import Diagnostic
from import_policy.graph.chains import Chain
from import_policy.graph.reach import HeavySite
from import_policy.rocm.advice import unjudged
from import_policy.rocm.predicates import EAGER_HEAVY_IMPORT


def _diagnostic(rule: str, site: HeavySite, message: str, chain: tuple[str, ...] | None = None) -> Diagnostic:
    span = site.span
    return Diagnostic(
        rule=rule, severity="error", path=site.path, line=span.line, column=span.column,
        end_line=span.end_line, end_column=span.end_column, message=message,
        suppress_lines=(span.line, site.statement_line), chain=chain,
    )


def _because(rocm: RocmSafety, heavy: str) -> str:
    """Why the module is heavy, when the configuration says: ` (aiter: loads HIP modules at import)`."""
    reason = rocm.reason(heavy)
    return f" ({heavy.split('.')[0]}: {reason})" if reason else ""


def _how(rocm: RocmSafety, site: HeavySite) -> str:
    """What the import is, when it is more than an import: a trial import, a lazy import that
    stays eager, one loaded by a read."""
    if site.trial:
        return f" (a trial import: `try: import {site.heavy}` only to see whether it is installed)"
    if site.eager_lazy:
        major, minor = rocm.python
        return f" (lazy only from Python 3.15; the project supports Python {major}.{minor})"
    if site.loaded_by is not None:
        return f" (`{site.detail}` is loaded here, where `{site.loaded_by}` is read)"
    return ""


def eager(rocm: RocmSafety, site: HeavySite) -> Diagnostic:
    because = _because(rocm, site.heavy) + unjudged(site.unjudged, rocm)
    if site.kind == "import":
        message = (
            f"heavy module `{site.heavy}` is imported when this module is imported{_how(rocm, site)}; "
            f"import it where it is used, or under a guard{because}"
        )
    elif site.kind == "probe":
        message = f"`{site.detail}` runs when this module is imported and imports `{site.heavy}`{because}"
    else:
        message = (
            f"`{site.detail.split(' -> ')[0]}` runs when this module is imported and imports "
            f"`{site.heavy}` ({site.detail}){site.also_text()}{because}"
        )
    return _diagnostic(EAGER_HEAVY_IMPORT, site, message)


def reached(rule: str, rocm: RocmSafety, chain: Chain, site: HeavySite) -> Diagnostic:
    because = _because(rocm, site.heavy) + unjudged(site.unjudged, rocm)
    path = " -> ".join(chain.modules) + chain.if_installed()
    if site.kind == "jit":
        message = (
            f"`{site.detail}` from heavy module `{site.heavy}` runs when this module is imported, and importing "
            f"`{chain.entry}` imports it: {path}; compile on first use instead{because}"
        )
    elif site.kind == "import":
        message = f"importing `{chain.entry}` imports `{site.heavy}`{_how(rocm, site)}: {path}{because}"
    else:
        message = f"importing `{chain.entry}` calls `{site.detail}`, which imports `{site.heavy}`{site.also_text()}: {path}{because}"
    return _diagnostic(rule, site, message, chain.modules)


__all__ = ["eager", "reached"]
