"""What a check reports, and the order reports are shown in."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

Severity = Literal["error", "warning"]
SYNTAX_ERROR = "syntax-error"
# Where a finding stands: path, line, column, end line, end column.
Place = tuple[str, int, int, int, int]


class FixPayload(Protocol):
    """What a fixer needs to rewrite a finding: a plain record, no parser objects.

    `tag` names the payload type in `import_policy.edits.payload.PAYLOADS` (its JSON
    codec) and in the fixer's appliers; `encode()` gives its fields as JSON values,
    the tag aside. `safe` decides whether `--fix` applies it or only
    `--fix --unsafe-fixes` does.
    """

    @property
    def tag(self) -> str: ...

    @property
    def safe(self) -> bool: ...

    def encode(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Diagnostic:
    rule: str
    severity: Severity
    path: str  # relative to the project root while checking; the CLI re-bases it for display
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    # Lines a suppression comment may stand on: the reported line, and the statement's first line.
    suppress_lines: tuple[int, ...] = ()
    fixable: bool = False
    chain: tuple[str, ...] | None = None
    # Opaque to the engine: what a fixer needs to rewrite the finding.
    fix: FixPayload | None = field(default=None, compare=False, repr=False)
    # A reachability finding's places, on each of its reports: its site first, then its links
    # in files named on the command line. Its reports are silenced, and baselined, as one.
    places: tuple[Place, ...] = field(default=(), compare=False, repr=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.rule, self.message)


def unfixable_where(diagnostics: Iterable[Diagnostic], why_not: Callable[[str], str | None]) -> list[Diagnostic]:
    """The findings, each fixable one in a file `why_not` refuses (asked once per path) made
    not fixable, its message saying why: no `[*]` for a fix no `--fix` would write."""
    verdicts: dict[str, str | None] = {}
    out = []
    for d in diagnostics:
        if d.fixable and d.fix is not None:
            if d.path not in verdicts:
                verdicts[d.path] = why_not(d.path)
            reason = verdicts[d.path]
            if reason is not None:
                d = replace(d, message=f"{d.message} (not fixable: {reason})", fixable=False, fix=None)
        out.append(d)
    return out
