"""Identifiers as Python binds them: in NFKC form (PEP 3131), whatever letters spell them.

`import ｐickle` imports `pickle` and binds `pickle`; `ｔorch.cuda` after `import torch` is
`torch.cuda`. CPython's tokenizer takes as one identifier a run of ASCII letters, digits and
underscores and of any character past ASCII (a file where such a run is not an identifier
does not compile), and its parser stores the run's NFKC form. Keywords and soft keywords
(`import`, `match`, `lazy`) are told apart before that, as spelled, so `ｉmport` is a plain
name. String literals are never normalized: `importlib.import_module("ｐickle")` looks for a
module named `ｐickle`.
"""

from __future__ import annotations

import re
import unicodedata

_CHAR = "[A-Za-z0-9_\x80-\U0010ffff]"
# One identifier as CPython's tokenizer delimits it, and a dotted chain of them with no white space.
# Compiled at first use: the range past ASCII costs every run that imports this module 5 ms
# to compile, and most runs (a batch the prefilter answers) never match a name.
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(source: str) -> re.Pattern[str]:
    found = _PATTERNS.get(source)
    if found is None:
        found = _PATTERNS[source] = re.compile(source)
    return found


def name_pattern() -> re.Pattern[str]:
    """One identifier."""
    return _pattern(f"{_CHAR}+")


def dotted_pattern() -> re.Pattern[str]:
    """A dotted chain of identifiers."""
    return _pattern(f"{_CHAR}+(?:\\.{_CHAR}+)*")


def normal(name: str) -> str:
    """`name` (an identifier, or a dotted chain of them) as Python binds it."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def spelled_at(text: str, start: int, name: str, pattern: re.Pattern[str] | None = None) -> int | None:
    """Where the spelling of `name` that starts at `start` in `text` ends (an index into
    `text`), when the identifiers there are `name` as Python reads them; else None.
    `pattern`: what one spelling is (default: a dotted chain)."""
    if text.startswith(name, start):
        return start + len(name)
    found = (pattern or dotted_pattern()).match(text, start)
    if found is None or normal(found.group()) != name:
        return None
    return found.end()
