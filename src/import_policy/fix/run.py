"""`check --fix` / `--diff` over many files: group findings by file, fix each file once,
write atomically (or collect a diff), and remember what could not be applied."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.plan import Plan, Selection
from import_policy.pipeline.engine import Result, run
from import_policy.fix.apply import fix_bytes, unified_diff, write_atomic
from import_policy.fix.payload import applies


@dataclass
class FixRun:
    applied: int = 0
    changed: list[str] = field(default_factory=list)  # root-relative paths written (or that would be)
    diffs: list[str] = field(default_factory=list)
    # (root-relative path, rule, line, column) -> why the fix was not applied, for files left as they were;
    # (root-relative path, rule, message) for files that changed otherwise (positions moved)
    failed: dict[tuple[object, ...], str] = field(default_factory=dict)
    write_errors: list[tuple[str, str]] = field(default_factory=list)


def _encoding(source: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return "utf-8"


def fix_files(
    diagnostics: Sequence[Diagnostic], files: Sequence[SourceFile], read: Callable[[SourceFile], bytes],
    unsafe: bool, write: bool, root: Path, cwd: Path,
) -> FixRun:
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if applies(d, unsafe):
            by_path.setdefault(d.path, []).append(d)
    run = FixRun()
    for file in files:
        found = by_path.get(file.relative)
        if not found:
            continue
        try:
            source = read(file)
        except OSError:
            continue  # the check already reported it unreadable
        fixed = fix_bytes(source, found, unsafe)
        for d, why in fixed.failed:
            key: tuple[object, ...] = (d.path, d.rule, d.message) if fixed.changed else (d.path, d.rule, d.line, d.column)
            run.failed[key] = why
        if not fixed.changed:
            continue
        if write:
            try:
                write_atomic(file.path, fixed.new)
            except OSError as error:
                run.write_errors.append((file.relative, error.strerror or str(error)))
                continue
        else:
            shown = Path(os.path.relpath(root / file.relative, cwd)).as_posix()
            run.diffs.append(unified_diff(shown, source, fixed.new, _encoding(source)))
        run.applied += len(fixed.applied)
        run.changed.append(file.relative)
    return run


def note_failures(diagnostics: Sequence[Diagnostic], run: FixRun) -> list[Diagnostic]:
    """Findings whose fix was not applied say why, so nobody wonders why `--fix` left them."""
    if not run.failed:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        why = run.failed.get((d.path, d.rule, d.line, d.column)) or run.failed.get((d.path, d.rule, d.message))
        out.append(replace(d, message=f"{d.message} (fix not applied: {why})") if why else d)
    return out


def recheck(
    before: Result, files: Sequence[SourceFile], changed: Sequence[str], policy: Policy,
    selection: Selection, read: Callable[[SourceFile], bytes],
) -> Result:
    """The findings of the tree as `--fix` left it.

    Without the ROCm pass every finding belongs to one file, so only the changed
    files are checked again; the pass follows imports across files, so then the
    whole run is repeated.
    """
    if policy.rocm_safety is not None:
        return run(Plan(policy, selection), files, read)
    touched = set(changed)
    again = run(Plan(policy, selection), [f for f in files if f.relative in touched], read)
    kept = [d for d in before.diagnostics if d.path not in touched]
    diagnostics = sorted(kept + again.diagnostics, key=Diagnostic.sort_key)
    return Result(diagnostics, before.files, before.unreadable + again.unreadable)
