"""Paths on the command line -> the files to check, and each file's module name.

Folders are walked for Python and C-family sources, honouring `exclude`,
`.gitignore` files and a short list of folders no one wants linted. A file
named on the command line is checked even where a walk would skip it,
unless `exclude` covers it.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from import_policy.quoting import quote_path
from import_policy.patterns import PathGlob, any_match
from import_policy.cache.seal import read_regular
from import_policy.cache.stat import Stat, stat_or_raise
from import_policy.cache.ignores import rules_digest
from import_policy.cache.walk import Kind, WalkCache, gitignore_stat
from import_policy.discovery.tracked import Tracked, index_stat, say_refusal
from import_policy.discovery import probe

if TYPE_CHECKING:
    import pathspec

    from import_policy.cache.ignores import Verdicts

PYTHON_SUFFIXES = (".py", ".pyi")
C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".hip")
# ruff's default `exclude`, whole: tool caches, virtual environments, VCS metadata, and built
# or installed copies of the project (`build/`, `dist/`, `site-packages/`), whose findings
# would double the project's own; plus our cache and `__pycache__`.
SKIPPED_FOLDERS = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
    "__pycache__", ".import_policy_cache",
})

Language = Literal["python", "c"]
# Files that may hold a configuration (config.load's names): a walk notes the folders that
# have one, where a project of its own may begin.
CONFIG_FILES = frozenset({"import-policy.yaml", ".import-policy.yaml", "pyproject.toml"})


@dataclass(frozen=True)
class SourceFile:
    path: Path  # as given or found, absolute
    relative: str  # relative to the project root, '/' separators
    language: Language
    # Named on the command line (not found by walking a folder): a file pre-commit passes.
    named: bool = False


class PathError(Exception):
    """Paths on the command line that do not exist or are not regular files or folders."""


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


# Why a walk passed over a path, as said on stderr.
BROKEN_LINK = "a broken symbolic link"
OUTSIDE_LINK = "a symbolic link to outside the project root"
# Links with no loop can still reach one folder by a number of paths that doubles with each
# level (`d1/x -> d2`, `d1/y -> d2`, ...): a checkout could make a walk list millions of
# files. Past this many paths to one real folder, a linked path is passed over, and said.
MAX_PATHS_TO_A_FOLDER = 16
MANY_PATHS = f"a folder already reached by {MAX_PATHS_TO_A_FOLDER} paths through symbolic links"

Skipped = list[tuple[str, str]]  # (root-relative path, why)
# A folder to walk: its path, root-relative path, whether a .gitignore above it changed
# since the cached walk, its real path, and the real paths of the folders above it in this
# walk (a link to one of them is a loop, not followed).
_Folder = tuple[Path, str, bool, str, frozenset[str]]


def discover(
    paths: Iterable[Path],
    root: Path,
    exclude: tuple[PathGlob, ...],
    languages: frozenset[Language] = frozenset({"python", "c"}),
    remember: bool = False,
    skipped: Skipped | None = None,
    unreadable: Skipped | None = None,
    links: list[tuple[str, str]] | None = None,
    markers: set[str] | None = None,
) -> list[SourceFile]:
    """Every file to check, each once per path, sorted by path: a link inside the root is a
    file (or a folder of files) at the link's own path, as Python imports it, besides the
    file it leads to; a link that leads to a folder above it (a loop) is not followed.
    `remember`: keep what each folder held in the project's cache (walkcache), so the next
    walk of an unchanged tree is cheap. A walk
    never follows a link out of the project root: such links, and broken ones, are passed
    over and added to `skipped`, and so is a named folder inside the root that is such a
    link. A named file is checked as named (`--fix` keeps its own guard against writing
    outside the root), and so is a folder named by a path outside the root. A folder the
    walk cannot read goes to `unreadable` (its path, why): the run names it and fails.
    `links` gets each link inside the root the walks met (its path, where it leads, both
    relative to the root): what the files are as modules depends on them too.
    `markers` gets the root-relative folders walked that hold a file that may be a
    configuration (`CONFIG_FILES`)."""
    paths = list(paths)
    # Named files are not walked: a pre-commit batch does not read the walk cache at all.
    walks = remember and any(os.path.isdir(given) for given in paths)
    cache = WalkCache(root, repr((sorted(g.text for g in exclude), sorted(languages))), index_stat(root)) if walks else None
    walker = _Walker(root, exclude, languages, cache, skipped if skipped is not None else [])
    found: dict[str, SourceFile] = {}  # root-relative path -> file
    missing: list[str] = []
    special: list[str] = []

    def keep(file: SourceFile) -> None:
        kept = found.get(file.relative)
        if kept is None or (file.named and not kept.named):
            found[file.relative] = file

    for given in paths:
        path = Path(os.path.abspath(given))
        relative = relative_to_root(path, root)
        real = os.path.realpath(path)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            missing.append(str(given))
            continue
        if stat.S_ISDIR(mode) and not _outside(relative) and not walker.inside(real):
            walker.skipped.append((relative, OUTSIDE_LINK))  # a folder of the project in name only
        elif stat.S_ISDIR(mode):
            for file in walker.walk(path, real):
                keep(file)
        elif not stat.S_ISREG(mode):
            special.append(str(given))
        elif any_match(exclude, relative) is None:
            language = language_of(path.name) or "python"
            keep(SourceFile(path, relative, language, named=True))
    if found and not any(os.path.isdir(given) for given in paths):
        for file in _links_to(found, walker):  # a hook run: the links to the files named
            keep(file)
    if unreadable is not None:
        # As ruff's E902: a named path that is missing or not a file is named, the rest still checked.
        unreadable.extend((relative_to_root(Path(os.path.abspath(given)), root), "No such file or directory") for given in missing)
        unreadable.extend((relative_to_root(Path(os.path.abspath(given)), root), "not a regular file") for given in special)
        missing, special = [], []
    if missing or special:
        faults = ([f"no such file or folder: {', '.join(map(quote_path, missing))}"] if missing else []) + (
            [f"not a regular file: {', '.join(map(quote_path, special))}"] if special else []
        )
        raise PathError("; ".join(faults))
    if cache is not None:
        tracked = walker.ignores.tracked
        if tracked.asked_git and tracked.unknown != cache.refused:
            cache.refused = tracked.unknown
            cache.changed = True
        elif not tracked.asked_git and cache.refused is not None:
            say_refusal(root, cache.refused)  # listings made while git refused, reused: said as then
        cache.save()
    if unreadable is not None:
        unreadable.extend(walker.unreadable)
    if links is not None:
        links.extend(sorted(set(walker.links)))
    if markers is not None:
        markers.update(walker.markers)
    return sorted(found.values(), key=lambda f: f.relative)


def _links_to(found: dict[str, SourceFile], walker: _Walker) -> Iterator[SourceFile]:
    """The paths that lead through a link git tracks to a file named (a run naming only a
    link's target, as pre-commit does for the file changed): a walk would list them as files
    of their own (a module at the link's path), so every rule judges them there too. Links
    git does not track are not seen (that would take a walk of the tree)."""
    from import_policy.discovery.tracked import tracked_links

    named = {os.path.realpath(file.path): file for file in found.values() if file.named}
    if not named:
        return
    root = walker.root
    for link in tracked_links(root):
        if link in found or any(part in SKIPPED_FOLDERS for part in link.split("/")):
            continue
        real = os.path.realpath(os.path.join(root, link))
        if not walker.inside(real):
            continue
        below = [(link, real)] if real in named else [
            (link + "/" + os.path.relpath(target, real).replace(os.sep, "/"), target)
            for target in named if target.startswith(real + os.sep)
        ]
        for path, target in below:
            language = language_of(path)
            if language is None or path in found or any_match(walker.exclude, path) is not None:
                continue
            yield SourceFile(root / path, path, language, named=True)


def _outside(relative: str) -> bool:
    return relative == ".." or relative.startswith("../")


def _child(folder: str, name: str) -> str:
    return folder.rstrip("/") + "/" + name


class _Walker:
    """Folder walks of one project. Paths are strings here: pathlib's objects cost more
    than the walk itself."""

    def __init__(
        self, root: Path, exclude: tuple[PathGlob, ...], languages: frozenset[Language],
        cache: WalkCache | None, skipped: Skipped,
    ) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.exclude = exclude
        self.languages = languages
        self.cache = cache
        self.skipped = skipped
        self.unreadable: Skipped = []
        self.links: list[tuple[str, str]] = []  # (path, where it leads) of each link followed
        self.markers: set[str] = set()  # folders holding a file that may be a configuration
        self.ignores = _GitIgnores(root)
        self.paths_to: dict[str, int] = {}  # real folder -> paths it was walked by

    def inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(_child(self.real_root, ""))

    def walk(self, top: Path, top_real: str) -> Iterator[SourceFile]:
        """Each source file under `top`, by its path (a linked folder's files under the link)."""
        top_relative = relative_to_root(top, self.root)
        stack: list[_Folder] = [(top, top_relative, False, top_real, frozenset())]
        while stack:
            folder, folder_relative, dirty, real, above = stack.pop()
            if real in above:
                continue  # a link to a folder on its own way: a loop
            reached = self.paths_to.get(real, 0)
            self.paths_to[real] = reached + 1
            if reached >= MAX_PATHS_TO_A_FOLDER:
                if reached == MAX_PATHS_TO_A_FOLDER:  # said once per folder
                    self.skipped.append((folder_relative, MANY_PATHS))
                continue
            try:
                mtime = stat_or_raise(folder)
            except OSError as error:
                self.unreadable.append((folder_relative, error.strerror or str(error)))
                continue
            subfolders: list[_Folder] = []
            yield from self._folder(folder, folder_relative, dirty, real, above | {real}, mtime, subfolders)
            stack.extend(reversed(subfolders))

    def _folder(
        self, folder: Path, folder_relative: str, dirty: bool, real: str, above: frozenset[str], mtime: Stat,
        subfolders: list[_Folder],
    ) -> Iterator[SourceFile]:
        prefix = "" if folder_relative == "." else folder_relative + "/"
        # A walk from above the root re-enters it: there, paths are worked out one by one.
        outside = _outside(folder_relative)
        remembered = self.cache if self.cache is not None and not outside else None
        ignore = gitignore_stat(folder) if remembered is not None else None
        languages = self.languages
        if remembered is not None and not dirty:
            kept = remembered.get(folder_relative, mtime, ignore)
            if kept is not None:
                spec: _Spec | None = None
                for name, kind in kept:
                    if kind == "d":
                        subfolders.append((folder / name, prefix + name, False, _child(real, name), above))
                    elif kind == "l":
                        spec = spec or self.ignores.for_folder(folder)
                        yield from self._link(str(folder / name), name, prefix + name, spec, dirty, above, subfolders)
                    elif kind == "p":
                        self.markers.add(folder_relative)
                    elif kind in languages:
                        yield SourceFile(folder / name, prefix + name, kind)
                return
        if remembered is not None:
            before = remembered.folders.get(folder_relative)
            dirty = dirty or before is None or before[1] != ignore
        spec = self.ignores.for_folder(folder)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as error:
            self.unreadable.append((folder_relative, error.strerror or str(error)))  # never skipped silently
            return
        listed: list[tuple[str, Kind]] = []
        for entry in entries:
            relative = relative_to_root(Path(entry.path), self.root) if outside else prefix + entry.name
            try:
                if entry.is_symlink():
                    if entry.name not in SKIPPED_FOLDERS:
                        listed.append((entry.name, "l"))
                        yield from self._link(entry.path, entry.name, relative, spec, dirty, above, subfolders)
                    continue
                is_dir = entry.is_dir()
                if is_dir:
                    if self._skip_folder(entry.name, relative, spec):
                        continue
                    subfolders.append((Path(entry.path), relative, dirty, _child(real, entry.name), above))
                    listed.append((entry.name, "d"))
                    continue
                language = language_of(entry.name)
                if entry.name in CONFIG_FILES and entry.is_file():
                    listed.append((entry.name, "p"))
                    self.markers.add(folder_relative)
                    continue
                if language is None or language not in languages or not entry.is_file():
                    continue  # not a source file, or not a regular one (a FIFO would hang the read)
            except OSError:
                continue
            if any_match(self.exclude, relative) or spec.ignored(relative, False):
                continue
            listed.append((entry.name, language))
            yield SourceFile(Path(entry.path), relative, language)
        if remembered is not None:
            remembered.put(folder_relative, mtime, ignore, listed, spec.matched)

    def _skip_folder(self, name: str, relative: str, spec: _Spec) -> bool:
        return name in SKIPPED_FOLDERS or any_match(self.exclude, relative) is not None or spec.ignored(relative, True)

    def _link(
        self, path: str, name: str, relative: str, spec: _Spec, dirty: bool, above: frozenset[str],
        subfolders: list[_Folder],
    ) -> Iterator[SourceFile]:
        """Where a link in a walked folder leads, looked at on every walk: followed only to
        a folder or a regular source file inside the project root."""
        language = language_of(name)
        wanted = language is not None and language in self.languages
        try:
            mode: int | None = os.stat(path).st_mode
        except OSError:
            mode = None
        is_dir = mode is not None and stat.S_ISDIR(mode)
        if is_dir and self._skip_folder(name, relative, spec):
            return
        if not is_dir and (not wanted or any_match(self.exclude, relative) or spec.ignored(relative, False)):
            return
        if mode is None:
            self.skipped.append((relative, BROKEN_LINK))
            return
        real = os.path.realpath(path)
        if not self.inside(real):
            self.skipped.append((relative, OUTSIDE_LINK))
            return
        if is_dir and real in above:
            return  # a loop: Python would find `pkg.loop.pkg.loop...` without end
        self.links.append((relative, os.path.relpath(real, self.real_root)))
        if is_dir:
            subfolders.append((Path(path), relative, dirty, real, above))
        elif stat.S_ISREG(mode) and language is not None:
            yield SourceFile(Path(path), relative, language)


class Locator:
    """Whether a file a walk of the project would find, asked of one path at a time: the
    ROCm pass looks up the modules a chain reaches without walking the whole tree. As in a
    walk, no link leads out of the root; a link inside it is found by its own path, as a
    walk lists it. `remember`: keep what each
    `.gitignore` says of the paths asked between runs (cache.ignores)."""

    def __init__(self, root: Path, exclude: tuple[PathGlob, ...], remember: bool = False) -> None:
        from import_policy.cache.ignores import verdicts

        self.root = root
        self.real_root = os.path.realpath(root)
        self.exclude = exclude
        self.ignores = _GitIgnores(root, verdicts(root) if remember else None)
        self._folders: dict[str, bool] = {"": True}

    def _kept(self, path: Path) -> bool:
        """`path` is no link, or a link to a place inside the root."""
        if not probe.is_symlink(path):
            return True
        real = os.path.realpath(path)
        return real == self.real_root or real.startswith(_child(self.real_root, ""))

    def _folder_walked(self, relative: str) -> bool:
        known = self._folders.get(relative)
        if known is None:
            parent, _, name = relative.rpartition("/")
            known = (
                self._folder_walked(parent)
                and name not in SKIPPED_FOLDERS
                and any_match(self.exclude, relative) is None
                and not self.ignores.for_folder(self.root / parent).ignored(relative, True)
                and self._kept(self.root / relative)
            )
            self._folders[relative] = known
        return known

    def walked(self, relative: str) -> bool:
        """`relative` is a file under the root that `discover([root], ...)` would list."""
        if not probe.is_file(os.path.join(self.root, relative)):
            return False  # most lookups, asked first: no pathlib object for a name of any length
        path = self.root / relative
        parent = relative.rpartition("/")[0]
        return (
            self._folder_walked(parent)
            and any_match(self.exclude, relative) is None
            and not self.ignores.for_folder(path.parent).ignored(relative, False)
            and self._kept(path)
        )


class _Rules:
    """One `.gitignore`'s rules, compiled only when a verdict is asked that `known` does not hold."""

    def __init__(self, text: bytes, known: Verdicts | None) -> None:
        self.text = text
        self.known = known
        self.digest = rules_digest(text) if known is not None else ""

    def include(self, path: str) -> bool | None:
        """`path` as the rules see it (relative to their folder, `/` after a folder)."""
        if self.known is not None:
            found, said = self.known.get(self.digest, path)
            if found:
                return said
        said = _compiled(self.text).check_file(path).include
        if self.known is not None:
            self.known.put(self.digest, path, said)
        return said


class _Spec:
    def __init__(self, layers: list[tuple[str, _Rules]], tracked: Tracked) -> None:
        self.layers = layers
        self.tracked = tracked
        self.matched = False  # whether a rule ignored a path here (then the listing depends on the index)

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """`relative`: to the project root, like each layer's folder."""
        # Deeper .gitignore files are consulted last, so their negations win, as in git.
        verdict = False
        for base, rules in self.layers:
            if base in (".", ""):
                if relative.startswith("../"):
                    continue  # outside the root: its .gitignore does not apply
                inner = relative
            elif relative.startswith(base + "/"):
                inner = relative[len(base) + 1 :]
            else:
                continue
            include = rules.include(inner + ("/" if is_dir else ""))
            if include is not None:
                verdict = include
        self.matched = self.matched or verdict
        if verdict and not relative.startswith("../"):
            # As in git, ignore rules apply to untracked files only; an ignored folder is
            # still walked for the tracked files it holds.
            return not (self.tracked.holds(relative) if is_dir else self.tracked.file(relative))
        return verdict


@functools.lru_cache(maxsize=256)
def _compiled(text: bytes) -> pathspec.GitIgnoreSpec:
    """A `.gitignore`'s rules, compiled once per process whatever walk or lookup reads it:
    compiling a few hundred patterns costs more than the rest of a batch's lookups."""
    import pathspec  # only a folder with a .gitignore to match pays for it

    return pathspec.GitIgnoreSpec.from_lines(text.decode("utf-8", "replace").splitlines())


class _GitIgnores:
    """`.gitignore` files from the project root down to each walked folder. `known`: the
    verdicts kept between runs (cache.ignores), for lookups of single paths."""

    def __init__(self, root: Path, known: Verdicts | None = None) -> None:
        self.root = root
        self.known = known
        self.cache: dict[Path, list[tuple[str, _Rules]]] = {}
        self.tracked = Tracked(root)

    def _own(self, folder: Path) -> list[tuple[str, _Rules]]:
        try:  # a linked .gitignore is not read, as git does not read one
            text = read_regular(folder / ".gitignore")
        except OSError:
            return []
        return [(relative_to_root(folder, self.root), _Rules(text, self.known))]

    def layers(self, folder: Path) -> list[tuple[str, _Rules]]:
        if folder in self.cache:
            return self.cache[folder]
        if folder == self.root or self.root not in folder.parents:
            result = self._own(folder)
        else:
            result = self.layers(folder.parent) + self._own(folder)
        self.cache[folder] = result
        return result

    def for_folder(self, folder: Path) -> _Spec:
        return _Spec(self.layers(folder), self.tracked)


def whole_tree(paths: Sequence[Path], root: Path) -> bool:
    """A run covers the whole tree when one of its paths is the project root itself."""
    resolved = root.resolve()
    return any(path.is_dir() and path.resolve() == resolved for path in paths)
