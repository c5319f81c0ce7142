"""C-family text as translation phases 1-3 leave it, with the way back to the source.

Phase 2 deletes each backslash-newline (GCC also takes spaces between the two, with a
warning), so a directive or a token may be split over physical lines: `#\\<newline>include`,
`TORCH_\\<newline>LIBRARY`. The scanner reads the spliced text; every position it finds
is mapped back to the source, so a finding stands at the line where its token starts.
Phase 3's alternative token `%:` for `#` is the include pattern's business, and phase 1's
trigraphs are left out, as GCC leaves them without `-trigraphs`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_SPLICE = re.compile(r"\\[ \t\f\v]*\r?\n")


@dataclass(frozen=True)
class Spliced:
    text: str  # the source with every line splice deleted
    source: str
    cuts: tuple[int, ...] = ()  # offsets in `text` where a splice was deleted, in order
    removed: tuple[int, ...] = ()  # characters deleted up to and including each cut
    _starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def offset(self, at: int) -> int:
        """The source offset of `text`'s character at `at`."""
        count = bisect.bisect_right(self.cuts, at)
        return at + (self.removed[count - 1] if count else 0)

    def position(self, at: int) -> tuple[int, int]:
        """1-based (line, column) in the source of `text`'s character at `at`."""
        if not self._starts:
            self._starts.append(0)
            self._starts.extend(m.end() for m in re.finditer("\n", self.source))
        offset = self.offset(at)
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1


def splice(source: str) -> Spliced:
    """`source` after translation phase 2 (none of its splices: `source` itself)."""
    if "\\" not in source or _SPLICE.search(source) is None:
        return Spliced(source, source)
    pieces: list[str] = []
    cuts: list[int] = []
    removed: list[int] = []
    last = 0
    total = 0
    for m in _SPLICE.finditer(source):
        pieces.append(source[last:m.start()])
        total += m.end() - m.start()
        cuts.append(m.start() - (total - (m.end() - m.start())))
        removed.append(total)
        last = m.end()
    pieces.append(source[last:])
    return Spliced("".join(pieces), source, tuple(cuts), tuple(removed))
