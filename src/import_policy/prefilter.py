"""Which files can skip the parse: a byte-level test that never misses a finding.

Every finding of an import rule needs an import of the forbidden name's top
package in the file: a statement that names it right after `import`/`from`
(on the keyword's line or a backslash continuation of it), or a literal
dynamic import, or, for relative imports, the file being inside that
package. `bytes.find` rejects most files before the regex runs at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Prefilter:
    heads: tuple[bytes, ...]
    shape: re.Pattern[bytes] | None  # None: no head, nothing can match

    @classmethod
    def for_heads(cls, heads: Iterable[str]) -> Prefilter:
        words = tuple(sorted({h.encode() for h in heads}))
        if not words:
            return cls((), None)
        alternatives = b"|".join(re.escape(w) for w in words)
        # `import regex as re` binds `re` but does not import it: the alias is not a candidate.
        head = rb"(?<![\w.])(?<!\bas )(?:" + alternatives + rb")(?![\w])"
        statement = rb"\b(?:import|from)\b(?:[^\n;#]|\\\r?\n)*?" + head
        dynamic = rb"(?:import_module|__import__)\s*\(\s*[rRuUbB]?['\"]" + head
        return cls(words, re.compile(statement + b"|" + dynamic))

    def wants(self, source: bytes, module: str | None = None) -> bool:
        if self.shape is None:
            return False
        if module is not None and module.split(".")[0].encode() in self.heads:
            return True  # relative imports inside a forbidden package never spell its name
        if not any(word in source for word in self.heads):
            return False
        return self.shape.search(source) is not None


@dataclass(frozen=True)
class UsePrefilter:
    """Which files need use analysis (scope and qualified names), the costliest metadata.

    A use can only match `torch.cuda.synchronize` if the file imports `torch`
    and spells `synchronize` somewhere: every segment of a use's qualified
    name is text of the file (an attribute, or a name in an import statement).
    """

    groups: tuple[tuple[bytes | None, Prefilter], ...]  # (needle that must occur, heads)

    @classmethod
    def for_patterns(cls, patterns: Iterable[tuple[str, str]]) -> UsePrefilter:
        """`patterns`: (head, last segment) of every forbidden name with more than one segment."""
        by_needle: dict[bytes | None, set[str]] = {}
        for head, last in patterns:
            pieces = [piece for piece in last.split("*") if piece]
            needle = max(pieces, key=len).encode() if pieces else None
            by_needle.setdefault(needle, set()).add(head)
        return cls(tuple((needle, Prefilter.for_heads(heads)) for needle, heads in sorted(
            by_needle.items(), key=lambda item: item[0] or b"")))

    def wants(self, source: bytes, module: str | None = None) -> bool:
        return any(
            (needle is None or needle in source) and heads.wants(source, module) for needle, heads in self.groups
        )
