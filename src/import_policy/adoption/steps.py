"""The check steps for adopting a policy: baselines, and stale allowlist entries.

Kept apart from `cli.py` so the command line only wires them in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from import_policy.adoption import baseline
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
    warn: Callable[[str], None] = lambda line: print(f"import-policy: {line}", file=sys.stderr),
    wrote: Callable[[str], None] | None = None,
) -> list[Diagnostic]:
    """What remains to report. Diagnostics here carry root-relative paths. `wrote` is told what
    `write_to` received (else `warn` is). A file that does not parse is never recorded: it
    stays reported, since nothing in it was checked."""
    if write_to is None and read_from is None:
        return list(diagnostics)
    unparsed = [d for d in diagnostics if d.rule == SYNTAX_ERROR]
    items = baseline.keyed((d for d in diagnostics if d.rule != SYNTAX_ERROR), source_of)
    if write_to is not None:
        try:
            baseline.write(write_to, items)
        except OSError as error:
            raise AdoptionError(f"cannot write the baseline {write_to}: {error.strerror or error}") from None
        findings = baseline.recorded(items)
        keys = len({key for key, _ in findings})
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
    checked_paths = {file.relative for file in files}
    applied = baseline.apply(
        entries, items, lambda rule, path: path in checked_paths and selection.wants(rule)
    )
    for entry, left in applied.stale:
        warn(baseline.stale_message(read_from, entry, left))
    return applied.kept + unparsed
