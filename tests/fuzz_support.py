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
    "version: 1\nextends: [rocm-safety]\nroots: ['.']\nrules:\n"
    "  - id: no-re\n    forbid: [re, os.path.join, typing.*]\n    fix: {replace_module: regex}\n"
    "  - id: gate\n    forbid: [tilelang, pathlib]\n"
    "    fix: {gateway: gw, exports: {tilelang: tilelang, pathlib: pathlib}}\n"
)
