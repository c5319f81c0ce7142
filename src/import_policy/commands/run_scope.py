"""What the run cache watches for a check of folders below the project root (`check vllm`).

A whole-tree run's result depends only on the files it checks (cache.run). A run of some
folders below the root also reads files outside them: the graph rules and contracts follow
imports into the rest of the project. Its entry is keyed by the folders named and by the
whole tree's file list, and watches every file of the tree, as a whole-tree entry does: any
file added, removed or changed anywhere in the project is a miss.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from import_policy.discovery.files import SourceFile, discover, relative_to_root
from import_policy.patterns import PathGlob, any_match


def named_folders(paths: Sequence[Path], root: Path) -> tuple[str, ...] | None:
    """The folders named, relative to the root and sorted, when every path is a folder below
    the root (not the root itself, not a link out of it); else None."""
    real_root = os.path.realpath(root)
    found: set[str] = set()
    for path in paths:
        if not path.is_dir():
            return None
        real = os.path.realpath(path)
        if real == real_root or not real.startswith(real_root.rstrip(os.sep) + os.sep):
            return None
        relative = relative_to_root(Path(os.path.abspath(path)), root)
        if relative.startswith("../") or relative in (".", ".."):
            return None
        found.add(relative)
    return tuple(sorted(found)) if found else None


def any_excluded(folders: Sequence[str], exclude: tuple[PathGlob, ...]) -> bool:
    """Whether `exclude` covers a folder named (the run then warns about it: `warn_excluded`)."""
    return any(any_match(exclude, folder) or any_match(exclude, folder + "/") for folder in folders)


def whole_tree_files(root: Path, exclude: tuple[PathGlob, ...]) -> tuple[list[SourceFile], list[tuple[str, str]]] | None:
    """The files and links a whole-tree walk finds (the walk cache's listing of an unchanged
    tree); None when a folder could not be read (then nothing is keyed)."""
    unreadable: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    files = discover([root], root, exclude, remember=True, skipped=[], unreadable=unreadable, links=links)
    return None if unreadable else (files, links)


def scoped(keyed: object, folders: tuple[str, ...] | None) -> object:
    """The selection part of a run's key, with the folders named (None: the whole tree, keyed as before)."""
    return keyed if folders is None else (keyed, ("folders", folders))


__all__ = ["any_excluded", "named_folders", "scoped", "whole_tree_files"]
