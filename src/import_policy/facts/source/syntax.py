"""CPython's parser as the gate in front of libcst.

libcst's native parser overflows its own stack (SIGSEGV, which no `except` catches) on
nesting CPython refuses cheaply ("too many nested parentheses", "maximum recursion depth
exceeded during ast construction"), and it accepts NUL bytes CPython refuses. A file CPython
cannot compile cannot be imported: it is a syntax error, and libcst never sees it.

The syntax is the newest CPython's whatever interpreter runs this: PEP 810's `lazy` keyword
is blanked first (facts.lazy), and the places Python 3.15 refuses it are syntax errors; where
the running CPython refuses a file for syntax newer than its own, libcst decides (facts.newer).
"""

from __future__ import annotations

import ast
import sys
import warnings
from typing import TYPE_CHECKING

from import_policy.facts.shared.decoded import python_text
from import_policy.facts.shared.deep import python_limit
from import_policy.facts.source.lazy import Lazy, blank_lazy, misplaced
from import_policy.facts.source.longnames import shorten_names
from import_policy.facts.records.model import SyntaxErrorFact
from import_policy.facts.source.nulbytes import nul_byte

if TYPE_CHECKING:
    import libcst

    from import_policy.facts.cst.split import Split

# The Python whose syntax is checked: the newest this tool reads (PEP 810 is 3.15's), or the
# running interpreter where that is newer. Every syntax error's message names it.
NEWEST = max((3, 15), sys.version_info[:2])
NEWEST_PYTHON = f"Python {NEWEST[0]}.{NEWEST[1]}"
# CPython's refusals that newer syntax cannot explain (its nesting, NUL bytes, the encoding,
# a literal's content, where Python 3.15 refuses a lazy import): libcst never sees those files.
_NOT_NEWER = (
    "the file is nested too deeply", "too many nested parentheses", "too many statically nested blocks",
    "source code cannot contain null bytes", "unknown encoding", "encoding problem", "Non-UTF-8 code",
    "invalid or missing encoding", "(unicode error)", "(value error)", "'utf-8' codec", "lazy ",
)


def newest_check(source: bytes, path: str) -> SyntaxErrorFact | None:
    """Why the newest Python refuses the file, or None."""
    parsed = newest_read(source, path)[0]
    return parsed if isinstance(parsed, SyntaxErrorFact) else None


def newest_read(source: bytes, path: str) -> tuple[ast.Module | libcst.Module | SyntaxErrorFact, Lazy | None]:
    """CPython's tree of the file; where CPython refuses it for syntax newer than its own,
    libcst's (loaded only then); or why the newest Python refuses it. With the `lazy`
    keywords blanked, and where they stood."""
    parsed, lazy = cpython_read(source, path)
    if isinstance(parsed, ast.Module) or parsed.message.startswith(_NOT_NEWER):
        return parsed, lazy
    return _judged(source, parsed, lazy), lazy


def newest_split(source: bytes, path: str) -> tuple[ast.Module | Split | libcst.Module | SyntaxErrorFact, Lazy | None]:
    """`newest_read`, but where CPython refuses syntax newer than its own, its tree of the
    other top-level statements with libcst's of those it refuses (facts.cst.split) where they
    can be told apart; else as `newest_read`."""
    parsed, lazy = cpython_read(source, path)
    if isinstance(parsed, ast.Module) or parsed.message.startswith(_NOT_NEWER):
        return parsed, lazy
    if lazy is None or not lazy.at:  # a `lazy` keyword's placement is checked on the whole file
        from import_policy.facts.cst.split import split

        try:
            text = python_text(lazy.source if lazy is not None else source)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            text = None
        done = split(text, path, parsed) if text is not None else None
        if done is not None:
            return done, lazy
    return _judged(source, parsed, lazy), lazy


def _judged(source: bytes, parsed: SyntaxErrorFact, lazy: Lazy | None) -> libcst.Module | SyntaxErrorFact:
    from import_policy.facts.cst.newer import judge, misplaced_lazy

    judged = judge(lazy.source if lazy is not None else source, parsed)
    if lazy is not None and not isinstance(judged, SyntaxErrorFact):
        wrong = misplaced_lazy(judged, lazy)
        if wrong is not None:
            return wrong
    return judged


def cpython_check(source: bytes, path: str) -> SyntaxErrorFact | None:
    parsed = cpython_parse(source, path)
    return None if isinstance(parsed, ast.Module) else parsed


def cpython_parse(source: bytes, path: str) -> ast.Module | SyntaxErrorFact:
    """CPython's tree of the file, or why it does not compile."""
    return cpython_read(source, path)[0]


def cpython_read(source: bytes, path: str) -> tuple[ast.Module | SyntaxErrorFact, Lazy | None]:
    """CPython's tree of the file (its `lazy` keywords blanked, and where they stood; an
    import's dotted name cut to the segments a module could have, `facts/source/longnames.py`), or
    why it does not compile. A `Lazy` is returned whenever the text parsed is not `source`."""
    refused = nul_byte(source)
    if refused is not None:
        return refused, None
    shortened = shorten_names(source)
    lazy = blank_lazy(shortened if shortened is not None else source)
    if lazy is None and shortened is not None:
        lazy = Lazy(shortened, frozenset(), {}, {})  # no keyword, but the text the tree was parsed from
    parsed = _compile(lazy.source if lazy is not None else source, path)
    if lazy is not None and isinstance(parsed, ast.Module):
        wrong = misplaced(parsed, lazy)
        if wrong is not None:
            return wrong, lazy
    return parsed, lazy


def _compile(source: bytes, path: str) -> ast.Module | SyntaxErrorFact:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with python_limit():
                tree = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        # CPython gives offset -1 (or None) for a bad coding cookie; positions start at 1.
        return SyntaxErrorFact(error.msg, max(error.lineno or 1, 1), max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError) as error:
        return SyntaxErrorFact(f"the file is nested too deeply or cannot be parsed: {type(error).__name__} {error}".rstrip(), 1, 1)
    assert isinstance(tree, ast.Module)
    return tree
