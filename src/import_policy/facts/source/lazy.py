"""PEP 810's `lazy` soft keyword, read on interpreters whose parser does not know it.

CPython's own tokenizer finds each `lazy` that starts a statement and is followed by
`import` or `from`; the keyword is blanked: its four bytes become `0;  `, a statement
that does nothing followed by the import on the same line (spaces alone would indent the
import), so CPython 3.11's parser and libcst read the import as any other, and every
position in the file stays true. What the keyword marked is kept: the position of the `import` or
`from` after it. Python 3.15 refuses a lazy import in some places; `misplaced` says
where, as its compiler would.
"""

from __future__ import annotations

import ast
import re
import tokenize
from dataclasses import dataclass

from import_policy.facts.records.model import SyntaxErrorFact
from import_policy.facts.source.tokens import significant

# Cheap test before tokenizing: only a file spelling this can hold the keyword.
_CANDIDATE = re.compile(rb"\blazy(?:[ \t\f]|\\(?:\r\n|\r|\n))+(?:import|from)\b")
_STATEMENT_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING})
_BLANK = b"0;  "  # as long as `lazy`


@dataclass(frozen=True)
class Lazy:
    source: bytes  # the file with each keyword blanked
    # (line, 1-based column in code points) of the `import` / `from` each keyword stood before
    at: frozenset[tuple[int, int]]
    # the same statements as `ast` places them (line, 0-based UTF-8 offset) -> the keyword's (line, column)
    keywords: dict[tuple[int, int], tuple[int, int]]
    # each position of `at` -> the keyword's (line, column), for a tree libcst built
    keyword_of: dict[tuple[int, int], tuple[int, int]]


def blank_lazy(source: bytes) -> Lazy | None:
    """The file with its `lazy` keywords blanked; None when it has none (or does not tokenize:
    then the parser says what is wrong)."""
    if b"lazy" not in source or _CANDIDATE.search(source) is None:
        return None
    read = significant(source)
    if read is None:
        return None
    tokens = read.tokens
    blanked = bytearray(source)
    at: set[tuple[int, int]] = set()
    keywords: dict[tuple[int, int], tuple[int, int]] = {}
    keyword_of: dict[tuple[int, int], tuple[int, int]] = {}
    for index, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string != "lazy" or index + 1 >= len(tokens):
            continue
        after = tokens[index + 1]
        if after.type != tokenize.NAME or after.string not in ("import", "from"):
            continue
        before = tokens[index - 1] if index else None
        if not (
            before is None or before.type in _STATEMENT_START
            or before.type == tokenize.OP and before.string in (";", ":")
        ):
            continue
        row, column = token.start
        offset = read.offset(row, column, token.line)
        if blanked[offset : offset + 4] != b"lazy":
            return None  # a line numbering tokenize and bytes do not share (a lone CR): leave it to the parser
        blanked[offset : offset + 4] = _BLANK
        after_row, after_column = after.start
        at.add((after_row, after_column + 1))
        keywords[(after_row, len(after.line[:after_column].encode("utf-8")))] = (row, column + 1)
        keyword_of[(after_row, after_column + 1)] = (row, column + 1)
    if not at:
        return None
    return Lazy(bytes(blanked), frozenset(at), keywords, keyword_of)


def misplaced(tree: ast.Module, lazy: Lazy) -> SyntaxErrorFact | None:
    """Where Python 3.15 refuses a lazy import: in a function, a class or a `try:`, of `*`, or
    of `__future__` (its messages, at the keyword)."""
    found: list[tuple[tuple[int, int], str]] = []

    def visit(statements: list[ast.stmt], where: str | None) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                keyword = lazy.keywords.get((node.lineno, node.col_offset))
                if keyword is not None:
                    is_from = isinstance(node, ast.ImportFrom)
                    future = is_from and node.module == "__future__" and not node.level  # type: ignore[union-attr]
                    star = is_from and any(alias.name == "*" for alias in node.names)
                    refused = refusal(is_from, future, star, where)
                    if refused is not None:
                        found.append((keyword, refused))
                continue
            inner = where
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = "functions"
            elif isinstance(node, ast.ClassDef):
                inner = where or "classes"
            elif isinstance(node, (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))):
                inner = where or "try/except blocks"
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    visit(block, inner)
            for handler in getattr(node, "handlers", ()):
                visit(handler.body, inner)
            for case in getattr(node, "cases", ()):
                visit(case.body, inner)

    visit(tree.body, None)
    if not found:
        return None
    (line, column), message = min(found)
    return SyntaxErrorFact(message, line, column)


def refusal(is_from: bool, future: bool, star: bool, where: str | None) -> str | None:
    """Python 3.15's message for a lazy import it refuses (of `__future__`, of `*`, or inside
    `where`: functions, classes, try/except blocks), None where it allows it."""
    if future:
        return "lazy from __future__ import is not allowed"
    if star:
        return "lazy from ... import * is not allowed"
    if where is not None:
        spelled = "lazy from ... import" if is_from else "lazy import"
        return f"{spelled} not allowed inside {where}"
    return None
