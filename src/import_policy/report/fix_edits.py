"""The bridge from the fixer to the reports' fixes (SARIF `fixes`, JSON `fix`): fix one
finding alone, report its change regions as replacements.

The regions are those `--diff` makes its hunks of (`fix.patch.change_regions`, from the
fixer's own edits), so a report's fixes are exactly what `--fix` would write (unsafe fixes
included, and labelled), at a cost linear in the lines changed: no sequence match of the
file (difflib over many similar lines is quadratic).

A finding's edits are a function of its file's bytes, the finding (rule, place, payload)
and the fixer (whose libcst release the cache key holds, through `EXTRACTION`), so a run
with a cache keeps them in a `Store` keyed by exactly those: a warm report never runs
the fixer again, where running it for every fixable finding was most of a warm run.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from import_policy.cache.facts import content_digest
from import_policy.cache.store import Store
from import_policy.diagnostics import Diagnostic
from import_policy.fix.patch import Edit, change_regions
from import_policy.report.sarif import Fix, FixFor, Replacement


@dataclass(frozen=True)
class Edits:
    """One finding's fix as text edits of its file: what `--fix` would change for it alone."""

    safe: bool  # applied by `--fix`; else only with `--unsafe-fixes`
    replacements: tuple[Replacement, ...]


EditsFor = Callable[[Diagnostic], "Edits | None"]


class _Known:
    """A cached answer: the finding's edits, or None where its fix changes nothing."""

    def __init__(self, edits: Edits | None) -> None:
        self.edits = edits


class EditsCodec:
    name = "edits"
    version = 1

    def encode(self, record: _Known) -> Any:
        edits = record.edits
        if edits is None:
            return None
        return [edits.safe, [[r.line, r.column, r.end_line, r.end_column, r.text] for r in edits.replacements]]

    def decode(self, data: Any) -> _Known:
        if data is None:
            return _Known(None)
        safe, rows = data
        if not isinstance(safe, bool) or not isinstance(rows, list):
            raise TypeError("an edits entry of another shape")
        replacements = []
        for line, column, end_line, end_column, text in rows:
            if not all(isinstance(n, int) for n in (line, column, end_line, end_column)) or not isinstance(text, str):
                raise TypeError("a replacement of another shape")
            replacements.append(Replacement(line, column, end_line, end_column, text))
        return _Known(Edits(safe, tuple(replacements)))


def _finding_key(d: Diagnostic) -> str | None:
    """What, besides the file's bytes, the edits depend on; None for a payload with no codec."""
    from import_policy.edits.payload import UnknownPayload, encode

    assert d.fix is not None
    try:
        payload = encode(d.fix)
        return json.dumps([d.rule, d.path, d.line, d.column, d.end_line, d.end_column, payload], sort_keys=True)
    except (UnknownPayload, TypeError, ValueError):
        return None


def edits_hook(base: Path, overrides: Mapping[str, bytes], cache_root: Path | None = None) -> EditsFor:
    """`base`: the folder the shown paths are relative to; `overrides`: shown path -> bytes
    (stdin); `cache_root`: the project whose cache keeps the edits (None: no cache)."""
    cache: dict[str, bytes | None] = {}
    store = Store(cache_root, EditsCodec()) if cache_root is not None else None

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
        key = _finding_key(d) if store is not None else None
        if store is None or key is None:
            return compute(d, before)
        name = content_digest(before)
        known = store.get(key, name)
        if known is None:
            known = _Known(compute(d, before))
            store.put(key, name, known)
        return known.edits

    def compute(d: Diagnostic, before: bytes) -> Edits | None:
        # The fixer (and libcst) is loaded only for a finding no cache answered.
        from import_policy.edits.payload import applies
        from import_policy.fix.apply import fix_bytes

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


def fix_hook(base: Path, overrides: Mapping[str, bytes], cache_root: Path | None = None) -> FixFor:
    """SARIF's fixes: the edits, with a description that says when a fix is unsafe."""
    edits_for = edits_hook(base, overrides, cache_root)

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
