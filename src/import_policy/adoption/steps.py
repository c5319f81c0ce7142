"""The check steps for adopting a policy: baselines, and stale allowlist entries.

Kept apart from `cli.py` so the command line only wires them in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from dataclasses import replace

from import_policy.adoption import baseline
from import_policy.adoption.renames import renamed
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.plan import Selection


class AdoptionError(Exception):
    """A baseline that cannot be read or written."""


def source_reader(root: Path, overrides: dict[str, bytes]) -> baseline.SourceOf:
    """Root-relative path -> the checked bytes (stdin's, or the file's)."""

    def source_of(path: str) -> bytes | None:
        if path in overrides:
            return overrides[path]
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    return source_of


def use_baseline(
    diagnostics: Sequence[Diagnostic],
    *,
    write_to: Path | None,
    read_from: Path | None,
    source_of: baseline.SourceOf,
    files: Sequence[SourceFile],
    selection: Selection,
    root: Path | None = None,
    warn: Callable[[str], None] = lambda line: print(f"import-policy: {line}", file=sys.stderr),
    wrote: Callable[[str], None] | None = None,
) -> list[Diagnostic]:
    """What remains to report. Diagnostics here carry paths relative to `root` (where entries'
    files are looked for: a file that is gone, or that git sees renamed). `wrote` is told what
    `write_to` received (else `warn` is). A file that does not parse is never recorded: it
    stays reported, since nothing in it was checked."""
    if write_to is None and read_from is None:
        return list(diagnostics)
    unparsed = [d for d in diagnostics if d.rule == SYNTAX_ERROR]
    items = baseline.keyed((d for d in diagnostics if d.rule != SYNTAX_ERROR), source_of)
    checked_paths = {file.relative for file in files}
    if write_to is not None:
        # The entries of files this run did not check (still there) are kept: a run over a
        # few files rewrites only their entries.
        others: list[baseline.Entry] = []
        if write_to.is_file() and root is not None:
            try:
                others = [
                    entry for entry in baseline.read(write_to)
                    if entry.path not in checked_paths and (root / entry.path).is_file()
                ]
            except baseline.BaselineError:
                others = []  # not one of ours (or unreadable): written afresh, as before
        try:
            baseline.write(write_to, items, others)
        except OSError as error:
            raise AdoptionError(f"cannot write the baseline {write_to}: {error.strerror or error}") from None
        findings = baseline.recorded(items)
        keys = len({key for key, _ in findings} | {entry.key for entry in others})
        (wrote or warn)(
            f"Wrote {len(findings)} finding{'s' if len(findings) != 1 else ''} as {keys} "
            f"entr{'ies' if keys != 1 else 'y'} to {write_to}; "
            f"check with --baseline {write_to} to report only new ones."
        )
        return unparsed
    assert read_from is not None
    try:
        entries = baseline.read(read_from)
    except baseline.BaselineError as error:
        raise AdoptionError(str(error)) from None
    gone: set[str] = set()
    if root is not None:
        gone = {entry.path for entry in entries if not (root / entry.path).exists()}
        moves = renamed(root, read_from) if gone else {}
        entries = [replace(entry, path=moves[entry.path]) if entry.path in moves else entry for entry in entries]
        gone -= set(moves)
    applied = baseline.apply(
        entries, items,
        # An entry whose file is gone can match nothing again, whichever files were named.
        lambda rule, path: (path in checked_paths or path in gone) and selection.wants(rule),
    )
    for entry, left in applied.stale:
        warn(baseline.stale_message(read_from, entry, left, gone=entry.path in gone))
    return applied.kept + unparsed
