"""One libcst parse and one batched visit of a Python file -> `FileFacts`.

Only the metadata a file needs is resolved: positions always, scope and
qualified names only when some rule judges uses of imported names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Literal

import libcst as cst
from libcst._metadata_dependent import LazyValue
from libcst.helpers import get_absolute_module_from_package_for_import, get_full_name_for_node
from libcst.metadata import (
    ProviderT,
    CodeRange,
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
    PositionProvider,
    QualifiedNameProvider,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

from import_policy.facts.shared import comments
from import_policy.facts.cst.names import Columns, columns, normalized
from import_policy.facts.records.model import (
    AttributeFact,
    BoolOp,
    Branch,
    CallFact,
    ClassFact,
    Context,
    DecoratorFact,
    FileFacts,
    FunctionFact,
    ImportFact,
    Installed,
    IsMain,
    Leaf,
    Not,
    Opaque,
    ReadFact,
    Signature,
    Span,
    SyntaxErrorFact,
    Test,
    UseFact,
    Value,
)
from import_policy.facts.cpython.loaders import loader_and_exports
from import_policy.facts.shared.availability import VERSION_CATCHERS, none_test, spec_test, version_test
from import_policy.facts.cpython.reads import read_names
from import_policy.facts.cst.reads import cst_read_names
from import_policy.facts.cst.parse import parse_module
from import_policy.facts.shared.deep import on_deep_stack, overflowed, retried
from import_policy.facts.shared.tables import Table, looped, module_tables, subscripted
from import_policy.facts.shared.decoded import python_text
from import_policy.facts.source.syntax import newest_read
from import_policy.facts.shared.usegate import UseGate, bound_imports, could_matter
from import_policy.facts.shared.rebinding import by_class, field
from import_policy.facts.shared.walkstate import (
    Given, LazySignature, signature_of,
    DYNAMIC_IMPORTERS, IMPORT_CATCHERS, IMPORTED_NAME, PACKAGE_WALKERS, WalkState, compared, entry_leaf, entry_name,
    all_of, getattr_leaf, installed_after, settled_attributes, written,
)

if TYPE_CHECKING:
    from import_policy.facts.cst.split import Chunk

# A possible use: the chain, its root name, span, statement line, context.
_Chain = tuple["cst.Name | cst.Attribute", cst.Name, Span, int, Context]





def extract(
    source: bytes,
    path: str,
    module: str | None,
    is_package: bool,
    want_uses: bool = False,
    use_gate: UseGate | None = None,
) -> FileFacts:
    """`use_gate`, when given, limits the uses recorded to those it lets through; scope and
    qualified-name analysis (the dearest part) runs only if some use could pass it. A file
    whose tree is deeper than Python's stack takes is walked on a deeper one (facts.shared.deep)."""
    return retried(lambda: _extract(source, path, module, is_package, want_uses, use_gate))


def _extract(
    source: bytes, path: str, module: str | None, is_package: bool, want_uses: bool, use_gate: UseGate | None,
) -> FileFacts:
    suppressions = comments.suppressions(source)
    parsed, lazy = newest_read(source, path)
    if isinstance(parsed, SyntaxErrorFact):
        return FileFacts(path, module, is_package, suppressions=suppressions, syntax_error=parsed)
    if lazy is not None:
        source = lazy.source  # the `lazy` keywords blanked, as CPython's tree was parsed
    try:
        # Syntax newer than this interpreter's: libcst's tree, parsed already, is the only one.
        tree = parsed if isinstance(parsed, cst.Module) else parse_module(source)
    except cst.ParserSyntaxError as error:
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact(error.message, error.raw_line, error.raw_column + 1),
        )
    except MemoryError:
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact("the file is nested too deeply to parse", 1, 1),
        )
    except (UnicodeDecodeError, LookupError, ValueError) as error:
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact(f"the file cannot be decoded: {error}", 1, 1),
        )
    except SyntaxError as error:  # a bad coding cookie, from tokenize.detect_encoding inside libcst
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact(error.msg, error.lineno or 1, error.offset or 1),
        )
    try:
        # Names as Python binds them (`ｐickle` is `pickle`), for the facts and the scope analysis.
        tree, resized = normalized(tree, source)
    except Exception as error:
        if not overflowed(error) or not on_deep_stack():
            raise  # walked again on a deeper stack
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact("the file is nested too deeply to analyse", 1, 1),
        )
    package = module if is_package else (module.rpartition(".")[0] if module else None)
    collector = _Collector(package, _bound_names(tree.body) if want_uses else None)
    collector.tree = parsed if isinstance(parsed, ast.Module) else None
    collector.lines = _source_lines(source)
    if lazy is not None:
        collector.lazy_at = lazy.at
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    try:
        if collector.tree is None:  # no CPython tree to ask which names the file reads
            collector.read_names = cst_read_names(wrapper)
        if resized:  # positions count the rewritten code: moved back to the source's columns
            collector.columns = columns(resized, wrapper.resolve(PositionProvider))
        collector.tables.module = module_tables([bound for line in tree.body for bound in _table_bindings(line)])
        wrapper.visit(collector)
        uses = _resolve_uses(wrapper, collector, use_gate) if want_uses else ()
        reads = _loads(wrapper, collector.candidate_reads)
        _attributes(wrapper, collector)
    except Exception as error:
        if not overflowed(error) or not on_deep_stack():
            raise  # walked again on a deeper stack
        return FileFacts(
            path, module, is_package, suppressions=suppressions,
            syntax_error=SyntaxErrorFact("the file is nested too deeply to analyse", 1, 1),
        )
    # `ast` reads the loader and the exports, as CPython's extractor does (libcst has no
    # evaluator of its own for the literal tables).
    loader, exports = loader_and_exports(collector.tree, source, None, module, is_package)
    return FileFacts(
        path=path,
        module=module,
        is_package=is_package,
        imports=tuple(collector.imports),
        escapes=tuple(collector.escapes),
        uses=uses,
        calls=tuple(collector.calls),
        decorators=tuple(collector.decorators),
        functions=collector.kept_signatures(collector.functions),
        classes=tuple(collector.classes),
        assigns=tuple(collector.assigns),
        returns=tuple(collector.returns),
        scans=tuple(collector.scans),
        reads=reads,
        attributes=settled_attributes(collector.attributes),
        suppressions=suppressions,
        loader=loader,
        exports=exports,
    )


@dataclass(frozen=True)
class Walked:
    """What libcst's walk of a refused statement adds to CPython's walk of the rest."""

    calls: tuple[CallFact, ...]
    reads: tuple[ReadFact, ...]
    statement_index: int  # the count of statement lines, its own included


def walk_chunk(
    state: WalkState, chunk: Chunk, package: str | None, lines: list[str], tree: ast.Module, statement_index: int,
    reads: frozenset[str],
) -> Walked:
    """libcst's walk of a statement CPython refused (facts.cst.split), continuing `state`'s walk
    of the statements before it (CPython's), which then takes the state back: what both walks
    record goes to the same lists. `statement_index`: CPython's count of statement lines, the
    chunk's first counted; `tree`: CPython's of the rest, for the names the file reads (with
    `reads`, those every refused statement reads)."""
    walker = _Collector(package, None)
    walker.lines = lines
    walker.tree = tree
    walker.extra_reads = reads
    state.hand_to(walker)
    walker._statement_index = statement_index - 1  # libcst counts the chunk's first line again
    chunk.wrapper.visit(walker)
    _attributes(chunk.wrapper, walker)
    walker.hand_to(state)
    return Walked(tuple(walker.calls), _loads(chunk.wrapper, walker.candidate_reads), walker._statement_index)


def chunk_tables(chunk: Chunk) -> list[tuple[str, Table | None]]:
    """The chunk's module-level bindings to literal displays, for `module_tables`."""
    return [bound for line in chunk.wrapper.module.body for bound in _table_bindings(line)]


def chunk_uses_matter(chunk: Chunk, package: str | None, imported: dict[str, list[ImportFact]], gate: UseGate) -> bool:
    """Whether a statement CPython refused could change the file's uses (facts.cst.split): it
    spells an imported name other than as a read (a binding, a parameter, a declaration, an
    attribute's name: scopes may change), or reads one in a chain the gate could let through.
    Otherwise it has no use, and the rest's uses are what `symtable` of the rest says."""
    roots = set(chunk.names.intersection(imported))
    if not roots:
        return False
    spelled = _Spelled(roots)
    chunk.wrapper.module.visit(spelled)
    contexts = chunk.wrapper.resolve(ExpressionContextProvider)
    if spelled.bound or any(contexts.get(name) is not ExpressionContext.LOAD for name in spelled.found):
        return True
    walker = _Collector(package, roots)
    chunk.wrapper.visit(walker)
    return any(_could_matter(chain, imported.get(chain[1].value, ()), gate) for chain in walker.chains)


_BINDING_STATEMENTS = (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)


class _Spelled(cst.CSTVisitor):
    """Every `Name` node spelling one of `names`; `bound`: one is spelled where libcst's
    expression contexts call a binding a load (an import, `global`, a match capture, a type
    alias's or parameter's name)."""

    def __init__(self, names: set[str]) -> None:
        super().__init__()
        self.names = names
        self.found: list[cst.Name] = []
        self.bound = False
        self._binding = 0  # inside an import or a `global`/`nonlocal` statement
        self._named: set[int] = set()  # ids of the names a match pattern or type parameter binds

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            if self._binding or id(node) in self._named:
                self.bound = True
            self.found.append(node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _BINDING_STATEMENTS):
            self._binding += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, _BINDING_STATEMENTS):
            self._binding -= 1

    def _name(self, *nodes: cst.CSTNode | None) -> None:
        self._named.update(id(node) for node in nodes if node is not None)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        self._name(node.name)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        self._name(node.name)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        self._name(node.rest)

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> None:
        self._name(node.key)

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
        self._name(node.name)

    def visit_TypeVar(self, node: cst.TypeVar) -> None:
        self._name(node.name)

    def visit_TypeVarTuple(self, node: cst.TypeVarTuple) -> None:
        self._name(node.name)

    def visit_ParamSpec(self, node: cst.ParamSpec) -> None:
        self._name(node.name)


def _source_lines(source: bytes) -> list[str]:
    """The file's lines as CPython's extractor splits them (for a test's text)."""
    try:
        text = python_text(source)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return []
    return re.split(r"\r\n|\r|\n", text)


def _attributes(wrapper: MetadataWrapper, collector: _Collector) -> None:
    """The candidate attribute reads, each a load's or (a store's, a deletion's) the chain's it is an
    attribute of, kept in the walk's state."""
    candidates = collector.candidate_attributes
    if not candidates:
        return
    contexts = wrapper.resolve(ExpressionContextProvider)
    for node, read, stored in candidates:
        context = contexts.get(node)
        collector.add_attribute(stored if context in (ExpressionContext.STORE, ExpressionContext.DEL) else read)
    candidates.clear()


def _loads(wrapper: MetadataWrapper, candidates: list[tuple[cst.Name, ReadFact]]) -> tuple[ReadFact, ...]:
    """The candidate reads that are loads (not stores, deletions or keyword names)."""
    if not candidates:
        return ()
    contexts = wrapper.resolve(ExpressionContextProvider)
    found = [read for node, read in candidates if contexts.get(node) is ExpressionContext.LOAD]
    found.sort(key=lambda read: (read.span.line, read.span.column))
    return tuple(found)


def _resolve_uses(wrapper: MetadataWrapper, collector: _Collector, gate: UseGate | None) -> tuple[UseFact, ...]:
    """Qualified names for the chains the gate lets through, from libcst's scope analysis."""
    chains = collector.chains
    if gate is not None:
        imported = bound_imports(collector.imports)
        chains = [chain for chain in chains if _could_matter(chain, imported.get(chain[1].value, ()), gate)]
    if not chains:
        return ()
    scopes = wrapper.resolve(ScopeProvider)
    qualified_names = wrapper.resolve(QualifiedNameProvider)
    accessed = _accessed_roots(scopes.values())
    uses: list[UseFact] = []
    for node, root, span, line, context in chains:
        if id(root) not in accessed:
            continue  # a store or a declaration, not a use
        found = qualified_names.get(node, ())
        if isinstance(found, LazyValue):  # what `get_metadata` would unwrap
            found = found()
        qualified = tuple(sorted(q.name for q in found if q.source is QualifiedNameSource.IMPORT))
        if qualified:
            uses.append(UseFact(qualified, root.value, span, line, context))
    uses.sort(key=lambda use: (use.span.line, use.span.column))  # source order, as facts.uses_ast gives them
    return tuple(uses)


def _accessed_roots(scopes: Iterable[object]) -> set[int]:
    """ids of the root names of every access; after `import a.b` libcst records the
    access of `a.b.c` under the attribute `a.b`, not the name `a`."""
    roots: set[int] = set()
    for scope in {id(s): s for s in scopes if isinstance(s, Scope)}.values():
        for access in scope.accesses:
            node: cst.CSTNode = access.node
            while isinstance(node, cst.Attribute):
                node = node.value
            roots.add(id(node))
    return roots


def _could_matter(chain: _Chain, imports: Sequence[ImportFact], gate: UseGate) -> bool:
    text = get_full_name_for_node(chain[0]) or chain[1].value
    return could_matter(text, chain[1].value, imports, gate)


def _bound_names(body: Sequence[cst.CSTNode]) -> set[str]:
    """Names any import statement binds, found by walking statements only (no expressions)."""
    names: set[str] = set()
    for statement in _statements(body):
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                full = get_full_name_for_node(alias.name) or ""
                names.add(_alias_name(alias) or full.split(".")[0])
        elif isinstance(statement, cst.ImportFrom) and not isinstance(statement.names, cst.ImportStar):
            for alias in statement.names:
                names.add(_alias_name(alias) or (get_full_name_for_node(alias.name) or ""))
    return names


def _statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    for node in body:
        if isinstance(node, cst.SimpleStatementLine):
            yield from node.body
        elif isinstance(node, cst.Match):  # no `body`: one block per `case`
            for case in node.cases:
                yield from _statements([case.body])
        elif isinstance(node, cst.BaseCompoundStatement):
            inner = node.body
            yield from _statements(inner.body if isinstance(inner, cst.IndentedBlock) else [inner])
            for attr in ("orelse", "finalbody"):
                other = getattr(node, attr, None)
                if other is not None:
                    yield from _statements([other] if isinstance(other, cst.If) else [other.body])
            for handler in getattr(node, "handlers", ()):
                yield from _statements([handler.body])
        elif isinstance(node, cst.IndentedBlock):
            yield from _statements(node.body)
        elif isinstance(node, cst.SimpleStatementSuite):  # `else: x = 1` on one line
            yield from node.body
        elif isinstance(node, cst.BaseSmallStatement):
            yield node


def _alias_name(alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None


def _span(code_range: CodeRange, columns: Columns | None) -> Span:
    start, end = code_range.start, code_range.end
    if columns is None:
        return Span(start.line, start.column + 1, end.line, end.column + 1)
    return Span(start.line, columns.source(start.line, start.column) + 1, end.line, columns.source(end.line, end.column) + 1)


class _Collector(WalkState, cst.CSTVisitor):
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (PositionProvider,)

    @classmethod
    def get_inherited_dependencies(cls) -> Collection[ProviderT]:
        # libcst caches this on the class through an inherited attribute, so a subclass
        # asked after its base would get the base's set.
        return frozenset(cls.METADATA_DEPENDENCIES)

    def __init__(self, package: str | None, roots: set[str] | None = None) -> None:
        super().__init__()
        self.package = package
        # names any import binds, when uses are wanted: chains rooted at one of them are kept
        self._roots = roots
        self.chains: list[_Chain] = []
        self.uses: list[UseFact] = []
        self.calls: list[CallFact] = []
        self.decorators: list[DecoratorFact] = []
        self.functions: list[FunctionFact] = []
        self.classes: list[ClassFact] = []
        self.lines: list[str] = []
        self._probing_calls: set[int] = set()  # `import_module("x")` calls an inline probe stands in
        self._statement_lines: list[int] = [1]
        self._statement_index = 0
        # Early-exit branches pushed in each open block (facts.walkstate.early_exit).
        self._exits: list[int] = [0]
        self._else_tests: dict[int, Branch] = {}  # a `try:`'s `else:`: what it runs under
        # Each open `try:`: whether its body is imports and constants alone; the handlers of such
        # a `try:`: the branch they run under (None: one that catches no failed import).
        self._plain: list[bool] = []
        self._failed: dict[int, Branch | None] = {}
        self._elifs: set[int] = set()
        # Open `for` loops: (whether it walks a package, the package, context, dynamic imports before).
        self._loops: list[tuple[bool, str | None, Context, int]] = []
        self.tree: ast.Module | None = None
        # Statements directly in a `try:` body whose handler catches a failed import.
        self._probing: set[int] = set()
        self._caught: set[int] = set()  # statements and calls straight in a `try:` that catches a failed import
        # Each open `try:`: the index in `imports` where its body starts, then, from its first
        # handler on, the names that body imported.
        self._try_imports: list[int | tuple[str, ...]] = []
        self._fallback_handlers: set[int] = set()
        # Names read at import time that a lazy import bound, before loads are told from stores.
        self.candidate_reads: list[tuple[cst.Name, ReadFact]] = []
        # Attribute reads before loads are told from stores: the chain, its read, and the read
        # of the chain it is an attribute of (what a store or `del` of it reads).
        self.candidate_attributes: list[tuple[cst.Attribute, AttributeFact | None, AttributeFact | None]] = []
        self._unevaluated: set[int] = set()  # annotations Python never evaluates (a function body's variables)
        self._keywords: set[int] = set()  # `f(name=...)`: a keyword, not a read of `name`
        self.columns: Columns | None = None  # where names NFKC resized moved the columns (facts.cst_names)
        self.extra_reads: frozenset[str] = frozenset()  # names read where `tree` has no statement (facts.cst.split)

    # --- where we are -------------------------------------------------------------


    def span_of(self, node: cst.CSTNode) -> Span:
        return _span(self.get_metadata(PositionProvider, node), self.columns)

    def text_of(self, node: cst.CSTNode) -> str:
        """The source of an expression as written (walkstate.written)."""
        span = self.span_of(node)
        if not self.lines or span.end_line > len(self.lines):
            return ""
        if span.end_line == span.line:
            return written(self.lines[span.line - 1][span.column - 1 : span.end_column - 1])
        middle = self.lines[span.line : span.end_line - 1]
        return written("\n".join([self.lines[span.line - 1][span.column - 1 :], *middle, self.lines[span.end_line - 1][: span.end_column - 1]]))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statement_lines.append(self.get_metadata(PositionProvider, node).start.line)
            self._statement_index += 1
        if self.may_raise and id(node) in self.may_raise:
            self.enter_skippable()  # its binding happens only where it does not raise
        return super().on_visit(node)

    def versions_in(self, block: cst.BaseSuite) -> dict[int, Installed]:
        """The statement lines of a `try:` body that call `importlib.metadata.version("x")` (alone,
        or bound to a name), each with the test it stands for."""
        found: dict[int, Installed] = {}
        for line in block.body if isinstance(block, cst.IndentedBlock) else ():
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
            value = small.value if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
                dotted = get_full_name_for_node(value.func)
                test = version_test(self.qualify(dotted), _first_string(value.args)) if dotted is not None else None
                if test is not None:
                    found[id(line)] = test
        return found

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if self.may_raise and id(original_node) in self.may_raise:
            self.leave_skippable()
        version = self.version_calls.pop(id(original_node), None) if self.version_calls else None
        if version is not None:
            self.after_version(version, self.span_of(original_node).line)
            self._exits[-1] += 1
        if isinstance(original_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self._statement_lines.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = ".".join([*self.names, node.name.value])
        signature = _signature(node, name)
        names = frozenset(p.name.value for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params))
        self.define(
            FunctionFact(name, self.span_of(node.name).line, self.context(), _globals(node.body), unset=_unset(node.params)),
            LazySignature(names, lambda: signature),
        )

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.function_depth += 1
        self.names.append(node.name.value)
        self.scopes.append(True)
        self.changed()

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.function_depth -= 1
        self.names.pop()
        self.scopes.pop()
        self.changed()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = tuple(
            self.qualify(dotted) for dotted in (
                get_full_name_for_node(arg.value) for arg in node.bases
                if arg.keyword is None and not arg.star and isinstance(arg.value, (cst.Name, cst.Attribute))
            ) if dotted
        )
        line = self.span_of(node.name).line
        self.classes.append(ClassFact(".".join([*self.names, node.name.value]), bases, line, self.context()))
        self.bind(node.name.value, Opaque(), line)

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.names.append(node.name.value)
        self.scopes.append(False)
        self.changed()

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.names.pop()
        self.scopes.pop()
        self.changed()

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self.function_depth += 1
        self.names.append("<lambda>")
        self.scopes.append(True)
        self.changed()

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.function_depth -= 1
        self.names.pop()
        self.scopes.pop()
        self.changed()

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.open_annotation(id(node) not in self._unevaluated)

    def leave_Annotation(self, original_node: cst.Annotation) -> None:
        self.close_annotation()

    def visit_If_body(self, node: cst.If) -> None:
        self.branches.append(Branch(self.test_of(node.test), False, False, self.span_of(node).line, self.text_of(node.test)))
        self.changed()

    def leave_If_body(self, node: cst.If) -> None:
        self.branches.pop()
        self.changed()

    def visit_If_orelse(self, node: cst.If) -> None:
        if isinstance(node.orelse, cst.If):
            self._elifs.add(id(node.orelse))
        self.branches.append(Branch(self.test_of(node.test), True, False, self.span_of(node).line, self.text_of(node.test)))
        self.changed()

    def leave_If(self, original_node: cst.If) -> None:
        if id(original_node) in self._elifs or original_node.orelse is not None:
            return
        body = original_node.body
        last = body.body[-1] if body.body else None
        if isinstance(last, cst.SimpleStatementLine):
            last = last.body[-1] if last.body else None
        if isinstance(last, (cst.Return, cst.Raise)):
            self.early_exit(self.test_of(original_node.test), self.span_of(original_node).line, self.text_of(original_node.test))
            self._exits[-1] += 1

    def visit_Try(self, node: cst.Try) -> None:
        self._try(node)

    def leave_Try(self, original_node: cst.Try) -> None:
        self.try_depth -= 1
        self._try_imports.pop()
        if not self._plain.pop():
            self.leave_skippable()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._try(node)

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self.try_depth -= 1
        self._try_imports.pop()
        if not self._plain.pop():
            self.leave_skippable()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handler(node)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._handled(original_node)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._handler(node)

    def leave_ExceptStarHandler(self, original_node: cst.ExceptStarHandler) -> None:
        self._handled(original_node)

    def _handler(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        """A handler of the innermost open `try:`, whose body is walked by now: what that body
        imported, if the handler catches a failed import, is what it is a fallback for."""
        opened = self._try_imports[-1]
        if isinstance(opened, int):
            opened = self._try_imports[-1] = self.imported_since(opened)
        if opened and _catches_import(node.type):
            self.fallbacks.append(opened)
            self._fallback_handlers.add(id(node))
        if id(node) in self._failed:  # in a `try:` of imports and constants
            failed = self._failed[id(node)]
            if failed is not None:
                self.branches.append(failed)
                self.changed()
            else:
                self.enter_skippable()

    def _handled(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        if id(node) in self._fallback_handlers:
            self._fallback_handlers.discard(id(node))
            self.fallbacks.pop()
        if id(node) in self._failed:
            if self._failed.pop(id(node)) is not None:
                self.branches.pop()
                self.changed()
            else:
                self.leave_skippable()

    def visit_For(self, node: cst.For) -> None:
        self.enter_skippable()
        self._for(node)

    def visit_While(self, node: cst.While) -> None:
        self.enter_skippable()

    def leave_While(self, original_node: cst.While) -> None:
        self.leave_skippable()

    def visit_With(self, node: cst.With) -> None:
        self.enter_skippable()

    def leave_With(self, original_node: cst.With) -> None:
        self.leave_skippable()

    def visit_Match(self, node: cst.Match) -> None:
        self.enter_skippable()

    def leave_Match(self, original_node: cst.Match) -> None:
        self.leave_skippable()

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        if any(_catches_version(handler.type) for handler in node.handlers):
            self.version_calls.update(self.versions_in(node.body))
        tried = _tried_imports(node.body) if any(_catches_import(handler.type) for handler in node.handlers) else {}
        if isinstance(node.body, cst.IndentedBlock):  # (a one-line suite: no block to narrow)
            self.version_calls.update(tried)
        # `else:` runs, and with handlers that all leave, the rest of the block, only where
        # every import the body tries is installed.
        succeeded = all_of(tried.values())
        line = self.span_of(node).line
        if succeeded is not None and node.orelse is not None:
            self._else_tests[id(node.orelse)] = Branch(succeeded, orelse=False, early=True, line=line)
        if succeeded is not None and _handlers_leave(node):
            self.version_calls[id(node)] = succeeded
        # A body of imports and constants raises only where an import fails: its catching
        # handlers run exactly where one is not installed, and nothing else in it is skipped.
        failed = Branch(succeeded, orelse=True, early=True, line=line) \
            if succeeded is not None and _imports_and_constants(node.body) else None
        plain = failed is not None
        self._plain.append(plain)
        if plain:
            self.may_raise.update(tried)
            for handler in node.handlers:
                self._failed[id(handler)] = failed if _catches_import(handler.type) else None
        self.try_depth += 1
        if not plain:
            self.enter_skippable()
        self._try_imports.append(len(self.imports))
        if not any(_catches_import(handler.type) for handler in node.handlers):
            return
        smalls = _probing(node.body)
        self._caught.update(id(small) for small in smalls)
        self._caught.update(
            id(small.value) for small in smalls if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
        )
        if self.only_probes(smalls, _handler_definitions(node)):
            self._probing.update(id(small) for small in smalls)
            self._probing_calls.update(
                id(small.value) for small in smalls if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
            )

    def only_probes(self, smalls: list[cst.BaseSmallStatement], defined: frozenset[str] = frozenset()) -> bool:
        """Every import straight in the `try:` binds names the file never reads: the `try:` is
        there to see whether they import (one whose names are used is an optional import, and
        so is one whose names a handler defines again: the module provides them either way)."""
        if self.read_names is None:
            self.read_names = (read_names(self.tree) if self.tree is not None else frozenset()) | self.extra_reads
        loaded = self.read_names | defined
        for small in smalls:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                if isinstance(small.names, cst.ImportStar):
                    return False
                for alias in small.names:
                    full = get_full_name_for_node(alias.name) or ""
                    plain = isinstance(small, cst.Import) and alias.asname is None
                    if (_alias_name(alias) or (full.split(".")[0] if plain else full)) in loaded:
                        return False
        return True

    def probe(self, node: cst.CSTNode, bound: str | None) -> bool:
        """An import straight in a `try:` that catches its failure, binding a name the file never reads."""
        if id(node) not in self._probing:
            return False
        if self.read_names is None:
            self.read_names = (read_names(self.tree) if self.tree is not None else frozenset()) | self.extra_reads
        return bound is None or bound not in self.read_names

    def lazy_keyword(self, node: cst.CSTNode) -> bool:
        if not self.lazy_at:
            return False
        start = self.span_of(node)
        return (start.line, start.column) in self.lazy_at

    def visit_Else(self, node: cst.Else) -> None:
        branch = self._else_tests.get(id(node)) if self._else_tests else None
        if branch is not None:  # a `try:`'s `else:`
            self.branches.append(branch)
            self.changed()

    def leave_Else(self, original_node: cst.Else) -> None:
        if self._else_tests and self._else_tests.pop(id(original_node), None) is not None:
            self.branches.pop()
            self.changed()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._exits.append(0)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        for _ in range(self._exits.pop()):
            self.branches.pop()
        self.changed()

    # --- bindings, returns, loops -------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.module_level():
            self.local_assignment([t.target for t in node.targets], node.value)
        if any(isinstance(t.target, cst.Name) and t.target.value == "__lazy_modules__" for t in node.targets):
            self.assigned_lazy_modules(_strings(node.value))
        for target in node.targets:
            named = isinstance(target.target, (cst.Name, cst.Subscript))
            value = self.condition(node.value) if named and self.module_level() else Opaque()
            for name in _target_names(target.target):
                self.bind(name.value, value, self.span_of(name).line)
                if isinstance(target.target, cst.Name) and self.module_level():
                    self.bind_entries(name.value, self.entries(node.value), self.span_of(name).line)
            entry = _entry_target(target.target)
            if entry is not None and self.module_level():
                self.bind(entry, value, self.span_of(target.target).line)

    def local_assignment(self, targets: Sequence[cst.BaseExpression], value: cst.BaseExpression | None) -> None:
        """A function-local binding of an availability test (`facts.shared.availability.Locals`)."""
        function = self.context().function
        if function is None:
            return
        if len(targets) != 1 or value is None:
            for name in (name for target in targets for name in _target_names(target)):
                self.locals.bind(function, name.value, Opaque(), False)
            return
        target = targets[0]
        if isinstance(target, cst.Name):
            spec = self.spec_value(value)
            self.locals.bind(function, target.value, spec if spec is not None else self.condition(value), spec is not None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            called = self.condition(value) if isinstance(value, cst.Call) else Opaque()
            for index, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name) and not isinstance(element, cst.StarredElement):
                    taken: Test = replace(called, first=True) if index == 0 and isinstance(called, Leaf) and called.call else Opaque()
                    self.locals.bind(function, element.value.value, taken, False)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.in_function_scope():
            self._unevaluated.add(id(node.annotation))  # a function body's variable: never evaluated
        if not self.module_level() and node.value is not None:
            self.local_assignment([node.target], node.value)
        if node.value is not None and isinstance(node.target, cst.Name):
            self.bind(node.target.value, self.condition(node.value), self.span_of(node.target).line)
            if self.module_level():
                self.bind_entries(node.target.value, self.entries(node.value), self.span_of(node.target).line)

    def visit_Del(self, node: cst.Del) -> None:
        targets = [e.value for e in node.target.elements] if isinstance(node.target, cst.Tuple) else [node.target]
        for target in targets:
            for name in _target_names(target):
                self.bind(name.value, Opaque(), self.span_of(name).line, removed=True)
            entry = _entry_target(target)
            if entry is not None:
                self.bind(entry, Opaque(), self.span_of(target).line, removed=True)

    def entries(self, value: cst.BaseExpression) -> list[tuple[object, Test]] | None:
        """A dict display's literal keys and their values read as conditions."""
        if not isinstance(value, cst.Dict):
            return None
        found: list[tuple[object, Test]] = []
        for element in value.elements:
            if isinstance(element, cst.DictElement) and _constant_key(element.key):
                found.append((_key_value(element.key), self.condition(element.value)))
        return found

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self.module_level():
            self.local_assignment([node.target], None)
        if isinstance(node.target, cst.Name):
            self.bind(node.target.value, Opaque(), self.span_of(node.target).line)

    def visit_Return(self, node: cst.Return) -> None:
        returned = node.value
        if isinstance(returned, cst.Tuple) and returned.elements and not isinstance(returned.elements[0], cst.StarredElement):
            self.returned(self.condition(returned.elements[0].value), self.span_of(node).line, first=True)
            return
        value = Leaf("None", "None") if node.value is None else self.condition(node.value)
        self.returned(value, self.span_of(node).line)

    def _table_names(self, argument: cst.BaseExpression) -> tuple[str, ...]:
        """The strings an argument takes from a literal table."""
        if isinstance(argument, cst.Name):
            return self.tables.names_of(argument.value)
        if isinstance(argument, cst.Subscript) and isinstance(argument.value, cst.Name) and len(argument.slice) == 1:
            table = self.tables.module.get(argument.value.value)
            index = argument.slice[0].slice
            key = _key(index.value) if isinstance(index, cst.Index) else None
            value = subscripted(table, key) if table is not None and key is not None else None
            return (value,) if value is not None else ()
        return ()

    def _looped(self, node: cst.For) -> tuple[tuple[str, ...], ...]:
        walked, method = node.iter, None
        if isinstance(node.iter, cst.Call) and not node.iter.args and isinstance(node.iter.func, cst.Attribute):
            walked, method = node.iter.func.value, node.iter.func.attr.value
        table = self.tables.module.get(walked.value) if isinstance(walked, cst.Name) else _cst_table(walked)
        if table is None or not isinstance(node.target, (cst.Name, cst.Tuple)):
            return ()
        return looped(table, method, len(node.target.elements) if isinstance(node.target, cst.Tuple) else 1)

    def _for(self, node: cst.For) -> None:
        self.tables.enter_loop([name.value for name in _target_names(node.target)], self._looped(node))
        for name in _target_names(node.target):
            self.bind(name.value, Opaque(), self.span_of(name).line)
        walked = node.iter
        is_walk, package = False, None
        if isinstance(walked, cst.Call) and isinstance(walked.func, (cst.Name, cst.Attribute)):
            dotted = get_full_name_for_node(walked.func)
            is_walk = dotted is not None and self.qualify(dotted) in PACKAGE_WALKERS
            first = walked.args[0] if walked.args else None
            if is_walk and first is not None and isinstance(first.value, (cst.Name, cst.Attribute)):
                package = self.walked_package(get_full_name_for_node(first.value))
        self._loops.append((is_walk, package, self.context(), self.computed_imports))

    def leave_For(self, original_node: cst.For) -> None:
        self.tables.leave_loop()
        is_walk, package, context, before = self._loops.pop()
        if is_walk:
            self.scanned(package, self.span_of(original_node).line, context, self.computed_imports - before)
        self.leave_skippable()

    def leave_If_orelse(self, node: cst.If) -> None:
        self.branches.pop()
        self.changed()

    # --- names --------------------------------------------------------------------

    def condition(self, expression: cst.BaseExpression) -> Test:
        """An assigned or returned value read as a condition; too deep to read is Opaque."""
        try:
            return self.test_of(expression)
        except RecursionError:
            return Opaque()

    def test_of(self, expression: cst.BaseExpression) -> Test:
        if isinstance(expression, cst.BooleanOperation):
            op: Literal["and", "or"] = "and" if isinstance(expression.operator, cst.And) else "or"
            return BoolOp(op, (self.test_of(expression.left), self.test_of(expression.right)))
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not):
            return Not(self.test_of(expression.expression))
        if isinstance(expression, cst.Comparison):
            main = _main_test(expression)
            return main if not isinstance(main, Opaque) else self.comparison(expression)
        read = self.getattr_of(expression) or self.entry_of(expression)
        if read is not None:
            return read
        if isinstance(expression, cst.Name):
            local = self.locals.read(self.context().function, expression.value)
            if local is not None:
                return local.test
        if isinstance(expression, cst.Subscript) and isinstance(expression.value, cst.Call):
            return self.first_of(expression)
        target = expression.func if isinstance(expression, cst.Call) else expression
        dotted = get_full_name_for_node(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if dotted is None:
            return Opaque()
        if isinstance(expression, cst.Call):
            return self.call_test(expression, dotted)
        return Leaf(dotted.rpartition(".")[2], self.qualify(dotted), False, isinstance(target, cst.Attribute))

    def call_test(self, call: cst.Call, dotted: str) -> Test:
        """A call read as a test: `find_spec("x")` is whether `x` is found; any other call keeps its
        literal first argument, or that it passes on its function's first parameter."""
        qualified = self.qualify(dotted)
        argument = _first_string(call.args)
        passes = argument is None and self.passes_first(_first_name(call.args))
        spec = spec_test(qualified, argument, passes)
        if spec is not None:
            return spec
        alone = len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star
        return Leaf(
            dotted.rpartition(".")[2], qualified, True, isinstance(call.func, cst.Attribute), argument, passes, False,
            alone,
        )

    def first_of(self, node: cst.Subscript) -> Test:
        """`f("x")[0]`: the first item of what the call returns."""
        called = self.test_of(node.value)
        index = node.slice[0].slice if len(node.slice) == 1 else None
        zero = (
            isinstance(index, cst.Index) and index.star is None and isinstance(index.value, cst.Integer)
            and index.value.evaluated_value == 0 and node.slice[0].comma is cst.MaybeSentinel.DEFAULT
        )
        return replace(called, first=True) if zero and isinstance(called, Leaf) and called.call else Opaque()

    def spec_value(self, node: cst.BaseExpression) -> Test | None:
        """The test a find_spec value stands for: `find_spec("x")` itself, or a local `spec` bound to one."""
        if isinstance(node, cst.Name):
            local = self.locals.read(self.context().function, node.value)
            return local.test if local is not None and local.spec else None
        if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
            dotted = get_full_name_for_node(node.func)
            found = self.call_test(node, dotted) if dotted is not None else None
            return found if isinstance(found, Installed) else None
        return None

    def subject(self, node: cst.BaseExpression) -> Leaf | None:
        """A compared name: a name, an attribute, or `getattr(obj, "name", default)`."""
        read = self.getattr_of(node) or self.entry_of(node)
        if read is not None:
            return read
        if not isinstance(node, (cst.Name, cst.Attribute)) or _literal(node)[0]:
            return None
        dotted = get_full_name_for_node(node)
        if dotted is None:
            return None
        return Leaf(dotted.rpartition(".")[2], self.qualify(dotted), False, isinstance(node, cst.Attribute))

    def entry_of(self, node: cst.BaseExpression) -> Leaf | None:
        """`env["k"]` or `env.get("k"[, default])`: a dict entry read with a literal key."""
        owner: cst.BaseExpression
        if (
            isinstance(node, cst.Subscript) and isinstance(node.value, (cst.Name, cst.Attribute))
            and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and node.slice[0].comma is cst.MaybeSentinel.DEFAULT
            and node.slice[0].slice.star is None and _constant_key(node.slice[0].slice.value)
        ):
            owner, key = node.value, _key_value(node.slice[0].slice.value)
        elif (
            isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"
            and isinstance(node.func.value, (cst.Name, cst.Attribute)) and len(node.args) in (1, 2)
            and all(a.keyword is None and not a.star for a in node.args) and _constant_key(node.args[0].value)
        ):
            owner, key = node.func.value, _key_value(node.args[0].value)
        else:
            return None
        dotted = get_full_name_for_node(owner)
        if dotted is None:
            return None
        return entry_leaf(dotted, self.qualify(dotted), key, isinstance(owner, cst.Attribute))

    def getattr_of(self, node: cst.BaseExpression) -> Leaf | None:
        if not (
            isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "getattr"
            and len(node.args) in (2, 3) and all(a.keyword is None and not a.star for a in node.args)
            and isinstance(node.args[0].value, (cst.Name, cst.Attribute))
        ):
            return None
        name = node.args[1].value
        dotted = get_full_name_for_node(node.args[0].value)
        evaluated = name.evaluated_value if isinstance(name, (cst.SimpleString, cst.ConcatenatedString)) else None
        if dotted is None or not isinstance(evaluated, str):
            return None
        return getattr_leaf(self.qualify(dotted), evaluated)

    def comparison(self, comparison: cst.Comparison) -> Test:
        """`DEVICE_TYPE == "hip"`, `"hip" != DEVICE_TYPE`, `x in ("a", "b")`, `v is None`."""
        if len(comparison.comparisons) != 1:
            return Opaque()
        target = comparison.comparisons[0]
        op = _OPERATORS.get(type(target.operator))
        left, right = comparison.left, target.comparator
        if op is None:
            return Opaque()
        if op in ("is", "is not", "==", "!=") and _is_none(right) != _is_none(left):
            spec = self.spec_value(left if _is_none(right) else right)
            tested = none_test(spec, op in ("is not", "!=")) if spec is not None else None
            if tested is not None:
                return tested
        if op in ("==", "!=", "is", "is not") and _literals(right) is None and _literals(left) is not None:
            left, right = right, left
        single = not isinstance(right, (cst.Tuple, cst.List))
        return compared(self.subject(left), op, _literals(right), single)

    # --- imports ------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        context = self.context()
        keyword = self.lazy_keyword(node)
        for alias in node.names:
            name = get_full_name_for_node(alias.name)
            if name is None:
                continue
            span = self.span_of(alias.name)
            asname = _alias_name(alias)
            bound = asname or name.split(".")[0]
            fact = ImportFact(
                kind="import", name=name, module=name, member=None, bound=bound,
                span=span, module_span=span, statement=self._statement_index,
                statement_line=self._statement_lines[-1], context=context, probe=self.probe(node, bound),
                caught=id(node) in self._caught,
            )
            # `import a.b` binds `a` itself; `import a.b as c` binds `c` to `a.b`.
            self.record(fact, name if asname else name.split(".")[0], keyword)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        level = len(node.relative)
        if level:
            module = get_absolute_module_from_package_for_import(self.package, node)
        elif node.module is not None:
            module = get_full_name_for_node(node.module)
        else:
            module = None
        if module is None and not level:
            return False  # no module at all
        module_span = self.span_of(node.module if node.module is not None else node.relative[-1])
        if level:
            first = self.span_of(node.relative[0])
            module_span = Span(first.line, first.column, module_span.end_line, module_span.end_column)
        context = self.context()
        line = self._statement_lines[-1]
        if module is None:  # a relative import above the top package
            written = get_full_name_for_node(node.module) if node.module is not None else ""
            self.escapes.append(ImportFact(
                kind="from", name=written or "", module="", member=None, bound=None, span=module_span,
                module_span=module_span, statement=self._statement_index, statement_line=line,
                context=context, level=level,
            ))
            return False

        def fact(name: str, member: str, bound: str | None, span: Span, probe: bool = False) -> ImportFact:
            return ImportFact(
                kind="from", name=name, module=module or "", member=member, bound=bound, span=span,
                module_span=module_span, statement=self._statement_index, statement_line=line,
                context=context, level=level, probe=probe, caught=id(node) in self._caught,
            )

        if isinstance(node.names, cst.ImportStar):
            self.imports.append(fact(module, "*", None, module_span))
            return False
        keyword = self.lazy_keyword(node)
        for alias in node.names:
            member = get_full_name_for_node(alias.name)
            if member is not None:
                name = f"{module}.{member}"
                bound = _alias_name(alias) or member
                self.record(fact(name, member, bound, self.span_of(alias.name), self.probe(node, bound)), name, keyword)
        return False

    # --- uses ---------------------------------------------------------------------

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        root: cst.BaseExpression = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return True  # `f().x`: the chain does not start at a name; look inside
        self._read(root)
        if root.value in self.aliases:
            self._attribute(node, root)
        if self._roots is not None and root.value in self._roots:
            self._chain(node, root)
        return False  # a plain `a.b.c` chain holds no call, import or further use

    def _attribute(self, node: cst.Attribute, root: cst.Name) -> None:
        """`pkg.Model` (`AttributeFact`), kept with the chain it is an attribute of (`pkg.a.b = x`
        reads `pkg.a`) until the walk tells a store from a load (`_attributes`)."""
        line = self.span_of(root).line
        whole = get_full_name_for_node(node)
        inner = get_full_name_for_node(node.value) if isinstance(node.value, cst.Attribute) else None
        read = self.attribute(whole, line) if whole is not None else None
        stored = self.attribute(inner, line) if inner is not None else None
        if read is not None or stored is not None:
            self.candidate_attributes.append((node, read, stored))

    def getattr_read(self, node: cst.Call, dotted: str, callee: str) -> None:
        """`getattr(pkg, "name"[, default])`, `hasattr(pkg, "name")`: a read of `pkg.name`."""
        args = node.args
        if dotted != callee or dotted not in _ATTRIBUTE_READERS:
            return
        if any(arg.keyword is not None or arg.star == "**" for arg in args):
            return
        if len(args) not in ((2, 3) if dotted == "getattr" else (2,)) or args[0].star:
            return
        owner = get_full_name_for_node(args[0].value) if isinstance(args[0].value, (cst.Name, cst.Attribute)) else None
        if owner is None or owner.partition(".")[0] not in self.aliases:
            return
        line = self.span_of(node).line
        text = None if args[1].star else _string(args[1].value)
        if text is not None:
            self.add_attribute(self.attribute(f"{owner}.{text}", line))
            return
        taken = () if args[1].star else self._table_names(args[1].value)  # a loop over a literal table
        for each in taken:
            self.add_attribute(self.attribute(f"{owner}.{each}", line))
        if not taken:
            self.add_attribute(self.attribute(owner, line, computed=True))

    def visit_Attribute_attr(self, node: cst.Attribute) -> None:
        self._keywords.add(id(node.attr))  # `x.name` reads `x`, not `name`

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._keywords.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        self._read(node)
        if self._roots is not None and node.value in self._roots:
            self._chain(node, node)

    def _read(self, node: cst.Name) -> None:
        if self.lazy_names and node.value in self.lazy_names and self.function_depth == 0 and id(node) not in self._keywords:
            read = ReadFact(node.value, self.span_of(node), self._statement_lines[-1], self.context())
            self.candidate_reads.append((node, read))

    def _chain(self, node: cst.Name | cst.Attribute, root: cst.Name) -> None:
        self.chains.append((node, root, self.span_of(node), self._statement_lines[-1], self.context()))

    # --- calls and decorators -----------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        dotted = get_full_name_for_node(node.func) if isinstance(node.func, (cst.Name, cst.Attribute)) else None
        if dotted is None:
            return
        callee = self.qualify(dotted)
        if dotted in _ATTRIBUTE_READERS:
            self.getattr_read(node, dotted, callee)
        first = _first_string(node.args)
        span = self.span_of(node)
        context = self.context()
        line = self._statement_lines[-1]
        # A name from a literal table is a literal name: the call once for each it can take.
        for taken, arguments in self.call_variants(_given(node.args, self._table_names)):
            self.calls.append(CallFact(callee, dotted.rpartition(".")[2], taken, span, line, context, arguments))
        dynamic = callee in DYNAMIC_IMPORTERS or dotted in DYNAMIC_IMPORTERS
        argument = _imported_argument(node.args) if dynamic else None
        imported = _string(argument) if argument is not None else None
        if dynamic and imported is None:
            self.computed_imports += 1
        if argument is not None and imported and not imported.startswith("."):
            arg_span = self.span_of(argument)
            self.imports.append(
                ImportFact(
                    kind="dynamic", name=imported, module=imported, member=None, bound=None,
                    span=arg_span, module_span=arg_span, statement=self._statement_index,
                    statement_line=line, context=context, probe=id(node) in self._probing_calls,
                    caught=id(node) in self._caught,
                )
            )

    def visit_Decorator(self, node: cst.Decorator) -> None:
        target = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
        dotted = get_full_name_for_node(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if dotted is None:
            return
        self.decorators.append(
            DecoratorFact((self.qualify(dotted),), self.span_of(target), self.span_of(node).line, self.context())
        )


# Builtins that read an attribute by a name given as a string (`AttributeFact`).
_ATTRIBUTE_READERS = frozenset({"getattr", "hasattr"})
_OPERATORS: dict[type[cst.BaseCompOp], str] = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.In: "in", cst.NotIn: "not in", cst.Is: "is", cst.IsNot: "is not",
}


def _tried_imports(block: cst.BaseSuite) -> dict[int, Test]:
    """The absolute imports straight in a `try:` body, each with the test that the modules it
    imports are installed: where one is not, the import raises and the rest of the body does
    not run."""
    found: dict[int, Test] = {}
    for line in block.body if isinstance(block, cst.IndentedBlock) else [block]:
        for small in line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ():
            names: list[str] = []
            if isinstance(small, cst.Import):
                names.extend(get_full_name_for_node(alias.name) or "" for alias in small.names)
            elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
                names.append(get_full_name_for_node(small.module) or "")
            test = installed_after(names)
            if test is not None:
                found[id(small)] = test
    return found


def _imports_and_constants(block: cst.BaseSuite) -> bool:
    """A `try:` body that can raise nothing but a failed import: absolute imports, `pass`, and
    names bound to constants (`HAS_X = True`)."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    for line in lines:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return False
        for small in line.body:
            if isinstance(small, (cst.Import, cst.Pass)) or (isinstance(small, cst.ImportFrom) and not small.relative):
                continue
            if isinstance(small, cst.Assign) and _constant(small.value) and all(
                isinstance(target.target, cst.Name) for target in small.targets
            ):
                continue
            return False
    return True


def _constant(node: cst.BaseExpression) -> bool:
    """What CPython's tree holds as one `Constant`: a literal string (joined ones too), number,
    `True`, `False`, `None` or `...`."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.Ellipsis)):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return _constant(node.left) and _constant(node.right)
    return isinstance(node, cst.Name) and node.value in ("True", "False", "None")


def _handlers_leave(node: cst.Try | cst.TryStar) -> bool:
    """Every handler of a failed import ends in `return` or `raise`."""
    catching = [handler for handler in node.handlers if _catches_import(handler.type)]
    for handler in catching:
        last: cst.CSTNode | None = handler.body.body[-1] if handler.body.body else None
        if isinstance(last, cst.SimpleStatementLine):
            last = last.body[-1] if last.body else None
        if not isinstance(last, (cst.Return, cst.Raise)):
            return False
    return bool(catching)


def _probing(block: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    """The small statements of a `try:` body an inline probe may stand in: straight in it, or
    under `if`s there."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    found: list[cst.BaseSmallStatement] = []
    for line in lines:
        if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            found.extend(line.body)
        elif isinstance(line, cst.If):
            found.extend(_probing_if(line))
    return found


def _probing_if(node: cst.If) -> list[cst.BaseSmallStatement]:
    found = _probing(node.body)
    if isinstance(node.orelse, cst.If):
        found.extend(_probing_if(node.orelse))
    elif isinstance(node.orelse, cst.Else):
        found.extend(_probing(node.orelse.body))
    return found


def _handler_definitions(node: cst.Try | cst.TryStar) -> frozenset[str]:
    """Names a `try:`'s handlers define with `def` or `class` (a fallback implementation)."""
    found: set[str] = set()
    for handler in node.handlers:
        body = handler.body
        for statement in body.body if isinstance(body, cst.IndentedBlock) else ():
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                found.add(statement.name.value)
    return frozenset(found)


def _globals(body: cst.BaseSuite) -> tuple[str, ...]:
    """Names a function body declares `global` (not those of functions or classes nested in it)."""
    found: list[str] = []

    class Globals(cst.CSTVisitor):
        def visit_Global(self, node: cst.Global) -> None:
            found.extend(item.name.value for item in node.names)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    body.visit(Globals())
    return tuple(dict.fromkeys(found))


def _constant_key(node: cst.BaseExpression) -> bool:
    """A literal dict key as CPython's tree holds it: a string, number, True, False or None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return isinstance(node.evaluated_value, (str, bytes))
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)) or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")
    )


def _key_value(node: cst.BaseExpression) -> object:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return node.evaluated_value
    return None  # only string keys name an entry (walkstate.entry_name)


def _entry_target(target: cst.BaseExpression) -> str | None:
    """`env["k"] = ...` (a name's entry with a literal key): the entry's name."""
    if (
        isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and len(target.slice) == 1
        and target.slice[0].comma is cst.MaybeSentinel.DEFAULT
        and isinstance(target.slice[0].slice, cst.Index) and target.slice[0].slice.star is None
        and isinstance(target.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return entry_name(target.value.value, target.slice[0].slice.value.evaluated_value)
    return None


def _catches_version(caught: cst.BaseExpression | None) -> bool:
    """A handler that catches PackageNotFoundError: bare, or naming it or a base of it."""
    if caught is None:
        return True
    names = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any((get_full_name_for_node(name) or "").rpartition(".")[2] in VERSION_CATCHERS for name in names)


def _unset(parameters: cst.Parameters) -> tuple[str, ...]:
    """The parameters after the first whose default is `False` or `None` (FunctionFact.unset)."""
    positional = [*parameters.posonly_params, *parameters.params]
    every = [*positional, *parameters.kwonly_params]
    return tuple(
        p.name.value for p in every
        if (not positional or p is not positional[0]) and isinstance(p.default, cst.Name)
        and p.default.value in ("False", "None")
    )


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _catches_import(caught: cst.BaseExpression | None) -> bool:
    """A handler that catches a failed import: bare, or naming ImportError or a base of it."""
    if caught is None:
        return True
    names = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any((get_full_name_for_node(name) or "").rpartition(".")[2] in IMPORT_CATCHERS for name in names)


def _literal(node: cst.BaseExpression) -> tuple[bool, Value]:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return True, {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return (True, value) if isinstance(value, str) else (False, None)
    if isinstance(node, (cst.Integer, cst.Float)):
        return True, node.evaluated_value
    return False, None


def _literals(node: cst.BaseExpression) -> tuple[Value, ...] | None:
    """The literal(s) a test compares with: one, or a tuple or list of them."""
    items = [element.value for element in node.elements] if isinstance(node, (cst.Tuple, cst.List)) else [node]
    if isinstance(node, (cst.Tuple, cst.List)) and any(isinstance(e, cst.StarredElement) for e in node.elements):
        return None
    found: list[Value] = []
    for item in items:
        ok, value = _literal(item)
        if not ok:
            return None
        found.append(value)
    return tuple(found)


def _strings(node: cst.BaseExpression) -> tuple[str, ...] | None:
    """A literal list, tuple or set of strings (`__lazy_modules__ = ["json"]`)."""
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return None
    out = []
    for element in node.elements:
        value = element.value
        evaluated = value.evaluated_value if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)) else None
        if isinstance(element, cst.StarredElement) or not isinstance(evaluated, str):
            return None
        out.append(evaluated)
    return tuple(out)


def _table_bindings(line: cst.CSTNode) -> list[tuple[str, Table | None]]:
    """A module-level statement's bindings of names to literal displays (or to anything else:
    None), for `module_tables`."""
    found: list[tuple[str, Table | None]] = []
    for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
        if isinstance(small, cst.Assign):
            table = _cst_table(small.value) if len(small.targets) == 1 else None
            found.extend((name.value, table) for target in small.targets for name in _target_names(target.target))
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and isinstance(small.target, cst.Name):
            value = small.value if isinstance(small, cst.AnnAssign) else None
            found.append((small.target.value, _cst_table(value) if value is not None else None))
    return found


def _key(node: cst.BaseExpression) -> str | int | None:
    """A literal key or index: a string, or a decimal integer (`-1` included)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _key(node.expression)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, cst.Integer):
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, int) else None
    return _string(node)


def _cst_table(node: cst.BaseExpression) -> Table | None:
    """A tuple, list, set or dict display, its string entries."""
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        if any(isinstance(element, cst.StarredElement) for element in node.elements):
            return Table(tuple((None, None) for _ in node.elements), is_dict=False)  # no index is sure
        return Table(tuple((text, text) for text in (_string(element.value) for element in node.elements)), is_dict=False)
    if isinstance(node, cst.Dict):
        entries: list[tuple[str | int | None, str | None]] = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return None  # `**other`: entries the display does not spell
            entries.append((_key(element.key), _string(element.value)))
        return Table(tuple(entries), is_dict=True)
    return None


def _target_names(target: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment target binds: `a`, `a, (b, *c)`."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


def _main_test(comparison: cst.Comparison) -> Test:
    """`__name__ == "__main__"` (either way round) is IsMain; `!=` its negation."""
    if len(comparison.comparisons) != 1:
        return Opaque()
    target = comparison.comparisons[0]
    if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        return Opaque()
    if {_main_side(comparison.left), _main_side(target.comparator)} != {"name", "main"}:
        return Opaque()
    return IsMain() if isinstance(target.operator, cst.Equal) else Not(IsMain())


def _main_side(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name) and node.value == "__name__":
        return "name"
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and node.evaluated_value == "__main__":
        return "main"
    return None


def _given(args: Sequence[cst.Arg], table_names: Callable[[cst.BaseExpression], tuple[str, ...]]) -> list[Given]:
    """Each argument a literal name can pass through: by position up to any `*args`, and by keyword."""
    given: list[Given] = []
    at: int | None = 0
    for arg in args:
        named = arg.value.value if isinstance(arg.value, cst.Name) else None
        if arg.star == "*":
            at = None  # positions after `*args` are unknown
        elif arg.keyword is not None and not arg.star:
            given.append((arg.keyword.value, _string(arg.value), named, table_names(arg.value)))
        elif at is not None and not arg.star:
            given.append((at, _string(arg.value), named, table_names(arg.value)))
            at += 1
    return given


def _signature(node: cst.FunctionDef, name: str) -> Signature:
    """The function's signature, a parameter its body binds again (facts.shared.rebinding) as None."""
    rebound: set[str] = set()
    pending: list[cst.CSTNode] = [node.body]
    while pending:
        inner = pending.pop()
        pending.extend(inner.children)
        rebound.update(_rebinds(inner))
    decorators = [get_full_name_for_node(d.decorator) if isinstance(d.decorator, (cst.Name, cst.Attribute)) else None for d in node.decorators]
    params = node.params
    return signature_of(
        name, [p.name.value for p in params.posonly_params], [p.name.value for p in params.params],
        [p.name.value for p in params.kwonly_params], decorators, rebound,
    )


_REBINDING = by_class(cst=True)


def _rebinds(node: cst.CSTNode) -> Iterator[str]:
    """The names one node binds, by the shared table."""
    for path, how in _REBINDING.get(type(node).__name__, ()):
        value = field(node, path)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if how == "target" and isinstance(item, cst.BaseExpression):
                yield from _target_binds(item)
            elif how in ("identifier", "identifiers") and isinstance(item, (cst.Name, cst.NameItem)):
                yield item.value if isinstance(item, cst.Name) else item.name.value
            elif how == "import" and isinstance(item, cst.ImportAlias):
                asname = item.asname.name if item.asname is not None else None
                yield asname.value if isinstance(asname, cst.Name) else (get_full_name_for_node(item.name) or "").partition(".")[0]
            elif how == "parameters" and isinstance(item, cst.Parameters):
                stars = (item.star_arg, item.star_kwarg)
                yield from (p.name.value for p in (*item.posonly_params, *item.params, *item.kwonly_params, *stars) if isinstance(p, cst.Param))


def _target_binds(target: cst.BaseExpression) -> set[str]:
    """The names a target binds (as `ast` stores them): `n`, `a, (b, *c)`; none in `x[n]`, `x.n`."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _target_binds(element.value)}
    return set()


def _first_name(args: Sequence[cst.Arg]) -> str | None:
    """The first argument when it is a plain name given by position."""
    if not args or args[0].keyword is not None or args[0].star or not isinstance(args[0].value, cst.Name):
        return None
    return args[0].value.value


def _first_string(args: Sequence[cst.Arg]) -> str | None:
    if not args or args[0].keyword is not None or args[0].star:
        return None
    return _string(args[0].value)


def _imported_argument(args: Sequence[cst.Arg]) -> cst.BaseExpression | None:
    """What a dynamic import's module name is passed as: the first argument, or `name=`."""
    if args and args[0].keyword is None:
        return None if args[0].star else args[0].value
    for arg in args:
        if arg.keyword is not None and arg.keyword.value == IMPORTED_NAME:
            return arg.value
    return None


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _string(value: cst.BaseExpression) -> str | None:
    """The value of a `str` constant: a literal in any spelling, or an f-string without
    placeholders (alone or concatenated), whose value CPython's own parser gives."""
    if not isinstance(value, _STRINGS) or not _constant_parts(value):
        return None
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)) and not _has_fstring(value):
        evaluated = value.evaluated_value
        return evaluated if isinstance(evaluated, str) else None
    try:
        tree = ast.parse("(" + cst.Module([]).code_for_node(value) + "\n)", mode="eval")
    except (SyntaxError, ValueError):
        return None
    body = tree.body
    if isinstance(body, ast.JoinedStr) and all(isinstance(p, ast.Constant) for p in body.values):
        return "".join(str(p.value) for p in body.values)  # type: ignore[attr-defined]
    return body.value if isinstance(body, ast.Constant) and isinstance(body.value, str) else None


def _constant_parts(value: cst.BaseExpression) -> bool:
    """Every part a string literal or an f-string's text: no placeholder anywhere."""
    if isinstance(value, cst.SimpleString):
        return True
    if isinstance(value, cst.ConcatenatedString):
        return _constant_parts(value.left) and _constant_parts(value.right)
    if isinstance(value, cst.FormattedString):
        return all(isinstance(part, cst.FormattedStringText) for part in value.parts)
    return False


def _has_fstring(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.ConcatenatedString):
        return _has_fstring(value.left) or _has_fstring(value.right)
    return isinstance(value, cst.FormattedString)
