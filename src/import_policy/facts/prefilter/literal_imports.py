"""The names a file's dynamic imports can take, read from its text without a parse.

The extractors record `import_module(X)`, `importlib.import_module(X)`, `__import__(X)`,
`importlib.__import__(X)` and `builtins.__import__(X)` (the callee as written, or through
an import alias) when the first positional argument `X`, or else the argument `name=X`,
is a `str` constant. Python builds that constant from any spelling of a string literal:
parenthesised (`(('m'))`), concatenated (`'p' 'm'`), triple-quoted, with escapes
(`'\\x70m'`), an f-string without placeholders (`f'm'`), with comments and line breaks
inside the call. Every importer's name ends in `import_module` or `__import__`, which is
what the text is searched for; each occurrence is read as far as it can be proven:

- not followed by `(` (after white space, line continuations and comments: nothing
  else may stand between a callee and its arguments) and not by `as`: no call there;
- `(`, optionally `name=`, then a plain literal (optional `r`/`u`/`f`/`rf` prefix, only
  word characters and dots, closed, then `,` or `)`): a call importing exactly that name,
  spelled in the text;
- `(` then anything that cannot start a `str` constant (a name not glued to a quote and
  not followed by `=`, a number, a bracket, `*`, `)`), or `name=` followed by such a
  thing: no literal import;
- anything else (a parenthesis, another string form, another keyword argument first,
  an alias `as`): **unknown**, and the file must be parsed.

A name the text spells in a place the reading above does not reach (inside a string or
a comment) only adds names or unknowns: false positives, never a missed file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IMPORTER = re.compile(rb"import_module|__import__")
# White space Python's tokenizer accepts (form feed included), line breaks (inside the
# call's brackets they are white space too), continuations and comments.
_TRIVIA = re.compile(rb"(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n)|#[^\r\n]*)*")
_PLAIN = re.compile(rb"(?:[rRuU]|[fF][rR]?|[rR][fF])?(['\"])([\w.]*)\1")  # no braces: no placeholder
# A keyword argument: any identifier (in the text's NFKC reading too, pytext) then `=`, not `==`.
_KEYWORD = re.compile(rb"([\w\x80-\xff]+)" + _TRIVIA.pattern + rb"=(?!=)")
_ALIAS = re.compile(rb"as(?![\w\x80-\xff])")
_STRING_START = re.compile(rb"[rRuUbBfFtT]{0,2}['\"]")  # any prefix, as newer Pythons may add


@dataclass(frozen=True)
class LiteralImports:
    names: tuple[bytes, ...]  # names imported by plain literals, as spelled
    unknown: bool  # some call's argument may be a str constant the text does not spell plainly


def _skip(text: bytes, at: int) -> int:
    match = _TRIVIA.match(text, at)
    return match.end() if match else at


def literal_imports(text: bytes) -> LiteralImports:
    names: list[bytes] = []
    for found in _IMPORTER.finditer(text):
        at = _skip(text, found.end())
        if text[at : at + 1] != b"(":
            if _ALIAS.match(text, at):
                return LiteralImports(tuple(names), True)  # `import_module as im`: calls under another name
            continue
        at = _skip(text, at + 1)
        keyword = _KEYWORD.match(text, at)
        if keyword is not None:
            if keyword.group(1) != b"name":
                return LiteralImports(tuple(names), True)  # `name=` may come after it
            at = _skip(text, keyword.end())
        plain = _PLAIN.match(text, at)
        if plain is not None:
            after = _skip(text, plain.end())
            if text[after : after + 1] in (b",", b")"):
                names.append(plain.group(2))
                continue
            return LiteralImports(tuple(names), True)
        if text[at : at + 1] == b"(" or _STRING_START.match(text, at):
            return LiteralImports(tuple(names), True)
        if text[at : at + 1] == b"\\":
            return LiteralImports(tuple(names), True)  # a stray backslash: not read further
    return LiteralImports(tuple(names), False)
