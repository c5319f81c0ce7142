"""`# import-policy: ignore[...]` comments, found with the stdlib tokenizer.

The tokenizer runs only when the marker occurs in the file's bytes, so a
file without suppressions pays one `bytes.find`.
"""

from __future__ import annotations

import io
import re
import tokenize

from import_policy.facts.records.model import Suppressions
from import_policy.facts.shared.decoded import python_text

MARKER = b"import-policy:"
_DIRECTIVE = re.compile(r"import-policy:\s*ignore(?P<file>-file)?(?:\[(?P<rules>[^\]]*)\])?")
FILE_DIRECTIVE_LINES = 10


def parse_directive(comment: str) -> tuple[bool, frozenset[str]] | None:
    """A comment's directive: (is ignore-file, rule ids; empty means every rule)."""
    match = _DIRECTIVE.search(comment)
    if match is None:
        return None
    rules = match.group("rules")
    ids = frozenset(r.strip() for r in rules.split(",") if r.strip()) if rules else frozenset()
    return match.group("file") is not None, ids


def suppressions(source: bytes) -> Suppressions:
    if MARKER not in source:
        return Suppressions()
    whole_file = False
    lines: dict[int, frozenset[str]] = {}
    try:
        # Read as CPython reads the file: a comment's undecodable bytes do not end the reading.
        for token in tokenize.generate_tokens(io.StringIO(python_text(source)).readline):
            if token.type != tokenize.COMMENT:
                continue
            directive = parse_directive(token.string)
            if directive is None:
                continue
            is_file, rules = directive
            line = token.start[0]
            if is_file:
                whole_file = whole_file or line <= FILE_DIRECTIVE_LINES
            else:
                known = lines.get(line)
                lines[line] = frozenset() if (known is not None and not known) or not rules else (known or frozenset()) | rules
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        pass  # a file that does not tokenize keeps the directives read so far
    return Suppressions(whole_file, tuple(sorted(lines.items())))
