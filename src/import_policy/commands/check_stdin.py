"""`check --stdin-filename PATH -`: the source comes from stdin, the rules from PATH.

For editors: the buffer need not be saved, or even exist on disk, and it is
reported as PATH with the rules that apply to PATH relative to the project
root. A PATH that `exclude` covers is not checked, as a walk would skip it.
With `--fix`, the fixed source goes to stdout and what remains to stderr
(ruff's convention), so an editor can replace its buffer with stdout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile, language_of, relative_to_root
from import_policy.pipeline.engine import Result
from import_policy.pipeline.extract import Reader
from import_policy.pipeline.plan import Selection
from import_policy.patterns import any_match


def stdin_file(policy: Policy, filename: Path) -> SourceFile | None:
    """The file stdin stands for, or None when `exclude` covers it."""
    path = Path(os.path.abspath(filename))
    relative = relative_to_root(path, policy.root)
    if any_match(policy.exclude, relative) is not None:
        return None
    return SourceFile(path, relative, language_of(path.name) or "python", named=True)


def read_stdin(stream: BinaryIO) -> bytes:
    return stream.read()


def fix_stdin(
    policy: Policy, selection: Selection, files: Sequence[SourceFile], source: bytes, before: Result, unsafe: bool,
    read: Reader,
) -> tuple[bytes, list[Diagnostic]]:
    """`check --fix --stdin-filename PATH -`: (the fixed source for stdout, what remains).
    `read`: every file as the run reads it, the buffer standing for its own (the overlay)."""
    from import_policy.fix.run import fix_and_check_again, kept_in_memory

    if not files:
        return source, []
    after, fixing = fix_and_check_again(
        before, files, read, policy, selection, unsafe, kept_in_memory, policy.root, policy.root,
    )
    return fixing.new.get(files[0].relative, source), after.diagnostics
