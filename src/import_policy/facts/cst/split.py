"""A file of syntax newer than the running interpreter's, read one top-level statement at a time.

On 3.10 and 3.11 one PEP 701 f-string (`f"{x["k"]}"`) makes CPython refuse the whole file,
and libcst's parse, positions and visit of all of it cost some twenty times CPython's
(docs/benchmarks.md, T13). Only the statements CPython refuses need libcst: where CPython
stops, the top-level statement holding its error is found (a line at column 0, with the
decorators above it and the `else:`/`except`/`finally` parts after it), libcst parses those
lines alone, and CPython reads the lines after them; again at its next error, until it
reads the rest. CPython's tree of the other statements (each stretch parsed with the lines
before it blank, so every position is the file's) holds a `Refused` stand-in where each
refused statement was, and the extractor walks libcst's tree of that statement there, with
the walk's state (facts.shared.walkstate) handed over and back.

Each step is checked, never assumed: the stretch before a refused statement must parse
alone with CPython, its lines with libcst, with CPython's error inside one of their newer
constructs (facts.cst.newer), and the file's stretches and statements joined at line starts
at column 0 are then the file's statements. Where any step fails (a statement that cannot
be delimited so, more than `_MOST` of them, NFKC-resized names, `lazy` keywords, a coding
cookie naming neither UTF-8 nor latin-1), None: the
whole file goes to libcst as before. The text is CPython's decoding of the file (its coding
cookie read once): the stretches are compiled as text, whose positions are those CPython
gives for the bytes, and libcst parses text too.
"""

from __future__ import annotations

import ast
import codecs
import re
import unicodedata
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from import_policy.facts.cst.names import normalized
from import_policy.facts.cst.newer import NEWER, too_deep, within
from import_policy.facts.cst.reads import cst_read_names
from import_policy.facts.records.model import SyntaxErrorFact
from import_policy.facts.shared.deep import python_limit

_MOST = 16  # refused statements read one by one; a file with more goes to libcst whole
_TRIES = 8  # start lines tried for one refused statement, and ends for each start
_BUDGET = 2000  # lines libcst may parse while finding them, or a quarter of the file's if more
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
# Lines that continue the statement before them, never start one.
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# PEP 263's cookie, on one of the first two lines.
_SPLIT_ENCODINGS = frozenset({"utf-8", "iso8859-1"})  # codecs' names
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def _foreign_cookie(text: str) -> bool:
    """Whether the file names an encoding other than UTF-8 and latin-1. In the others (UTF-7,
    ISO-2022-JP's escapes, UTF-16) CPython's error positions on the whole file need not be
    the decoded text's, so the whole-file reading and the stretches' compile could disagree:
    such a file is read whole, as before the split."""
    found = _COOKIE.search("".join(text.splitlines(keepends=True)[:2]))
    if found is None:
        return False
    try:
        return codecs.lookup(found.group(1)).name not in _SPLIT_ENCODINGS
    except LookupError:
        return True


@dataclass(frozen=True)
class Chunk:
    """One top-level statement CPython refused (or a few on adjacent lines): lines `first` to
    `last` (1-based, inclusive), libcst's tree of them with the file's positions, and the
    names they read (facts.cst.reads)."""

    first: int
    last: int
    wrapper: MetadataWrapper
    reads: frozenset[str]
    # Every identifier the lines spell (in NFKC form), in code, strings or comments: a superset
    # of the names in them a use could be rooted at.
    names: frozenset[str]


class Refused(ast.Pass):
    """Where a refused statement stands among CPython's: its `chunk` is walked with libcst."""

    chunk: Chunk


@dataclass(frozen=True)
class Split:
    tree: ast.Module  # CPython's statements and a `Refused` for each chunk, in the file's order
    chunks: tuple[Chunk, ...]
    blanked: str  # the text with each chunk's lines empty: what `symtable` reads of the rest

    @property
    def reads(self) -> frozenset[str]:
        """The names the refused statements read."""
        return frozenset().union(*(chunk.reads for chunk in self.chunks))

    def stand_ins(self) -> dict[int, Chunk]:
        """The id of each `Refused` in the tree -> its chunk."""
        return {id(node): node.chunk for node in self.tree.body if isinstance(node, Refused)}


def split(text: str, path: str, refused: SyntaxErrorFact) -> Split | None:
    """The file (its text as CPython decodes it, `lazy` keywords absent) read as CPython's
    statements and libcst's where CPython refuses newer syntax (`refused`: its first error);
    None where that cannot be done soundly."""
    if _foreign_cookie(text):
        return None  # libcst reads such a file whole otherwise: both readings must agree
    lines = _LINES.findall(text)
    chunks: list[Chunk] = []
    budget = [max(_BUDGET, len(lines) // 4)]
    rest: ast.Module | SyntaxErrorFact = refused
    while isinstance(rest, SyntaxErrorFact):
        chunk = _chunk_at(lines, rest, chunks[-1].last if chunks else 0, budget) if len(chunks) < _MOST else None
        if chunk is None:
            return None
        chunks.append(chunk)
        rest = _compile("\n" * chunk.last + "".join(lines[chunk.last:]), path)
    body: list[ast.stmt] = []
    start = 0
    blanked = list(lines)
    for chunk in chunks:
        for index in range(chunk.first - 1, chunk.last):
            blanked[index] = "\n"
        stretch = _compile("\n" * start + "".join(lines[start : chunk.first - 1]), path)
        if not isinstance(stretch, ast.Module):
            return None
        body += stretch.body
        stand_in = Refused(lineno=chunk.first, col_offset=0, end_lineno=chunk.last, end_col_offset=0)
        stand_in.chunk = chunk
        body.append(stand_in)
        start = chunk.last
    body += rest.body
    return Split(ast.Module(body=body, type_ignores=[]), tuple(chunks), "".join(blanked))


def _compile(text: str, path: str) -> ast.Module | SyntaxErrorFact:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with python_limit():
                tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return SyntaxErrorFact(error.msg, max(error.lineno or 1, 1), max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError):
        return SyntaxErrorFact("cannot be parsed", 1, 1)
    assert isinstance(tree, ast.Module)
    return tree


def _chunk_at(lines: list[str], error: SyntaxErrorFact, floor: int, budget: list[int]) -> Chunk | None:
    """The top-level statement (whole lines, after line `floor`) holding CPython's error inside
    one of its newer constructs, as libcst reads it alone. `budget`: the lines libcst may
    still parse in all tries (a wrong start or end costs a parse)."""
    if error.line > len(lines):
        return None
    for first in _starts(lines, error.line, floor):
        for last in _ends(lines, error.line):
            budget[0] -= last - first + 1
            if budget[0] < 0:
                return None
            chunk = _parsed(lines, first, last, error)
            if chunk is not None:
                return chunk
    return None


def _starts(lines: list[str], line: int, floor: int) -> Iterator[int]:
    """Lines at or before `line` (1-based) that may start a top-level statement, nearest first,
    each moved up over the decorators above it."""
    found = 0
    index = line - 1
    while index >= floor and found < _TRIES:
        if _opens(lines, index):
            first = index
            above = index - 1
            while above >= floor and (not lines[above].strip() or lines[above].lstrip().startswith("#") or lines[above].startswith("@")):
                if lines[above].startswith("@"):
                    first = above
                above -= 1
            yield first + 1
            found += 1
            index = first
        index -= 1


def _ends(lines: list[str], line: int) -> Iterator[int]:
    """Lines at or after `line` that may end a top-level statement (the line before the next one
    that may start one), nearest first."""
    found = 0
    index = line
    while index < len(lines) and found < _TRIES:
        if _opens(lines, index):
            yield index
            found += 1
        index += 1
    if found < _TRIES:
        yield len(lines)


def _opens(lines: list[str], index: int) -> bool:
    """Whether the line may start a top-level statement: code at column 0 that continues
    nothing (no backslash before it, no `else:` or `except`)."""
    line = lines[index]
    if not line or line[0] in " \t\f\r\n#" or _CONTINUES.match(line):
        return False
    return index == 0 or not lines[index - 1].rstrip("\r\n").endswith("\\")


def _parsed(lines: list[str], first: int, last: int, error: SyntaxErrorFact) -> Chunk | None:
    text = "".join(lines[first - 1 : last])
    source = text.encode("utf-8", "surrogatepass")
    if NEWER.search(source) is None or too_deep(source):
        return None
    try:
        tree = cst.parse_module(text)
        tree, resized = normalized(tree, source)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError, SyntaxError, UnicodeError):
        return None
    if resized or not tree.body:
        return None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    offset = first - 1
    wrapper._metadata[PositionProvider] = {  # the file's lines, not the chunk's
        node: CodeRange(CodePosition(at.start.line + offset, at.start.column), CodePosition(at.end.line + offset, at.end.column))
        for node, at in wrapper.resolve(PositionProvider).items()
    }
    try:
        if not within(wrapper, error):
            return None
        reads = cst_read_names(wrapper)
    except RecursionError:
        return None
    return Chunk(first, last, wrapper, reads, frozenset(_IDENTIFIER.findall(unicodedata.normalize("NFKC", text))))

