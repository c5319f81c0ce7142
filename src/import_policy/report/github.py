"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions
"""

from __future__ import annotations

from collections.abc import Sequence

from import_policy.diagnostics import Diagnostic
from import_policy.quoting import escape_controls, quote_path


def escape_data(text: str) -> str:
    # The runner decodes these three in a command's message; other controls (ESC) are written
    # as C escapes, so none reaches the log raw.
    return escape_controls(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    # Property values are also split on ',' and ended by ':'.
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    command = "error" if d.severity == "error" else "warning"
    properties = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in (
            ("file", quote_path(d.path)), ("line", d.line), ("endLine", d.end_line),
            ("col", d.column), ("endColumn", d.end_column), ("title", d.rule),
        )
    )
    # A chain a message already spells out is not said twice.
    message = d.message
    chain = " -> ".join(d.chain) if d.chain else ""
    if chain and chain not in message:
        message += "\nchain: " + chain
    return f"::{command} {properties}::{escape_data(message)}"


def render(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(annotation(d) + "\n" for d in diagnostics)
