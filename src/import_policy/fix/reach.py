"""Which files `--fix` may write: none whose real path lies outside the project root.

Apart from the fixer (which needs libcst) so that a plain check, which only shows which
findings are fixable, can ask it too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from import_policy.diagnostics import Diagnostic, unfixable_where

OUTSIDE_ROOT = "the file resolves outside the project root"


def inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def writable(path: Path, root: Path) -> bool:
    """Whether `--fix` would write the file at `path` (a link out of the root: never)."""
    return inside(os.path.realpath(path), os.path.realpath(root))


def refuse_outside_root(diagnostics: Iterable[Diagnostic], root: Path) -> list[Diagnostic]:
    """Findings (root-relative paths) in a file `--fix` will never write offer no fix, and say why:
    no `[*]` for what no `--fix` can apply."""
    return unfixable_where(diagnostics, lambda path: None if writable(root / path, root) else OUTSIDE_ROOT)
