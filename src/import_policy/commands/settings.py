"""`check --show-files`, `--show-settings` and `-v` (ruff's flags): what a run would check and
under which settings, per project the paths reach, said before (or instead of) checking."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from import_policy.commands.options import CheckOptions
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.plan import Selection
from import_policy.policy.load import Loaded
from import_policy.quoting import quote_path


def _shown(path: Path | str, cwd: Path) -> str:
    relative = Path(os.path.relpath(os.path.abspath(path), cwd)).as_posix()
    return quote_path(relative)


def show(args: CheckOptions, loaded: Loaded, selection: Selection, files: Sequence[SourceFile], cwd: Path) -> bool:
    """Print what was asked; True when the run stops here (`--show-files`, `--show-settings`)."""
    policy = loaded.policy
    if args.show_files:
        for file in files:
            print(_shown(file.path, cwd))
    if args.show_settings:
        print("\n".join(settings_lines(loaded, selection, len(files), cwd)))
    if args.verbose:
        config = _shown(loaded.config, cwd) if loaded.config is not None else "the built-in rocm-safety preset"
        print(
            f"import-policy: {config} (project root {_shown(policy.root, cwd)}) judges {len(files)} "
            f"file{'s' if len(files) != 1 else ''}",
            file=sys.stderr,
        )
    return bool(args.show_files or args.show_settings)


def settings_lines(loaded: Loaded, selection: Selection, files: int, cwd: Path) -> list[str]:
    from import_policy.kinds.describe import rule_rows
    from import_policy.rocm.rules import settings

    policy = loaded.policy
    in_force = [row["id"] for row in rule_rows(policy) if selection.wants(row["id"])]
    lines = [
        f"configuration: {_shown(loaded.config, cwd) if loaded.config is not None else '(none: the built-in rocm-safety preset)'}",
        f"  read:          {', '.join(source.replace('preset:', 'preset ') for source in policy.sources) or '(none)'}",
        f"  project root:  {_shown(policy.root, cwd)}",
        f"  roots:         {', '.join(policy.roots)}",
        f"  exclude:       {', '.join(g.text for g in policy.exclude) or '(none)'}",
        f"  rules:         {', '.join(in_force) or '(none)'}",
        *(["  ignore:        " + ", ".join(policy.ignore)] if policy.ignore else []),
        *(["  enable:        " + ", ".join(policy.enable)] if policy.enable else []),
        f"  files:         {files}",
    ]
    rocm = settings(policy)
    if rocm:
        lines += ["  rocm_safety:", *("  " + line for line in rocm)]
    return lines
