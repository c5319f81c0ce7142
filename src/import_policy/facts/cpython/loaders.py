"""A module's lazy loader, read from its tree: what `from module import name` imports when the
module does not bind `name` (contract section 4, "Lazy loaders").

Python calls a module-level `__getattr__(name)` (PEP 562) for a name the module does not
bind. The conventions real packages use are read here: a `def __getattr__` whose imports
look the name up in module-level literal tables (vLLM's `MODULE_ATTRS` with ".module:Attr"
values, a dict inverted from module -> names), `lazy_loader.attach(__name__, submodules=...,
submod_attrs=...)` (and the copies huggingface_hub and others vendor), `attach_stub` (its
table is in the `.pyi`, which the graph reads), and transformers' `sys.modules[__name__] =
_LazyModule(__name__, file, structure, ...)`. Module-level literal data is evaluated as Python
would (displays, comprehensions, `set()`, `.update()`, `.split()`); the `__getattr__` body is
run once per name the tables hold, its `if name in T` tests decided. What cannot be evaluated
is a cut, kept with the line where it stands, never dropped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Optional

from import_policy.facts.cpython.literals import (
    Files, FilePath, Raises, Unknown, bind, decide, evaluate, mutate, tail_of, text_of,
)
from import_policy.facts.records.model import LoaderFact
from import_policy.facts.source.exports import exports_of, wants_exports

# The tokens a file must spell for a loader to be looked for: the parse is skipped otherwise.
LOADER_TOKENS = (b"__getattr__", b"_LazyModule")
# Stands for a name outside every table while the `__getattr__` body is run.
ANY = "\0"
# Statements a body runs at most this many of per name (a guard against pathological bodies).
_BUDGET = 2000
# Statements all runs of one body take at most (tens of thousands of names; more are cuts).
_TOTAL_BUDGET = 200_000
# Calls of module-level functions followed one within another (`__getattr__` -> `_load` -> ...).
_CALL_DEPTH = 3


@dataclass
class _Module:
    """What evaluating a module's top level knows."""

    name: str
    package: str
    env: dict[str, object]
    getattr_def: Optional[ast.FunctionDef | ast.AsyncFunctionDef] = None
    loader: Optional[LoaderFact] = None
    # Each statement's calls outside its nested blocks, found once for every run of the body.
    calls: dict[int, list[ast.Call]] = field(default_factory=dict)
    # The module-level functions a `__getattr__` may call (`return _load(name)`): run in turn.
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    # The last binding of `__all__`: its line (0: none), and whether it is what `lazy_loader.attach`
    # returns (every name of its table).
    all_line: int = 0
    all_attach: bool = False


def loader_of(tree: ast.Module, module: str | None, is_package: bool) -> LoaderFact | None:
    """The lazy loader the module installs at import time, if any."""
    if module is None:
        return None
    package = module if is_package else module.rpartition(".")[0]
    state = _Module(module, package, {"__name__": module, "__package__": package, "__file__": FilePath(("__init__.py" if is_package else module.rpartition(".")[2] + ".py",), True)})
    _walk(state, tree.body)
    loader = state.loader
    if loader is None and state.getattr_def is not None:
        loader = _from_getattr(state, state.getattr_def)
    return _with_star(state, loader) if loader is not None and not loader.replaces else loader


def _with_star(state: _Module, loader: LoaderFact) -> LoaderFact:
    """The names `from module import *` asks of the module: its `__all__`, where it has one."""
    if not state.all_line:
        return loader
    if state.all_attach:
        return replace(loader, star=("*",))
    names = state.env.get("__all__")
    if isinstance(names, (list, tuple)) and all(isinstance(name, str) for name in names):
        return replace(loader, star=tuple(dict.fromkeys(names)))
    return replace(loader, star_cut=f"`__all__` (line {state.all_line})")


def _walk(state: _Module, body: list[ast.stmt]) -> None:
    for node in body:
        if isinstance(node, ast.If):
            if _type_checking(node.test):
                _walk(state, node.orelse)
            else:
                _walk(state, node.body)
                _walk(state, node.orelse)
        elif isinstance(node, ast.Try):
            _walk(state, node.body)
            for handler in node.handlers:
                _walk(state, handler.body)
            _walk(state, node.orelse)
            _walk(state, node.finalbody)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == "__getattr__":
                state.getattr_def = node
                state.loader = None
            elif isinstance(node, ast.FunctionDef):
                state.functions[node.name] = node
            state.env.pop(node.name, None)
        elif isinstance(node, ast.ClassDef):
            state.env.pop(node.name, None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            _assign(state, node)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            _extend_all(state, node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            mutate(state.env, node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                state.env.pop(bound, None)


def _extend_all(state: _Module, node: ast.AugAssign) -> None:
    """`__all__ += [...]`."""
    state.all_line, state.all_attach = node.lineno, False
    try:
        names, more = state.env.get("__all__"), evaluate(node.value, state.env)
    except Unknown:
        names = more = None
    if isinstance(node.op, ast.Add) and isinstance(names, list) and isinstance(more, (list, tuple)):
        state.env["__all__"] = [*names, *more]
    else:
        state.env.pop("__all__", None)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _assign(state: _Module, node: ast.Assign | ast.AnnAssign) -> None:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    value = node.value
    if value is None:
        return
    for target in targets:
        names = _names(target)
        if "__all__" in names:
            state.all_line = node.lineno
            state.all_attach = "__getattr__" in names and isinstance(value, ast.Call)
        if "__getattr__" in names and isinstance(value, ast.Call):
            state.loader = _from_attach(state, value, node.lineno)
            state.getattr_def = None
        elif "__getattr__" in names:
            state.loader = LoaderFact("getattr", node.lineno, cut=f"`__getattr__ = {text_of(value)}` (line {node.lineno})")
            state.getattr_def = None
        if _is_sys_modules_self(target) and isinstance(value, ast.Call) and tail_of(value.func) == "_LazyModule":
            state.loader = _from_lazy_module(state, value, node.lineno)
            state.getattr_def = None
    try:
        result = evaluate(value, state.env)
    except Unknown:
        result = Unknown
    for target in targets:
        bind(state.env, target, result)


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    return []


def _is_sys_modules_self(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Subscript) and text_of(target.value) == "sys.modules"
        and isinstance(target.slice, ast.Name) and target.slice.id == "__name__"
    )

# --- the loaders ------------------------------------------------------------------


def _from_attach(state: _Module, call: ast.Call, line: int) -> LoaderFact:
    """`__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=..., submod_attrs=...)`
    (or a vendored `_attach`); `attach_stub(__name__, __file__)`."""
    tail = tail_of(call.func)
    named = bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "__name__"
    if tail == "attach_stub" and named:
        return LoaderFact("stub", line)
    if tail not in ("attach", "_attach") or not named:
        return LoaderFact("getattr", line, cut=f"`__getattr__` from `{text_of(call.func)}(...)` (line {line})")
    arguments: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args[1:3]):
        arguments[("submodules", "submod_attrs")[index]] = arg
    arguments.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    try:
        submodules = evaluate(arguments["submodules"], state.env) if "submodules" in arguments else []
        attrs = evaluate(arguments["submod_attrs"], state.env) if "submod_attrs" in arguments else {}
        if submodules is None:
            submodules = []
        if attrs is None:
            attrs = {}
        if not isinstance(submodules, (list, tuple, set)) or not isinstance(attrs, dict):
            raise Unknown
        table = [(str(name), f"{state.name}.{name}") for name in submodules]
        table.extend(
            (str(attr), f"{state.name}.{module}") for module, names in attrs.items() for attr in _strings(names)
        )
    except Unknown:
        return LoaderFact("attach", line, cut=f"`{text_of(call)}` (line {line}): its tables are not literal")
    return LoaderFact("attach", line, _unique(table))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    raise Unknown


def _unique(table: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The first module given for each name (as a dict built in that order keeps the last:
    callers give entries in the order their lookups win)."""
    first: dict[str, str] = {}
    for name, module in table:
        first.setdefault(name, module)
    return tuple(first.items())


def _from_lazy_module(state: _Module, call: ast.Call, line: int) -> LoaderFact:
    """`sys.modules[__name__] = _LazyModule(__name__, file, structure, ..., extra_objects=...)`."""
    structure_node = call.args[2] if len(call.args) > 2 else next(
        (k.value for k in call.keywords if k.arg == "import_structure"), None
    )
    bound: list[str] = []
    for keyword in call.keywords:
        if keyword.arg == "extra_objects":
            try:
                extra = evaluate(keyword.value, state.env)
                bound = sorted(str(k) for k in extra) if isinstance(extra, dict) else []
            except Unknown:
                pass
    try:
        if structure_node is None:
            raise Unknown
        structure = evaluate(structure_node, state.env)
        if not isinstance(structure, dict):
            raise Unknown
        table, files = _structure_table(state.name, structure)
    except (Unknown, TypeError):
        where = text_of(structure_node) if structure_node is not None else "..."
        return LoaderFact("lazymodule", line, cut=f"`_LazyModule(..., {where}, ...)` (line {line})", replaces=True, bound=tuple(bound))
    return LoaderFact("lazymodule", line, table, files, replaces=True, bound=tuple(bound))


def _structure_table(
    module: str, structure: dict[object, object]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """As `_LazyModule.__init__` reads its structure: with frozenset keys (backends), each value
    maps module -> names; else the structure itself does. A module's parents are modules too."""
    files: list[tuple[str, str]] = []
    parts: list[dict[object, object]] = []
    if any(isinstance(key, (frozenset, Files)) for key in structure):
        for key, value in structure.items():
            if isinstance(key, Files):
                files.append((key.folder, key.prefix))
            elif isinstance(value, dict):
                parts.append(value)
            else:
                raise Unknown
    else:
        parts.append(structure)
    modules: list[tuple[str, str]] = []
    names: list[tuple[str, str]] = []
    for part in parts:
        for key, values in part.items():
            if not isinstance(key, str):
                raise Unknown
            pieces = key.split(".")
            modules.extend((".".join(pieces[:i]), f"{module}.{'.'.join(pieces[:i])}") for i in range(1, len(pieces) + 1))
            names.extend((name, f"{module}.{key}") for name in _strings(values))
    # `_LazyModule.__getattr__` looks a name up among the objects first, then the modules.
    return _unique([*names, *modules]), tuple(files)


def _from_getattr(state: _Module, node: ast.FunctionDef | ast.AsyncFunctionDef) -> LoaderFact:
    """A module-level `def __getattr__(name)`: run for each name the tables it reads hold, and
    for any other name; every import it makes is the name's module, or a cut."""
    args = node.args.posonlyargs + node.args.args
    if len(args) != 1:
        return LoaderFact("getattr", node.lineno, cut=f"`def __getattr__` (line {node.lineno}): not `(name)`")
    param = args[0].arg
    candidates = _candidates(node, state.env, param)
    table: list[tuple[str, str]] = []
    cuts: list[str] = []
    budget = _TOTAL_BUDGET
    for name in [ANY, *candidates]:
        if budget <= 0:  # a table too big to run the body for each name: the rest are cuts
            table.append((name, ""))
            continue
        run = _Run(state, {**state.env, param: name})
        run.block(node.body)
        budget -= _BUDGET - run.budget
        modules = [m for m in run.imported if m]
        if name == ANY:
            # What any other name imports (`{}` where the name goes), and where that is cut.
            table.extend(("*", module.replace(ANY, "{}")) for module in modules)
            cuts.extend(run.cuts)
            continue
        table.extend((name, module) for module in modules)
        if run.cuts:
            table.append((name, ""))
    # Every import a name's run reaches runs (both sides of a test the pass cannot decide).
    return LoaderFact("getattr", node.lineno, tuple(dict.fromkeys(table)), cut=cuts[0] if cuts else "")


def _candidates(node: ast.AST, env: dict[str, object], param: str) -> list[str]:
    """Every name the body's tables could answer: the keys and members of the module-level
    tables it reads (and of what its comprehensions build from them), and the strings it
    compares the name with."""
    found: dict[str, None] = {}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id in env and inner.id != param:
            value = env[inner.id]
            for item in _members(value):
                found.setdefault(item)
        elif isinstance(inner, ast.Compare):
            for side in (inner.left, *inner.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, str):
                    found.setdefault(side.value)
    return [name for name in found if name.isidentifier()]


def _members(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str):
                yield key
            yield from (item for item in _strings_in(inner))
    elif isinstance(value, (list, tuple, set, frozenset)):
        yield from _strings_in(value)


def _strings_in(value: object) -> Iterator[str]:
    """The strings a display holds, a set's sorted (its order is the hash seed's: the record
    must not change from one run to the next)."""
    if isinstance(value, (set, frozenset)):
        yield from sorted(item for item in value if isinstance(item, str))
    elif isinstance(value, (list, tuple)):
        yield from (item for item in value if isinstance(item, str))


class _Run:
    """One run of a `__getattr__` body with the name known: what it imports, and the imports
    it reaches whose module the evaluator cannot tell (cuts)."""

    def __init__(self, state: _Module, env: dict[str, object], depth: int = 0) -> None:
        self.state = state
        self.env = env
        self.imported: list[str] = []
        self.cuts: list[str] = []
        self.budget = _BUDGET
        self.import_names: set[str] = {"import_module"}
        self.depth = depth  # calls of module-level functions run within this one

    def block(self, body: list[ast.stmt]) -> bool:
        """Runs the statements; False once one surely leaves the function."""
        for node in body:
            self.budget -= 1
            if self.budget < 0:
                if self.budget == -1:
                    self.cuts.append(f"the body runs longer than the pass follows (line {node.lineno})")
                return False
            if not self.statement(node):
                return False
        return True

    def statement(self, node: ast.stmt) -> bool:
        self.calls(node)
        if isinstance(node, (ast.Return, ast.Raise)):
            return False
        if isinstance(node, ast.If):
            verdict = decide(node.test, self.env)
            if verdict is True:
                return self.block(node.body)
            if verdict is False:
                return self.block(node.orelse)
            left = self.block(node.body)
            right = self.block(node.orelse)
            return left or right
        if isinstance(node, ast.Try):
            self.block(node.body)
            for handler in node.handlers:
                self.block(handler.body)
            self.block(node.orelse)
            return self.block(node.finalbody)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return self.block(node.body)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.block(node.body)
            self.block(node.orelse)
            return True
        if isinstance(node, ast.ImportFrom):
            module = _absolute(self.state.package, node.module, node.level)
            if module is not None:
                if module == "importlib" and any(a.name == "import_module" for a in node.names):
                    self.import_names.add(next(a.asname or a.name for a in node.names if a.name == "import_module"))
                    return True
                member = node.names[0].name if len(node.names) == 1 else None
                # `from . import sub` imports the submodule; `from .mod import X` the module.
                self.imported.append(f"{module}.{member}" if node.level and node.module is None and member else module)
            return True
        if isinstance(node, ast.Import):
            self.imported.extend(alias.name for alias in node.names if alias.name != "importlib")
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                value = evaluate(node.value, self.env) if node.value is not None else Unknown
            except Unknown:
                value = Unknown
            for target in targets:
                if _plain(target):  # `cache[name] = ...` would change a module table for every name
                    bind(self.env, target, value)
        return True

    def calls(self, node: ast.stmt) -> None:
        """The import calls a statement makes (not those of nested blocks: they run with them)."""
        found = self.state.calls.get(id(node))
        if found is None:
            found = self.state.calls[id(node)] = [inner for inner in _own_nodes(node) if isinstance(inner, ast.Call)]
        for inner in found:
            if self.imports(inner):
                self.call(inner)
            elif isinstance(inner.func, ast.Name) and inner.func.id in self.state.functions:
                self.helper(self.state.functions[inner.func.id], inner)

    def helper(self, function: ast.FunctionDef, call: ast.Call) -> None:
        """A module-level function the body calls (`_load(name)`): run with what the call
        passes, its imports and cuts this run's (a call deeper than the pass follows, or one
        whose arguments it cannot bind, is a cut only where that function imports)."""
        env = _arguments(function, call, self.env)
        if env is None or self.depth >= _CALL_DEPTH:
            if any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Call)) for n in ast.walk(function)):
                self.cuts.append(f"`{text_of(call)}` (line {call.lineno})")
            return
        inner = _Run(self.state, {**self.state.env, **env}, self.depth + 1)
        inner.budget = self.budget
        inner.block(function.body)
        self.budget = inner.budget
        self.imported.extend(inner.imported)
        self.cuts.extend(inner.cuts)

    def imports(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in self.import_names or func.id == "__import__"
        return isinstance(func, ast.Attribute) and func.attr == "import_module"

    def call(self, call: ast.Call) -> None:
        try:
            if not call.args:
                raise Unknown
            name = evaluate(call.args[0], self.env)
            package_node = call.args[1] if len(call.args) > 1 else next(
                (k.value for k in call.keywords if k.arg == "package"), None
            )
            package = evaluate(package_node, self.env) if package_node is not None else None
            if not isinstance(name, str) or not (package is None or isinstance(package, str)):
                raise Unknown
            self.imported.append(_resolved(name, package))
        except Raises:
            pass  # Python raises before it imports (`T[name]` for a name not in `T`)
        except Unknown:
            self.cuts.append(f"`{text_of(call)}` (line {call.lineno})")


def _arguments(function: ast.FunctionDef, call: ast.Call, env: dict[str, object]) -> dict[str, object] | None:
    """The function's parameters bound to what the call passes (positional or by keyword,
    defaults evaluated, anything else unknown); None for a call it cannot bind (`*args`)."""
    params = [*function.args.posonlyargs, *function.args.args]
    if function.args.vararg or function.args.kwarg or function.args.kwonlyargs or len(call.args) > len(params):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    given: dict[str, ast.expr] = {p.arg: a for p, a in zip(params, call.args)}
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    defaults = dict(zip([p.arg for p in params][len(params) - len(function.args.defaults):], function.args.defaults))
    bound: dict[str, object] = {}
    for param in params:
        node = given.get(param.arg, defaults.get(param.arg))
        try:
            bound[param.arg] = evaluate(node, env) if node is not None else Unknown
        except (Unknown, Raises):
            bound[param.arg] = Unknown
    return bound


def _plain(target: ast.expr) -> bool:
    """A target of names only (`a`, `a, b`), no item or attribute."""
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(_plain(element) for element in target.elts)


def _own_nodes(node: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement outside its nested statements and functions."""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, (ast.stmt, ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            stack.append(child)


def _resolved(name: str, package: str | None) -> str:
    """`importlib.import_module(name, package)`'s module."""
    if not name.startswith("."):
        return name
    if package is None:
        raise Unknown
    level = len(name) - len(name.lstrip("."))
    base = package.split(".")
    if level - 1 >= len(base):
        raise Unknown
    head = ".".join(base[: len(base) - (level - 1)])
    rest = name[level:]
    return f"{head}.{rest}" if rest else head


def _absolute(package: str, module: str | None, level: int) -> str | None:
    if not level:
        return module
    base = package.split(".")
    if level - 1 >= len(base):
        return None
    head = ".".join(base[: len(base) - (level - 1)])
    return f"{head}.{module}" if module else head


def loader_and_exports(
    tree: ast.Module | None, source: bytes, text: str | None, module: str | None, is_package: bool
) -> tuple[LoaderFact | None, tuple[str, ...]]:
    """What a file's facts record of its lazy loader and its exports; `tree` is CPython's when
    the caller has one (else the source is parsed here, only when it spells a loader)."""
    loader = None
    if any(token in source for token in LOADER_TOKENS):
        if tree is None:
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
        if tree is not None:
            try:
                loader = loader_of(tree, module, is_package)
            except RecursionError:
                loader = LoaderFact("getattr", 1, cut="the module's loader is nested too deeply to read")
    exports: tuple[str, ...] = ()
    if b"__all__" in source or b"@requires" in source:
        if text is None:
            text = source.decode("utf-8", "replace")
        if wants_exports(text):
            exports = exports_of(text)
    return loader, exports
