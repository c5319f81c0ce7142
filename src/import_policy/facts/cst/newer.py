"""Syntax newer than the running interpreter's parser knows, read with libcst.

The syntax checked is the newest Python's whatever interpreter runs the check
(facts.syntax.NEWEST_PYTHON): on 3.10 or 3.11, CPython's `ast` refuses a file that uses
PEP 695's `type X = ...` and `def f[T]()`, PEP 701's f-strings (nested quotes, backslashes
and comments in their expressions), PEP 750's t-strings or PEP 758's `except A, B:`, and
so would a file on 3.10 with `except*`. libcst's grammar is the newest (pyproject pins the
release that reads all of these), so where CPython refuses a file, libcst decides:

- it refuses the file too: a syntax error, at CPython's position, or at libcst's where that
  is on a later line and the lines before it parse, with CPython's error inside a newer
  construct of theirs (CPython stopped early, at syntax it does not know);
- it accepts it, and CPython's error stands inside one of those newer constructs (its span
  in libcst's tree, ends included: CPython 3.11 ends a nested-quote f-string early and
  complains at its end): the file is valid, and its facts come from libcst's tree (CPython's
  extractor asks first whether the statements CPython refuses can be read alone, so that
  libcst reads only those: facts.cst.split, which applies the same test to each);
- it accepts it, and CPython's error stands elsewhere: CPython's error is the newest
  Python's too (a file that uses no newer syntax there means on 3.15 what it means here).

What never reaches libcst: what CPython refuses for its nesting, its bytes or its
encoding (libcst overflows its own stack on nesting CPython refuses cheaply; facts.syntax
sorts those out), and a file nested deeper than CPython allows (200 brackets) or with an operator chain
longer than libcst's recursion takes, counted with `tokenize` first: CPython stopped at the
newer construct, so it never saw the rest. Those stay CPython's syntax errors.

Past CPython's first error the grammar is libcst's alone: it accepts a few things the
compiler's parser refuses (an assignment to a literal, say). Where Python 3.15 refuses a lazy
import (`misplaced_lazy`) is read from libcst's tree as facts.lazy reads it from CPython's.
"""

from __future__ import annotations

import io
import re
import tokenize

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from import_policy.facts.cst.parse import parse_module
from import_policy.facts.source.lazy import Lazy, refusal
from import_policy.facts.records.model import SyntaxErrorFact

_DEEPEST = 200  # CPython's tokenizer refuses more nested brackets (MAXLEVEL)
_LONGEST_CHAIN = 1000  # operators in a row: libcst's parser recurses once for each
_CHAINED = frozenset({"not", "lambda", "await", "and", "or", "if", "else", "in", "is"})
_RESETS = frozenset({",", ";", "=", ":="})
_LIBCST_AT = re.compile(r"error at (\d+):(\d+)")
# What each newer construct must spell somewhere in the file (a string prefix with f or t, a
# `type` or `except`, a starred subscript, brackets after a def's or class's name): a file
# that spells none of them is refused for something else, and is not worth libcst's parse
# (about 10 s and 600 MB a megabyte). Over-approximate: a match only means libcst is asked.
NEWER = re.compile(
    rb"(?i:(?<![\w.])(?:r?[ft]|[ft]r)['\"])"
    rb"|\btype\b|\bexcept\b|\[[\s\\]*\*"
    rb"|\b(?:def|class)[\s\\]+[^\s(:\[]+[\s\\]*\["
)

_last: tuple[bytes, cst.Module | SyntaxErrorFact] | None = None  # both extractors judge the same file in turn


def judge(source: bytes, refused: SyntaxErrorFact) -> cst.Module | SyntaxErrorFact:
    """libcst's tree of a file CPython refused (`source` with its `lazy` keywords blanked),
    when the newest Python accepts it; else the syntax error."""
    global _last
    last = _last  # one read: a server's threads may judge files at once
    if last is not None and last[0] == source:
        return last[1]
    result = _judge(source, refused)
    _last = (source, result)
    return result


def _judge(source: bytes, refused: SyntaxErrorFact) -> cst.Module | SyntaxErrorFact:
    if NEWER.search(source) is None or too_deep(source):
        return refused
    try:
        tree = parse_module(source)
    except cst.ParserSyntaxError as error:
        found = _LIBCST_AT.search(error.message)
        if found is not None:
            at = _placed(source, int(found.group(1)), int(found.group(2)))
            if at[0] > refused.line and _explained(source, at[0], refused):
                return SyntaxErrorFact("invalid syntax", *at)
        return refused
    except (RecursionError, MemoryError, UnicodeDecodeError, LookupError, ValueError, SyntaxError):
        return refused
    try:
        return tree if _within(tree, refused) else refused
    except RecursionError:
        return refused


def _within(tree: cst.Module, refused: SyntaxErrorFact) -> bool:
    """Whether CPython's error stands inside one of the tree's newer constructs."""
    return within(MetadataWrapper(tree, unsafe_skip_copy=True), refused)


def within(wrapper: MetadataWrapper, refused: SyntaxErrorFact) -> bool:
    """Whether CPython's error stands inside one of the wrapped tree's newer constructs."""
    where = (refused.line, refused.column - 1)  # libcst's columns start at 0
    spans = _Newer.spans_of(wrapper)
    return any((span.start.line, span.start.column) <= where <= (span.end.line, span.end.column) for span in spans)


def _explained(source: bytes, line: int, refused: SyntaxErrorFact) -> bool:
    """Whether the lines before `line` (where libcst's own error is) parse, with CPython's
    error inside a newer construct of theirs: then CPython stopped at syntax it does not know,
    and libcst's error is the file's first. Otherwise CPython's error is the one to report."""
    head = b"".join(source.splitlines(keepends=True)[: line - 1])
    try:
        return _within(parse_module(head), refused)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, UnicodeDecodeError, LookupError, ValueError, SyntaxError):
        return False


def _placed(source: bytes, line: int, column: int) -> tuple[int, int]:
    """libcst's error position (1-based line, 0-based column) as a 1-based one. libcst places
    an error past the token it could not take: at the next line's indentation when that token
    ended its line, which is then where the error is said to be."""
    lines = source.decode("utf-8", "replace").splitlines()
    if 1 < line <= len(lines) and not lines[line - 1][:column].strip():
        previous = line - 1
        while previous > 1 and not lines[previous - 1].strip():
            previous -= 1
        return previous, len(lines[previous - 1].rstrip()) + 1
    return line, column + 1


def too_deep(source: bytes) -> bool:
    """More nested brackets than CPython takes, or a longer chain of operators than libcst's
    parser recurses through, as `tokenize` reads the file (as far as it can)."""
    depth = chain = 0
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type == tokenize.OP:
                if token.string in "([{":
                    depth += 1
                    chain = 0
                    if depth > _DEEPEST:
                        return True
                    continue
                if token.string in ")]}":
                    depth = max(depth - 1, 0)
                    chain = 0
                    continue
                chain = 0 if token.string in _RESETS else chain + 1
            elif token.type == tokenize.STRING or token.type == tokenize.NAME and token.string in _CHAINED:
                chain += 1
            elif token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                chain = 0
            if chain > _LONGEST_CHAIN:
                return True
    except (tokenize.TokenError, SyntaxError, ValueError, LookupError, UnicodeDecodeError):
        pass
    return False


class _Newer(cst.CSTVisitor):
    """Where the file uses syntax the running CPython may not know."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.spans: list[CodeRange] = []

    @classmethod
    def spans_of(cls, wrapper: MetadataWrapper) -> list[CodeRange]:
        finder = cls()
        wrapper.visit(finder)
        return finder.spans

    def _add(self, node: cst.CSTNode) -> None:
        self.spans.append(self.get_metadata(PositionProvider, node))

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:  # PEP 695
        self._add(node)

    def visit_TypeParameters(self, node: cst.TypeParameters) -> None:  # PEP 695, PEP 696
        self._add(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:  # PEP 701
        self._add(node)

    def visit_TemplatedString(self, node: cst.TemplatedString) -> None:  # PEP 750
        self._add(node)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:  # PEP 758
        self._handler(node)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:  # PEP 654 (3.11), PEP 758
        self._handler(node, star=True)

    def visit_Index(self, node: cst.Index) -> None:  # `a[*b]`, PEP 646 (3.11)
        if node.star is not None:
            self._add(node)

    def _handler(self, node: cst.ExceptHandler | cst.ExceptStarHandler, star: bool = False) -> None:
        caught = node.type
        if caught is None or not (star or isinstance(caught, cst.Tuple) and not caught.lpar):
            return
        start = self.get_metadata(PositionProvider, node).start
        self.spans.append(CodeRange(start, self.get_metadata(PositionProvider, caught).end))


def misplaced_lazy(tree: cst.Module, lazy: Lazy) -> SyntaxErrorFact | None:
    """Where Python 3.15 refuses a lazy import, read from libcst's tree (facts.lazy.misplaced)."""
    finder = _Misplaced(lazy)
    MetadataWrapper(tree, unsafe_skip_copy=True).visit(finder)
    if not finder.found:
        return None
    (line, column), message = min(finder.found)
    return SyntaxErrorFact(message, line, column)


class _Misplaced(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lazy: Lazy) -> None:
        super().__init__()
        self.lazy = lazy
        self.where: list[str | None] = [None]
        self.found: list[tuple[tuple[int, int], str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.where.append("functions")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.where.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.where.append(self.where[-1] or "classes")

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.where.pop()

    def visit_Try(self, node: cst.Try) -> None:
        self.where.append(self.where[-1] or "try/except blocks")

    def leave_Try(self, original_node: cst.Try) -> None:
        self.where.pop()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self.where.append(self.where[-1] or "try/except blocks")

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self.where.pop()

    def visit_Import(self, node: cst.Import) -> None:
        self._import(node, False, False, False)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = cst.Module([]).code_for_node(node.module) if node.module is not None else None
        future = module == "__future__" and not node.relative
        self._import(node, True, future, isinstance(node.names, cst.ImportStar))

    def _import(self, node: cst.Import | cst.ImportFrom, is_from: bool, future: bool, star: bool) -> None:
        start = self.get_metadata(PositionProvider, node).start
        keyword = self.lazy.keyword_of.get((start.line, start.column + 1))
        if keyword is None:
            return
        refused = refusal(is_from, future, star, self.where[-1])
        if refused is not None:
            self.found.append((keyword, refused))
