"""Top-level modules and packages under each root: what an absolute import of the project names."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


def top_level(root: Path, roots: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Top-level name -> the roots (in order) that provide it, as a module or a package."""
    found: dict[str, list[str]] = {}
    for folder in roots:
        try:
            entries = list(os.scandir(root / folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if not name.isidentifier():
                continue
            try:
                is_module = entry.name.endswith(".py") and entry.is_file()
                is_package = not is_module and entry.is_dir()
            except OSError:
                continue
            if is_module or is_package:
                providers = found.setdefault(name, [])
                if folder not in providers:
                    providers.append(folder)
    return {name: tuple(providers) for name, providers in found.items()}
