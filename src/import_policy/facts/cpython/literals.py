"""Literal data as Python evaluates it, for reading lazy loaders' tables (`loaders`): displays,
comprehensions, `set()` and its kin, `.items()`, `.split()`, f-strings, `X.update(...)`, paths
made of `__file__`, and tests of membership and equality. Anything else is `Unknown`: the
caller decides what not knowing means (a cut, a name dropped from the table)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

_SAFE_CALLS = {"set": set, "list": list, "tuple": tuple, "frozenset": frozenset, "sorted": sorted, "dict": dict}
_MUTATORS = frozenset({"update", "setdefault", "append", "extend", "add"})
_STRING_METHODS = frozenset({
    "split", "rsplit", "partition", "rpartition", "strip", "lstrip", "rstrip", "replace", "startswith", "endswith",
    "lower", "upper", "removeprefix", "removesuffix",
})


class Unknown(Exception):
    """A value the evaluator does not know."""


class Raises(Unknown):
    """An evaluation Python would end with an exception (a key a known dict does not hold)."""


@dataclass(frozen=True)
class FilePath:
    """A path relative to the module's folder, as `__file__` and what is made of it."""

    parts: tuple[str, ...]
    is_file: bool


@dataclass(frozen=True)
class Files:
    """What `define_import_structure(folder, prefix=...)` computes from the folder's files."""

    folder: str
    prefix: str



def bind(env: dict[str, object], target: ast.expr, value: object) -> None:
    if isinstance(target, ast.Name):
        if value is Unknown:
            env.pop(target.id, None)
        else:
            env[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        items: list[object] | None = None
        if value is not Unknown and isinstance(value, (tuple, list)) and len(value) == len(target.elts):
            items = list(value)
        for index, element in enumerate(target.elts):
            bind(env, element, items[index] if items is not None else Unknown)
    elif isinstance(target, ast.Subscript):
        try:
            owner = evaluate(target.value, env)
            key = evaluate(target.slice, env)
            if isinstance(owner, dict) and value is not Unknown:
                owner[key] = value
            elif isinstance(owner, dict):
                owner.pop(key, None)
        except (Unknown, TypeError):
            pass

def mutate(env: dict[str, object], call: ast.Call) -> None:
    """`X.update(...)`, `X[k].setdefault(...)`: run on the evaluated value, or forget `X`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _MUTATORS:
        return
    try:
        owner = evaluate(func.value, env)
        args = [evaluate(arg, env) for arg in call.args]
        if call.keywords:
            raise Unknown
        getattr(owner, func.attr)(*args)
    except (Unknown, TypeError, ValueError, AttributeError, KeyError):
        root = func.value
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name):
            env.pop(root.id, None)


def tail_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def text_of(node: ast.AST) -> str:
    """The node as written (unparsed), cut to a message's length."""
    try:
        text = ast.unparse(node)
    except (ValueError, AttributeError, RecursionError):
        return "..."
    return text if len(text) <= 120 else text[:117] + "..."


def evaluate(node: ast.expr, env: dict[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise Unknown
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [evaluate(element, env) for element in node.elts if not isinstance(element, ast.Starred)]
        if any(isinstance(element, ast.Starred) for element in node.elts):
            raise Unknown
        return items if isinstance(node, ast.List) else tuple(items) if isinstance(node, ast.Tuple) else set(_hashable(items))
    if isinstance(node, ast.Dict):
        out: dict[object, object] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                spread = evaluate(value, env)
                if not isinstance(spread, dict):
                    raise Unknown
                out.update(spread)
            else:
                out[_key(evaluate(key, env))] = evaluate(value, env)
        return out
    if isinstance(node, ast.JoinedStr):
        return "".join(_piece(value, env) for value in node.values)
    if isinstance(node, ast.BinOp):
        return _binop(node, env)
    if isinstance(node, ast.Subscript):
        return _subscript(node, env)
    if isinstance(node, (ast.DictComp, ast.ListComp, ast.SetComp)):
        return _comprehension(node, env)
    if isinstance(node, ast.IfExp):  # `"tqdm" if name == "_tqdm" else name`
        return evaluate(node.body if _truth(node.test, env) else node.orelse, env)
    if isinstance(node, ast.NamedExpr):  # `if module := TABLE.get(name):` binds as it tests
        try:
            bound = evaluate(node.value, env)
        except Unknown:
            env.pop(node.target.id, None)
            raise
        env[node.target.id] = bound
        return bound
    if isinstance(node, ast.Attribute):
        owner = evaluate(node.value, env)
        if isinstance(owner, FilePath) and node.attr == "parent":
            return _parent(owner)
        raise Unknown
    if isinstance(node, ast.Call):
        return _call(node, env)
    raise Unknown


def _hashable(items: list[object]) -> list[object]:
    if any(isinstance(item, (list, dict, set)) for item in items):
        raise Unknown
    return items


def _key(value: object) -> object:
    if isinstance(value, (list, dict, set)):
        raise Unknown
    return value


def _piece(node: ast.expr, env: dict[str, object]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.FormattedValue) and node.format_spec is None and node.conversion in (-1, 115):
        value = evaluate(node.value, env)
        if isinstance(value, str):
            return value
    raise Unknown


def _binop(node: ast.BinOp, env: dict[str, object]) -> object:
    left, right = evaluate(node.left, env), evaluate(node.right, env)
    if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(node.op, ast.Div) and isinstance(left, FilePath) and isinstance(right, str):
        base = left.parts[:-1] if left.is_file else left.parts
        return FilePath((*base, right), False)
    if isinstance(node.op, ast.BitOr) and isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    raise Unknown


def _parent(path: FilePath) -> FilePath:
    if not path.parts:
        raise Unknown  # above the module's folder
    return FilePath(path.parts[:-1], False)


def _subscript(node: ast.Subscript, env: dict[str, object]) -> object:
    if isinstance(node.value, ast.Call) and text_of(node.value) == "globals()":
        key = evaluate(node.slice, env)
        if isinstance(key, str) and key in env:
            return env[key]
        raise Unknown
    owner = evaluate(node.value, env)
    if isinstance(node.slice, ast.Slice):
        raise Unknown
    key = evaluate(node.slice, env)
    try:
        return owner[key]  # type: ignore[index]
    except (KeyError, IndexError) as error:
        if isinstance(owner, (dict, list, tuple)):
            raise Raises from error
        raise Unknown from error
    except TypeError as error:
        raise Unknown from error


def _comprehension(node: ast.DictComp | ast.ListComp | ast.SetComp, env: dict[str, object]) -> object:
    results: list[object] = []
    pairs: list[tuple[object, object]] = []

    def run(index: int, scope: dict[str, object]) -> None:
        if len(results) + len(pairs) > 100_000:
            raise Unknown
        if index == len(node.generators):
            if isinstance(node, ast.DictComp):
                pairs.append((_key(evaluate(node.key, scope)), evaluate(node.value, scope)))
            else:
                results.append(evaluate(node.elt, scope))
            return
        generator = node.generators[index]
        if generator.is_async:
            raise Unknown
        iterable = evaluate(generator.iter, scope)
        if not isinstance(iterable, (list, tuple, set, frozenset, dict, Items)):
            raise Unknown
        for item in list(iterable.pairs if isinstance(iterable, Items) else iterable):
            inner = dict(scope)
            bind(inner, generator.target, item)
            if all(_truth(test, inner) for test in generator.ifs):
                run(index + 1, inner)

    run(0, dict(env))
    if isinstance(node, ast.DictComp):
        return dict(pairs)
    return results if isinstance(node, ast.ListComp) else set(_hashable(results))


@dataclass(frozen=True)
class Items:
    """`d.items()`: its pairs."""

    pairs: tuple[tuple[object, object], ...]


def _call(node: ast.Call, env: dict[str, object]) -> object:
    func = node.func
    if isinstance(func, ast.Name) and func.id in _SAFE_CALLS and not node.keywords and len(node.args) <= 1:
        args = [evaluate(arg, env) for arg in node.args]
        try:
            return _SAFE_CALLS[func.id](*args)  # type: ignore[operator]
        except TypeError as error:
            raise Unknown from error
    if tail_of(func) == "Path" and len(node.args) == 1 and not node.keywords:
        path = evaluate(node.args[0], env)
        if isinstance(path, FilePath):
            return path
        raise Unknown
    if text_of(func) == "os.path.dirname" and len(node.args) == 1:
        path = evaluate(node.args[0], env)
        if isinstance(path, FilePath):
            return _parent(path)
        raise Unknown
    if tail_of(func) == "define_import_structure":
        return _structure(node, env)
    if isinstance(func, ast.Attribute):
        owner = evaluate(func.value, env)
        args = [evaluate(arg, env) for arg in node.args]
        if node.keywords:
            raise Unknown
        if isinstance(owner, dict) and func.attr in ("items", "keys", "values", "get") and len(args) <= 2:
            if func.attr == "items":
                return Items(tuple(owner.items()))
            if func.attr == "get":
                return owner.get(*args)
            return list(owner.keys() if func.attr == "keys" else owner.values())
        if isinstance(owner, str) and func.attr in _STRING_METHODS and all(isinstance(a, str) or type(a) is int for a in args):
            try:
                result = getattr(owner, func.attr)(*args)
            except (TypeError, ValueError) as error:
                raise Unknown from error
            return list(result) if isinstance(result, list) else result
    raise Unknown


def _structure(node: ast.Call, env: dict[str, object]) -> object:
    """`define_import_structure(path, prefix=...)`: a structure whose table comes from files,
    shaped as transformers' is (backends -> module -> names), so that `.update` works on it."""
    if not node.args:
        raise Unknown
    path = evaluate(node.args[0], env)
    prefix: object = None
    for keyword in node.keywords:
        if keyword.arg == "prefix":
            prefix = evaluate(keyword.value, env)
    if len(node.args) > 1:
        prefix = evaluate(node.args[1], env)
    if not isinstance(path, FilePath) or not (prefix is None or isinstance(prefix, str)):
        raise Unknown
    folder = "/".join(path.parts[:-1] if path.is_file else path.parts)
    return {frozenset(): {}, Files(folder, prefix or ""): {}}


def _truth(node: ast.expr, env: dict[str, object]) -> bool:
    value = decide(node, env)
    if value is None:
        raise Unknown
    return value


def decide(node: ast.expr, env: dict[str, object]) -> bool | None:
    """A test's truth where the evaluator knows it, else None."""
    if isinstance(node, ast.BoolOp):
        values = [decide(value, env) for value in node.values]
        if isinstance(node.op, ast.And):
            return False if False in values else None if None in values else True
        return True if True in values else None if None in values else False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = decide(node.operand, env)
        return None if inner is None else not inner
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        try:
            left, right = evaluate(node.left, env), evaluate(node.comparators[0], env)
        except Unknown:
            return None
        op = node.ops[0]
        try:
            if isinstance(op, (ast.In, ast.NotIn)):
                if isinstance(right, Items) or not isinstance(right, (dict, list, tuple, set, frozenset, str)):
                    return None
                found = left in right
                return found if isinstance(op, ast.In) else not found
            if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(left, (str, int)) and isinstance(right, (str, int)):
                return (left == right) == isinstance(op, ast.Eq)
        except TypeError:
            return None
        return None
    try:
        value = evaluate(node, env)
    except Unknown:
        return None
    return bool(value) if value is None or isinstance(value, (str, int, list, tuple, dict, set)) else None
