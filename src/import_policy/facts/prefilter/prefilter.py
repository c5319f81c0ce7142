"""Which files can skip the parse: a test over a file's text that never misses a finding.

A name is judged forbidden only if the file imports its top package (after
`import` or `from`, or in a literal dynamic import; or, for relative imports,
the file sits inside that package), and every segment of a judged name is text
of the file: an attribute, or a name in an import statement. So a file is a
candidate for a pattern only if it spells every name after the head and imports
its head. `bytes.find` rejects most files before any regex runs.

Why that reading is Python's. The text searched is `pytext.python_text(source)`:
the bytes, plus the text any coding cookie decodes and the NFKC form of every
identifier, so an import in UTF-7 or in fullwidth letters is text here. Between the
words of an import statement Python's tokenizer accepts spaces, tabs, form feeds and
line continuations (`\\` before any line ending); a dotted name may have white space
around its dots; an identifier may hold any non-ASCII letter: the shapes below accept
all of these. A plain `import` starts a logical line or follows `;`, `:`, a BOM or
the soft keyword `lazy`; nothing else may stand before it. Dynamic imports are read
by `literal_imports`: a call whose argument it cannot prove to be a plain literal (or
no literal at all) makes the file a candidate for every pattern, so it is parsed.
Every test asks whether some text matches, never whether none does: more text (the
union of readings, or words inside strings and comments) can only add candidates.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from import_policy.facts.prefilter.literal_imports import literal_imports
from import_policy.patterns import DottedPattern

# White space inside a statement as Python's tokenizer accepts it: continuation lines included.
_GAP = rb"(?:[ \t\f]|\\(?:\r\n|\r|\n))"
_WORD = rb"[\w\x80-\xff]+"  # an identifier, any non-ASCII letter included
_DOTTED = _WORD + rb"(?:" + _GAP + rb"*\." + _GAP + rb"*" + _WORD + rb")*"
# A relative import: `from .m`, `from.m`, or `from` and its dots across a continuation line.
RELATIVE_IMPORT = re.compile(rb"\bfrom" + _GAP + rb"*\.")


class _ImportShape:
    """Finds an import of one of `heads`. Every regex starts with a literal, which
    `re` scans for quickly; whether a plain `import` starts its statement is checked
    by hand on the few matches."""

    def __init__(self, heads: Iterable[str]) -> None:
        self.heads = frozenset(h.encode() for h in heads)

    @functools.cached_property
    def _head(self) -> bytes:
        alternatives = b"|".join(re.escape(h) for h in sorted(self.heads))
        return rb"(?:" + alternatives + rb")(?![\w])"

    # Compiled when a file first holds one of the heads: most runs never get that far for
    # most groups, and a batch pays for every regex it compiles.
    @functools.cached_property
    def plain(self) -> re.Pattern[bytes]:
        names = rb"(?:" + _DOTTED + rb"(?:" + _GAP + rb"+as" + _GAP + rb"+" + _WORD + rb")?" + _GAP + rb"*," + _GAP + rb"*)*"
        return re.compile(rb"import" + _GAP + rb"+" + names + self._head)

    @functools.cached_property
    def from_(self) -> re.Pattern[bytes]:
        return re.compile(rb"from" + _GAP + rb"+" + self._head)

    def search(self, source: bytes, dynamic: tuple[bytes, ...]) -> bool:
        if self.from_.search(source):
            return True
        if any(name.partition(b".")[0] in self.heads for name in dynamic):
            return True
        return any(_starts_statement(source, match.start()) for match in self.plain.finditer(source))


def _starts_statement(source: bytes, index: int) -> bool:
    """`import` at a line start, or after `;`, `:` (`try: import x`) or `lazy`; not `from m import x`."""
    index -= 1
    while index >= 0 and source[index] in b" \t\f":
        index -= 1
    if index >= 3 and source[index - 3 : index + 1] == b"lazy":
        return _starts_statement(source, index - 3)
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
        """`source`: the file's text as `pytext.python_text` gives it."""
        if not self.groups:
            return False
        dynamic: tuple[bytes, ...] = ()
        if b"import_module" in source or b"__import__" in source:
            found = literal_imports(source)
            if found.unknown:
                return True
            dynamic = found.names
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
            if any(head in source for head in group.heads) and group.shape.search(source, dynamic):
                return True
        return False
