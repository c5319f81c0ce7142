"""`FileFacts` <-> plain JSON values, for the cache (JSON, never pickle: a cache file is data).

Records are written as short lists in field order; `from_json` rebuilds the
frozen dataclasses and raises `ValueError` on anything malformed, so a bad
cache entry is detected rather than half-trusted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from import_policy.facts.records.model import (
    AssignFact,
    AttributeFact,
    BoolOp,
    Branch,
    CallFact,
    ClassFact,
    Compare,
    Context,
    DecoratorFact,
    FileFacts,
    FunctionFact,
    Argument,
    Signature,
    ImportFact,
    Installed,
    IsMain,
    LoaderFact,
    Leaf,
    Not,
    Opaque,
    ReadFact,
    ReturnFact,
    ScanFact,
    Span,
    Suppressions,
    SyntaxErrorFact,
    Test,
    UseFact,
    Value,
)

Json = Any  # what json.loads returns; checked field by field below


def _span(span: Span) -> Json:
    return [span.line, span.column, span.end_line, span.end_column]


def _test(test: Test) -> Json:
    if isinstance(test, Leaf):
        if test.argument is None and not test.passes and not test.first and not test.alone:
            return ["L", test.tail, test.qualified, test.call, test.attribute]
        return [
            "L", test.tail, test.qualified, test.call, test.attribute, test.argument, test.passes, test.first, test.alone,
        ]
    if isinstance(test, Installed):
        return ["I", test.name, test.distribution, test.parameter]
    if isinstance(test, Compare):
        return ["C", _test(test.subject), list(test.values)]
    if isinstance(test, BoolOp):
        return ["B", test.op, [_test(t) for t in test.operands]]
    if isinstance(test, Not):
        return ["N", _test(test.operand)]
    if isinstance(test, IsMain):
        return ["M"]
    return ["O"]


def _context(context: Context) -> Json:
    branches = [[_test(b.test), b.orelse, b.early, b.line, b.text] for b in context.branches]
    return [context.import_time, context.type_checking, branches, context.function, context.tried]


def _import(f: ImportFact, ctx: Callable[[Context], int]) -> Json:
    return [f.kind, f.name, f.module, f.member, f.bound, _span(f.span), _span(f.module_span), f.statement,
            f.statement_line, ctx(f.context), f.level, f.lazy, f.probe, list(f.fallback_for), f.caught]


def to_json(facts: FileFacts) -> Json:
    # Most facts of a file share a handful of contexts: each is written once, facts name it
    # by its index (reading a big module's graph facts back was mostly re-reading contexts).
    contexts: dict[Context, int] = {}

    def ctx(context: Context) -> int:
        return contexts.setdefault(context, len(contexts))

    out: dict[str, Json] = {
        "path": facts.path,
        "module": facts.module,
        "is_package": facts.is_package,
        "imports": [_import(f, ctx) for f in facts.imports],
        "escapes": [_import(f, ctx) for f in facts.escapes],
        "uses": [
            [list(u.qualified_names), u.root, _span(u.span), u.statement_line, ctx(u.context)] for u in facts.uses
        ],
        "calls": [
            [c.callee, c.tail, c.first_string, _span(c.span), c.statement_line, ctx(c.context)]
            + ([[[a.slot, a.value, a.parameter] for a in c.arguments]] if c.arguments else [])
            for c in facts.calls
        ],
        "decorators": [
            [list(d.qualified_names), _span(d.span), d.statement_line, ctx(d.context)] for d in facts.decorators
        ],
        "functions": [
            [f.name, f.line, ctx(f.context), list(f.globals)]
            + ([_signature(f.signature) if f.signature else None] if f.signature or f.unset else [])
            + ([list(f.unset)] if f.unset else [])
            for f in facts.functions
        ],
        "classes": [[c.name, list(c.bases), c.line, ctx(c.context)] for c in facts.classes],
        "assigns": [[a.name, _test(a.value), a.line, ctx(a.context), a.removed] for a in facts.assigns],
        "returns": [[r.function, _test(r.value), r.line, ctx(r.context), r.first] for r in facts.returns],
        "scans": [[s.package, s.line, ctx(s.context)] for s in facts.scans],
        "reads": [[r.name, _span(r.span), r.statement_line, ctx(r.context)] for r in facts.reads],
        "attributes": [[a.qualified, a.line, ctx(a.context), a.annotation, a.computed] for a in facts.attributes],
        "suppressions": [facts.suppressions.file, [[line, sorted(rules)] for line, rules in facts.suppressions.lines]],
        "syntax_error": (
            None if facts.syntax_error is None
            else [facts.syntax_error.message, facts.syntax_error.line, facts.syntax_error.column]
        ),
    }
    loader = facts.loader
    out["loader"] = None if loader is None else [
        loader.kind, loader.line, [list(entry) for entry in loader.table], [list(f) for f in loader.files],
        loader.cut, loader.replaces, list(loader.bound), list(loader.star), loader.star_cut,
    ]
    out["exports"] = list(facts.exports)
    out["contexts"] = [_context(context) for context in contexts]
    return out


# --- reading back: every value checked, since the file may be anything ------------


# JSON gives exactly these types (`type(...) is` is the same test as `isinstance`, never
# true of a bool for int, and cheaper: a batch after an edit reads a thousand records).


def _str(value: Json) -> str:
    if type(value) is not str:
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _opt_str(value: Json) -> str | None:
    return None if value is None else _str(value)


def _int(value: Json) -> int:
    if type(value) is not int:
        raise ValueError(f"expected an integer, got {type(value).__name__}")
    return value


def _bool(value: Json) -> bool:
    if value is not True and value is not False:
        raise ValueError(f"expected a boolean, got {type(value).__name__}")
    return value


def _list(value: Json, length: int | None = None) -> list[Json]:
    if type(value) is not list or (length is not None and len(value) != length):
        raise ValueError("expected a list" + (f" of {length}" if length is not None else ""))
    return value


def _span_of(value: Json) -> Span:
    # The commonest record of all (tens of thousands when a batch reads a graph's records
    # again): checked in one test, as `_int` would check each part (`type` is never bool).
    if type(value) is list and len(value) == 4:
        line, column, end_line, end_column = value
        if type(line) is int and type(column) is int and type(end_line) is int and type(end_column) is int:
            return Span(line, column, end_line, end_column)
    raise ValueError(f"not a span: {value!r}")


def _test_of(value: Json) -> Test:
    items = _list(value)
    tag = items[0] if items else None
    if tag == "L" and len(items) == 5:
        return Leaf(_str(items[1]), _str(items[2]), _bool(items[3]), _bool(items[4]))
    if tag == "L" and len(items) == 9:
        return Leaf(
            _str(items[1]), _str(items[2]), _bool(items[3]), _bool(items[4]), _opt_str(items[5]), _bool(items[6]),
            _bool(items[7]), _bool(items[8]),
        )
    if tag == "I" and len(items) == 4:
        return Installed(_str(items[1]), _bool(items[2]), _bool(items[3]))
    if tag == "C" and len(items) == 3:
        subject = _test_of(items[1])
        if not isinstance(subject, Leaf):
            raise ValueError(f"not a compared name: {items[1]!r}")
        return Compare(subject, tuple(_value(v) for v in _list(items[2])))
    if tag == "B" and len(items) == 3 and items[1] in ("and", "or"):
        return BoolOp("and" if items[1] == "and" else "or", tuple(_test_of(t) for t in _list(items[2])))
    if tag == "N" and len(items) == 2:
        return Not(_test_of(items[1]))
    if tag == "O" and len(items) == 1:
        return Opaque()
    if tag == "M" and len(items) == 1:
        return IsMain()
    raise ValueError(f"not a test: {value!r}")


def _value(value: Json) -> Value:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ValueError(f"not a literal: {value!r}")


def _context_of(value: Json) -> Context:
    import_time, type_checking, branches, function, tried = _list(value, 5)
    return Context(
        _bool(import_time),
        _bool(type_checking),
        tuple(
            Branch(_test_of(t), _bool(orelse), _bool(early), _int(line), _str(text))
            for t, orelse, early, line, text in (_list(b, 5) for b in _list(branches))
        ),
        _opt_str(function),
        _bool(tried),
    )


def _import_of(value: Json, ctx: Callable[[Json], Context]) -> ImportFact:
    kind, name, module, member, bound, span, module_span, statement, line, context, level, lazy, probe, fallback_for, caught = (
        _list(value, 15)
    )
    if kind not in ("import", "from", "dynamic"):
        raise ValueError(f"not an import kind: {kind!r}")
    if lazy not in ("", "keyword", "modules"):
        raise ValueError(f"not a lazy kind: {lazy!r}")
    return ImportFact(
        kind, _str(name), _str(module), _opt_str(member), _opt_str(bound), _span_of(span), _span_of(module_span),
        _int(statement), _int(line), ctx(context), _int(level), lazy, _bool(probe),
        tuple(_str(n) for n in _list(fallback_for)), _bool(caught),
    )


def _pair(value: Json) -> tuple[str, str]:
    first, second = _list(value, 2)
    return _str(first), _str(second)


def _loader_of(value: Json) -> LoaderFact | None:
    if value is None:
        return None
    kind, line, table, files, cut, replaces, bound, star, star_cut = _list(value, 9)
    if kind not in ("getattr", "attach", "stub", "lazymodule"):
        raise ValueError(f"not a loader kind: {kind!r}")
    return LoaderFact(
        kind, _int(line), tuple(_pair(entry) for entry in _list(table)), tuple(_pair(f) for f in _list(files)),
        _str(cut), _bool(replaces), tuple(_str(name) for name in _list(bound)),
        tuple(_str(name) for name in _list(star)), _str(star_cut),
    )


def _call(value: list[Json], ctx: Callable[[Json], Context]) -> CallFact:
    """A call: six parts, and a seventh (the arguments a literal name passes through) when it has any."""
    if len(value) not in (6, 7):
        raise ValueError("expected a list of 6 or 7")
    callee, tail, first, span, line, ctx_index = value[:6]
    arguments = tuple(_argument(_list(a, 3)) for a in _list(value[6])) if len(value) == 7 else ()
    return CallFact(_str(callee), _str(tail), _opt_str(first), _span_of(span), _int(line), ctx(ctx_index), arguments)


def _argument(value: list[Json]) -> Argument:
    slot, text, parameter = value
    return Argument(slot if type(slot) is str else _int(slot), _str(text), _bool(parameter))


def _signature(signature: Signature) -> Json:
    return [list(signature.positional), signature.positional_only, list(signature.keyword_only), signature.method]


def _signature_of(value: Json) -> Signature:
    positional, positional_only, keyword_only, method = _list(value, 4)
    if method not in ("", "static", "class"):
        raise ValueError(f"not a method kind: {method!r}")
    return Signature(
        tuple(_opt_str(name) for name in _list(positional)), _int(positional_only),
        tuple(_opt_str(name) for name in _list(keyword_only)), method,
    )


def _function(value: list[Json], ctx: Callable[[Json], Context]) -> FunctionFact:
    """A function: four parts, a fifth (its signature, or null) when it passes a parameter on or
    has `unset` parameters, and a sixth (those) when it has some."""
    if len(value) not in (4, 5, 6):
        raise ValueError("expected a list of 4 to 6")
    name, line, ctx_index, names = value[:4]
    signature = _signature_of(value[4]) if len(value) >= 5 and value[4] is not None else None
    unset = tuple(_str(u) for u in _list(value[5])) if len(value) == 6 else ()
    return FunctionFact(
        _str(name), _int(line), ctx(ctx_index), tuple(_str(g) for g in _list(names)), signature, unset,
    )


def from_json(value: Json) -> FileFacts:
    if not isinstance(value, dict):
        raise ValueError("expected an object")
    suppress_file, suppress_lines = _list(value["suppressions"], 2)
    error = value["syntax_error"]
    table = [_context_of(v) for v in _list(value["contexts"])]

    def ctx(index: Json) -> Context:
        at = _int(index)
        if not 0 <= at < len(table):
            raise ValueError(f"no context {at}")
        return table[at]

    return FileFacts(
        path=_str(value["path"]),
        module=_opt_str(value["module"]),
        is_package=_bool(value["is_package"]),
        imports=tuple(_import_of(v, ctx) for v in _list(value["imports"])),
        escapes=tuple(_import_of(v, ctx) for v in _list(value["escapes"])),
        uses=tuple(
            UseFact(tuple(_str(q) for q in _list(names)), _str(root), _span_of(span), _int(line), ctx(ctx_index))
            for names, root, span, line, ctx_index in (_list(v, 5) for v in _list(value["uses"]))
        ),
        calls=tuple(
            _call(_list(call), ctx) for call in _list(value["calls"])
        ),
        decorators=tuple(
            DecoratorFact(tuple(_str(q) for q in _list(names)), _span_of(span), _int(line), ctx(ctx_index))
            for names, span, line, ctx_index in (_list(v, 4) for v in _list(value["decorators"]))
        ),
        functions=tuple(_function(_list(v), ctx) for v in _list(value["functions"])),
        classes=tuple(
            ClassFact(_str(name), tuple(_str(b) for b in _list(bases)), _int(line), ctx(ctx_index))
            for name, bases, line, ctx_index in (_list(v, 4) for v in _list(value["classes"]))
        ),
        assigns=tuple(
            AssignFact(_str(name), _test_of(test), _int(line), ctx(ctx_index), _bool(removed))
            for name, test, line, ctx_index, removed in (_list(v, 5) for v in _list(value["assigns"]))
        ),
        returns=tuple(
            ReturnFact(_str(name), _test_of(test), _int(line), ctx(ctx_index), _bool(first))
            for name, test, line, ctx_index, first in (_list(v, 5) for v in _list(value["returns"]))
        ),
        scans=tuple(
            ScanFact(_opt_str(package), _int(line), ctx(ctx_index))
            for package, line, ctx_index in (_list(v, 3) for v in _list(value["scans"]))
        ),
        reads=tuple(
            ReadFact(_str(name), _span_of(span), _int(line), ctx(ctx_index))
            for name, span, line, ctx_index in (_list(v, 4) for v in _list(value["reads"]))
        ),
        attributes=tuple(
            AttributeFact(_str(name), _int(line), ctx(ctx_index), _bool(annotation), _bool(computed))
            for name, line, ctx_index, annotation, computed in (_list(v, 5) for v in _list(value["attributes"]))
        ),
        suppressions=Suppressions(
            _bool(suppress_file),
            tuple(
                (_int(line), frozenset(_str(r) for r in _list(rules)))
                for line, rules in (_list(v, 2) for v in _list(suppress_lines))
            ),
        ),
        syntax_error=(
            None if error is None
            else SyntaxErrorFact(_str(_list(error, 3)[0]), _int(error[1]), _int(error[2]))
        ),
        loader=_loader_of(value["loader"]),
        exports=tuple(_str(name) for name in _list(value["exports"])),
    )
