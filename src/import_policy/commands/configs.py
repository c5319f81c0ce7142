"""The configurations a command's paths reach, as `check` would use them (contract section 7):
for each path, its nearest configuration upward, and for a folder, every configuration a walk
of it finds below (a monorepo's projects, a project kept in `python/`). `rules`, `explain`,
`test-rules` and `why` read them; `--config FILE` is the one configuration."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from import_policy.commands import UsageError
from import_policy.discovery.files import PathError, discover
from import_policy.policy.load import LOOKED_FOR, Loaded, load, no_config_note
from import_policy.policy.nearest import Found, Nearest, same
from import_policy.quoting import quote_path


def found_configurations(paths: list[Path], cwd: Path) -> tuple[list[Found], Path]:
    """The configurations found (None: a path with none above it), in the order met, and
    where the first search began (for the preset's note)."""
    nearest = Nearest(cwd)
    found: list[Found] = []

    def add(one: Found) -> None:
        if not any(same(one, other) for other in found):
            found.append(one)

    named = paths or [Path(".")]
    missing = [str(path) for path in named if not os.path.exists(path)]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(map(quote_path, missing))}")
    for path in named:
        top = nearest.of_path(path)
        add(top)
        if not os.path.isdir(path):
            continue
        if top is not None:
            policy = load(None, cwd, start=top[1]).policy
            root, exclude = policy.root, policy.exclude
        else:
            root, exclude = Path(os.path.abspath(path)), ()
        markers: set[str] = set()
        try:
            discover([Path(os.path.abspath(path))], root, exclude, markers=markers)
        except PathError as error:
            raise UsageError(str(error)) from None
        for folder in sorted(markers):
            below = nearest.of_folder(os.path.join(root, folder))
            if below is not None:
                add(below)
    start = Path(os.path.abspath(named[0]))
    start = start if start.is_dir() else start.parent
    # A folder whose files all belong to projects below it is judged by no preset.
    real: list[Found] = [one for one in found if one is not None]
    return (real if real else [None]), start


def configurations(config: Path | None, paths: list[Path], cwd: Path, quiet: bool = False) -> list[Loaded]:
    """Each configuration loaded; the built-in preset (with its note on stderr) where none is found."""
    if config is not None:
        return [load(config, cwd)]
    found, start = found_configurations(paths, cwd)
    loaded = [load(None, cwd, start=one[1] if one is not None else start) for one in found]
    if loaded[0].config is None and not quiet:
        print(f"import-policy: {no_config_note(start, cwd)}", file=sys.stderr)
    return loaded


def none_found(paths: list[Path], cwd: Path) -> str:
    start = Path(os.path.abspath((paths or [Path(".")])[0]))
    shown = quote_path(Path(os.path.relpath(start, cwd)).as_posix())
    return f"no configuration found from {shown} upward or below it (looked for {LOOKED_FOR})"
