"""Generated modules with forbidden imports in every spelling, for the differential fix test.

Each module is a random mix of: plain, aliased and dotted imports; duplicate aliases and
names bound twice in one statement; multi-name imports mixing allowed and forbidden
modules; `from` imports with several names, in parentheses with comments inside; relative
imports; rebindings (`name = None`) and reads (`_r3 = name`, caught when unbound) before and
after; semicolons; backslash continuations; imports already from the gateway; blocks
indented with tabs; function bodies; and at the top a coding cookie, a docstring and
`from __future__ import annotations` in the order Python allows. The reads record what each
name held at that point, so comparing module-level bindings compares every point.
"""

from __future__ import annotations

import random

NAMES = ["a", "b", "T", "tl", "triton", "tilelang", "os", "language"]
ALLOWED = ["os", "sys", "json"]


def _piece(rng: random.Random, counter: list[int]) -> str:
    def name() -> str:
        return rng.choice(NAMES)

    def read() -> str:
        counter[0] += 1
        target = name()
        return f"try:\n    _r{counter[0]} = {target}\nexcept NameError:\n    _r{counter[0]} = 'unbound'\n"

    forms = [
        lambda: "import triton\n",
        lambda: f"import triton as {name()}\n",
        lambda: f"import triton.language as {name()}\n",
        lambda: "import triton.language\n",
        lambda: f"import tilelang as {name()}, tilelang as {name()}\n",
        lambda: f"import tilelang, tilelang as {name()}\n",
        lambda: f"import {rng.choice(ALLOWED)} as {(x := name())}, triton as {x}\n",
        lambda: f"import triton as {(x := name())}, {rng.choice(ALLOWED)} as {x}\n",
        lambda: f"import {rng.choice(ALLOWED)}, triton, {rng.choice(ALLOWED)}\n",
        lambda: f"from triton import language as {name()}, language as {name()}\n",
        lambda: "from tilelang import language\n",
        lambda: f"from triton import (\n    language as {name()},  # the DSL\n    # between\n    jit,\n)\n",
        lambda: f"from tilelang import (language as {name()},\n    language)  # after\n",
        lambda: f"x{counter[0]} = 1; import triton as {name()}; y = 2\n",
        lambda: f"import os, \\\n    triton.language as {name()}\n",
        lambda: f"from pk.gw import tl as {name()}\n",
        lambda: "from pk.gw import triton\n",
        lambda: "from . import sibling\n",
        lambda: "from .sibling import VALUE\n",
        lambda: f"{name()} = None\n",
        lambda: "del_me = 1\n",
        read,
        read,
        lambda: f"if True:\n\timport triton as {name()}\n\t{name()} = 0\n",
        lambda: f"def f{counter[0]}():\n    import tilelang as {name()}\n    return 1\n",
        lambda: "import triton  # keep this comment\n",
        lambda: "from triton import *\n",
        lambda: f"try:\n    import triton.language as {name()}\nexcept ImportError:\n    pass\n",
        lambda: f"from triton \\\n    import language as {name()}\n",
        lambda: f"\n# a comment above\nimport tilelang.language as {name()}\n",
    ]
    return rng.choice(forms)()


def module(rng: random.Random) -> bytes:
    """One generated module's bytes."""
    counter = [0]
    head: list[str] = []
    cookie = rng.random() < 0.2
    if cookie:
        head.append("# -*- coding: latin-1 -*-\n")
    if rng.random() < 0.5:
        head.append('"""A generated module."""\n')
    if rng.random() < 0.3:
        head.append("from __future__ import annotations\n")
    body = [_piece(rng, counter) for _ in range(rng.randint(1, 12))]
    body.append(_piece(rng, counter) if rng.random() < 0.5 else "")
    counter[0] += 1
    text = "".join(head + body)
    if cookie:
        return (text + "# caf\xe9\n").encode("latin-1")
    return text.encode("utf-8")


def tree(seed: int, count: int) -> dict[str, bytes]:
    """`count` generated modules under `app/`, with the sibling their relative imports name."""
    rng = random.Random(seed)
    files: dict[str, bytes] = {"app/__init__.py": b"", "app/sibling.py": b"VALUE = 1\n"}
    for number in range(count):
        files[f"app/m{number}.py"] = module(rng)
    return files
