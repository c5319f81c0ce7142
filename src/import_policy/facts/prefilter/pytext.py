"""A file's text as Python reads it, for the prefilter's byte searches.

Python does not run a file's bytes: it decodes them (PEP 263: a UTF-8 BOM, else a
`coding` cookie in the first two lines, else UTF-8) and reads every identifier in
NFKC form (PEP 3131: `import ｐickle` imports `pickle`). A search over the raw bytes
misses `import pickle` written in UTF-7, ISO-2022-JP or HZ, and a name spelled with
compatibility characters. So the prefilter searches `python_text(source)`: the raw
bytes, followed (after a newline, which ends any statement) by every other text
Python could read from them, as UTF-8:

- the file decoded with each codec a cookie-like line names (`coding[:=] NAME` anywhere
  in the first two lines, looser than PEP 263's own pattern, so that no difference
  between the C tokenizer's and `tokenize`'s reading of a cookie can hide a text);
- that text, and the UTF-8 reading of the raw bytes, in NFKC form when it differs.

Every search the prefilter makes asks whether some text matches (an import shape, a
name), never whether none does, so searching more text only costs false positives:
the union is sound whichever of its texts is Python's. A codec that does not decode the
file adds nothing (Python refuses that file too). A pure-ASCII file without a cookie, by
far the common case, is its own text: nothing is decoded or copied.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

_COOKIE = re.compile(rb"coding[:=][ \t\f]*([-\w.]+)")
_UTF8 = frozenset({"utf-8", "utf_8"})
_NEWLINE = re.compile(rb"\r\n|\r|\n")


def _first_two_lines(source: bytes) -> bytes:
    end = 0
    for _ in range(2):
        newline = _NEWLINE.search(source, end)
        if newline is None:
            return source
        end = newline.end()
    return source[:end]


def _declared(source: bytes) -> list[str]:
    """The codecs other than UTF-8 that a cookie-like text in the first two lines names."""
    head = _first_two_lines(source)
    if b"coding" not in head:
        return []
    found = []
    for match in _COOKIE.finditer(head):
        try:
            name = codecs.lookup(match.group(1).decode("ascii")).name
        except (LookupError, UnicodeDecodeError):
            continue
        if name not in _UTF8 and name not in found:
            found.append(name)
    return found


def _nfkc(text: str) -> str | None:
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return None
    return unicodedata.normalize("NFKC", text)


def python_text(source: bytes) -> bytes:
    """The raw bytes and every other text Python could read from them, as UTF-8 (see above)."""
    declared = _declared(source)
    if not declared and source.isascii():
        return source
    texts: list[str] = []
    for name in declared:
        try:
            decoded = source.decode(name)
        except (UnicodeDecodeError, UnicodeError, LookupError, ValueError):
            continue
        texts.append(decoded)
        normal = _nfkc(decoded)
        if normal is not None:
            texts.append(normal)
    if not source.isascii():
        normal = _nfkc(source.decode("utf-8", "surrogateescape"))
        if normal is not None:
            texts.append(normal)
    if not texts:
        return source
    return b"\n".join([source, *(text.encode("utf-8", "surrogatepass") for text in texts)])
