"""`syntax-error`: a Python file that a rule needed and that does not parse."""

from __future__ import annotations

from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.facts.records.model import SyntaxErrorFact
from import_policy.facts.source.syntax import NEWEST_PYTHON
from import_policy.kinds.builtin import BuiltinRule

SYNTAX_ERROR_RULE = BuiltinRule(
    SYNTAX_ERROR, "builtin", "A file that does not parse.", "no", False, lambda: _DOC,
)

_DOC = """
What it does: reports a Python file that does not parse as the newest Python (named in the
message) parses it, whichever interpreter runs the check, at the parser's line and column:
a file a rule needed, or a module the ROCm pass or an `import-time` rule reached (even in a
run that did not name it: its imports could not be followed, so a chain may be missing).
Why: a file that does not parse cannot be checked, so it is never passed silently.
Options: none; no --ignore, suppression comment (`ignore-file` included) or baseline
silences it; only `exclude` keeps a file out of the run.
"""


def syntax_error(path: str, error: SyntaxErrorFact) -> Diagnostic:
    return Diagnostic(
        rule=SYNTAX_ERROR, severity="error", path=path, line=error.line,
        column=error.column, end_line=error.line, end_column=error.column,
        message=f"the file does not parse: {error.message} ({NEWEST_PYTHON} syntax)", suppress_lines=(),
    )
