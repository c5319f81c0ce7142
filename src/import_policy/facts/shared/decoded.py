"""A file's text as CPython reads it.

CPython finds the encoding from the bytes (a BOM, a PEP 263 cookie on one of the first two
lines) without decoding the lines that hold it, and never decodes a comment: a file with
bytes invalid in its encoding inside a comment compiles and imports. `tokenize` and libcst
decode the whole file first and refuse it. Where CPython compiled a file, its only such bytes
are in comments, so reading each as U+FFFD gives CPython's tokens at CPython's positions
(a comment's text aside).
"""

from __future__ import annotations

import codecs
import io
import tokenize


def python_encoding(source: bytes) -> str:
    """The encoding CPython reads the file in (`tokenize.detect_encoding`'s answer), found
    even where the lines holding the cookie do not decode."""
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        pass
    lines = io.BytesIO(source).readlines()[:2]
    bom = source.startswith(codecs.BOM_UTF8)
    head = b"".join(lines)[3 if bom else 0:].decode("utf-8", "replace").encode("utf-8")
    # The cookie is ASCII: the undecodable bytes around it (now U+FFFD) cannot change it.
    return tokenize.detect_encoding(io.BytesIO((codecs.BOM_UTF8 if bom else b"") + head).readline)[0]


def python_text(source: bytes) -> str:
    """The file's text; bytes its encoding cannot decode (CPython accepts them only in a
    comment) as U+FFFD. Raises SyntaxError or LookupError for a cookie CPython refuses."""
    return source.decode(python_encoding(source), "replace")
