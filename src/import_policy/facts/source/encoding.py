"""Whether a file's encoding lets a fix rewrite a line and keep every other byte.

A fix decodes the file, rewrites import lines in ASCII and encodes it again. That keeps
the other bytes only where ASCII text is its own bytes and the codec has no state: UTF-7
writes `'+AOk-'` back as `'+AOk'`, UTF-16 has no ASCII bytes at all, and ISO-2022 and HZ
switch character sets with escape sequences that a line's neighbours depend on. Only a
coding cookie can name such an encoding (Python reads a BOM as UTF-8's), so a file
without one is answered from its first bytes.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from functools import lru_cache

_ASCII = "".join(map(chr, range(128)))
_STATEFUL = ("utf-7", "iso2022", "hz")


def unfixable_encoding(source: bytes) -> str | None:
    """The encoding its coding cookie names when a fix could not keep the file's other
    bytes, else None."""
    first = source.find(b"\n")
    second = source.find(b"\n", first + 1) if first >= 0 else -1
    if b"coding" not in (source if second < 0 else source[:second]):
        return None
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return None  # the file does not decode: a syntax error, never fixed
    return None if _ascii_compatible(encoding) else encoding


@lru_cache(maxsize=None)
def _ascii_compatible(encoding: str) -> bool:
    try:
        name = codecs.lookup(encoding).name
        if name.startswith(_STATEFUL):
            return False
        return _ASCII.encode(name) == _ASCII.encode("ascii") and _ASCII.encode("ascii").decode(name) == _ASCII
    except (LookupError, ValueError):
        return False
