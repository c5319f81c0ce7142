"""The bridge from the fixer to the reports' fixes (SARIF `fixes`, JSON `fix`): fix one
finding alone, report its change regions as replacements.

The regions are those `--diff` makes its hunks of (`fix.patch.change_regions`, from the
fixer's own edits), so a report's fixes are exactly what `--fix` would write (unsafe fixes
included, and labelled), at a cost linear in the lines changed: no sequence match of the
file (difflib over many similar lines is quadratic).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from import_policy.diagnostics import Diagnostic
from import_policy.fix.patch import Edit, change_regions
from import_policy.report.sarif import Fix, FixFor, Replacement


@dataclass(frozen=True)
class Edits:
    """One finding's fix as text edits of its file: what `--fix` would change for it alone."""

    safe: bool  # applied by `--fix`; else only with `--unsafe-fixes`
    replacements: tuple[Replacement, ...]


EditsFor = Callable[[Diagnostic], "Edits | None"]


def edits_hook(base: Path, overrides: Mapping[str, bytes]) -> EditsFor:
    """`base`: the folder the shown paths are relative to; `overrides`: shown path -> bytes (stdin)."""
    try:
        from import_policy.fix.apply import fix_bytes
        from import_policy.edits.payload import applies
    except ImportError:  # pragma: no cover - a build without the fixer still renders its reports
        return lambda _d: None
    cache: dict[str, bytes | None] = {}

    def source(path: str) -> bytes | None:
        """The file's bytes; None for a file that cannot be read or is not UTF-8 (its
        replacements' columns count code points of the decoded text)."""
        if path not in cache:
            try:
                data = overrides[path] if path in overrides else (base / path).read_bytes()
                _decode(data)
                cache[path] = data
            except (OSError, UnicodeDecodeError):
                cache[path] = None
        return cache[path]

    def edits_for(d: Diagnostic) -> Edits | None:
        if d.fix is None:
            return None
        before = source(d.path)
        if before is None:
            return None
        # The CLI marks a finding fixable only for the flags given; a report offers every fix.
        d = replace(d, fixable=True)
        after = fix_bytes(before, [d], unsafe=True)
        if not after.changed:
            return None
        changes = replacements(before, after.edits)
        if not changes:
            return None
        return Edits(applies(d, unsafe=False), tuple(changes))

    return edits_for


def fix_hook(base: Path, overrides: Mapping[str, bytes]) -> FixFor:
    """SARIF's fixes: the edits, with a description that says when a fix is unsafe."""
    edits_for = edits_hook(base, overrides)

    def fix_for(d: Diagnostic) -> Fix | None:
        edits = edits_for(d)
        if edits is None:
            return None
        label = f"Fix {d.rule}" if edits.safe else f"Fix {d.rule} (unsafe: may change behaviour; --unsafe-fixes)"
        return Fix(label, edits.replacements)

    return fix_for


def replacements(before: bytes, edits: Sequence[Edit]) -> list[Replacement]:
    """The replacements that make the edits (sorted, disjoint byte ranges of `before`, a UTF-8
    file) of the text: one per change region, whole lines, lines counted at `\\n` only; a
    UTF-8 BOM is not part of the text. Empty where an edit is not UTF-8 or touches the BOM."""
    bom = len(codecs.BOM_UTF8) if before.startswith(codecs.BOM_UTF8) else 0
    out: list[Replacement] = []
    line, counted = 1, 0  # the line number at byte `counted`: lines are counted once, in order
    for start, end, text in change_regions(before, edits):
        if start < bom:  # the first line's region holds the BOM: it must stay as it was
            if not text.startswith(codecs.BOM_UTF8) or end < bom:
                return []
            start, text = bom, text[bom:]
        line += before.count(b"\n", counted, start)
        counted = start
        end_line = line + before.count(b"\n", start, end)
        end_line_start = max(before.rfind(b"\n", 0, end) + 1, bom)
        try:
            end_column = len(before[end_line_start:end].decode("utf-8")) + 1
            out.append(Replacement(line, 1, end_line, end_column, text.decode("utf-8")))
        except UnicodeDecodeError:
            return []
    return out


def _decode(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode("utf-8")
