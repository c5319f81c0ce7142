"""Between the engine's records and the protocol's: positions (1-based lines and columns
in code points, and LSP's 0-based lines and characters in the code units the client and
server agreed on at `initialize`: UTF-8, UTF-16 or UTF-32, counted by pygls's negotiated
position codec, whose `client_num_units` is the `Units` taken here), and a fix as the one
text edit that turns the buffer into the fixed source."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Units = Callable[[str], int]  # how many of the client's code units spell a text


def client_column(line: str, column: int, units: Units) -> int:
    """The protocol's character offset of the 1-based code-point `column` in `line`."""
    return units(line[: max(column - 1, 0)])


def lines_of(text: str) -> list[str]:
    """The buffer's lines as the protocol counts them (\\n, \\r\\n and \\r each end one)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


@dataclass(frozen=True)
class Edit:
    """Replace from (line, character) to (line, character), 0-based in the client's code
    units, with `text`."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def edit_between(old: str, new: str, units: Units) -> Edit | None:
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
    return Edit(_position(old, head, units), _position(old, len(old) - tail, units), new[head:len(new) - tail])


def _position(text: str, offset: int, units: Units) -> tuple[int, int]:
    before = text[:offset]
    line = before.count("\n") + before.count("\r") - before.count("\r\n")
    # What follows the last line break (a lone \r, \n or \r\n all end a line).
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return line, units(before[start:])
