"""Lexical helpers for C-family sources: blanking, ``#include`` and token search.

This is deliberately *not* a preprocessor.  Conditionals are not evaluated,
so an ``#include`` inside ``#if 0`` is still reported, macros are not
expanded (``#include MACRO`` is not reported) and nothing is read from disk.
The aim is a fast, position-exact view of the text that a policy check can
match against without being fooled by comments or string literals.

Positions are 1-based; columns count Python ``str`` characters (code points)
and lines are split on ``\\n`` only, so in CRLF text the ``\\r`` is simply the
last character of its line.  Every transformation preserves length and
newline placement, which is what lets an offset in the blanked text be
reported as a position in the original file.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Only needed for the annotation; ``regex`` may or may not have stubs
    # installed, and both must pass ``mypy --strict``.
    import regex  # type: ignore[import-untyped, unused-ignore]

__all__ = [
    "Blanked",
    "Include",
    "TokenMatch",
    "TokenTimeout",
    "blank",
    "find_includes",
    "find_tokens",
]

_IDENT = r"A-Za-z0-9_"

# From a position: the code up to the next thing that changes lexical state, then that thing
# (none at the end of the text). The code is read one token at a time, each consumed whole, so
# a digit inside an identifier or a number never starts a number, and nothing is read twice:
# a search that tried a literal or a number again from every character of one it had failed
# to match took 54 s on an 80 KB `1.1.1...`. It also keeps the Python-level loop down to one
# iteration per comment or literal.
_RAW_START = r'(?:u8|u|U|L)?R"[^()\\\s"]{0,16}\('
_NEXT = re.compile(
    rf"""
    (?:
        [^/"'A-Za-z_0-9.]+
      | /(?![/*])
      | \.(?![0-9])
      # An identifier, unless it is the prefix of a raw string (``R"x(``, ``u8R"(``); in
      # ``fooR"x"`` the R belongs to the identifier and the string is an ordinary one.
      | (?!{_RAW_START})[A-Za-z_][{_IDENT}]*
      # A pp-number, whole, so a C++14 digit separator's ``'`` never opens a character literal.
      | \.?[0-9](?:[eEpP][+-]|'[{_IDENT}]|[{_IDENT}.])*
    )*
    (?:
        (?P<line>//)
      | (?P<block>/\*)
      | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{{0,16}})\()
      # Encoding prefixes of ordinary literals need no handling: they are
      # identifier characters and stay as code.
      | (?P<quote>["'])
    )?
    """,
    re.VERBOSE,
)

# A backslash-newline splices lines (translation phase 2) before comments
# are recognised, so a ``//`` comment can run on over several lines.
_LINE_COMMENT_BODY = re.compile(r"(?:\\\r?\n|[^\n])*")

# Literal bodies: an escape swallows the next character (or a spliced
# newline); an unescaped newline ends an unterminated literal.  The trailing
# ``?`` lets a lone backslash at end of file belong to the literal.
_LITERAL_BODY = {
    '"': re.compile(r'(?:[^"\\\n]|\\(?:\r?\n|.)?)*'),
    "'": re.compile(r"(?:[^'\\\n]|\\(?:\r?\n|.)?)*"),
}

_NOT_NEWLINE = re.compile(r"[^\r\n]")


def _spaces(text: str) -> str:
    return _NOT_NEWLINE.sub(" ", text)


@dataclass(frozen=True)
class Blanked:
    """Two position-preserving views of a source file."""

    code: str  # comments and literal contents blanked
    no_comments: str  # only comments blanked; ``#include "..."`` paths survive


def blank(source: str) -> Blanked:
    """Blank comments (and, in ``code``, literal contents) of ``source``.

    Blanked characters become spaces except ``\\n`` and ``\\r``, so lines and
    columns of both views match ``source``.  Literals keep their delimiting
    quotes (and any encoding prefix); raw strings also blank their
    ``delim(`` / ``)delim`` so a delimiter never looks like a token.
    Unterminated block comments and raw strings run to end of file;
    unterminated ordinary literals end at end of line, as compilers recover.
    """
    code: list[str] = []
    no_comments: list[str] = []
    pos = 0
    size = len(source)
    while pos < size:
        m = _NEXT.match(source, pos)
        kind = m.lastgroup if m is not None else None
        if m is None or kind is None:
            break
        start = m.start(kind)
        code.append(source[pos:start])
        no_comments.append(source[pos:start])
        if kind in ("line", "block"):
            if kind == "line":
                body = _LINE_COMMENT_BODY.match(source, m.end())
                end = body.end() if body else size
            else:
                close = source.find("*/", m.end())
                end = size if close < 0 else close + 2
            hidden = _spaces(source[start:end])
            code.append(hidden)
            no_comments.append(hidden)
        else:
            if kind == "quote":
                quote = m.group("quote")
                open_end = m.end()
                body = _LITERAL_BODY[quote].match(source, open_end)
                body_end = body.end() if body else open_end
                closed = source.startswith(quote, body_end)
                end = body_end + 1 if closed else body_end
            else:  # raw string; no escapes or splices apply inside it
                open_end = source.index('"', start) + 1
                terminator = ")" + (m.group("delim") or "") + '"'
                close = source.find(terminator, m.end())
                body_end = size if close < 0 else close + len(terminator) - 1
                end = size if close < 0 else body_end + 1
            code.append(source[start:open_end])
            code.append(_spaces(source[open_end:body_end]))
            code.append(source[body_end:end])
            no_comments.append(source[start:end])
        pos = end
    code.append(source[pos:])
    no_comments.append(source[pos:])
    return Blanked(code="".join(code), no_comments="".join(no_comments))


class _LineIndex:
    """Offset -> (line, column) in O(log lines)."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        self._starts.extend(m.end() for m in re.finditer("\n", text))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1


@dataclass(frozen=True)
class Include:
    """One ``#include`` directive; the position is that of the path itself."""

    path: str  # as written (its splices deleted)
    line: int
    column: int
    end_column: int  # exclusive
    angled: bool

    @property
    def header(self) -> str:
        """``path`` normalized: what a rule's globs are matched against."""
        return normalize_header(self.path)


# ``%:`` is ``#`` (a digraph, translation phase 3), and GCC reads ``#import`` (Objective-C's
# include-once) in C and C++ too. ``(?![\w])`` rejects ``#include_next`` (GNU: resumes the
# search after the current directory, so it names no new dependency of its own) and other
# ``include``-prefixed identifiers. Run over the spliced text (``cfamily_phases``), so a
# directive split by backslash-newline is found whole.
_DIRECTIVE = re.compile(
    rf"^[ \t\f\v]*(?:\#|%:)[ \t\f\v]*(?:include|import)(?![{_IDENT}])[ \t\f\v]*(?=[<\"])",
    re.MULTILINE,
)
# In a directive `<...>` is one header-name token: a `//` inside it starts no comment.
_PATH = re.compile(r'<(?P<angled>[^>\r\n]+)>|"(?P<quoted>[^"\r\n]+)"')


def normalize_header(path: str) -> str:
    """A header path as the file system resolves it under an include folder: repeated
    slashes are one, ``.`` goes, ``..`` takes the folder before it (``ATen//x.h``,
    ``./ATen/x.h`` and ``torch/csrc/stable/../../../ATen/ATen.h`` name ``ATen/x.h`` and
    ``ATen/ATen.h``)."""
    return posixpath.normpath(re.sub("/+", "/", path)) if path else path


# Where an offset of the scanned text stands in the source: (line, column), 1-based.
Position = Callable[[int], "tuple[int, int]"]


def find_includes(no_comments: str, position: Position | None = None, source: str | None = None) -> list[Include]:
    """Every ``#include <...>`` / ``#include "..."`` (or ``%:``, ``#import``) in ``no_comments``.

    Pass :attr:`Blanked.no_comments`, so directives inside comments are
    already gone while quoted paths are intact; ``source``, the text it was blanked
    from, is where a header name is read (``<ATen//x.h>`` holds no comment). ``position``:
    where an offset stands in the source (a spliced text's map), else its own lines.
    """
    where = position if position is not None else _LineIndex(no_comments).position
    text = source if source is not None else no_comments
    found: list[Include] = []
    for head in _DIRECTIVE.finditer(no_comments):
        m = _PATH.match(text, head.end())
        if m is None:
            continue
        group = "angled" if m.group("angled") is not None else "quoted"
        path = m.group(group)
        line, column = where(m.start(group))
        end_line, last = where(m.end(group) - 1)
        found.append(
            Include(
                path=path,
                line=line,
                column=column,
                end_column=last + 1 if end_line == line else column + len(path),
                angled=group == "angled",
            )
        )
    return found


@dataclass(frozen=True)
class TokenMatch:
    """A non-empty regex match; ``end_column`` is exclusive."""

    text: str
    line: int
    column: int
    end_line: int
    end_column: int


class TokenTimeout(Exception):
    """A token pattern exceeded its time budget (likely catastrophic)."""

    def __init__(self, pattern: str, timeout: float) -> None:
        super().__init__(f"pattern {pattern!r} timed out after {timeout}s")
        self.pattern = pattern
        self.timeout = timeout


def find_tokens(
    code: str, pattern: regex.Pattern[str], timeout: float = 1.0, position: Position | None = None,
) -> list[TokenMatch]:
    """All non-empty matches of ``pattern`` in ``code`` (use :attr:`Blanked.code`).

    ``timeout`` bounds the whole search, not each match; it guards against
    user-written patterns that backtrack catastrophically. ``position`` as for
    ``find_includes``: a match stands where its first character stands in the source.
    """
    where = position if position is not None else _LineIndex(code).position
    found: list[TokenMatch] = []
    try:
        for m in pattern.finditer(code, timeout=timeout):
            start: int = m.start()
            end: int = m.end()
            if start == end:
                continue
            line, column = where(start)
            # The exclusive end is reported just past the last character so a
            # match ending with a newline still ends on its own line.
            end_line, last_column = where(end - 1)
            found.append(
                TokenMatch(code[start:end], line, column, end_line, last_column + 1)
            )
    except TimeoutError as exc:
        raise TokenTimeout(str(pattern.pattern), timeout) from exc
    return found
