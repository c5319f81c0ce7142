"""What a module's lazy loader imports when a name it does not bind is asked of it (contract
section 4, "Lazy loaders"): `from pkg import name`, or a read of `pkg.name`, at import time.

The loader itself is read from the module's facts (`facts.cpython.loaders`); what is
computed here is what needs other files: a `_LazyModule` structure given by transformers'
`define_import_structure` (the exports of the package's files), and `attach_stub`'s `.pyi`.
Where the pass cannot tell what the loader imports for a name, the answer is a cut, with
where it stands, never an empty answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from import_policy.facts.records.model import FileFacts, LoaderFact

# The file names transformers' `create_import_structure_from_path` leaves out.
_SKIPPED_PREFIXES = ("convert_", "modular_")


@dataclass(frozen=True)
class Loaded:
    """What asking a module's loader for a name makes run: the modules it imports, and a cut
    (where the pass could not tell; "" when there is none), with the loader's place."""

    modules: tuple[str, ...]
    cut: str
    where: str  # `pkg/__init__.py:65`, the loader's line


class Loaders:
    """The loaders of a project's modules, with what each needs of other files memoised.

    `file_of(module)`: the module's file; `facts(path)`: its facts (None: unreadable);
    `binds(path, name, line)`: whether the module surely binds `name` before `line`;
    `modules()`: every module (iterated once, for a `define_import_structure` folder);
    `stub(path)`: the facts of a `.pyi` stub, for `attach_stub`; `exports(path)`: what a file
    exports as transformers reads it (its text, not its parse)."""

    def __init__(
        self,
        file_of: Callable[[str], str | None],
        facts: Callable[[str], FileFacts | None],
        binds: Callable[[str, str, int], bool],
        modules: Callable[[], Mapping[str, str]],
        stub: Callable[[str], FileFacts | None],
        exports: Callable[[str], tuple[str, ...]],
    ) -> None:
        self._file_of = file_of
        self._facts = facts
        self._binds = binds
        self._modules = modules
        self._stub = stub
        self._exports = exports
        self._tables: dict[str, dict[str, tuple[str, ...]]] = {}
        self._from_files: dict[str, dict[str, tuple[str, ...]]] = {}

    def loader(self, module: str) -> tuple[str, LoaderFact] | None:
        path = self._file_of(module)
        facts = self._facts(path) if path is not None else None
        if path is None or facts is None or facts.loader is None:
            return None
        return path, facts.loader

    def maps(self, module: str, name: str) -> bool:
        """Whether the module's loader names `name` in its literal table (a submodule it imports
        by name, as torch's `_lazy_modules` and lazy_loader's `submodules=` do)."""
        found = self.loader(module)
        return found is not None and name in self._table(module, found[0], found[1])

    def star(self, module: str) -> tuple[tuple[str, ...], str, str] | None:
        """What `from module import *` asks of its loader: the names of its `__all__` (every
        name of its table where `__all__` is what `lazy_loader.attach` returns), an `__all__`
        the pass could not read (a cut, as written; "" for none), and the loader's place."""
        found = self.loader(module)
        if found is None or not (found[1].star or found[1].star_cut):
            return None
        own, loader = found
        names = loader.star
        if "*" in names:
            names = tuple(name for name in self._table(module, own, loader) if name != "*")
        return names, loader.star_cut, f"{own}:{loader.line}"

    def asked(self, module: str, name: str, path: str, line: int, at: int) -> Loaded | None:
        """What `from module import name` (at `path:line`; `at`: the line when `path` is the
        module's own file, else after its end) makes the loader import; None when the loader
        does not run (none, or the module binds the name)."""
        found = self.loader(module)
        if found is None:
            return None
        own, loader = found
        if own == path and loader.line >= line:
            return None  # installed after this import runs
        if name in loader.bound or (not loader.replaces and self._binds(own, name, at)):
            return None
        where = f"{own}:{loader.line}"
        modules = self._named(module, own, loader, name)
        cut = ""
        if modules is None:
            modules = ()
            cut = loader.cut or f"`{name}` is in no table the pass could read"
            if not loader.cut and loader.kind != "getattr":
                return Loaded((), "", where)  # an attribute error, as Python raises it
        elif "" in modules:
            modules = tuple(m for m in modules if m)
            cut = f"the import `{module}.__getattr__` makes for `{name}`"
        if not modules and not cut:
            return None
        return Loaded(modules, cut, where)

    def _named(self, module: str, path: str, loader: LoaderFact, name: str) -> tuple[str, ...] | None:
        """The modules the loader imports for `name`: its table's entries, else what the files
        or the stub give, else any-name entries; None: a name it cannot answer (a cut when the
        loader has one)."""
        table = self._table(module, path, loader)
        found = table.get(name)
        if found is None and loader.files:  # the files are read only for a name the literal part lacks
            found = self._files(module, loader).get(name)
        if found is not None:
            return found
        every = table.get("*")
        if every is not None:
            return tuple(entry.replace("{}", name) for entry in every)
        if loader.kind == "getattr" and not loader.cut:
            return ()  # the body imports nothing for this name (it raises AttributeError)
        return None

    def _table(self, module: str, path: str, loader: LoaderFact) -> dict[str, tuple[str, ...]]:
        if module in self._tables:
            return self._tables[module]
        table: dict[str, tuple[str, ...]] = {}
        for name, target in loader.table:
            table[name] = (*table.get(name, ()), target)
        if loader.kind == "stub":
            for name, target in self._stub_table(module, path):
                table.setdefault(name, (target,))
        self._tables[module] = table
        return table

    def _files(self, module: str, loader: LoaderFact) -> dict[str, tuple[str, ...]]:
        """The part of the table `define_import_structure` computes from the package's files."""
        if module in self._from_files:
            return self._from_files[module]
        table: dict[str, tuple[str, ...]] = {}
        for folder, prefix in loader.files:
            for name, target in self._files_table(module, folder, prefix):
                table.setdefault(name, (target,))
        self._from_files[module] = table
        return table

    def _stub_table(self, module: str, path: str) -> list[tuple[str, str]]:
        """`attach_stub`: the `.pyi` beside the file, read as lazy_loader reads it: `from . import
        sub` names submodules, `from .sub import a, b` names attributes of `sub`."""
        stub = self._stub(path[: -len(".py")] + ".pyi") if path.endswith(".py") else None
        found: list[tuple[str, str]] = []
        for fact in stub.imports if stub is not None else ():
            if fact.kind != "from" or fact.level != 1 or fact.member in (None, "*") or fact.bound is None:
                continue
            if fact.module == module:  # `from . import sub`
                found.append((fact.member or "", f"{module}.{fact.member}"))
            else:
                found.append((fact.member or "", fact.module))
        return found

    def _files_table(self, module: str, folder: str, prefix: str) -> list[tuple[str, str]]:
        """`define_import_structure(folder, prefix)`: each module below the folder (not its
        `__init__`, not `convert_*` / `modular_*`) exports its `__all__` and `@requires`
        objects; the module is also reachable by its own dotted name."""
        base = module if not folder else f"{module}.{folder.replace('/', '.')}"
        found: list[tuple[str, str]] = []
        names: list[tuple[str, str]] = []
        for inner, path in sorted(self._modules().items()):
            if not inner.startswith(base + ".") or path.endswith("__init__.py"):
                continue
            leaf = inner.rpartition(".")[2]
            if leaf.startswith(_SKIPPED_PREFIXES) or not path.endswith(".py"):
                continue
            relative = inner[len(base) + 1:]
            key = f"{prefix}.{relative}" if prefix else relative
            pieces = key.split(".")
            names.extend((".".join(pieces[:i]), f"{module}.{'.'.join(pieces[:i])}") for i in range(1, len(pieces) + 1))
            found.extend((export, f"{module}.{key}") for export in self._exports(path))
        return found + names


__all__ = ["Loaded", "Loaders"]
