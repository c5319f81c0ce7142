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
