"""Facts: what one parse of a file says about its imports, uses, calls and comments."""

from __future__ import annotations

import os
import sys


def _parser_release() -> str:
    """libcst's release, read from its version file rather than imported (0.2 s a warm run
    never pays) or asked of the package metadata (30 ms)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("libcst")
        if spec is None or spec.origin is None:
            return "none"
        with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), "rb") as file:
            text = file.read(4096).decode("utf-8", "replace")
        return text.rpartition("__version__ = version = ")[2].split("\n")[0].strip("\"'")
    except (OSError, ImportError, ValueError):
        return "unknown"


# Bumped whenever extraction changes what it records for the same bytes: every cache whose
# answers come from facts (per-file facts, whole-tree runs, the ROCm pass's graph) keys by it,
# so an editable install whose extractors moved on never replays an old answer. The parsers
# are part of it: CPython's `ast` and `tokenize` accept another syntax on each release (a
# 3.11 `syntax-error` for `type X = int` is no answer for 3.12), and libcst's grammar moves
# with its own releases, so a cache shared by two interpreters (a hook's venv and the user's)
# never gives one the other's parse.
def _implementation() -> str:
    """`platform.python_implementation()` without importing `platform` (5 ms of every run):
    the same names for the interpreters it knows, the module's own answer for the rest."""
    known = {"cpython": "CPython", "pypy": "PyPy", "ironpython": "IronPython", "jython": "Jython"}
    name = known.get(sys.implementation.name)
    if name is None:
        import platform

        name = platform.python_implementation()
    return name


EXTRACTION = (
    f"17:{_implementation()}-{'.'.join(map(str, sys.version_info[:3]))}"
    f"-{sys.version_info.releaselevel}:libcst-{_parser_release()}"
)
