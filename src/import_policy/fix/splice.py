"""Fixing a statement at the cost of the statement: find its bytes, splice new ones in.

CPython's `ast` gives a statement's position in UTF-8 bytes per line; the fixer
needs the statement's bytes alone, so that libcst parses a few lines and not the
file. A statement can be cut out only when it stands alone on its lines (nothing
but its indentation before it, nothing but a comment after it on its last line,
no other statement joined with `;`, not the body of a one-line `if x: ...`).
When any finding's statement cannot be cut out this way, `isolate` says None and
the fixer takes the whole file, as it always could.

No libcst here, and no parse of the whole file: only the statement's lines go
through CPython's tokenizer and parser. `compiles` is the check of the whole new
file that stands between a splice and a write.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from import_policy.diagnostics import Diagnostic

# CPython's line breaks: a lone `\r` ends a line too (and so does bytes.splitlines).
NEWLINE = re.compile(rb"\r\n?|\n")
_INDENT = re.compile(rb"[ \t]*")
MAX_LINES = 2000  # a statement longer than this is not worth cutting out
_COMPOUND = tuple(
    getattr(ast, name) for name in (
        "FunctionDef", "AsyncFunctionDef", "ClassDef", "If", "For", "AsyncFor", "While", "With", "AsyncWith",
        "Try", "TryStar", "Match",
    ) if hasattr(ast, name)
)


@dataclass(frozen=True)
class Statement:
    """One statement's lines: `source[start:end]` is `indent` + `text`."""

    first_line: int  # 1-based
    last_line: int
    start: int  # byte offset of its first line
    end: int  # byte offset just past its last line's line break
    indent: str
    text: bytes  # its lines without the first line's indentation, line breaks kept


def utf8(source: bytes) -> bool:
    """Whether CPython reads `source` as UTF-8: then its columns are the file's own bytes."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return False
    return encoding in ("utf-8", "utf-8-sig")


def first_newline(source: bytes) -> str:
    """The line break libcst takes for new lines: the file's first one."""
    found = NEWLINE.search(source)
    return found.group().decode("ascii") if found else "\n"


def _line_starts(source: bytes, wanted: set[int]) -> Iterator[tuple[int, int]]:
    """(line, byte offset of its start) for lines up to max(wanted), in order."""
    last = max(wanted)
    offset = len(codecs.BOM_UTF8) if source.startswith(codecs.BOM_UTF8) else 0
    line = 1
    yield line, offset
    for found in NEWLINE.finditer(source, offset):
        line += 1
        yield line, found.end()
        if line > last:
            return


def isolate(source: bytes, findings: Sequence[Diagnostic]) -> dict[int, tuple[Statement, list[Diagnostic]]] | None:
    """first line -> (the statement, its findings), or None when one of them cannot be cut out.

    A finding's statement starts on the first of its suppression lines (the
    reported line and the statement's first line, `Diagnostic.suppress_lines`).
    """
    if not findings or not utf8(source):
        return None
    firsts = {d: min((d.line, *d.suppress_lines)) for d in findings}
    starts: dict[int, int] = {}
    wanted = set(firsts.values())
    lines_needed = wanted | {n + MAX_LINES for n in wanted}
    for line, offset in _line_starts(source, lines_needed):
        starts[line] = offset
    out: dict[int, tuple[Statement, list[Diagnostic]]] = {}
    for d, first in sorted(firsts.items(), key=lambda item: item[1]):
        if first not in out:
            statement = _statement(source, first, starts)
            if statement is None:
                return None
            out[first] = (statement, [])
        out[first][1].append(d)
    ordered = sorted(out.values(), key=lambda pair: pair[0].start)
    for (one, _), (two, _) in zip(ordered, ordered[1:]):
        if one.end > two.start:
            return None
    for statement, found in out.values():
        if any(not statement.first_line <= d.line <= statement.last_line for d in found):
            return None
    return out


def _statement(source: bytes, first: int, starts: dict[int, int]) -> Statement | None:
    start = starts.get(first)
    if start is None:
        return None
    indent = _INDENT.match(source, start)
    assert indent is not None
    body = indent.end()
    end = _end_of_statement(source, body, first, starts)
    if end is None:
        return None
    end_line, end_offset = end
    text = source[body:end_offset]
    if not text.endswith((b"\n", b"\r")):
        return None  # the last line of a file without a line break: the whole-file path keeps that exact
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    # Exactly one simple statement, and it fills the lines: nothing joined to it with `;`.
    if len(tree.body) != 1 or isinstance(tree.body[0], _COMPOUND):
        return None
    statement = tree.body[0]
    if statement.lineno != 1 or statement.col_offset != 0 or statement.end_lineno != end_line - first + 1:
        return None
    return Statement(first, end_line, start, end_offset, source[start:body].decode("ascii"), text)


def _end_of_statement(source: bytes, body: int, first: int, starts: dict[int, int]) -> tuple[int, int] | None:
    """(last line, offset past its line break) of the logical line starting at `body`, by CPython's tokenizer."""
    def lines() -> Iterator[str]:
        line, offset = first, body
        while line - first < MAX_LINES:
            following = starts.get(line + 1)
            chunk = source[offset:following] if following is not None else source[offset:]
            if not chunk:
                return
            # A chunk is one line as CPython counts them; the tokenize module knows no lone `\r`.
            text = chunk.decode("utf-8")
            yield text.rstrip("\r\n") + "\n" if text.endswith(("\r", "\n")) else text
            if following is None:
                return
            line, offset = line + 1, following

    feed = lines()
    try:
        for token in tokenize.generate_tokens(lambda: next(feed, "")):
            if token.type == tokenize.NEWLINE:
                last = first + token.end[0] - 1
                return last, starts[last + 1] if last + 1 in starts else len(source)
            if token.type == tokenize.ENDMARKER:
                return None
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return None
    return None


def splice(source: bytes, replacements: Sequence[tuple[Statement, bytes]]) -> bytes:
    """`source` with each statement's lines replaced; every other byte kept."""
    parts: list[bytes] = []
    at = 0
    for statement, new in sorted(replacements, key=lambda pair: pair[0].start):
        parts += [source[at:statement.start], new]
        at = statement.end
    parts.append(source[at:])
    return b"".join(parts)


def compiles(source: bytes) -> bool:
    """Whether CPython compiles the whole file (leaner than building an `ast` of it)."""
    try:
        with warnings.catch_warnings():  # an invalid escape elsewhere in the file is not ours to report
            warnings.simplefilter("ignore")
            compile(source, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True
