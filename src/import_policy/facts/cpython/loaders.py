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
from dataclasses import dataclass
from typing import Optional

from import_policy.facts.records.model import LoaderFact

# The tokens a file must spell for a loader to be looked for: the parse is skipped otherwise.
LOADER_TOKENS = (b"__getattr__", b"_LazyModule")
# Stands for a name outside every table while the `__getattr__` body is run.
ANY = "\0"
_SAFE_CALLS = {"set": set, "list": list, "tuple": tuple, "frozenset": frozenset, "sorted": sorted, "dict": dict}
_MUTATORS = frozenset({"update", "setdefault", "append", "extend", "add"})
_STRING_METHODS = frozenset({"split", "rsplit", "partition", "rpartition", "strip", "lstrip", "rstrip", "replace"})
# Statements a body runs at most this many of per name (a guard against pathological bodies).
_BUDGET = 2000


class _Unknown(Exception):
    """A value the evaluator does not know."""


@dataclass(frozen=True)
class _Path:
    """A path relative to the module's folder, as `__file__` and what is made of it."""

    parts: tuple[str, ...]
    is_file: bool


@dataclass(frozen=True)
class _Files:
    """What `define_import_structure(folder, prefix=...)` computes from the folder's files."""

    folder: str
    prefix: str


@dataclass
class _Module:
    """What evaluating a module's top level knows."""

    name: str
    package: str
    env: dict[str, object]
    getattr_def: Optional[ast.FunctionDef | ast.AsyncFunctionDef] = None
    loader: Optional[LoaderFact] = None


def loader_of(tree: ast.Module, module: str | None, is_package: bool) -> LoaderFact | None:
    """The lazy loader the module installs at import time, if any."""
    if module is None:
        return None
    package = module if is_package else module.rpartition(".")[0]
    state = _Module(module, package, {"__name__": module, "__package__": package, "__file__": _Path(("__init__.py" if is_package else module.rpartition(".")[2] + ".py",), True)})
    _walk(state, tree.body)
    if state.loader is not None:
        return state.loader
    if state.getattr_def is not None:
        return _from_getattr(state, state.getattr_def)
    return None


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
            state.env.pop(node.name, None)
        elif isinstance(node, ast.ClassDef):
            state.env.pop(node.name, None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            _assign(state, node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            _mutate(state.env, node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = alias.asname or alias.name.partition(".")[0]
                state.env.pop(bound, None)


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
        if "__getattr__" in names and isinstance(value, ast.Call):
            state.loader = _from_attach(state, value, node.lineno)
            state.getattr_def = None
        elif "__getattr__" in names:
            state.loader = LoaderFact("getattr", node.lineno, cut=f"`__getattr__ = {_text(value)}` (line {node.lineno})")
            state.getattr_def = None
        if _is_sys_modules_self(target) and isinstance(value, ast.Call) and _tail(value.func) == "_LazyModule":
            state.loader = _from_lazy_module(state, value, node.lineno)
            state.getattr_def = None
    try:
        result = _eval(value, state.env)
    except _Unknown:
        result = _Unknown
    for target in targets:
        _bind(state.env, target, result)


def _bind(env: dict[str, object], target: ast.expr, value: object) -> None:
    if isinstance(target, ast.Name):
        if value is _Unknown:
            env.pop(target.id, None)
        else:
            env[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        items: list[object] | None = None
        if value is not _Unknown and isinstance(value, (tuple, list)) and len(value) == len(target.elts):
            items = list(value)
        for index, element in enumerate(target.elts):
            _bind(env, element, items[index] if items is not None else _Unknown)
    elif isinstance(target, ast.Subscript):
        try:
            owner = _eval(target.value, env)
            key = _eval(target.slice, env)
            if isinstance(owner, dict) and value is not _Unknown:
                owner[key] = value
            elif isinstance(owner, dict):
                owner.pop(key, None)
        except (_Unknown, TypeError):
            pass


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _names(element)]
    return []


def _is_sys_modules_self(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Subscript) and _text(target.value) == "sys.modules"
        and isinstance(target.slice, ast.Name) and target.slice.id == "__name__"
    )


def _mutate(env: dict[str, object], call: ast.Call) -> None:
    """`X.update(...)`, `X[k].setdefault(...)`: run on the evaluated value, or forget `X`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _MUTATORS:
        return
    try:
        owner = _eval(func.value, env)
        args = [_eval(arg, env) for arg in call.args]
        if call.keywords:
            raise _Unknown
        getattr(owner, func.attr)(*args)
    except (_Unknown, TypeError, ValueError, AttributeError, KeyError):
        root = func.value
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name):
            env.pop(root.id, None)


def _tail(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, AttributeError, RecursionError):
        return "..."


# --- evaluating literal data ------------------------------------------------------


def _eval(node: ast.expr, env: dict[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise _Unknown
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_eval(element, env) for element in node.elts if not isinstance(element, ast.Starred)]
        if any(isinstance(element, ast.Starred) for element in node.elts):
            raise _Unknown
        return items if isinstance(node, ast.List) else tuple(items) if isinstance(node, ast.Tuple) else set(_hashable(items))
    if isinstance(node, ast.Dict):
        out: dict[object, object] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                spread = _eval(value, env)
                if not isinstance(spread, dict):
                    raise _Unknown
                out.update(spread)
            else:
                out[_key(_eval(key, env))] = _eval(value, env)
        return out
    if isinstance(node, ast.JoinedStr):
        return "".join(_piece(value, env) for value in node.values)
    if isinstance(node, ast.BinOp):
        return _binop(node, env)
    if isinstance(node, ast.Subscript):
        return _subscript(node, env)
    if isinstance(node, (ast.DictComp, ast.ListComp, ast.SetComp)):
        return _comprehension(node, env)
    if isinstance(node, ast.Attribute):
        owner = _eval(node.value, env)
        if isinstance(owner, _Path) and node.attr == "parent":
            return _parent(owner)
        raise _Unknown
    if isinstance(node, ast.Call):
        return _call(node, env)
    raise _Unknown


def _hashable(items: list[object]) -> list[object]:
    if any(isinstance(item, (list, dict, set)) for item in items):
        raise _Unknown
    return items


def _key(value: object) -> object:
    if isinstance(value, (list, dict, set)):
        raise _Unknown
    return value


def _piece(node: ast.expr, env: dict[str, object]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.FormattedValue) and node.format_spec is None and node.conversion in (-1, 115):
        value = _eval(node.value, env)
        if isinstance(value, str):
            return value
    raise _Unknown


def _binop(node: ast.BinOp, env: dict[str, object]) -> object:
    left, right = _eval(node.left, env), _eval(node.right, env)
    if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(node.op, ast.Div) and isinstance(left, _Path) and isinstance(right, str):
        base = left.parts[:-1] if left.is_file else left.parts
        return _Path((*base, right), False)
    if isinstance(node.op, ast.BitOr) and isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    raise _Unknown


def _parent(path: _Path) -> _Path:
    if not path.parts:
        raise _Unknown  # above the module's folder
    return _Path(path.parts[:-1], False)


def _subscript(node: ast.Subscript, env: dict[str, object]) -> object:
    if isinstance(node.value, ast.Call) and _text(node.value) == "globals()":
        key = _eval(node.slice, env)
        if isinstance(key, str) and key in env:
            return env[key]
        raise _Unknown
    owner = _eval(node.value, env)
    if isinstance(node.slice, ast.Slice):
        raise _Unknown
    key = _eval(node.slice, env)
    try:
        return owner[key]  # type: ignore[index]
    except (KeyError, IndexError, TypeError) as error:
        raise _Unknown from error


def _comprehension(node: ast.DictComp | ast.ListComp | ast.SetComp, env: dict[str, object]) -> object:
    results: list[object] = []
    pairs: list[tuple[object, object]] = []

    def run(index: int, scope: dict[str, object]) -> None:
        if len(results) + len(pairs) > 100_000:
            raise _Unknown
        if index == len(node.generators):
            if isinstance(node, ast.DictComp):
                pairs.append((_key(_eval(node.key, scope)), _eval(node.value, scope)))
            else:
                results.append(_eval(node.elt, scope))
            return
        generator = node.generators[index]
        if generator.is_async:
            raise _Unknown
        iterable = _eval(generator.iter, scope)
        if not isinstance(iterable, (list, tuple, set, frozenset, dict, _Items)):
            raise _Unknown
        for item in list(iterable.pairs if isinstance(iterable, _Items) else iterable):
            inner = dict(scope)
            _bind(inner, generator.target, item)
            if all(_truth(test, inner) for test in generator.ifs):
                run(index + 1, inner)

    run(0, dict(env))
    if isinstance(node, ast.DictComp):
        return dict(pairs)
    return results if isinstance(node, ast.ListComp) else set(_hashable(results))


@dataclass(frozen=True)
class _Items:
    """`d.items()`: its pairs."""

    pairs: tuple[tuple[object, object], ...]


def _call(node: ast.Call, env: dict[str, object]) -> object:
    func = node.func
    if isinstance(func, ast.Name) and func.id in _SAFE_CALLS and not node.keywords and len(node.args) <= 1:
        args = [_eval(arg, env) for arg in node.args]
        try:
            return _SAFE_CALLS[func.id](*args)  # type: ignore[operator]
        except TypeError as error:
            raise _Unknown from error
    if _tail(func) == "Path" and len(node.args) == 1 and not node.keywords:
        path = _eval(node.args[0], env)
        if isinstance(path, _Path):
            return path
        raise _Unknown
    if _text(func) == "os.path.dirname" and len(node.args) == 1:
        path = _eval(node.args[0], env)
        if isinstance(path, _Path):
            return _parent(path)
        raise _Unknown
    if _tail(func) == "define_import_structure":
        return _structure(node, env)
    if isinstance(func, ast.Attribute):
        owner = _eval(func.value, env)
        args = [_eval(arg, env) for arg in node.args]
        if node.keywords:
            raise _Unknown
        if isinstance(owner, dict) and func.attr in ("items", "keys", "values", "get") and len(args) <= 2:
            if func.attr == "items":
                return _Items(tuple(owner.items()))
            if func.attr == "get":
                return owner.get(*args)  # type: ignore[call-arg]
            return list(owner.keys() if func.attr == "keys" else owner.values())
        if isinstance(owner, str) and func.attr in _STRING_METHODS and all(isinstance(a, str) or type(a) is int for a in args):
            try:
                result = getattr(owner, func.attr)(*args)
            except (TypeError, ValueError) as error:
                raise _Unknown from error
            return list(result) if isinstance(result, list) else result
    raise _Unknown


def _structure(node: ast.Call, env: dict[str, object]) -> object:
    """`define_import_structure(path, prefix=...)`: a structure whose table comes from files,
    shaped as transformers' is (backends -> module -> names), so that `.update` works on it."""
    if not node.args:
        raise _Unknown
    path = _eval(node.args[0], env)
    prefix: object = None
    for keyword in node.keywords:
        if keyword.arg == "prefix":
            prefix = _eval(keyword.value, env)
    if len(node.args) > 1:
        prefix = _eval(node.args[1], env)
    if not isinstance(path, _Path) or not (prefix is None or isinstance(prefix, str)):
        raise _Unknown
    folder = "/".join(path.parts[:-1] if path.is_file else path.parts)
    return {frozenset(): {}, _Files(folder, prefix or ""): {}}


def _truth(node: ast.expr, env: dict[str, object]) -> bool:
    value = _decide(node, env)
    if value is None:
        raise _Unknown
    return value


def _decide(node: ast.expr, env: dict[str, object]) -> bool | None:
    """A test's truth where the evaluator knows it, else None."""
    if isinstance(node, ast.BoolOp):
        values = [_decide(value, env) for value in node.values]
        if isinstance(node.op, ast.And):
            return False if False in values else None if None in values else True
        return True if True in values else None if None in values else False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _decide(node.operand, env)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        try:
            left, right = _eval(node.left, env), _eval(node.comparators[0], env)
        except _Unknown:
            return None
        op = node.ops[0]
        try:
            if isinstance(op, (ast.In, ast.NotIn)):
                if isinstance(right, _Items) or not isinstance(right, (dict, list, tuple, set, frozenset, str)):
                    return None
                found = left in right  # type: ignore[operator]
                return found if isinstance(op, ast.In) else not found
            if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(left, (str, int)) and isinstance(right, (str, int)):
                return (left == right) == isinstance(op, ast.Eq)
        except TypeError:
            return None
        return None
    try:
        value = _eval(node, env)
    except _Unknown:
        return None
    return bool(value) if isinstance(value, (str, int, list, tuple, dict, set)) else None


# --- the loaders ------------------------------------------------------------------


def _from_attach(state: _Module, call: ast.Call, line: int) -> LoaderFact:
    """`__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=..., submod_attrs=...)`
    (or a vendored `_attach`); `attach_stub(__name__, __file__)`."""
    tail = _tail(call.func)
    named = bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "__name__"
    if tail == "attach_stub" and named:
        return LoaderFact("stub", line)
    if tail not in ("attach", "_attach") or not named:
        return LoaderFact("getattr", line, cut=f"`__getattr__` from `{_text(call.func)}(...)` (line {line})")
    arguments: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args[1:3]):
        arguments[("submodules", "submod_attrs")[index]] = arg
    arguments.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    try:
        submodules = _eval(arguments["submodules"], state.env) if "submodules" in arguments else []
        attrs = _eval(arguments["submod_attrs"], state.env) if "submod_attrs" in arguments else {}
        if submodules is None:
            submodules = []
        if attrs is None:
            attrs = {}
        if not isinstance(submodules, (list, tuple, set)) or not isinstance(attrs, dict):
            raise _Unknown
        table = [(str(name), f"{state.name}.{name}") for name in submodules]
        table.extend(
            (str(attr), f"{state.name}.{module}") for module, names in attrs.items() for attr in _strings(names)
        )
    except _Unknown:
        return LoaderFact("attach", line, cut=f"`{_text(call)}` (line {line}): its tables are not literal")
    return LoaderFact("attach", line, _unique(table))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(v, str) for v in value):
        return sorted(value) if isinstance(value, (set, frozenset)) else list(value)  # type: ignore[arg-type]
    raise _Unknown


def _unique(table: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The first module given for each name (as a dict built in that order keeps the last:
    callers give entries in the order their lookups win)."""
    return tuple(dict(reversed(table)).items())[::-1] if table else ()


def _from_lazy_module(state: _Module, call: ast.Call, line: int) -> LoaderFact:
    """`sys.modules[__name__] = _LazyModule(__name__, file, structure, ..., extra_objects=...)`."""
    structure_node = call.args[2] if len(call.args) > 2 else next(
        (k.value for k in call.keywords if k.arg == "import_structure"), None
    )
    bound: list[str] = []
    for keyword in call.keywords:
        if keyword.arg == "extra_objects":
            try:
                extra = _eval(keyword.value, state.env)
                bound = sorted(str(k) for k in extra) if isinstance(extra, dict) else []
            except _Unknown:
                pass
    try:
        if structure_node is None:
            raise _Unknown
        structure = _eval(structure_node, state.env)
        if not isinstance(structure, dict):
            raise _Unknown
        table, files = _structure_table(state.name, structure)
    except (_Unknown, TypeError):
        where = _text(structure_node) if structure_node is not None else "..."
        return LoaderFact("lazymodule", line, cut=f"`_LazyModule(..., {where}, ...)` (line {line})", replaces=True, bound=tuple(bound))
    return LoaderFact("lazymodule", line, table, files, replaces=True, bound=tuple(bound))


def _structure_table(
    module: str, structure: dict[object, object]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """As `_LazyModule.__init__` reads its structure: with frozenset keys (backends), each value
    maps module -> names; else the structure itself does. A module's parents are modules too."""
    files: list[tuple[str, str]] = []
    parts: list[dict[object, object]] = []
    if any(isinstance(key, (frozenset, _Files)) for key in structure):
        for key, value in structure.items():
            if isinstance(key, _Files):
                files.append((key.folder, key.prefix))
            elif isinstance(value, dict):
                parts.append(value)
            else:
                raise _Unknown
    else:
        parts.append(structure)
    modules: list[tuple[str, str]] = []
    names: list[tuple[str, str]] = []
    for part in parts:
        for key, values in part.items():
            if not isinstance(key, str):
                raise _Unknown
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
    for name in [*candidates, ANY]:
        run = _Run(state, {**state.env, param: name})
        run.block(node.body)
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
        yield from (item for item in value if isinstance(item, str))


def _strings_in(value: object) -> Iterator[str]:
    if isinstance(value, (list, tuple, set, frozenset)):
        yield from (item for item in value if isinstance(item, str))


class _Run:
    """One run of a `__getattr__` body with the name known: what it imports, and the imports
    it reaches whose module the evaluator cannot tell (cuts)."""

    def __init__(self, state: _Module, env: dict[str, object]) -> None:
        self.state = state
        self.env = env
        self.imported: list[str] = []
        self.cuts: list[str] = []
        self.budget = _BUDGET
        self.import_names: set[str] = {"import_module"}

    def block(self, body: list[ast.stmt]) -> bool:
        """Runs the statements; False once one surely leaves the function."""
        for node in body:
            self.budget -= 1
            if self.budget < 0:
                return False
            if not self.statement(node):
                return False
        return True

    def statement(self, node: ast.stmt) -> bool:
        self.calls(node)
        if isinstance(node, (ast.Return, ast.Raise)):
            return False
        if isinstance(node, ast.If):
            verdict = _decide(node.test, self.env)
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
                value = _eval(node.value, self.env) if node.value is not None else _Unknown
            except _Unknown:
                value = _Unknown
            for target in targets:
                _bind(self.env, target, value)
        return True

    def calls(self, node: ast.stmt) -> None:
        """The import calls a statement makes (not those of nested blocks: they run with them)."""
        for inner in _own_nodes(node):
            if isinstance(inner, ast.Call) and self.imports(inner):
                self.call(inner)

    def imports(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in self.import_names or func.id == "__import__"
        return isinstance(func, ast.Attribute) and func.attr == "import_module"

    def call(self, call: ast.Call) -> None:
        try:
            if not call.args:
                raise _Unknown
            name = _eval(call.args[0], self.env)
            package_node = call.args[1] if len(call.args) > 1 else next(
                (k.value for k in call.keywords if k.arg == "package"), None
            )
            package = _eval(package_node, self.env) if package_node is not None else None
            if not isinstance(name, str) or not (package is None or isinstance(package, str)):
                raise _Unknown
            self.imported.append(_resolved(name, package))
        except _Unknown:
            self.cuts.append(f"`{_text(call)}` (line {call.lineno})")


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
        raise _Unknown
    level = len(name) - len(name.lstrip("."))
    base = package.split(".")
    if level - 1 >= len(base):
        raise _Unknown
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


# --- what transformers' define_import_structure reads of a file --------------------


def wants_exports(text: str) -> bool:
    """Whether the text can export anything as `exports_of` reads it (cheap tests first)."""
    return ("__all__" in text and (text.startswith("__all__") or "\n__all__" in text or "\r__all__" in text)) or (
        "@requires" in text
    )


def exports_of(text: str) -> tuple[str, ...]:
    """The names a file exports as transformers' `create_import_structure_from_path` reads them:
    the `__all__` its `fetch__all__` finds in the text, and each class or function under a
    top-level `@requires` decorator."""
    found: dict[str, None] = {}
    if "@requires" in text:
        previous = ""
        for line in text.split("\n"):
            if line.startswith((" ", "\t", "@", ")")) and not line.startswith("@requires"):
                continue
            if "@requires" in previous and line.startswith(("class", "def")):
                start = 6 if line.startswith("class") else 4
                found.setdefault(line[start:].split("(")[0].strip(":"))
            previous = line
    if "__all__" in text:
        for name in _fetch_all(text):
            found.setdefault(name)
    return tuple(name for name in found if name)


def _fetch_all(text: str) -> list[str]:
    """transformers' `fetch__all__`: the last line starting with `__all__`, then its list."""
    lines = text.splitlines()
    start = None
    for index, line in enumerate(lines):
        if line.startswith("__all__"):
            start = index
    if start is None:
        return []
    lines = lines[start:]
    if lines[0].endswith("]"):
        return [name.strip("\"' ") for name in lines[0].split("=")[1].strip(" []").split(",")]
    found: list[str] = []
    for line in lines[1:]:
        if line.strip() == "]":
            return found
        found.append(line.strip("\"', "))
    return found


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
