"""Paths on the command line -> the files to check, and each file's module name.

Folders are walked for Python and C-family sources, honouring `exclude`,
`.gitignore` files and a short list of folders no one wants linted. A file
named on the command line is checked even where a walk would skip it,
unless `exclude` covers it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pathspec

from import_policy.patterns import PathGlob, any_match
from import_policy.cache.walk import Kind, WalkCache, gitignore_stat

PYTHON_SUFFIXES = (".py", ".pyi")
C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".hip")
# As ruff's default `exclude`: tool caches, virtual environments and VCS metadata.
SKIPPED_FOLDERS = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox", ".pants.d",
    ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", "__pypackages__", "_build", "buck-out",
    "node_modules", "venv", "__pycache__", ".import_policy_cache",
})

Language = Literal["python", "c"]


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as given or found, absolute
    relative: str  # relative to the project root, '/' separators
    language: Language


class PathError(Exception):
    """A path on the command line that does not exist or cannot be read."""


def language_of(path: str) -> Language | None:
    lower = path.lower()
    if lower.endswith(PYTHON_SUFFIXES):
        return "python"
    if lower.endswith(C_SUFFIXES):
        return "c"
    return None


def relative_to_root(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return Path(os.path.relpath(path, root)).as_posix()


def discover(
    paths: Iterable[Path],
    root: Path,
    exclude: tuple[PathGlob, ...],
    languages: frozenset[Language] = frozenset({"python", "c"}),
    remember: bool = False,
) -> list[SourceFile]:
    """Every file to check, each once, sorted by path. `remember`: keep what each folder held
    in the project's cache (walkcache), so the next walk of an unchanged tree is cheap."""
    cache = WalkCache(root, repr((sorted(g.text for g in exclude), sorted(languages)))) if remember else None
    found: dict[Path, SourceFile] = {}
    missing = []
    for given in paths:
        path = Path(os.path.abspath(given))
        if path.is_dir():
            for file in _walk(path, root, exclude, languages, cache):
                found.setdefault(file.path, file)
        elif path.is_file():
            relative = relative_to_root(path, root)
            if any_match(exclude, relative) is None:
                language = language_of(path.name) or "python"
                found.setdefault(path, SourceFile(path, relative, language))
        else:
            missing.append(str(given))
    if missing:
        raise PathError(", ".join(missing))
    if cache is not None:
        cache.save()
    return sorted(found.values(), key=lambda f: f.relative)


def _walk(
    top: Path, root: Path, exclude: tuple[PathGlob, ...], languages: frozenset[Language], cache: WalkCache | None
) -> Iterator[SourceFile]:
    # Paths as strings from here on: pathlib's objects cost more than the walk itself.
    ignores = _GitIgnores(root)
    seen: set[tuple[int, int]] = set()
    # (folder, its root-relative path, whether a .gitignore above it changed since the cached walk)
    stack = [(top, relative_to_root(top, root), False)]
    while stack:
        folder, folder_relative, dirty = stack.pop()
        try:
            stat = folder.stat()
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen:
            continue  # a symlink loop, or a folder reached twice
        seen.add((stat.st_dev, stat.st_ino))
        prefix = "" if folder_relative == "." else folder_relative + "/"
        # A walk from above the root re-enters it: there, paths are worked out one by one.
        outside = folder_relative == ".." or folder_relative.startswith("../")
        remembered = cache if cache is not None and not outside else None
        ignore = gitignore_stat(folder) if remembered is not None else None
        if remembered is not None and not dirty:
            kept = remembered.get(folder_relative, stat.st_mtime_ns, ignore)
            if kept is not None:
                subfolders = []
                for name, kind in kept:
                    if kind == "d":
                        subfolders.append((folder / name, prefix + name, False))
                    elif kind in languages:
                        yield SourceFile(folder / name, prefix + name, kind)
                stack.extend(reversed(subfolders))
                continue
        if remembered is not None:
            before = remembered.folders.get(folder_relative)
            dirty = dirty or before is None or before[1] != ignore
        spec = ignores.for_folder(folder)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subfolders = []
        listed: list[tuple[str, Kind]] = []
        for entry in entries:
            relative = relative_to_root(Path(entry.path), root) if outside else prefix + entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIPPED_FOLDERS or any_match(exclude, relative) or spec.ignored(relative, True):
                    continue
                subfolders.append((Path(entry.path), relative, dirty))
                listed.append((entry.name, "d"))
                continue
            language = language_of(entry.name)
            if language is None or language not in languages:
                continue
            if any_match(exclude, relative) or spec.ignored(relative, False):
                continue
            listed.append((entry.name, language))
            yield SourceFile(Path(entry.path), relative, language)
        if remembered is not None:
            remembered.put(folder_relative, stat.st_mtime_ns, ignore, listed)
        stack.extend(reversed(subfolders))


class Locator:
    """Whether a file a walk of the project would find, asked of one path at a time: the
    ROCm pass looks up the modules a chain reaches without walking the whole tree."""

    def __init__(self, root: Path, exclude: tuple[PathGlob, ...]) -> None:
        self.root = root
        self.exclude = exclude
        self.ignores = _GitIgnores(root)
        self._folders: dict[str, bool] = {"": True}

    def _folder_walked(self, relative: str) -> bool:
        known = self._folders.get(relative)
        if known is None:
            parent, _, name = relative.rpartition("/")
            known = (
                self._folder_walked(parent)
                and name not in SKIPPED_FOLDERS
                and any_match(self.exclude, relative) is None
                and not self.ignores.for_folder(self.root / parent).ignored(relative, True)
            )
            self._folders[relative] = known
        return known

    def walked(self, relative: str) -> bool:
        """`relative` is a file under the root that `discover([root], ...)` would list."""
        path = self.root / relative
        parent = relative.rpartition("/")[0]
        return (
            path.is_file()
            and self._folder_walked(parent)
            and any_match(self.exclude, relative) is None
            and not self.ignores.for_folder(path.parent).ignored(relative, False)
        )


class _Spec:
    def __init__(self, layers: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        self.layers = layers

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """`relative`: to the project root, like each layer's folder."""
        # Deeper .gitignore files are consulted last, so their negations win, as in git.
        verdict = False
        for base, spec in self.layers:
            if base in (".", ""):
                if relative.startswith("../"):
                    continue  # outside the root: its .gitignore does not apply
                inner = relative
            elif relative.startswith(base + "/"):
                inner = relative[len(base) + 1 :]
            else:
                continue
            result = spec.check_file(inner + ("/" if is_dir else ""))
            if result.include is not None:
                verdict = result.include
        return verdict


class _GitIgnores:
    """`.gitignore` files from the project root down to each walked folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[Path, list[tuple[str, pathspec.GitIgnoreSpec]]] = {}

    def _own(self, folder: Path) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        file = folder / ".gitignore"
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        return [(relative_to_root(folder, self.root), pathspec.GitIgnoreSpec.from_lines(lines))]

    def layers(self, folder: Path) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        if folder in self.cache:
            return self.cache[folder]
        if folder == self.root or self.root not in folder.parents:
            result = self._own(folder)
        else:
            result = self.layers(folder.parent) + self._own(folder)
        self.cache[folder] = result
        return result

    def for_folder(self, folder: Path) -> _Spec:
        return _Spec(self.layers(folder))


def module_name(relative: str, roots: tuple[str, ...]) -> tuple[str | None, bool]:
    """`src/pkg/mod.py` with roots ('.', 'src') -> ('pkg.mod', False); the deepest root wins."""
    if not relative.endswith((".py", ".pyi")) or relative.startswith("../"):
        return None, False
    best: str | None = None
    for root in roots:
        prefix = "" if root in (".", "") else root.rstrip("/") + "/"
        if relative.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    if best is None:
        return None, False
    inner = relative[len(best):].rsplit(".", 1)[0]
    parts = inner.split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None, is_package
    return ".".join(parts), is_package
