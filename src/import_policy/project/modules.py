"""Module <-> file, written once: a file's module name under the roots, and the module map
of a whole project (looked up one module at a time, or walked when asked for everything)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from import_policy.discovery.files import Locator, discover
from import_policy.facts.records.model import FileFacts
from import_policy.patterns import PathGlob


class Layout(Protocol):
    """Where a project's modules are: its root, the roots modules are named under, what is
    left out (a policy is one)."""

    @property
    def root(self) -> Path: ...

    @property
    def roots(self) -> tuple[str, ...]: ...

    @property
    def exclude(self) -> tuple[PathGlob, ...]: ...


# A root that is a package kept in a folder of another name (setuptools' `package-dir`,
# `packages: {kt_kernel: python}`) is spelled `FOLDER=PACKAGE` among the roots.
PACKAGE_ROOT = "="


def split_root(root: str) -> tuple[str, str]:
    """(the root's folder prefix, '' or 'src/'; the package its folder is, '' for a plain root)."""
    folder, _, package = root.partition(PACKAGE_ROOT)
    return ("" if folder in (".", "") else folder.rstrip("/") + "/"), package


def root_folder(root: str) -> str:
    """The folder of a root (`python` for `python=kt_kernel`)."""
    return root.partition(PACKAGE_ROOT)[0]


def module_name(relative: str, roots: tuple[str, ...]) -> tuple[str | None, bool]:
    """`src/pkg/mod.py` with roots ('.', 'src') -> ('pkg.mod', False); the deepest root wins.
    Under a package root (`python=kt_kernel`), `python/ops.py` is `kt_kernel.ops`."""
    if not relative.endswith((".py", ".pyi")) or relative.startswith("../"):
        return None, False
    best: tuple[str, str] | None = None
    for root in roots:
        prefix, package = split_root(root)
        if relative.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, package)
    if best is None:
        return None, False
    inner = relative[len(best[0]):].rsplit(".", 1)[0]
    parts = inner.split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    if best[1]:
        parts = [*best[1].split("."), *parts]
    if not parts or not all(p.isidentifier() for p in parts):
        return None, is_package
    return ".".join(parts), is_package


def _stem(path: str) -> tuple[str, bool]:
    """`pkg/a/__init__.py` -> ('pkg/a', True); `pkg/a.py` -> ('pkg/a', False)."""
    if path == "__init__.py" or path.endswith("/__init__.py"):
        return path[: -len("__init__.py")].rstrip("/"), True
    return path.rsplit(".", 1)[0], False


def rank(path: str, roots: tuple[str, ...]) -> tuple[int, int]:
    """Where Python's path finder meets a module's file: the roots in order (the first that
    holds the module wins, as on `sys.path`), and in one folder the package
    (`a/__init__.py`) before the module (`a.py`). Lower comes first."""
    best = -1
    length = -1
    for index, root in enumerate(roots):  # the root the file's module name was taken under
        prefix = split_root(root)[0]
        if path.startswith(prefix) and len(prefix) > length:
            best, length = index, len(prefix)
    return (best if best >= 0 else len(roots), 0 if _stem(path)[1] else 1)


def prefer(first: str | None, other: str | None, roots: tuple[str, ...] = (".",)) -> str | None:
    """Which of two files of one module Python imports (`rank`); the first on a tie."""
    if first is None or other is None:
        return first if other is None else other
    return other if rank(other, roots) < rank(first, roots) else first


def modules_of(files: Iterable[FileFacts], roots: tuple[str, ...] = (".",)) -> dict[str, str]:
    """Module -> path of these files, the one Python imports winning whatever their order
    (`rank`); stubs never run."""
    found: dict[str, str] = {}
    for facts in files:
        if facts.module is not None and not facts.path.endswith(".pyi"):
            winner = prefer(found.get(facts.module), facts.path, roots)
            assert winner is not None
            found[facts.module] = winner
    return found


class ProjectModules(Mapping[str, str]):
    """Module -> file, for every module of the project, found one lookup at a time.

    The same answer as walking the whole tree (`discover`) and keeping, per module, the
    file Python imports (`rank`), the files passed among the candidates; a pre-commit run of
    a few files looks up only the modules its chains and calls reach instead of walking
    thousands.
    """

    def __init__(self, policy: Layout, known: Mapping[str, FileFacts], remember: bool = False) -> None:
        """`remember`: a run that may use the caches keeps `.gitignore` verdicts between runs."""
        self.policy = policy
        self.known = modules_of(known.values(), policy.roots)
        self.locator = Locator(policy.root, policy.exclude, remember)
        self.remember = remember
        self.found: dict[str, str | None] = {}
        self._asked_git: set[str] = set()
        self._all: dict[str, str] | None = None

    def __getitem__(self, module: str) -> str:
        """The file Python imports for `module`, whatever files the run passed: a passed file
        is one candidate among the tree's (a package, or a root before its own, shadows it)."""
        path = self.known.get(module)
        if path is None or rank(path, self.policy.roots) != (0, 0):  # nothing comes before it
            path = prefer(path, self._find(module), self.policy.roots)
        if path is None:
            raise KeyError(module)
        return path

    def asked_git(self, module: str) -> bool:
        """Whether the module's lookup depended on which files git tracks (a `.gitignore`
        rule matched a path on its way): its answer changes with git's index alone."""
        return module in self._asked_git

    def _find(self, module: str) -> str | None:
        if module not in self.found:
            asked = self.locator.ignores.tracked.asked
            candidates = []
            for root in self.policy.roots:
                prefix, package = split_root(root)
                if package and module != package and not module.startswith(package + "."):
                    continue
                inner = module[len(package):].lstrip(".").replace(".", "/") if package else module.replace(".", "/")
                spelled = (f"{prefix}{inner}.py", f"{prefix}{inner}/__init__.py") if inner else (f"{prefix}__init__.py",)
                for relative in spelled:
                    if self.locator.walked(relative) and module_name(relative, self.policy.roots)[0] == module:
                        candidates.append(relative)
            best: str | None = None
            for candidate in candidates:
                best = prefer(best, candidate, self.policy.roots)
            self.found[module] = best
            if self.locator.ignores.tracked.asked != asked:
                self._asked_git.add(module)
        return self.found[module]

    def _everything(self) -> dict[str, str]:
        if self._all is None:
            policy = self.policy
            found = dict(self.known)
            # With the caches, the walk's own (cache.walk): an unchanged folder is listed again
            # without matching its files against `.gitignore` rules.
            walked = discover([policy.root], policy.root, policy.exclude, frozenset({"python"}), remember=self.remember)
            for file in walked:
                module = module_name(file.relative, policy.roots)[0]
                if module is not None and not file.relative.endswith(".pyi"):
                    winner = prefer(found.get(module), file.relative, policy.roots)
                    assert winner is not None
                    found[module] = winner
            self._all = found
        return self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())
