"""CPython's parser as the gate in front of libcst.

libcst's native parser overflows its own stack (SIGSEGV, which no `except` catches) on
nesting CPython refuses cheaply ("too many nested parentheses", "maximum recursion depth
exceeded during ast construction"), and it accepts NUL bytes CPython refuses. A file CPython
cannot compile cannot be imported: it is a syntax error, and libcst never sees it.

The syntax is the newest CPython's whatever interpreter runs this: PEP 810's `lazy` keyword
is blanked first (facts.lazy), and the places Python 3.15 refuses it are syntax errors.
"""

from __future__ import annotations

import ast
import warnings

from import_policy.facts.lazy import Lazy, blank_lazy, misplaced
from import_policy.facts.longnames import shorten_names
from import_policy.facts.model import SyntaxErrorFact
from import_policy.facts.nulbytes import nul_byte


def cpython_check(source: bytes, path: str) -> SyntaxErrorFact | None:
    parsed = cpython_parse(source, path)
    return None if isinstance(parsed, ast.Module) else parsed


def cpython_parse(source: bytes, path: str) -> ast.Module | SyntaxErrorFact:
    """CPython's tree of the file, or why it does not compile."""
    return cpython_read(source, path)[0]


def cpython_read(source: bytes, path: str) -> tuple[ast.Module | SyntaxErrorFact, Lazy | None]:
    """CPython's tree of the file (its `lazy` keywords blanked, and where they stood; an
    import's dotted name cut to the segments a module could have, `facts/longnames.py`), or
    why it does not compile. A `Lazy` is returned whenever the text parsed is not `source`."""
    refused = nul_byte(source)
    if refused is not None:
        return refused, None
    shortened = shorten_names(source)
    lazy = blank_lazy(shortened if shortened is not None else source)
    if lazy is None and shortened is not None:
        lazy = Lazy(shortened, frozenset(), {})  # no keyword, but the text the tree was parsed from
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
            tree = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        # CPython gives offset -1 (or None) for a bad coding cookie; positions start at 1.
        return SyntaxErrorFact(error.msg, max(error.lineno or 1, 1), max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError) as error:
        return SyntaxErrorFact(f"the file is nested too deeply or cannot be parsed: {type(error).__name__} {error}".rstrip(), 1, 1)
    assert isinstance(tree, ast.Module)
    return tree
