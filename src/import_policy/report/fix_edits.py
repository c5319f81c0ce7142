"""The bridge from the fixer to the reports' fixes (SARIF `fixes`, JSON `fix`): fix one
finding alone, diff, report the changed spans.

Working from the fixer's output bytes, not its internals, keeps a report's fixes exactly
what `--fix` would write (unsafe fixes included, and labelled).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from import_policy.diagnostics import Diagnostic
from import_policy.report.sarif import Fix, FixFor, Replacement, replacements_between


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
        from import_policy.fix.payload import applies
    except ImportError:  # pragma: no cover - a build without the fixer still renders its reports
        return lambda _d: None
    cache: dict[str, bytes | None] = {}

    def source(path: str) -> bytes | None:
        if path in overrides:
            return overrides[path]
        if path not in cache:
            try:
                cache[path] = (base / path).read_bytes()
            except OSError:
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
        changes = _text_changes(before, after.new)
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


def _text_changes(before: bytes, after: bytes) -> list[Replacement]:
    # Regions count code points of the decoded text; a file that is not UTF-8 gets no fix.
    try:
        old, new = _decode(before), _decode(after)
    except UnicodeDecodeError:
        return []
    # A fix changes a statement or two: the lines around them are compared as lines, not
    # handed to difflib, which costs most of a finding's edits on a long file.
    old_lines, new_lines = _lines(old), _lines(new)
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(old_lines), len(new_lines)) - head
        and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]
    ):
        tail += 1
    middle_old = "".join(old_lines[head:len(old_lines) - tail])
    middle_new = "".join(new_lines[head:len(new_lines) - tail])
    return [
        replace(r, line=r.line + head, end_line=r.end_line + head)
        for r in replacements_between(middle_old, middle_new)
    ]


def _lines(text: str) -> list[str]:
    """Lines as the regions count them: split at '\n' only, each with its ending."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _decode(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode("utf-8")
