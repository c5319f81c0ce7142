"""Which imports the uses of imported names resolve to, from CPython's `ast` and `symtable`.

libcst's scope analysis (facts.from_cst) costs tens of seconds a megabyte; this gives the
same qualified names from the tree CPython already parsed. `symtable` says, for every
function, class, lambda and comprehension, whether a name is local there, declared
`global` or `nonlocal`, or free: exactly CPython's scoping, class bodies and comprehensions
included. Within the scope a name resolves to, the bindings are read the way libcst reads
them, so both resolvers give the same facts (tests/facts/test_extractors_agree.py holds them equal):

- a bare name (`tc`) sees the bindings of its scope made before it, or, if there are none
  yet but later ones, what the enclosing scope binds;
- a chain (`tc.synchronize`) takes the longest prefix its scope binds (`import a.b` binds
  `a.b` and `a`) and every binding of that prefix, wherever it stands;
- an import binding qualifies the chain through its statement's names as libcst's
  `ImportAssignment` does (relative modules keep their dots).

Where libcst's own scoping is not CPython's (a name local to a function shadowing a
dotted import of the module, a class body before its own binding of a name, an inner class
seeing the outer class's names, match captures and keyword patterns taken for uses, `del`
making a name local, a walrus in a comprehension), this module follows CPython; the tests
pin each case. A scope `symtable` has no block for (a newer Python's layout) hands the
file back to libcst.
"""

from __future__ import annotations

import ast
import symtable
from collections.abc import Iterable
from dataclasses import dataclass, field

# The node types that open a scope, and the name `symtable` gives their block.
_BLOCK_NAMES: dict[type, str] = {
    ast.Lambda: "lambda",
    ast.ListComp: "listcomp",
    ast.SetComp: "setcomp",
    ast.DictComp: "dictcomp",
    ast.GeneratorExp: "genexpr",
}


class NoTable(Exception):
    """A scope `symtable` has no block for (its layout differs from the tree's): libcst decides."""


# An import statement as qualification reads it: its module ("" for `import`, leading dots
# kept) and its (name, asname) pairs. Equal statements share one, and their results.
_Shape = tuple[str, tuple[tuple[str, "str | None"], ...]]


@dataclass
class _Binding:
    order: int
    # The import statement that made it; None for any other binding (assignment, def, parameter, ...).
    statement: _Shape | None


@dataclass
class _Scope:
    table: symtable.SymbolTable
    parent: _Scope | None
    is_class: bool
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    # The symtable children not yet matched to a node, by (block name, line).
    pending: dict[tuple[str, int], list[symtable.SymbolTable]] | None = None
    _distinct: dict[str, list[_Binding]] | None = None

    def child_table(self, name: str, line: int) -> symtable.SymbolTable:
        if self.pending is None:
            self.pending = {}
            for child in self.table.get_children():
                self.pending.setdefault((child.get_name(), child.get_lineno()), []).append(child)
        found = self.pending.get((name, line))
        if not found:
            raise NoTable(f"{name} at line {line}")
        return found.pop(0)

    def distinct(self) -> dict[str, list[_Binding]]:
        """The bindings under each name, each statement at its first binding only: a module
        imported in every block of a file is bound hundreds of times by equal statements. The
        first binding of all stays, so whether any comes before a use is unchanged."""
        if self._distinct is None:
            self._distinct = {}
            for name, bindings in self.bindings.items():
                firsts: dict[int, _Binding] = {}
                for binding in bindings:
                    firsts.setdefault(id(binding.statement), binding)
                self._distinct[name] = sorted(firsts.values(), key=lambda b: b.order)
        return self._distinct

    def symbol(self, name: str) -> symtable.Symbol | None:
        try:
            return self.table.lookup(name)
        except KeyError:  # a name only an annotation spells, which `from __future__ import annotations` skips
            return None

    def binds_locally(self, name: str) -> bool:
        """Whether `name` used here is this scope's own (CPython's rules: `symtable`'s verdict)."""
        if self.parent is None:
            return True
        symbol = self.symbol(name)
        return symbol is not None and symbol.is_local()

    def owner(self, name: str) -> _Scope:
        """The scope whose binding `name` means here: this one, an enclosing function, or the module."""
        if self.parent is None:
            return self
        symbol = self.symbol(name)
        if symbol is not None and symbol.is_global():  # declared `global`, or bound in no function around
            return self.module()
        if symbol is not None and symbol.is_local():
            return self
        return self.enclosing(name)

    def enclosing(self, name: str) -> _Scope:
        """Where `name` resolves from the scopes around this one; class bodies are skipped."""
        scope = self.parent
        while scope is not None and scope.parent is not None:
            if not scope.is_class:
                symbol = scope.symbol(name)
                if symbol is not None and symbol.is_global():
                    break
                if symbol is not None and symbol.is_local():
                    return scope
            scope = scope.parent
        return self.module()

    def module(self) -> _Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


@dataclass(frozen=True)
class _Use:
    node: ast.Name | ast.Attribute
    dotted: str
    root: str
    scope: _Scope
    order: int


class _Walker:
    """One pass over the tree: every binding in the scope it lands in, every chain rooted at a name."""

    def __init__(self, table: symtable.SymbolTable, roots: set[str]) -> None:
        self.module = _Scope(table, None, is_class=False)
        self.roots = roots
        self.order = 0
        self.uses: list[_Use] = []
        self.shapes: dict[_Shape, _Shape] = {}

    # --- bindings -------------------------------------------------------------------

    def bind(self, scope: _Scope, name: str, statement: ast.Import | ast.ImportFrom | None = None,
             key: str | None = None) -> None:
        target = scope.owner(name)
        target.bindings.setdefault(key or name, []).append(
            _Binding(self.order, None if statement is None else self.shape(statement))
        )

    def shape(self, statement: ast.Import | ast.ImportFrom) -> _Shape:
        module = ""
        if isinstance(statement, ast.ImportFrom):
            module = "." * (statement.level or 0) + (statement.module or "")
        shape = (module, tuple((alias.name, alias.asname) for alias in statement.names))
        return self.shapes.setdefault(shape, shape)

    def tick(self) -> None:
        self.order += 1

    # --- statements -----------------------------------------------------------------

    def body(self, statements: Iterable[ast.stmt], scope: _Scope) -> None:
        for statement in statements:
            self.statement(statement, scope)
            self.tick()

    def statement(self, node: ast.stmt, scope: _Scope) -> None:
        kind = type(node)
        if kind is ast.Import:
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.asname is not None:
                    self.bind(scope, alias.asname, node)  # type: ignore[arg-type]
                    continue
                root = alias.name.split(".")[0]
                parts = alias.name.split(".")
                for end in range(len(parts), 0, -1):
                    self.bind(scope, root, node, ".".join(parts[:end]))  # type: ignore[arg-type]
        elif kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.name != "*":
                    self.bind(scope, alias.asname or alias.name, node)  # type: ignore[arg-type]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.function(node, scope)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            self.class_(node, scope)  # type: ignore[arg-type]
        elif kind is ast.For or kind is ast.AsyncFor:
            self.expression(node.target, scope)  # type: ignore[attr-defined]
            self.tick()
            self.expression(node.iter, scope)  # type: ignore[attr-defined]
            self.body(node.body, scope)  # type: ignore[attr-defined]
            self.body(node.orelse, scope)  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                self.expression(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.expression(item.optional_vars, scope)
                self.tick()
            self.body(node.body, scope)  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            pass
        else:
            self.generic(node, scope)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        for decorator in node.decorator_list:
            self.expression(decorator, scope)
        self.outside(node.args, scope)
        if node.returns is not None:
            self.expression(node.returns, scope)
        self.bind(scope, node.name)
        inner = _Scope(scope.child_table(node.name, node.lineno), scope, is_class=False)
        self.parameters(node.args, inner)
        self.body(node.body, inner)

    def class_(self, node: ast.ClassDef, scope: _Scope) -> None:
        for expression in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.expression(expression, scope)
        self.bind(scope, node.name)
        inner = _Scope(scope.child_table(node.name, node.lineno), scope, is_class=True)
        self.body(node.body, inner)

    def outside(self, args: ast.arguments, scope: _Scope) -> None:
        """Defaults and annotations: evaluated where the function is defined."""
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.expression(default, scope)
        for arg in _parameters(args):
            if arg.annotation is not None:
                self.expression(arg.annotation, scope)

    def parameters(self, args: ast.arguments, scope: _Scope) -> None:
        for arg in _parameters(args):
            self.bind(scope, arg.arg)
        self.tick()

    # --- expressions ----------------------------------------------------------------

    def expression(self, node: ast.AST, scope: _Scope) -> None:
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                self.bind(scope, node.id)  # type: ignore[attr-defined]
            elif node.id in self.roots:  # type: ignore[attr-defined]
                self.uses.append(_Use(node, node.id, node.id, scope, self.order))  # type: ignore[arg-type, attr-defined]
            return
        if kind is ast.Attribute:
            root = node
            parts: list[str] = []
            while type(root) is ast.Attribute:
                parts.append(root.attr)
                root = root.value
            if type(root) is ast.Name:
                name = root.id
                if name in self.roots:
                    dotted = ".".join([name, *reversed(parts)])
                    self.uses.append(_Use(node, dotted, name, scope, self.order))  # type: ignore[arg-type]
                return
            self.expression(root, scope)
            return
        if kind is ast.Lambda:
            self.outside(node.args, scope)  # type: ignore[attr-defined]
            inner = _Scope(scope.child_table("lambda", node.lineno), scope, is_class=False)  # type: ignore[attr-defined]
            self.parameters(node.args, inner)  # type: ignore[attr-defined]
            self.expression(node.body, inner)  # type: ignore[attr-defined]
            return
        if kind in _BLOCK_NAMES:
            self.comprehension(node, scope)  # type: ignore[arg-type]
            return
        if kind is ast.NamedExpr:
            self.expression(node.target, scope)  # type: ignore[attr-defined]
            self.expression(node.value, scope)  # type: ignore[attr-defined]
            self.tick()
            return
        self.generic(node, scope)

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, scope: _Scope) -> None:
        generators = node.generators
        self.expression(generators[0].iter, scope)  # the first iterable is evaluated outside
        inner = _Scope(scope.child_table(_BLOCK_NAMES[type(node)], node.lineno), scope, is_class=False)
        for index, generator in enumerate(generators):
            if index:
                self.expression(generator.iter, inner)
            self.expression(generator.target, inner)
            self.tick()
            for condition in generator.ifs:
                self.expression(condition, inner)
        if isinstance(node, ast.DictComp):
            self.expression(node.key, inner)
            self.expression(node.value, inner)
        else:
            self.expression(node.elt, inner)

    def generic(self, node: ast.AST, scope: _Scope) -> None:
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    self.body(value, scope)
                    continue
                for item in value:
                    if isinstance(item, ast.AST):
                        self.child(item, scope)
            elif isinstance(value, ast.AST):
                self.child(value, scope)

    def child(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, ast.expr):
            self.expression(node, scope)
        elif isinstance(node, ast.stmt):
            self.statement(node, scope)
        elif isinstance(node, ast.ExceptHandler):
            if node.type is not None:
                self.expression(node.type, scope)
            if node.name is not None:
                self.bind(scope, node.name)
            self.tick()
            self.body(node.body, scope)
        elif isinstance(node, ast.match_case):
            self.generic(node.pattern, scope)
            self.tick()
            if node.guard is not None:
                self.expression(node.guard, scope)
            self.body(node.body, scope)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name is not None:
                self.bind(scope, node.name)
            self.generic(node, scope)
        elif isinstance(node, ast.MatchMapping):
            if node.rest is not None:
                self.bind(scope, node.rest)
            self.generic(node, scope)
        elif not isinstance(node, (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)):
            self.generic(node, scope)  # keywords, slices, patterns, ...


def _parameters(args: ast.arguments) -> list[ast.arg]:
    found = [*args.posonlyargs, *args.args]
    if args.vararg is not None:
        found.append(args.vararg)
    found += args.kwonlyargs
    if args.kwarg is not None:
        found.append(args.kwarg)
    return found


def _qualify(statement: _Shape, full_name: str) -> frozenset[str]:
    """What libcst's `ImportAssignment.get_qualified_names_for` gives: every name of the
    statement whose bound spelling is a dotted prefix of `full_name`, longest first."""
    module, aliases = statement
    found: set[str] = set()
    for name, asname in aliases:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            real = ".".join(parts[:end])
            spelled = asname if asname is not None else real
            if module.endswith("."):
                real = module + real
            elif module:
                real = f"{module}.{real}"
            if not full_name.startswith(spelled):
                continue
            rest = full_name.split(spelled, 1)[1]
            if rest and not rest.startswith("."):
                continue
            rest = rest.lstrip(".")
            found.add(f"{real}.{rest}" if rest else real)
            break
    return frozenset(found)


def _qualified(bindings: Iterable[_Binding], full_name: str) -> set[str]:
    found: set[str] = set()
    for binding in bindings:
        if binding.statement is not None:
            found |= _qualify(binding.statement, full_name)
    return found


def _resolve(use: _Use) -> set[str]:
    scope = use.scope
    owner = scope.owner(use.root)
    if owner.is_class and owner is scope and not any(b.order < use.order for b in owner.bindings.get(use.root, ())):
        # A class body looks a name up when the line runs: before the class binds it, it is the outer one.
        owner = scope.enclosing(use.root)
    bound = owner.distinct()
    if use.dotted in bound:
        # The chain is itself a name a binding spelled (`tc`, or `a.b` after `import a.b`).
        everything = bound[use.dotted]
        if owner is not scope:
            return _qualified(everything, use.dotted)
        before = [b for b in everything if b.order < use.order]
        if before:
            return _qualified(before, use.dotted)
        if scope.parent is None:
            return set()  # a module-level use before the import: a builtin, or nothing
        # Used before its scope binds it: libcst takes what the parent scope binds (a class too).
        outer = scope.parent.owner(use.root)
        return _qualified(outer.distinct().get(use.dotted, ()), use.dotted)
    prefix = use.dotted
    while "." in prefix:
        prefix = prefix.rpartition(".")[0]
        if prefix in bound:
            return _qualified(bound[prefix], use.dotted)
    return set()


def resolve(source: bytes, path: str, tree: ast.Module, roots: set[str]) -> dict[int, tuple[str, ...]] | None:
    """id of each `Name`/`Attribute` chain rooted at one of `roots` -> the imported names it
    resolves to (chains that resolve to none are left out); None when `symtable`'s blocks do
    not line up with the tree (libcst must decide)."""
    if not roots:
        return {}
    try:
        table = symtable.symtable(source, path, "exec")  # type: ignore[arg-type]  # bytes, like compile()
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    walker = _Walker(table, roots)
    try:
        walker.body(tree.body, walker.module)
    except (NoTable, RecursionError):
        return None
    resolved: dict[int, tuple[str, ...]] = {}
    for use in walker.uses:
        names = _resolve(use)
        if names:
            resolved[id(use.node)] = tuple(sorted(names))
    return resolved
