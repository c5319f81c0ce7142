"""Between the engine's records and the protocol's: positions (1-based lines and columns
in code points, and LSP's 0-based lines and UTF-16 code units), and a fix as the one text
edit that turns the buffer into the fixed source."""

from __future__ import annotations

from dataclasses import dataclass


def utf16_column(line: str, column: int) -> int:
    """LSP's character offset of the 1-based code-point `column` in `line`."""
    before = line[: max(column - 1, 0)]
    return len(before) + sum(1 for ch in before if ord(ch) > 0xFFFF)


def code_point_column(line: str, character: int) -> int:
    """The 1-based code-point column of LSP's UTF-16 `character` in `line`."""
    units = 0
    for index, ch in enumerate(line):
        if units >= character:
            return index + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line) + 1


def lines_of(text: str) -> list[str]:
    """The buffer's lines as the protocol counts them (\\n, \\r\\n and \\r each end one)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


@dataclass(frozen=True)
class Edit:
    """Replace from (line, character) to (line, character), 0-based UTF-16, with `text`."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def edit_between(old: str, new: str) -> Edit | None:
    """The smallest single edit from `old` to `new` (their common head and tail kept); None
    when they are equal."""
    if old == new:
        return None
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    if 0 < head < len(old) and old[head - 1] == "\r" and old[head] == "\n":
        head -= 1  # never between the two characters of one line break
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    end = len(old) - tail
    if tail and 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        tail -= 1
    return Edit(_position(old, head), _position(old, len(old) - tail), new[head:len(new) - tail])


def _position(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    line = before.count("\n") + before.count("\r") - before.count("\r\n")
    # What follows the last line break (a lone \r, \n or \r\n all end a line).
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return line, utf16_column(before[start:], len(before) - start + 1)
