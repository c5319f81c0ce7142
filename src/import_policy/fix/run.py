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
from import_policy.fix.apply import FileFix, fix_bytes
from import_policy.fix.patch import unified_diff
from import_policy.fix.write import write_atomic
from import_policy.edits.payload import applies
from import_policy.fix.reach import OUTSIDE_ROOT, inside

Reader = Callable[[SourceFile], bytes]
ALSO_AT = "the file is also"  # why a file reached by paths whose fixes differ is not fixed
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
    # A link inside the root is a file of its own path: the paths of one real file are fixed
    # together, so that the file is written once (through its real path: the link stays one).
    by_real: dict[str, list[SourceFile]] = {}
    for file in files:
        by_real.setdefault(os.path.realpath(file.path), []).append(file)
    for real, paths in by_real.items():
        fixing = [file for file in paths if by_path.get(file.relative)]
        if not fixing:
            continue
        if write is not kept_in_memory and not inside(real, real_root):
            # A link (or a path named) that leads out of the project: never written, nor offered as a diff.
            for file in fixing:
                for d in by_path[file.relative]:
                    run.failed[(d.path, d.rule, d.line, d.column)] = OUTSIDE_ROOT
            continue
        try:
            source = read(fixing[0])
        except OSError:
            continue  # the check already reported it unreadable
        results = [(file, fix_bytes(source, by_path[file.relative], unsafe)) for file in fixing]
        changed = [(file, fixed) for file, fixed in results if fixed.changed]
        if len({fixed.new for _, fixed in changed}) > 1:
            _refuse_differing(run, paths, changed)
            continue
        for file, fixed in results:
            for d, why in fixed.failed:
                key: tuple[object, ...] = (d.path, d.rule, d.message) if fixed.changed else (d.path, d.rule, d.line, d.column)
                run.failed[key] = why
        if not changed:
            continue
        shown_file, fixed = changed[0]
        canonical = os.path.relpath(real, real_root)
        if write is not None:
            try:
                write(shown_file, fixed.new)
            except OSError as error:
                run.write_errors.append((shown_file.relative, error.strerror or str(error)))
                continue
            for file in paths:  # every path of the file holds the new bytes
                run.new[file.relative] = fixed.new
        else:
            under = root / canonical if inside(real, real_root) else root / shown_file.relative
            shown = Path(os.path.relpath(under, cwd)).as_posix()
            run.diffs.append(unified_diff(shown, source, fixed.edits))
        for _, done in changed:
            run.applied += len(done.applied)
            run.fixed.extend(done.applied)
        run.changed.extend(file.relative for file in paths)
    return run


def _refuse_differing(run: FixRun, paths: Sequence[SourceFile], changed: Sequence[tuple[SourceFile, FileFix]]) -> None:
    """One file reached by paths whose rules fix it differently: no fix is right for every
    path Python imports it by, so none is written."""
    for file, fixed in changed:
        others = ", ".join(other.relative for other in paths if other.relative != file.relative)
        why = f"{ALSO_AT} {others}, where other fixes apply"
        for d in [*fixed.applied, *(d for d, _ in fixed.failed)]:
            run.failed[(d.path, d.rule, d.line, d.column)] = why


def note_failures(diagnostics: Sequence[Diagnostic], run: FixRun) -> list[Diagnostic]:
    """Findings whose fix was not applied say why, so nobody wonders why `--fix` left them."""
    if not run.failed:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        why = run.failed.get((d.path, d.rule, d.line, d.column)) or run.failed.get((d.path, d.rule, d.message))
        if why == OUTSIDE_ROOT or (why and why.startswith(ALSO_AT)):  # no later --fix can apply it either: not offered as fixable
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
