"""A file's significant tokens, with the byte offset of any token position, for the passes
that blank or cut bytes before a parser sees the file (so every position stays true)."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass

from import_policy.facts.shared.decoded import python_encoding, python_text

# Neither starts nor ends a statement: the passes look past them.
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})


@dataclass(frozen=True)
class Tokens:
    tokens: list[tokenize.TokenInfo]
    encoding: str
    starts: list[int]  # byte offset of each line as BytesIO.readline splits them, as tokenize numbers them
    bom: int

    def offset(self, row: int, column: int, line: str) -> int:
        """The byte offset of (row, column) of a token whose line is `line`."""
        return self.starts[row - 1] + len(line[:column].encode(self.encoding)) + (self.bom if row == 1 else 0)


def significant(source: bytes) -> Tokens | None:
    """The tokens of `source` but comments and blank lines; None when it does not tokenize
    (then the parser says what is wrong)."""
    try:
        encoding = python_encoding(source)
        # Read as CPython reads it: bytes its encoding cannot decode only in comments.
        text = python_text(source)
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _SKIPPED]
    except (SyntaxError, tokenize.TokenError, LookupError, UnicodeDecodeError, ValueError):
        return None
    starts = [0]
    for line in io.BytesIO(source).readlines():
        starts.append(starts[-1] + len(line))
    return Tokens(tokens, encoding, starts, 3 if source.startswith(b"\xef\xbb\xbf") else 0)
