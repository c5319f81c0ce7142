"""Import statements whose dotted name has more segments than any module could, cut short
before CPython's parser reads them.

CPython's parser joins an import's dotted name one segment at a time, keeping every
partial name: a 128 KB `import torch.a.a.…` line took it 18 s and 4.4 GB (its cost grows
with the square of the segments). No module has that many: a path of more segments than
`LIMIT` names no file on any system we run on (PATH_MAX is 4096, every segment takes at
least two characters with its separator), and Python imports a dotted name's parents
first, so the name's verdict is decided by its first segments. CPython's own tokenizer
finds those names; the segments after the `LIMIT`-th are blanked to spaces (a line splice
is kept, so every line stays), and every position in the file stays true.
"""

from __future__ import annotations

import re
import tokenize

from import_policy.facts.source.tokens import significant

LIMIT = 2048  # segments kept: more than any file path holds

# Cheap test before tokenizing: only a file spelling this many dotted segments in a row needs it.
_CANDIDATE = re.compile(rb"(?:\.[ \t\f]*(?:\\\r?\n[ \t\f]*)?[A-Za-z_0-9\x80-\xff]+[ \t\f]*(?:\\\r?\n[ \t\f]*)?){%d}" % LIMIT)
_KEPT = frozenset(b"\\\r\n")


def shorten_names(source: bytes) -> bytes | None:
    """`source` with each import's dotted name cut to `LIMIT` segments; None when none is
    longer (or the file does not tokenize: then the parser says what is wrong)."""
    # Each of the pattern's segments starts with a dot: a file with fewer dots is not searched
    # (the search, at every dot of every file, was a twentieth of a cold run over torch).
    if source.count(b".") < LIMIT or _CANDIDATE.search(source) is None:
        return None
    read = significant(source)
    if read is None:
        return None
    tokens, offset = read.tokens, read.offset
    blanked = bytearray(source)
    changed = False
    in_import = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER) or token.string == ";":
            in_import = False
        elif token.type == tokenize.NAME and token.string in ("import", "from"):
            in_import = True
        elif in_import and token.type == tokenize.NAME:
            # A dotted name: NAME ('.' NAME)*; the LIMIT-th NAME ends what is kept.
            end = index
            segments = 1
            while end + 2 < len(tokens) and tokens[end + 1].string == "." and tokens[end + 2].type == tokenize.NAME:
                end += 2
                segments += 1
            if segments > LIMIT:
                kept = tokens[index + 2 * (LIMIT - 1)]
                last = tokens[end]
                start_at = offset(*kept.end, kept.line)
                stop_at = offset(*last.end, last.line)
                if not source[start_at:stop_at].lstrip(b" \t\f\\\r\n").startswith(b"."):
                    return None  # a line numbering tokenize and bytes do not share: leave it to the parser
                for at in range(start_at, stop_at):
                    if blanked[at] not in _KEPT:
                        blanked[at] = 0x20
                changed = True
            index = end
        index += 1
    return bytes(blanked) if changed else None
