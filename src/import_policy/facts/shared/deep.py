"""Walking a tree as deep as CPython compiles.

CPython compiles a flat `if`/`elif` chain of 2,000 branches (3.11; 5,000 on 3.13) and an
operator chain almost as long, yet each `elif` is an `If` in the one before's `orelse`: the
extractors' walkers (and libcst's own visitors and position pass) recurse once or more per
level, and Python's default limit of 1,000 frames stops them. A file whose walk overflows
is walked again on a thread of its own with a stack and a recursion limit that take what
CPython compiles; the parse that decides whether the file compiles never runs under the
raised limit (`python_limit`): CPython's parser reads the recursion limit, and would accept
under it what `python` refuses.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

# The limit every Python process starts with: CPython's parser and compiler scale theirs from it.
PYTHON_LIMIT = 1000
_DEEP_LIMIT = 200_000
_DEEP_STACK = 1024 * 1024 * 1024  # address space, taken only as the walk goes down
_ONE_AT_A_TIME = threading.Lock()  # the recursion limit is the interpreter's, not the thread's
_here = threading.local()


def on_deep_stack() -> bool:
    return bool(getattr(_here, "deep", False))


def deep(call: Callable[[], T]) -> T:
    """`call()` on a thread whose stack and recursion limit take any tree CPython compiles;
    its exceptions are raised here."""
    if on_deep_stack():
        return call()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        _here.deep = True
        try:
            outcome.append(call())
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            failure.append(error)

    with _ONE_AT_A_TIME:
        limit = sys.getrecursionlimit()
        previous = threading.stack_size(_DEEP_STACK)
        try:
            thread = threading.Thread(target=run, name="import-policy-deep-walk", daemon=True)
            sys.setrecursionlimit(max(limit, _DEEP_LIMIT))
            thread.start()
        finally:
            threading.stack_size(previous)
        try:
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return outcome[0]


def retried(call: Callable[[], T], too_deep: Callable[[T], bool] = lambda _: False) -> T:
    """`call()`; where it overflows Python's stack (a RecursionError, or an answer `too_deep`
    says one gave), `call()` again on the deep thread."""
    if on_deep_stack():
        return call()
    try:
        result = call()
    except Exception as error:
        if not overflowed(error):
            raise
        return deep(call)
    return deep(call) if too_deep(result) else result


def overflowed(error: BaseException) -> bool:
    """A RecursionError, or what one left behind: libcst's position pass, a generator-based
    context manager, raises a KeyError while a RecursionError unwinds through it."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, RecursionError):
            return True
        seen = seen.__context__
    return False


@contextmanager
def python_limit() -> Iterator[None]:
    """The recursion limit a `python` process has (for CPython's parse: it reads the limit)."""
    limit = sys.getrecursionlimit()
    if not on_deep_stack() or limit <= PYTHON_LIMIT:
        yield
        return
    sys.setrecursionlimit(PYTHON_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
