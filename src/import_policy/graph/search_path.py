"""An environment's `sys.path` and its modules, found as Python's path finder finds them,
from the folder layout alone (nothing is run or imported).

The path is each `site-packages` folder in order (`lib`, then `lib64`), each followed by the
folders its `.pth` files add (path lines, relative to the folder; `import` lines run code and
add nothing here), as `site.addsitedir` builds it. Editable installs whose `.pth` runs a
finder are read from the finder's module: setuptools' `__editable___*_finder.py` (`MAPPING`
of top-level name -> folder or file) and the `editables` redirector's `map_module(name, path)`
calls; such a finder sits after the path finder on `sys.meta_path`, so a name the path finds
(a namespace portion included) is never asked of it.

Each folder is listed once per run (the index): every lookup is answered from the listings,
never by probing a candidate file. Within a folder, a package (a folder holding `__init__`)
comes first, then a module file (an extension module before a `.py`), and a folder without
`__init__` is a namespace portion only when no folder of the path holds a package or module
of that name: the portions of all folders, across distributions, make one namespace package.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from import_policy.cache.racy import now_ns, trusted
from import_policy.cache.stat import Stat, stat_of

# `name.cpython-311-x86_64-linux-gnu.so`, `name.abi3.so`, `name.so`, `name.pyd`
_EXTENSION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_-]+)*\.(?:so|pyd)$")
_FINDER = re.compile(r"^__editable___.*_finder\.py$")


@dataclass(frozen=True)
class Spec:
    """What a module name is on the path: its kind, its file (a package's `__init__.py`, a
    module's `.py`; None for a namespace package or an extension) and, for a package, the
    folders its submodules are searched in (its `__path__`)."""

    name: str
    kind: str  # "package", "module", "extension" or "namespace"
    file: str | None
    locations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Listing:
    """One folder's entries: folder names and file names, and what the path finder reads of
    them, indexed once: each module name's file (an extension module before a `.py`, then a
    sourceless `.pyc`) and the `__init__` that makes the folder a regular package."""

    folders: frozenset[str]
    files: frozenset[str]
    modules: dict[str, str] = field(default_factory=dict, compare=False)
    init: str | None = None


def _listing(folders: set[str], files: set[str]) -> Listing:
    modules: dict[str, str] = {}
    for name in sorted(files):  # an extension module first, whatever its suffix, then source, then bytecode
        match = _EXTENSION.match(name)
        if match is not None:
            modules.setdefault(match.group(1), name)
    for suffix in (".py", ".pyc"):
        for name in files:
            if name.endswith(suffix) and name[: -len(suffix)].isidentifier():
                modules.setdefault(name[: -len(suffix)], name)
    init = modules.get("__init__")
    modules.pop("__init__", None)
    return Listing(frozenset(folders), frozenset(files), modules, init)


_EMPTY = Listing(frozenset(), frozenset())


class SearchPath:
    """An environment's `sys.path` (`folders`, in order) and its editable finders' mappings;
    `archives`: the files its `.pth` files add (zip archives, whose modules are not looked up)."""

    def __init__(self, site_packages: Iterable[str]) -> None:
        self._listings: dict[str, Listing] = {}
        self._stats: dict[str, Stat | None] = {}  # each listed folder's stat data when listed
        self._found: dict[str, Spec | None] = {}  # each module looked up: the listings answer it once
        self.since = now_ns()  # before any folder is listed: the racy-clean rule's moment
        self.sites = tuple(site_packages)
        folders: list[str] = []
        self.pth: dict[str, str] = {}  # a folder a `.pth` file added -> that file
        self.editable: dict[str, tuple[str, str]] = {}  # top-level name -> (folder or file, finder file)
        archives: list[str] = []  # files a `.pth` adds (zip archives: `.egg`s), which zipimport reads
        for site in self.sites:
            _add(folders, site)
            listing = self.listing(site)
            for name in sorted(listing.files):
                if name.endswith(".pth"):
                    for folder in _pth_folders(os.path.join(site, name)):
                        if self._is_folder(folder):
                            if _add(folders, folder):
                                self.pth[folder] = os.path.join(site, name)
                        elif self._is_file(folder) and folder not in archives:
                            archives.append(folder)
                elif _FINDER.match(name) or (name.startswith("_") and name.endswith(".py") and "editable" in name):
                    for top, target in _editable_mapping(os.path.join(site, name)):
                        self.editable.setdefault(top, (target, os.path.join(site, name)))
        self.folders = tuple(folders)
        self.archives = tuple(archives)

    # --- the index -------------------------------------------------------------------

    def listing(self, folder: str) -> Listing:
        """The folder's entries, listed once (a folder that cannot be listed is empty)."""
        found = self._listings.get(folder)
        if found is None:
            self._stats[folder] = stat_of(folder)
            dirs: set[str] = set()
            files: set[str] = set()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            (dirs if entry.is_dir() else files).add(entry.name)
                        except OSError:
                            continue
            except OSError:
                pass
            found = _listing(dirs, files) if dirs or files else _EMPTY
            self._listings[folder] = found
        return found

    def fresh(self) -> bool:
        """Whether every folder listed is as it was (no entry added, removed or renamed in it):
        absent still, or stat data that stands for its listing (cache.racy)."""
        since = self.since
        for folder, stat in list(self._stats.items()):
            now = stat_of(folder)
            if not (now is None and stat is None or stat is not None and trusted(now, stat, since)):
                return False
        return True

    def listed(self) -> Iterator[str]:
        """Every folder listed so far (what the answers given so far depend on)."""
        return iter(sorted(self._listings))

    def _is_folder(self, path: str) -> bool:
        parent, name = os.path.split(path.rstrip(os.sep))
        return name in self.listing(parent).folders

    def _is_file(self, path: str) -> bool:
        parent, name = os.path.split(path)
        return name in self.listing(parent).files

    # --- lookups -----------------------------------------------------------------------

    def find(self, module: str) -> Spec | None:
        """The module as Python's path finder (then an editable finder) finds it; None: not there."""
        if module in self._found:
            return self._found[module]
        found = self._find(module)
        self._found[module] = found
        return found

    def _find(self, module: str) -> Spec | None:
        parts = module.split(".")
        if not all(part.isidentifier() for part in parts):
            return None
        spec = self._search(parts[0], self.folders)
        if spec is None and parts[0] in self.editable:
            spec = self._mapped(parts[0], self.editable[parts[0]][0])
        for part in parts[1:]:
            if spec is None or not spec.locations:
                return None
            spec = self._search(f"{spec.name}.{part}", spec.locations)
        return spec

    def _search(self, name: str, folders: Iterable[str]) -> Spec | None:
        last = name.rpartition(".")[2]
        portions: list[str] = []
        for folder in folders:
            listing = self.listing(folder)
            if last in listing.folders:
                inner = os.path.join(folder, last)
                init = self.listing(inner).init
                if init is not None:
                    return Spec(name, "package", os.path.join(inner, init) if init.endswith(".py") else None, (inner,))
            module = listing.modules.get(last)
            if module is not None:
                kind = "module" if module.endswith(".py") else "extension"
                return Spec(name, kind, os.path.join(folder, module) if kind == "module" else None)
            if last in listing.folders:
                portions.append(os.path.join(folder, last))
        return Spec(name, "namespace", None, tuple(portions)) if portions else None

    def _mapped(self, name: str, target: str) -> Spec | None:
        """A top-level name an editable finder maps to a folder or a file."""
        if target.endswith(".py"):
            parent, base = os.path.split(target)
            return Spec(name, "module", target) if base in self.listing(parent).files else None
        if not self._is_folder(target):
            return None
        init = self.listing(target).init
        if init is None:
            return Spec(name, "namespace", None, (target,))
        return Spec(name, "package", os.path.join(target, init) if init.endswith(".py") else None, (target,))

    def submodules(self, spec: Spec) -> Iterator[Spec]:
        """A package's submodules (as `pkgutil.iter_modules` lists them), each once, in name order."""
        names: set[str] = set()
        for folder in spec.locations:
            listing = self.listing(folder)
            names.update(f for f in listing.folders if f.isidentifier())
            names.update(listing.modules)
        for name in sorted(names):
            found = self._search(f"{spec.name}.{name}", spec.locations)
            if found is not None:
                yield found

    def top_level(self) -> Iterator[str]:
        """Every top-level name the path holds a package, module or portion of, and the editable ones."""
        names: set[str] = set(self.editable)
        for folder in self.folders:
            listing = self.listing(folder)
            names.update(f for f in listing.folders if f.isidentifier())
            names.update(listing.modules)
        return iter(sorted(names))

    def roots_of(self, path: str) -> Iterator[tuple[str, str]]:
        """(folder, module prefix) pairs a file may be under: path folders with no prefix, and
        each editable target's parent with its name."""
        for folder in self.folders:
            yield folder, ""
        for top, (target, _) in self.editable.items():
            yield (os.path.dirname(target), "") if target.endswith(".py") else (target, top)


def _add(folders: list[str], folder: str) -> bool:
    folder = os.path.normpath(folder)
    if folder in folders:
        return False
    folders.append(folder)
    return True


def _pth_folders(path: str) -> Iterator[str]:
    """The folders a `.pth` file adds: its path lines (not comments, not `import` lines),
    relative to its folder."""
    text = file_text(path)
    base = os.path.dirname(path)
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
            continue
        yield os.path.normpath(os.path.join(base, line))


def _editable_mapping(path: str) -> Iterator[tuple[str, str]]:
    """Top-level name -> folder or file, from an editable finder's module: setuptools'
    `MAPPING = {...}` display, or the redirector's `map_module("name", "path")` calls."""
    try:
        tree = ast.parse(file_text(path))
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "MAPPING" for t in targets) and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values):
                    if _literal(key) is not None and _literal(value) is not None:
                        yield str(_literal(key)), os.path.normpath(str(_literal(value)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "map_module":
            if len(node.args) == 2 and _literal(node.args[0]) is not None and _literal(node.args[1]) is not None:
                target = str(_literal(node.args[1]))
                if os.path.basename(target) == "__init__.py":
                    target = os.path.dirname(target)
                yield str(_literal(node.args[0])), os.path.normpath(target)


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def file_text(path: str) -> str:
    """A file of the environment as text (undecodable bytes replaced); "" where it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


__all__ = ["Listing", "SearchPath", "Spec", "file_text"]
