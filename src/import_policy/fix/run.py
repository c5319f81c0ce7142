"""Check, fix, check again: the one way `--fix`, `--diff`, `--stdin-filename --fix` and the
library's `fix_source` apply fixes.

`fix_and_check_again` groups findings by file, fixes each file once, hands the new
bytes to a writer (the disk, atomically; or nothing, for stdin and the library),
checks the changed files again from those bytes, and says on every finding whose
fix was not applied why not. With no writer (`--diff`) it collects diffs instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.plan import Plan, Selection
from import_policy.pipeline.engine import Result, run
from import_policy.fix.apply import fix_bytes
from import_policy.fix.patch import unified_diff
from import_policy.fix.write import write_atomic
from import_policy.fix.payload import applies
from import_policy.fix.reach import OUTSIDE_ROOT, inside

Reader = Callable[[SourceFile], bytes]
Writer = Callable[[SourceFile, bytes], None]  # raises OSError when it cannot write


@dataclass
class FixRun:
    applied: int = 0
    fixed: list[Diagnostic] = field(default_factory=list)  # the findings fixed (`applied` of them)
    changed: list[str] = field(default_factory=list)  # root-relative paths written (or that would be)
    new: dict[str, bytes] = field(default_factory=dict)  # root-relative path -> the bytes written
    diffs: list[bytes] = field(default_factory=list)
    # (root-relative path, rule, line, column) -> why the fix was not applied, for files left as they were;
    # (root-relative path, rule, message) for files that changed otherwise (positions moved)
    failed: dict[tuple[object, ...], str] = field(default_factory=dict)
    write_errors: list[tuple[str, str]] = field(default_factory=list)


def to_disk(file: SourceFile, data: bytes) -> None:
    write_atomic(file.path, data)


def kept_in_memory(_file: SourceFile, _data: bytes) -> None:
    """For stdin and the library: the new bytes are the answer, nothing is written."""




def fix_and_check_again(
    before: Result, files: Sequence[SourceFile], read: Reader, policy: Policy, selection: Selection,
    unsafe: bool, write: Writer | None, root: Path, cwd: Path,
) -> tuple[Result, FixRun]:
    """(the findings of the files as the fixes left them, what was done). `write=None`: diffs only."""
    fixing = fix_files(before.diagnostics, files, read, unsafe, write, root, cwd)
    after = before
    if fixing.new:
        after = recheck(before, files, list(fixing.new), policy, selection, _reading(fixing.new, read))
    return Result(note_failures(after.diagnostics, fixing), after.files, after.unreadable), fixing


def fix_source(
    source: bytes, path: str, policy: Policy, unsafe: bool = False
) -> tuple[bytes, list[Diagnostic]]:
    """Check `source` as the file at `path` (relative to the project root), apply the fixes
    that apply with the flags given, and return the new bytes with what remains."""
    file = SourceFile(policy.root / path, path, "python")
    selection = Selection()
    before = run(Plan(policy, selection), [file], read=lambda _: source)
    after, fixing = fix_and_check_again(
        before, [file], lambda _: source, policy, selection, unsafe, kept_in_memory, policy.root, policy.root,
    )
    return fixing.new.get(path, source), after.diagnostics


def _reading(new: dict[str, bytes], read: Reader) -> Reader:
    return lambda file: new[file.relative] if file.relative in new else read(file)


def fix_files(
    diagnostics: Sequence[Diagnostic], files: Sequence[SourceFile], read: Reader,
    unsafe: bool, write: Writer | None, root: Path, cwd: Path,
) -> FixRun:
    by_path: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        if applies(d, unsafe):
            by_path.setdefault(d.path, []).append(d)
    run = FixRun()
    real_root = os.path.realpath(root)
    for file in files:
        found = by_path.get(file.relative)
        if not found:
            continue
        if write is not kept_in_memory and not inside(os.path.realpath(file.path), real_root):
            # A link (or a path named) that leads out of the project: never written, nor offered as a diff.
            for d in found:
                run.failed[(d.path, d.rule, d.line, d.column)] = OUTSIDE_ROOT
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
        if write is not None:
            try:
                write(file, fixed.new)
            except OSError as error:
                run.write_errors.append((file.relative, error.strerror or str(error)))
                continue
            run.new[file.relative] = fixed.new
        else:
            shown = Path(os.path.relpath(root / file.relative, cwd)).as_posix()
            run.diffs.append(unified_diff(shown, source, fixed.edits))
        run.applied += len(fixed.applied)
        run.fixed.extend(fixed.applied)
        run.changed.append(file.relative)
    return run


def note_failures(diagnostics: Sequence[Diagnostic], run: FixRun) -> list[Diagnostic]:
    """Findings whose fix was not applied say why, so nobody wonders why `--fix` left them."""
    if not run.failed:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        why = run.failed.get((d.path, d.rule, d.line, d.column)) or run.failed.get((d.path, d.rule, d.message))
        if why == OUTSIDE_ROOT:  # no later --fix can apply it either: not offered as fixable
            out.append(replace(d, message=f"{d.message} (fix not applied: {why})", fixable=False))
        else:
            out.append(replace(d, message=f"{d.message} (fix not applied: {why})") if why else d)
    return out


def recheck(
    before: Result, files: Sequence[SourceFile], changed: Sequence[str], policy: Policy,
    selection: Selection, read: Reader,
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
