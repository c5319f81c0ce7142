"""The bridge from the fixer to SARIF `fixes`: fix one finding alone, diff, report the span.

Working from the fixer's output bytes, not its internals, keeps the SARIF
fixes exactly what `--fix` would write (unsafe fixes included, and labelled).
"""

from __future__ import annotations

import codecs
from dataclasses import replace
from collections.abc import Mapping
from pathlib import Path

from import_policy.diagnostics import Diagnostic
from import_policy.report.sarif import Fix, FixFor, Replacement, replacements_between


def fix_hook(base: Path, overrides: Mapping[str, bytes]) -> FixFor:
    """`base`: the folder the shown paths are relative to; `overrides`: shown path -> bytes (stdin)."""
    try:
        from import_policy.fix.apply import fix_bytes
        from import_policy.fix.payload import applies
    except ImportError:  # pragma: no cover - a build without the fixer still renders SARIF
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

    def fix_for(d: Diagnostic) -> Fix | None:
        before = source(d.path)
        if before is None or d.fix is None:
            return None
        # The CLI marks a finding fixable only for the flags given; SARIF offers every fix.
        d = replace(d, fixable=True)
        after = fix_bytes(before, [d], unsafe=True)
        if not after.changed:
            return None
        changes = _text_changes(before, after.new)
        if not changes:
            return None
        label = f"Fix {d.rule}" if applies(d, unsafe=False) else f"Fix {d.rule} (unsafe: may change behaviour; --unsafe-fixes)"
        return Fix(label, tuple(changes))

    return fix_for


def _text_changes(before: bytes, after: bytes) -> list[Replacement]:
    # Regions count code points of the decoded text; a file that is not UTF-8 gets no fix.
    try:
        old, new = _decode(before), _decode(after)
    except UnicodeDecodeError:
        return []
    return replacements_between(old, new)


def _decode(data: bytes) -> str:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode("utf-8")
