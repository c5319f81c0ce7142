"""Paths and messages made safe to print: a file name can never forge a line, a terminal
sequence or a GitHub workflow command (no line printed begins with `::` but `--format
github`'s own).

`quote_path` quotes as git does with `core.quotePath=false`: a path holding a control
character, a double quote or a backslash is written in double quotes with C escapes
(`\\n`, `\\t`, `\\"`, `\\\\`, and octal for the rest); other paths, non-ASCII ones included, are
written as they are. Unlike git, C1 controls (U+0080 to U+009F: a terminal may read U+009B
as ESC [) are escaped too, as their UTF-8 bytes in octal, and so is a byte that is not
UTF-8 (a name Python decoded with `surrogateescape`).
"""

from __future__ import annotations

import re

# What makes git quote a path (core.quotePath=false), plus C1 controls and undecodable bytes.
_UNSAFE = '[\x00-\x1f\x7f-\x9f"\\\\\udc80-\udcff]'
# What is escaped in a message: the controls alone (a message has its own quotes).
_CONTROL = "[\x00-\x1f\x7f-\x9f\udc80-\udcff]"
_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    data = char.encode("utf-8", "surrogateescape")
    return "".join(f"\\{byte:03o}" for byte in data)


def quote_path(path: str) -> str:
    """`path` as git would print it: unchanged when nothing in it needs quoting. A path that
    begins with `::` is written `./::...`, the same file: at the start of a line a GitHub
    runner would read it as a workflow command."""
    unsafe = re.compile(_UNSAFE)  # compiled at first use (re keeps it): most runs print no path
    if unsafe.search(path) is None:
        return "./" + path if path.startswith("::") else path
    return '"' + unsafe.sub(_escape, path) + '"'


def escape_controls(text: str) -> str:
    """`text` with every control character written as a C escape, so it stays on its line."""
    control = re.compile(_CONTROL)
    if control.search(text) is None:
        return text
    return control.sub(_escape, text)
