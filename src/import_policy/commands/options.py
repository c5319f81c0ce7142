"""The options of one `check`, as one typed value: `cli.py` builds it from argv; the steps of
`commands/check.py` and `commands/projects.py` read it (never an argparse namespace)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class CheckOptions:
    paths: list[Path] = field(default_factory=list)  # none: the current folder
    config: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] | None = None
    ignore: list[str] | None = None
    exit_zero: bool = False
    statistics: bool = False
    fix: bool = False
    fix_only: bool = False
    show_fixes: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    format: str = "text"
    quiet: bool = False
    stdin_filename: Path | None = None
    no_cache: bool = False
    exclude: list[str] | None = None  # replaces the configuration's `exclude` for this run
    extend_exclude: list[str] | None = None
    show_files: bool = False
    show_settings: bool = False
    verbose: bool = False
    jobs: int | None = None
    baseline: Path | None = None
    write_baseline: Path | None = None
