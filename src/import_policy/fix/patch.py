"""`--diff`: the unified diff of what `--fix` would write, as `git apply` and `patch -p1` read it.

Bytes, not text: the diff holds the file's own bytes, whatever its encoding, so the patch
applies to it exactly. Lines are split on `\\n` alone, as the patch tools split them: a
CR-only file is one line to them (its hunk replaces it whole), and a form feed, U+2028 or
U+0085 is just a character inside a line. Headers are git's, `--- a/PATH` / `+++ b/PATH`
with the path relative to the current folder, quoted as git quotes it when it needs to be
(and, as git does, followed by a tab when it holds a space).
"""

from __future__ import annotations

import difflib
import re

from import_policy.quoting import quote_path

_LINE = re.compile(rb"[^\n]*\n|[^\n]+")
_NO_NEWLINE = b"\n\\ No newline at end of file\n"


def unified_diff(shown: str, old: bytes, new: bytes) -> bytes:
    """The diff turning `old` into `new`, for the file at `shown` (relative, with `/`)."""
    lines = difflib.diff_bytes(
        difflib.unified_diff, _LINE.findall(old), _LINE.findall(new),
        fromfile=_header(f"a/{shown}"), tofile=_header(f"b/{shown}"),
    )
    return b"".join(line if line.endswith(b"\n") else line + _NO_NEWLINE for line in lines)


def _header(name: str) -> bytes:
    # As git writes it: a name with a space ends in a tab, where `patch` ends a file name.
    quoted = quote_path(name)
    return (quoted + ("\t" if " " in quoted else "")).encode("utf-8", "surrogateescape")
