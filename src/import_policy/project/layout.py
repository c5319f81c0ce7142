"""Top-level modules and packages under each root: what an absolute import of the project names."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path


def top_level_names(root: Path, roots: Sequence[str]) -> Iterator[tuple[str, str, bool]]:
    """(name, root, is a package: regular or namespace) for each top-level module and folder
    under each root, roots in order: an absolute import of the project spells one of them."""
    for folder in roots:
        held, _, package = folder.partition("=")  # a package root: `python=kt_kernel`
        if package:
            if _is_package(os.path.join(root, held)):
                yield package.split(".")[0], folder, True
            continue
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
                is_folder = not is_module and entry.is_dir()
            except OSError:
                continue
            if is_module or is_folder:
                yield name, folder, is_folder and _is_package(entry.path)


def top_level(root: Path, roots: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Top-level name -> the roots (in order) that provide it, as a module or a package."""
    found: dict[str, list[str]] = {}
    for name, folder, _ in top_level_names(root, roots):
        providers = found.setdefault(name, [])
        if folder not in providers:
            providers.append(folder)
    return {name: tuple(providers) for name, providers in found.items()}


# A folder without an `__init__.py` that holds one of these is a project of its own (its own
# configuration, or its own distribution), not a namespace package of the project above it.
PROJECT_FILES = ("import-policy.yaml", ".import-policy.yaml", "pyproject.toml", "setup.py")


def _is_package(path: str) -> bool:
    """A folder with an `__init__.py`, or a namespace package (PEP 420): a folder without one
    that holds a module or a package and is no project of its own (`PROJECT_FILES`). A folder
    of other files (C sources, data) is neither."""
    if os.path.isfile(os.path.join(path, "__init__.py")):
        return True
    if any(os.path.isfile(os.path.join(path, name)) for name in PROJECT_FILES):
        return False
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.endswith(".py") and entry.name[:-3].isidentifier():
                    return True
                if entry.name.isidentifier() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                    return True
    except OSError:
        pass
    return False


def layout_digest(root: Path, roots: Sequence[str]) -> str:
    """The top-level layout as a digest: every name under each root, and whether it is a
    module, a folder or a package. It decides what a module name means (relative imports
    and their fixes, the ROCm pass's project names and default entries) without any file
    changing: an empty `src/pkg/` makes `pkg` a namespace package of a second root."""
    import hashlib

    described = "\0".join(f"{folder}/{name}:{int(package)}" for name, folder, package in top_level_names(root, roots))
    return hashlib.blake2b(f"{list(roots)}\0{described}".encode(), digest_size=16).hexdigest()
