"""A libcst tree's names in the NFKC form Python binds them in (facts.identifiers), with the
columns of the source they are spelled in.

libcst keeps a name as spelled: its facts would say `ｐickle` where Python imports `pickle`,
and its scope analysis would take `ｐ` and `p` for two names where Python binds one.
`normalized` rewrites every `Name` whose spelling is not its NFKC form before any metadata is
computed. libcst's `PositionProvider` then counts the rewritten code, which is the source's
columns wherever every rewritten name kept its length (a fullwidth letter is one letter). A
name whose NFKC form is longer or shorter (the ligature `ﬁ` is `fi`; a letter and a combining
accent compose into one) moves every column after it on its line: `Columns` moves them back.
A name never spans lines, so line numbers stay true.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodeRange

from import_policy.facts.shared.identifiers import normal

class _Normalize(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        # each rewritten name whose length changed, and its source spelling's length minus its new one
        self.resized: list[tuple[cst.Name, int]] = []

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        value = normal(updated_node.value)
        if value == updated_node.value:
            return updated_node
        renamed = updated_node.with_changes(value=value)
        if len(value) != len(updated_node.value):
            self.resized.append((renamed, len(updated_node.value) - len(value)))
        return renamed


class Columns:
    """Source columns for positions in the rewritten code: on each line, the end of every resized
    name (in the rewritten code's columns, 0-based) and how much longer its spelling is."""

    def __init__(self, shifts: Mapping[int, list[tuple[int, int]]]) -> None:
        self.shifts = shifts

    def source(self, line: int, column: int) -> int:
        """The source's 0-based column for a 0-based column of the rewritten code."""
        return column + sum(delta for end, delta in self.shifts.get(line, ()) if end <= column)


def normalized(tree: cst.Module, source: bytes) -> tuple[cst.Module, list[tuple[cst.Name, int]]]:
    """The tree with its names in NFKC form, and the names whose length that changed. A file
    whose text is already in NFKC form (every ASCII UTF-8 file) is returned as it is."""
    # ASCII bytes may spell other letters in UTF-7 or ISO-2022: the text decides, not the bytes.
    ascii_utf8 = source.isascii() and tree.encoding.lower().replace("_", "-") in ("utf-8", "utf8")
    if ascii_utf8 or unicodedata.is_normalized("NFKC", source.decode(tree.encoding, "replace")):
        return tree, []
    renamer = _Normalize()
    return tree.visit(renamer), renamer.resized


def columns(resized: list[tuple[cst.Name, int]], positions: Mapping[cst.CSTNode, CodeRange]) -> Columns | None:
    """Where the resized names end in the rewritten code (`positions`: its PositionProvider)."""
    if not resized:
        return None
    shifts: dict[int, list[tuple[int, int]]] = {}
    for name, delta in resized:
        end = positions[name].end  # the name's own range: its parentheses are not in it
        shifts.setdefault(end.line, []).append((end.column, delta))
    return Columns(shifts)
