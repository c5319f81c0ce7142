"""What binds a name again in a function body: one table that both extractors read
(`facts.cpython.from_ast` over `ast`, `facts.cst.from_cst` over libcst), so that they agree on
which parameters are never rebound. A literal passed to such a parameter is followed to the
`find_spec` the body calls on it (contract section 4); a parameter bound again anywhere in the
body (a nested scope included: more than Python rebinds is safe) is never followed.

Each row: what binds; the `ast` classes that hold it and the field (a dotted path through the
node); the libcst classes and field; how the field's value binds:
- "target": an assignment target, binding the names in it (`n`, `a, (b, *c)`), none in `x[n]`
  or `x.n`;
- "identifier": one name (a str in `ast`, a `Name` in libcst);
- "identifiers": several (`global a, b`);
- "import": an alias, which binds its `as` name, else the first part of its name (`import a.b`
  binds `a`);
- "parameters": every parameter of a nested `def` or `lambda`.
"""

from __future__ import annotations

from typing import NamedTuple


class Rebinding(NamedTuple):
    what: str
    ast_classes: tuple[str, ...]
    ast_field: str
    cst_classes: tuple[str, ...]
    cst_field: str
    how: str


REBINDING: tuple[Rebinding, ...] = (
    Rebinding("assignment", ("Assign",), "targets", ("AssignTarget",), "target", "target"),
    Rebinding("annotated assignment", ("AnnAssign",), "target", ("AnnAssign",), "target", "target"),
    Rebinding("augmented assignment", ("AugAssign",), "target", ("AugAssign",), "target", "target"),
    Rebinding("for loop", ("For", "AsyncFor"), "target", ("For",), "target", "target"),
    Rebinding("comprehension", ("comprehension",), "target", ("CompFor",), "target", "target"),
    Rebinding("assignment expression", ("NamedExpr",), "target", ("NamedExpr",), "target", "target"),
    Rebinding("del", ("Delete",), "targets", ("Del",), "target", "target"),
    Rebinding("with ... as", ("withitem",), "optional_vars", ("WithItem",), "asname.name", "target"),
    Rebinding("except ... as", ("ExceptHandler",), "name", ("ExceptHandler", "ExceptStarHandler"), "name.name", "identifier"),
    Rebinding("import", ("alias",), "", ("ImportAlias",), "", "import"),
    Rebinding("global, nonlocal", ("Global", "Nonlocal"), "names", ("Global", "Nonlocal"), "names", "identifiers"),
    Rebinding("def, class", ("FunctionDef", "AsyncFunctionDef", "ClassDef"), "name", ("FunctionDef", "ClassDef"), "name", "identifier"),
    Rebinding("nested def's parameters", ("FunctionDef", "AsyncFunctionDef"), "args", ("FunctionDef",), "params", "parameters"),
    Rebinding("lambda's parameters", ("Lambda",), "args", ("Lambda",), "params", "parameters"),
    Rebinding("case ... as, case *rest", ("MatchAs", "MatchStar"), "name", ("MatchAs", "MatchStar"), "name", "identifier"),
    Rebinding("case {**rest}", ("MatchMapping",), "rest", ("MatchMapping",), "rest", "identifier"),
    Rebinding("type parameter", ("TypeVar", "ParamSpec", "TypeVarTuple"), "name", ("TypeVar", "ParamSpec", "TypeVarTuple"), "name", "identifier"),
)


def by_class(cst: bool) -> dict[str, list[tuple[str, str]]]:
    """Class name -> (field, how) for each row that names it, for one extractor."""
    found: dict[str, list[tuple[str, str]]] = {}
    for row in REBINDING:
        classes, path = (row.cst_classes, row.cst_field) if cst else (row.ast_classes, row.ast_field)
        for name in classes:
            found.setdefault(name, []).append((path, row.how))
    return found


def field(node: object, path: str) -> object:
    """The value at a dotted field path (`asname.name`); the node itself for ""; None past a None."""
    value: object = node
    for part in path.split(".") if path else ():
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


__all__ = ["REBINDING", "Rebinding", "by_class", "field"]
