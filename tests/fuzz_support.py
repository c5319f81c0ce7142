"""Generators and an independent reference model for the fuzz tests (and bench/fuzz.py).

The model is written from CONTRACT.md section 3 alone, never by calling
import_policy: a name is forbidden when `pkg` or a prefix of it is forbidden
and `pkg.ok` (or a prefix) is not carved out; `scope: module` counts only
statements outside function bodies; `type_checking: ignore` drops the body of
`if TYPE_CHECKING:` and `if TYPE_CHECKING and x:`, but not their `else:` nor
`if TYPE_CHECKING or x:`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

FORBID = "pkg"
EXCEPT = "pkg.ok"

# (header line, runs at import time?, type-checking-only body?)
SCOPES: dict[str, tuple[str, bool, bool]] = {
    "function": ("def f():", False, False),
    "async-function": ("async def g():", False, False),
    "class": ("class C:", True, False),
    "if": ("if x:", True, False),
    "try": ("try:", True, False),
    "with": ("with x:", True, False),
    "type-checking": ("if TYPE_CHECKING:", True, True),
    "typing.type-checking": ("if typing.TYPE_CHECKING:", True, True),
    "type-checking-and": ("if TYPE_CHECKING and x:", True, True),
    "type-checking-or": ("if TYPE_CHECKING or x:", True, False),
}
# Scopes whose body needs a preceding sibling (their header closes another block).
TRAILERS = {
    "type-checking-else": ("if TYPE_CHECKING:", "else:"),
    "except": ("try:", "except ImportError:"),
}

MODULES = ("pkg", "pkg.sub", "pkg.ok", "pkg.ok.deep", "other", "other.pkg", "pkgx")
NAMES = ("b", "c", "ok", "sub")


def forbidden(name: str) -> bool:
    def under(name: str, pattern: str) -> bool:
        return name == pattern or name.startswith(pattern + ".")

    return under(name, FORBID) and not under(name, EXCEPT)


@dataclass(frozen=True)
class Statement:
    text: str
    names: tuple[str, ...]  # the dotted names it imports, resolved


def statements(package: str) -> st.SearchStrategy[Statement]:
    """Every form of section 3; `package` is the file's own package for `from . import x`."""
    module = st.sampled_from(MODULES)
    name = st.sampled_from(NAMES)
    return st.one_of(
        module.map(lambda m: Statement(f"import {m}", (m,))),
        module.map(lambda m: Statement(f"import {m} as alias", (m,))),
        st.tuples(module, name).map(lambda t: Statement(f"from {t[0]} import {t[1]}", (f"{t[0]}.{t[1]}",))),
        st.tuples(module, name, name).map(
            lambda t: Statement(f"from {t[0]} import ({t[1]}, {t[2]})", (f"{t[0]}.{t[1]}", f"{t[0]}.{t[2]}"))
        ),
        name.map(lambda n: Statement(f"from . import {n}", (f"{package}.{n}",))),
        module.map(lambda m: Statement(f"importlib.import_module({m!r})", (m,))),
        module.map(lambda m: Statement(f"__import__({m!r})", (m,))),
    )


ScopeChain = tuple[str, ...]


@dataclass(frozen=True)
class Placed:
    statement: Statement
    scopes: ScopeChain


def placed(package: str) -> st.SearchStrategy[Placed]:
    scope = st.sampled_from(sorted(SCOPES) + sorted(TRAILERS))
    return st.builds(Placed, statements(package), st.lists(scope, max_size=3).map(tuple))


@dataclass(frozen=True)
class Case:
    path: str  # where the file stands in the project
    package: str
    items: tuple[Placed, ...]


def cases() -> st.SearchStrategy[Case]:
    def for_path(where: tuple[str, str]) -> st.SearchStrategy[Case]:
        path, package = where
        return st.lists(placed(package), min_size=1, max_size=6).map(lambda items: Case(path, package, tuple(items)))

    return st.sampled_from([("app/main.py", "app"), ("pkg/inner.py", "pkg")]).flatmap(for_path)


HEADER = "import importlib\nimport typing\nfrom typing import TYPE_CHECKING\nx = ctx = None\n"


def render(case: Case) -> tuple[str, dict[int, Placed]]:
    """The source, and the line each statement stands on."""
    lines = HEADER.splitlines()
    where: dict[int, Placed] = {}
    for item in case.items:
        indent = ""
        closers: list[str] = []
        for scope in item.scopes:
            if scope in TRAILERS:
                opener, trailer = TRAILERS[scope]
                lines += [indent + opener, indent + "    pass", indent + trailer]
            else:
                lines.append(indent + SCOPES[scope][0])
            if scope == "try":
                closers += [indent + "    pass", indent + "except Exception:"]
            indent += "    "
        lines.append(indent + item.statement.text)
        where[len(lines)] = item
        for closer in reversed(closers):  # innermost `try` first; each handler body is the `pass` below it
            lines.append(closer)
    return "\n".join(lines) + "\n", where


def at_import_time(scopes: ScopeChain) -> bool:
    return all(SCOPES[s][1] if s in SCOPES else True for s in scopes)


def type_checking_only(scopes: ScopeChain) -> bool:
    return any(SCOPES[s][2] for s in scopes if s in SCOPES)


def expected_lines(case: Case, scope: str, type_checking: str) -> set[int]:
    """The lines the contract says the rule reports."""
    _, where = render(case)
    out = set()
    for line, item in where.items():
        if not any(forbidden(n) for n in item.statement.names):
            continue
        if scope == "module" and not at_import_time(item.scopes):
            continue
        if type_checking == "ignore" and type_checking_only(item.scopes):
            continue
        out.add(line)
    return out


def policy(scope: str, type_checking: str) -> str:
    return (
        "version: 1\nroots: ['.']\nrules:\n"
        f"  - id: no-pkg\n    forbid: [{FORBID}]\n    except: [{EXCEPT}]\n"
        f"    scope: {scope}\n    type_checking: {type_checking}\n"
    )


def reported_lines(stdout: str, path: str) -> set[int]:
    data = json.loads(stdout)
    return {d["line"] for d in data["diagnostics"] if d["path"] == path and d["rule"] == "no-pkg"}


# --- mutations of real files --------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
SEED_FILES = sorted(
    [p for p in (REPO / "src" / "import_policy").rglob("*.py") if p.stat().st_size < 20_000][:12]
    + list((REPO / "examples").rglob("*.py"))
)

MUTATIONS = ("flip", "truncate", "nul", "cr", "invalid-utf8", "tabs", "splice", "bom")


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    if not data:
        return data
    at = rng.randrange(len(data))
    if kind == "flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == "truncate":
        return data[:at]
    if kind == "nul":
        return data[:at] + b"\0" + data[at:]
    if kind == "cr":
        return data[:at] + b"\r" + data[at:]
    if kind == "invalid-utf8":
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"]) + data[at:]
    if kind == "tabs":
        lines = data.split(b"\n")
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(lines))
            if lines[i].startswith(b"    "):
                lines[i] = b"\t" + lines[i][4:]
            else:
                lines[i] = b" \t" + lines[i]
        return b"\n".join(lines)
    if kind == "splice":
        end = rng.randrange(len(data))
        start, stop = sorted((at, end))
        return data[:start] + data[stop:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + data[at:]
    raise ValueError(kind)


MUTATION_POLICY = (
    # The tree holds modules and no package: the pass's entry is named (none would be an error).
    "version: 1\nextends: [rocm-safety]\nroots: ['.']\nrocm_safety: {entry_modules: [gw]}\nrules:\n"
    "  - id: no-re\n    forbid: [re, os.path.join, typing.*]\n    fix: {replace_module: regex}\n"
    "  - id: gate\n    forbid: [tilelang, pathlib]\n"
    "  - id: no-pickle\n    forbid: [pickle]\n"
    "    fix: {gateway: gw, exports: {tilelang: tilelang, pathlib: pathlib}}\n"
)


# --- programs with uses of imported names, for the two use resolvers -------------------

# Every import form; `m` is only ever bound by imports, so no scope rebinds the root of a
# dotted `import m.sub` (libcst resolves `m.sub.f` past a local `m`; CPython does not).
USE_IMPORTS = (
    "import m", "import m.sub", "import m.sub.deep", "import m.sub as x", "import m as y",
    "from m import sub as x", "from m.sub import f as cu", "from m import sub", "from . import sub as y",
    "from .. import rel as cu", "from .pkg import g as x", "import m.sub as x, other as y",
    "from m import (sub as cu, f as x)",
)
USE_NAMES = ("x", "y", "cu", "sub")
# Statements that bind a name without importing it (`{n}`: the name).
USE_REBINDS = (
    "{n} = None", "{n} = {n}", "{n} += 1", "for {n} in range(2): pass", "with ctx() as {n}: pass",
    "try:\n    pass\nexcept Exception as {n}:\n    pass", "{n}: int = 0", "({n}, z) = (1, 2)",
    "def {n}(): pass", "class {n}: pass",
)
# Expressions that use a name (`{n}`), some in scopes of their own.
USE_EXPRESSIONS = (
    "{n}", "{n}.f", "{n}.sub.f", "{n}.sub.deep.g", "{n}.f()", "{n}[0].f", "print({n}.f, key={n})",
    "[{n}.f for _ in range(2)]", "[{n} for {n} in range(2)]", "[q for q in {n}.f]",
    "{{k: {n}.g for k in {n}.f}}", "(lambda: {n}.f)()", "(lambda {n}=1: {n}.f)()",
    "(lambda q={n}.f: q)()", "f'{{{n}.f}}'", "{n}.f if {n} else {n}.g", "m.sub.f", "m.f", "m",
)
USE_BLOCKS = ("def", "async def", "class", "if", "method")


@dataclass(frozen=True)
class UseItem:
    kind: str  # import | rebind | use | global | block
    text: str
    body: tuple[UseItem, ...] = ()


def use_items(depth: int = 2) -> st.SearchStrategy[tuple[UseItem, ...]]:
    name = st.sampled_from(USE_NAMES)
    leaf = st.one_of(
        st.sampled_from(USE_IMPORTS).map(lambda t: UseItem("import", t)),
        st.tuples(st.sampled_from(USE_REBINDS), name).map(lambda t: UseItem("rebind", t[0].format(n=t[1]))),
        st.tuples(st.sampled_from(USE_EXPRESSIONS), name).map(lambda t: UseItem("use", t[0].format(n=t[1]))),
        name.map(lambda n: UseItem("global", f"global {n}")),
    )
    if depth == 0:
        return st.lists(leaf, min_size=1, max_size=5).map(tuple)
    block = st.tuples(st.sampled_from(USE_BLOCKS), use_items(depth - 1)).map(
        lambda t: UseItem("block", t[0], t[1])
    )
    return st.lists(st.one_of(leaf, leaf, block), min_size=1, max_size=6).map(tuple)


def render_uses(items: tuple[UseItem, ...], indent: str = "", block: str = "", in_class: bool = False) -> list[str]:
    """Lines of a program; a class body binds before it uses (CPython looks a class-body name up
    when the line runs, libcst takes every binding of the class), globals open a function, and
    a class body holds no class or `if` (libcst lets an inner class see the outer class's
    names, and takes a binding in a later `if` for one before the use)."""
    if in_class:
        items = tuple(sorted(items, key=lambda item: item.kind == "use"))
    # Only at the top of a function body: a `global` after a binding of the name is read in
    # order by libcst and for the whole function by CPython.
    globals_ = [item for item in items if item.kind == "global"] if block in ("def", "async def") else []
    lines = [indent + item.text for item in globals_]
    counter = 0
    for item in items:
        if item.kind == "global":
            continue
        if item.kind == "block":
            counter += 1
            if item.text == "method":
                lines.append(f"{indent}class K{counter}:")
                lines.append(f"{indent}    def meth(self):")
                lines += render_uses(item.body, indent + "        ", "def")
                continue
            kind = "def" if item.text in ("class", "if") and in_class else item.text
            header = {"def": f"def f{counter}():", "async def": f"async def g{counter}():",
                      "class": f"class C{counter}:", "if": "if cond:"}[kind]
            lines.append(indent + header)
            lines += render_uses(item.body, indent + "    ", kind, kind == "class")
        else:
            lines += [indent + line for line in item.text.split("\n")]
    return lines or [indent + "pass"]


def use_program(items: tuple[UseItem, ...]) -> str:
    return "\n".join(render_uses(items)) + "\n"
