"""Spellings of one import that Python accepts, for the prefilter's soundness tests.

Written from Python's tokenizer and PEP 263 alone: white space between the words of a
statement (spaces, tabs, form feeds, line continuations), a dotted name with white space
at its dots, the soft keyword `lazy`, string literals in every form a dynamic import's
argument can take (quotes, prefixes, f-strings without placeholders, escapes, implicit
concatenation, parentheses, comments and line breaks inside the call, by position or as
`name=`; every importer: `import_module`, `__import__`, `importlib.__import__`,
`builtins.__import__`), identifiers in NFKC-equivalent letters, and the
file in any encoding a coding cookie or BOM declares (UTF-7, ISO-2022-JP and HZ with ASCII
letters spelled in their own escapes), after a line in syntax newer than the running
interpreter's.
"""

from __future__ import annotations

import base64
import unicodedata
from dataclasses import dataclass

from hypothesis import strategies as st

GAPS = (" ", "\t", "\f", "\\\n", "\\\r\n", " \f ", "\t\\\n  ", "\f\\\n\f")
GAP = st.sampled_from(GAPS)
OPTIONAL_GAP = st.sampled_from(("", *GAPS))
# Between the tokens of a call: inside its brackets, comments and line breaks are white space too.
CALL_GAP = st.sampled_from(("", " ", "\n", "\f", " # (pickle\n ", "\\\n", "\n  # 'x'\n  "))
PREFIXES = ("", "x = 1; ", "if True: ", "\f", " \f", "pass;")


@dataclass(frozen=True)
class Spelling:
    source: bytes
    target: str  # the module the snippet imports
    lazy: bool  # the read-everything path may miss it for reasons of its own (see `statement`)


def _fullwidth(name: str, which: int) -> str:
    """`name` with one letter in its fullwidth form: NFKC gives `name` back."""
    at = which % len(name)
    letter = chr(ord(name[at]) + 0xFEE0) if name[at].isalpha() else name[at]
    assert unicodedata.normalize("NFKC", letter) == name[at]
    return name[:at] + letter + name[at + 1 :]


@st.composite
def _identifier(draw: st.DrawFn, name: str) -> str:
    if draw(st.integers(0, 5)) == 0:
        return _fullwidth(name, draw(st.integers(0, 20)))
    return name


_ESCAPES = (
    lambda c: c,
    lambda c: f"\\x{ord(c):02x}",
    lambda c: f"\\{ord(c):03o}",
    lambda c: f"\\u{ord(c):04x}",
    lambda c: f"\\U{ord(c):08x}",
    lambda c: "\\N{" + unicodedata.name(c) + "}",
)


@st.composite
def _piece(draw: st.DrawFn, text: str) -> str:
    quote = draw(st.sampled_from(("'", '"', "'''", '"""')))
    escaped = "".join(draw(st.sampled_from(_ESCAPES))(c) for c in text)
    raw = escaped == text and draw(st.booleans())
    prefix = draw(st.sampled_from(("r", "R"))) if raw else draw(st.sampled_from(("", "u", "U")))
    if draw(st.integers(0, 3)) == 0:  # an f-string without placeholders is a `str` constant too
        prefix = draw(st.sampled_from(("f", "F"))) + prefix.replace("u", "").replace("U", "")
    return f"{prefix}{quote}{escaped}{quote}"


@st.composite
def literal(draw: st.DrawFn, text: str) -> str:
    """A `str` literal whose value is `text`: pieces concatenated, the whole parenthesised."""
    cuts = sorted(set(draw(st.lists(st.integers(1, max(len(text) - 1, 1)), max_size=2))))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)]) if text[a:b]]
    out = draw(_piece(pieces[0]))
    for piece in pieces[1:]:
        out += draw(CALL_GAP) or " "
        out += draw(_piece(piece))
    for _ in range(draw(st.integers(0, 2))):
        out = f"({draw(CALL_GAP)}{out}{draw(CALL_GAP)})"
    return out


@st.composite
def _dynamic(draw: st.DrawFn, target: str) -> str:
    header, callee = draw(st.sampled_from((
        ("import importlib\n", "importlib.import_module"),
        ("import importlib as il\n", "il.import_module"),
        ("from importlib import import_module\n", "import_module"),
        ("from importlib import import_module as im\n", "im"),
        ("", "__import__"),
        ("import importlib\n", "importlib.__import__"),
        ("from importlib import __import__ as imp\n", "imp"),
        ("import builtins\n", "builtins.__import__"),
        ("import builtins as b\n", "b.__import__"),
        ("from builtins import __import__ as imp\n", "imp"),
    )))
    argument = draw(literal(target))
    keyword = draw(st.sampled_from(("", "name=", "name = ", "name=\n ", "\uff4eame=")))  # NFKC: `name`
    argument = keyword + argument
    trailer = draw(st.sampled_from(("", ",", ", None") if not keyword else ("", ",", ", package=None")))
    before = draw(st.sampled_from(("", " ", "\f", "\\\n")))  # outside brackets: no bare line break
    return f"{header}{callee}{before}({draw(CALL_GAP)}{argument}{draw(CALL_GAP)}{trailer})\n"


@st.composite
def statement(draw: st.DrawFn, target: str) -> tuple[str, bool]:
    """One statement importing `target` (a top-level name), and whether the read-everything path
    may miss it for reasons of its own (`lazy`, which older interpreters read as a name)."""
    form = draw(st.sampled_from(("import", "import-list", "import-dotted", "from", "from-dotted", "lazy", "dynamic")))
    if form == "dynamic":
        return draw(_dynamic(target)), False
    name = draw(_identifier(target))
    g = [draw(GAP) for _ in range(6)]
    o = [draw(OPTIONAL_GAP) for _ in range(4)]
    text = {
        "import": f"import{g[0]}{name}",
        "import-list": f"import{g[0]}os{o[0]},{o[1]}{name}{g[1]}as{g[2]}alias",
        "import-dotted": f"import{g[0]}os{o[0]}.{o[1]}path{g[1]}as{g[2]}p{o[2]},{o[3]}{name}",
        "from": f"from{g[0]}{name}{g[1]}import{g[2]}x",
        "from-dotted": f"from{g[0]}{name}{o[0]}.{o[1]}sub{g[1]}import{g[2]}(x{o[2]},{o[3]}y)",
        "lazy": f"lazy{g[0]}import{g[1]}{name}",
    }[form]
    return draw(st.sampled_from(PREFIXES)) + text + "\n", form == "lazy"


def _utf7(line: str) -> bytes:
    """UTF-7 with every character in base64, ASCII letters too (Python's encoder leaves them)."""
    if not line:
        return b""
    return b"+" + base64.b64encode(line.encode("utf-16-be")).rstrip(b"=") + b"-"


def _interleave(data: bytes, marker: bytes, every: int) -> bytes:
    return marker.join(data[i : i + every] for i in range(0, len(data), every))


COOKIES = ("# -*- coding: {} -*-\n", "# vim: set fileencoding={} :\n", "#coding={}\n", "#!/usr/bin/env python\n# coding: {}\n")


@st.composite
def encoded(draw: st.DrawFn, text: str) -> bytes:
    """`text` as a file in an encoding Python reads: plain, BOM, or a cookie's codec."""
    encoding = draw(st.sampled_from(("utf-8", "bom", "latin-1", "utf-7", "iso2022_jp", "hz", "cp1252")))
    if encoding == "utf-8":
        return text.encode("utf-8")
    if encoding == "bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    cookie = draw(st.sampled_from(COOKIES)).format(encoding).encode("ascii")
    if encoding == "utf-7":
        body = b"\n".join(_utf7(line) for line in text.split("\n"))
    else:
        body = text.encode(encoding)
        if not text.isascii():
            pass  # escapes between the bytes of a wide character would break it
        elif encoding == "iso2022_jp":  # a switch to ASCII between letters: decoded, it is nothing
            body = _interleave(body, b"\x1b(B", draw(st.integers(1, 4)))
        elif encoding == "hz":  # `~` and a newline: HZ's line continuation, decoded to nothing
            body = _interleave(body, b"~\n", draw(st.integers(1, 4)))
    return cookie + body


# Lines in the newest Python's syntax (PEP 695, 701, 750, 758), which the interpreter running
# the tests may not know: a file holding one is read all the same.
NEWER_LINES = (
    "type Alias = list[int]\n",
    "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    "x = f\"{'a' + \"b\"}\"\n",
    "greeting = t\"hello {x}\"\n",
    "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
)


@st.composite
def spellings(draw: st.DrawFn, targets: tuple[str, ...] = ("pickle",)) -> Spelling:
    target = draw(st.sampled_from(targets))
    text, lazy = draw(statement(target))
    if draw(st.booleans()):
        text = "import os\n" + text + "os.getcwd()\n"
    if draw(st.integers(0, 3)) == 0:
        text = draw(st.sampled_from(NEWER_LINES)) + text
    try:
        source = draw(encoded(text))
    except UnicodeEncodeError:  # a fullwidth letter in Latin-1
        source = text.encode("utf-8")
    return Spelling(source, target, lazy)
