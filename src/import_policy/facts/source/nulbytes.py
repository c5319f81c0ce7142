"""CPython refuses a source file holding a NUL byte; libcst parses it. The file cannot be
imported, so it is a syntax error wherever the NUL stands (strings and comments too)."""

from __future__ import annotations

from import_policy.facts.records.model import SyntaxErrorFact


def nul_byte(source: bytes) -> SyntaxErrorFact | None:
    at = source.find(b"\0")
    if at < 0:
        return None
    line_start = source.rfind(b"\n", 0, at) + 1
    # The column counts characters, as the parser's do; a broken encoding still gets a position.
    column = len(source[line_start:at].decode("utf-8", "replace")) + 1
    return SyntaxErrorFact("source code cannot contain null bytes", source.count(b"\n", 0, at) + 1, column)
