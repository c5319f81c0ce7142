"""Which files can skip the parse: a byte-level test that never misses a finding.

A name is judged forbidden only if the file imports its top package (after
`import` or `from`, or in a literal dynamic import; or, for relative imports,
the file sits inside that package), and every segment of a judged name is text
of the file: an attribute, or a name in an import statement. So a file is a
candidate for a pattern only if it spells every name after the head and imports
its head. `bytes.find` rejects most files before any regex runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from import_policy.patterns import DottedPattern

_GAP = rb"(?:[ \t]|\\\r?\n)"  # white space inside a statement, continuation lines included
# A relative import: `from .m`, `from.m`, or `from` and its dots across a continuation line.
RELATIVE_IMPORT = re.compile(rb"\bfrom" + _GAP + rb"*\.")


class _ImportShape:
    """Finds an import of one of `heads`. Every regex starts with a literal, which
    `re` scans for quickly; whether a plain `import` starts its statement is checked
    by hand on the few matches."""

    def __init__(self, heads: Iterable[str]) -> None:
        alternatives = b"|".join(re.escape(h.encode()) for h in sorted(set(heads)))
        head = rb"(?:" + alternatives + rb")(?![\w])"
        names = rb"(?:[\w.]+(?:" + _GAP + rb"+as" + _GAP + rb"+\w+)?" + _GAP + rb"*," + _GAP + rb"*)*"
        self.plain = re.compile(rb"import" + _GAP + rb"+" + names + head)
        self.from_ = re.compile(rb"from" + _GAP + rb"+" + head)
        self.dynamic = (
            (b"import_module", re.compile(rb"import_module\s*\(\s*[rRuUbB]?['\"]" + head)),
            (b"__import__", re.compile(rb"__import__\s*\(\s*[rRuUbB]?['\"]" + head)),
        )

    def search(self, source: bytes) -> bool:
        if self.from_.search(source):
            return True
        if any(word in source and pattern.search(source) for word, pattern in self.dynamic):
            return True
        return any(_starts_statement(source, match.start()) for match in self.plain.finditer(source))


def _starts_statement(source: bytes, index: int) -> bool:
    """`import` at a line start, or after `;` or `:` (`try: import x`); not `from m import x`."""
    index -= 1
    while index >= 0 and source[index] in b" \t":
        index -= 1
    return index < 0 or source[index] in b"\n\r;:" or source[max(index - 2, 0) : index + 1] == b"\xef\xbb\xbf"


@dataclass(frozen=True)
class _Group:
    needles: tuple[bytes, ...]  # each must occur in the file
    heads: frozenset[bytes]
    shape: _ImportShape


def _needles(pattern: DottedPattern) -> tuple[bytes, ...]:
    """The longest literal piece of every segment after the head: each is text of any matching file."""
    out = []
    for segment in pattern.text.split(".")[1:]:
        pieces = [piece for piece in segment.split("*") if piece]
        if pieces:
            out.append(max(pieces, key=len).encode())
    return tuple(sorted(set(out)))


@dataclass(frozen=True)
class Prefilter:
    groups: tuple[_Group, ...]

    @classmethod
    def for_patterns(cls, patterns: Iterable[DottedPattern]) -> Prefilter | None:
        """None when a pattern starts with a wildcard: then every file is a candidate."""
        by_needles: dict[tuple[bytes, ...], set[str]] = {}
        for pattern in patterns:
            head = pattern.literal_head
            if head is None:
                return None
            by_needles.setdefault(_needles(pattern), set()).add(head)
        groups = tuple(
            _Group(needles, frozenset(h.encode() for h in heads), _ImportShape(heads))
            for needles, heads in sorted(by_needles.items())
        )
        return cls(groups)

    def wants(self, source: bytes, module: str | None = None) -> bool:
        top = module.split(".")[0].encode() if module else None
        path = module.encode() if module else b""
        for group in self.groups:
            # Inside a forbidden package a relative import names the package without spelling
            # it, and the segments it climbs over come from the file's own module path.
            inside = top in group.heads
            if not all(needle in source or (inside and needle in path) for needle in group.needles):
                continue
            if inside and RELATIVE_IMPORT.search(source):
                return True
            if any(head in source for head in group.heads) and group.shape.search(source):
                return True
        return False
