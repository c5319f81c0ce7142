"""What a check reports, and the order reports are shown in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]
SYNTAX_ERROR = "syntax-error"


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
    fix: object | None = field(default=None, compare=False, repr=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.rule, self.message)
