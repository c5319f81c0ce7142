"""`ImportFact.fallback_for`: an import in a handler that catches a failed import knows what
the `try:` body imported (each name and its module), in both extractors alike."""

from __future__ import annotations

import pytest

from import_policy.facts.cpython import from_ast as fast
from import_policy.facts.cst.from_cst import extract as libcst_extract

CASES = [
    # (source, {bound name of the handler's import: what it falls back from})
    ("try:\n    from g import tl, triton\nexcept ModuleNotFoundError:\n    import triton\n",
     {"triton": ("g.tl", "g", "g.triton")}),
    ("try:\n    from . import gw\nexcept (KeyError, ImportError) as e:\n    import triton\n",
     {"triton": ("pkg.sub.gw", "pkg.sub")}),
    ("try:\n    import g.x as y\nexcept:\n    import triton\n", {"triton": ("g.x",)}),
    # Not a handler that catches a failed import, or nothing imported in the body: no fallback.
    ("try:\n    import g\nexcept KeyError:\n    import triton\n", {"triton": ()}),
    ("try:\n    x = 1\nexcept ImportError:\n    import triton\n", {"triton": ()}),
    # Only the handlers: not the body, `else:` nor `finally:`; the second handler sees the body's
    # imports, not the first handler's.
    ("try:\n    import g\nexcept KeyError:\n    import h\nexcept ImportError:\n    import triton\n"
     "else:\n    import e\nfinally:\n    import f\n",
     {"g": (), "h": (), "triton": ("g",), "e": (), "f": ()}),
    # Nested: the inner handler falls back from both bodies; in a function too.
    ("def f():\n    try:\n        import g\n    except Exception:\n        try:\n            import h\n"
     "        except BaseException:\n            import triton\n",
     {"g": (), "h": ("g",), "triton": ("g", "h")}),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_fallback_for(source: str, expected: dict[str, tuple[str, ...]]) -> None:
    data = source.encode()
    theirs = libcst_extract(data, "pkg/sub/mod.py", "pkg.sub.mod", False)
    ours = fast.extract(data, "pkg/sub/mod.py", "pkg.sub.mod", False)
    assert ours is not None
    assert ours.imports == theirs.imports
    found = {fact.bound: fact.fallback_for for fact in theirs.imports}
    assert {bound: found.get(bound) for bound in expected} == expected
    assert all(not fallback for bound, fallback in found.items() if bound not in expected)
