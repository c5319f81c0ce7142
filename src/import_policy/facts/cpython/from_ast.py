"""The same facts as `facts.from_cst.extract` from CPython's own parser (uses through facts.uses_ast).

Every file a rule reads gets CPython's parse anyway (it decides what is a syntax error);
walking that tree costs about as much again, where libcst's parse, positions and visit
cost some thirty times that (docs/performance.md). A faster parse is fine as long as both agree:
tests/facts/test_extractors_agree.py holds this module to libcst's facts on every fixture, and
tests/pipeline/test_soundness.py the diagnostics. The ROCm pass reads these facts
(`graph_facts`), and so do the import rules (`rule_facts`); a use that could be
judged is resolved from `symtable` (facts.uses_ast), as libcst's scope analysis would.

Where `ast` does not carry a position libcst reports (a dotted name spelled with
inner spaces, `from` and its module on different lines, a decorator off its `@`
line, a call misplaced inside an f-string), the file goes to libcst instead. Where its syntax
is newer than the running interpreter's (facts.newer), only the top-level statements CPython
refuses go to libcst (facts.cst.split): this walk hands its state to libcst's collector at
each, and takes it back.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from import_policy.facts.shared import comments
from import_policy.facts.records.model import (
    BoolOp,
    Argument,
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
    Signature,
    Span,
    SyntaxErrorFact,
    Test,
    UseFact,
    Value,
)
from import_policy.facts.cpython import uses_ast
from import_policy.facts.shared.availability import VERSION_CATCHERS, none_test, spec_test, version_test
from import_policy.facts.shared.identifiers import name_pattern, normal, spelled_at
from import_policy.facts.cpython.loaders import loader_and_exports
from import_policy.facts.records.kept import CallFilter, imports_of, is_kept, kept_calls
from import_policy.facts.cpython.reads import read_names
from import_policy.facts.shared.deep import on_deep_stack, retried
from import_policy.facts.shared.tables import Table, looped, module_tables, subscripted
from import_policy.facts.shared.decoded import python_text
from import_policy.facts.source.syntax import newest_split
from import_policy.facts.shared.usegate import UseGate, bound_imports, could_matter
from import_policy.facts.shared.walkstate import (
    DYNAMIC_IMPORTERS, IMPORT_CATCHERS, IMPORTED_NAME, PACKAGE_WALKERS, Given, WalkState, compared, entry_leaf, entry_name,
    all_of, getattr_leaf, installed_after, LazySignature, settled_attributes, signature_of, written,
)
from import_policy.facts.shared.rebinding import by_class, field

if TYPE_CHECKING:
    from import_policy.facts.cst.split import Chunk, Split


_COMPOUND = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)
# `from` and its module, the module's identifiers delimited as CPython's tokenizer does (facts.identifiers)
_FROM_MODULE = re.compile(r"from[ \t]+(\.*)((?:[A-Za-z0-9_\x80-\U0010ffff]+)(?:\.[A-Za-z0-9_\x80-\U0010ffff]+)*)?")
_NEWLINES = re.compile(r"\r\n|\r|\n")


class Unsupported(Exception):
    """A spelling whose libcst position `ast` does not give; libcst must parse the file."""


def extract(
    source: bytes, path: str, module: str | None, is_package: bool, keeps: CallFilter | None = None,
    imports_only: bool = False,
) -> FileFacts | None:
    """The file's facts without uses (with `keeps`, only the calls it keeps; `imports_only`:
    only its import statements, `facts.records.kept.imports_of`); None when only libcst can give them exactly."""
    done = retried(lambda: _collect(source, path, module, is_package, chains=False, keeps=keeps, imports_only=imports_only))
    return None if done is None else done[0]


def rule_facts(
    source: bytes, path: str, module: str | None, is_package: bool, use_gate: UseGate | None
) -> FileFacts | None:
    """The facts the import rules read, exactly libcst's: with a `use_gate`, the uses it lets
    through too, resolved from `symtable` (facts.uses_ast). None: a spelling `ast` does not
    place, or a scope layout `symtable` does not match; libcst must parse the file."""
    return retried(lambda: _rule_facts(source, path, module, is_package, use_gate))


def _rule_facts(
    source: bytes, path: str, module: str | None, is_package: bool, use_gate: UseGate | None
) -> FileFacts | None:
    done = _collect(source, path, module, is_package, chains=use_gate is not None)
    if done is None:
        return None
    facts, collector, tree = done
    split = collector.split if collector is not None else None
    if use_gate is not None and split is not None and _refused_uses_matter(split, collector, facts.imports, use_gate):
        return None  # a refused statement may use an import, or bind its name: libcst's scopes decide
    chains = collector.chains if collector is not None else None
    if use_gate is None or not chains or tree is None or not _uses_could_matter(facts.imports, chains, use_gate):
        return facts
    # symtable reads the source as the tree was parsed: its `lazy` keywords blanked, and the
    # statements CPython refused blank, which spell no imported name (the tree has none there)
    source = collector.source if split is None else split.blanked.encode("utf-8")  # type: ignore[union-attr]
    uses = _uses(source, path, tree, collector, facts.imports, use_gate)  # type: ignore[arg-type]
    return None if uses is None else replace(facts, uses=uses)


def _refused_uses_matter(split: Split, collector: _Collector | None, imports: Sequence[ImportFact], gate: UseGate) -> bool:
    from import_policy.facts.cst.from_cst import chunk_uses_matter

    imported = bound_imports(imports)
    package = collector.package if collector is not None else None
    return any(chunk_uses_matter(chunk, package, imported, gate) for chunk in split.chunks)


def _uses(
    source: bytes, path: str, tree: ast.Module, collector: _Collector, imports: Sequence[ImportFact], gate: UseGate
) -> tuple[UseFact, ...] | None:
    # Each (kind, name) once: a module imported in every block of a file is one name to the gate.
    imported = {
        root: list({(fact.kind, fact.name): fact for fact in facts}.values())
        for root, facts in bound_imports(imports).items()
    }
    resolved = uses_ast.resolve(source, path, tree, set(imported))
    if resolved is None:
        return None
    uses: list[UseFact] = []
    for node, line, context, in_fstring in collector.sites:
        names = resolved.get(id(node))
        if names is None:
            continue
        text = full_name(node) or ""
        root = text.partition(".")[0]
        if not could_matter(text, root, imported.get(root, ()), gate):
            continue
        span = collector.span(node)
        if in_fstring and not collector.names_at(span.line, span.column, root):
            return None  # CPython 3.11 and older place names inside f-strings loosely
        uses.append(UseFact(names, root, span, line, context))
    uses.sort(key=lambda use: (use.span.line, use.span.column))
    return tuple(uses)


def _uses_could_matter(imports: Sequence[ImportFact], chains: dict[str, set[str]], gate: UseGate) -> bool:
    imported = bound_imports(imports)
    for root, texts in chains.items():
        facts = imported.get(root)
        # `root` alone stands for the names libcst visits where `ast` has none (parameters,
        # keywords, `as` targets): their chain is the bare name.
        if facts and any(could_matter(text, root, facts, gate) for text in {root, *texts}):
            return True
    return False


def _collect(
    source: bytes, path: str, module: str | None, is_package: bool, chains: bool, keeps: CallFilter | None = None,
    imports_only: bool = False,
) -> tuple[FileFacts, _Collector | None, ast.Module | None] | None:
    suppressions = comments.suppressions(source)
    parsed, lazy = newest_split(source, path)
    if isinstance(parsed, SyntaxErrorFact):
        return FileFacts(path, module, is_package, suppressions=suppressions, syntax_error=parsed), None, None
    split = None
    if not isinstance(parsed, ast.Module):
        # Syntax newer than this interpreter's: libcst reads the statements CPython refuses
        # (facts.cst.split) or, where they cannot be told apart, the whole file.
        from import_policy.facts.cst.split import Split

        if not isinstance(parsed, Split):
            return None
        split, parsed = parsed, parsed.tree
    if lazy is not None:
        source = lazy.source  # the `lazy` keywords blanked, as the tree was parsed
    try:
        text = python_text(source)  # as CPython read it: undecodable bytes only in comments
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None  # CPython compiled it, so this is an encoding corner libcst decides
    package = module if is_package else (module.rpartition(".")[0] if module else None)
    collector = (_ImportsOnly if imports_only else _Collector)(package, _NEWLINES.split(text), chains)
    collector.tree = parsed
    collector.source = source
    # No `global` statement without the keyword in the text as Python reads it: no body walked for one.
    collector.declares_globals = "global" in text
    if lazy is not None:
        collector.lazy_at = lazy.at
    if split is not None:
        collector.split = split
        collector.refused = split.stand_ins()
        collector.split_reads = split.reads
        collector.loaded |= split.reads
    try:
        if not imports_only:
            collector.tables.module = module_tables([b for statement in parsed.body for b in collector.table_bindings(statement)])
        collector.body(parsed.body)
    except Unsupported:
        return None
    except RecursionError:
        if not on_deep_stack():
            raise  # walked again on a deeper stack (facts.shared.deep)
        return None
    position = lambda fact: (fact.span.line, fact.span.column)  # noqa: E731 - stable source order
    if imports_only:
        imports, escapes = sorted(collector.imports, key=position), sorted(collector.escapes, key=position)
        return FileFacts(path, module, is_package, imports=tuple(imports), escapes=tuple(escapes), suppressions=suppressions), None, None
    collector.settle_probes()
    facts = FileFacts(
        path=path,
        module=module,
        is_package=is_package,
        imports=tuple(sorted(collector.imports, key=position)),
        escapes=tuple(sorted(collector.escapes, key=position)),
        decorators=tuple(sorted(collector.decorators, key=position)),
        functions=collector.kept_signatures(collector.functions),
        classes=tuple(collector.classes),
        assigns=tuple(collector.assigns),
        returns=tuple(collector.returns),
        scans=tuple(collector.scans),
        reads=tuple(sorted(collector.reads, key=position)),
        suppressions=suppressions,
    )
    # Where libcst read part of the file, the loader is read as libcst's extractor reads it.
    loader, exports = loader_and_exports(parsed if split is None else None, source, text, module, is_package)
    if loader is not None or exports:
        facts = replace(facts, loader=loader, exports=exports)
    kept = keeps(facts) if keeps is not None else None
    # A call is placed only when kept: most of a file's calls matter to no reader.
    calls = [
        CallFact(callee, tail, first, collector.span(node), line, context, arguments)
        for node, callee, tail, first, line, context, arguments in collector.calls
        if kept is None or is_kept(callee, first, arguments, kept)
    ]
    calls += [
        call for call in collector.refused_calls
        if kept is None or is_kept(call.callee, call.first_string, call.arguments, kept)
    ]
    attributes = settled_attributes(collector.attributes)
    if kept is not None:
        attributes = tuple(read for read in attributes if kept(read.qualified))
    facts = replace(facts, calls=tuple(sorted(calls, key=position)), attributes=attributes)
    return facts, collector, parsed


def graph_facts(
    source: bytes, path: str, module: str | None, is_package: bool, keeps: CallFilter | None = None,
    imports_only: bool = False,
) -> FileFacts:
    """The facts the ROCm pass reads (with `keeps`, only the calls it keeps; `imports_only`:
    what a graph of import statements alone reads, `facts.records.kept.imports_of`): from `ast`
    when it places everything, else from libcst."""
    facts = extract(source, path, module, is_package, keeps, imports_only)
    if facts is not None:
        return facts
    from import_policy.facts.cst.from_cst import extract as libcst_extract  # libcst only when needed

    whole = libcst_extract(source, path, module, is_package)
    return imports_of(whole) if imports_only else kept_calls(whole, keeps)


def full_name(node: ast.AST) -> str | None:
    """libcst's `get_full_name_for_node`, on `ast`: calls and subscripts take their callee's
    and value's name, and an attribute of anything else is spelled `None.attr`, as there."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{full_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return full_name(node.func)
    if isinstance(node, ast.Subscript):
        return full_name(node.value)
    if isinstance(node, ast.Constant) and _is_keyword_name(node):
        return str(node.value)  # libcst parses `True`, `False` and `None` as names
    return None


def absolute_module(package: str | None, module: str | None, level: int) -> str | None:
    """importlib's resolution of a relative import, as libcst's helper does it."""
    if level == 0:
        return module
    if not package:
        return None
    bits = package.rsplit(".", level - 1)
    if len(bits) < level:
        return None
    return f"{bits[0]}.{module}" if module else bits[0]


class _Collector(WalkState):
    def __init__(self, package: str | None, lines: list[str], chains: bool = False) -> None:
        super().__init__()
        self.package = package
        self.lines = lines
        # root name -> the texts of the `root.a.b` chains under it, when asked for (`uses_could_matter`)
        self.chains: dict[str, set[str]] | None = {} if chains else None
        # every such chain: (node, statement line, context, inside an f-string), for its use fact
        self.sites: list[tuple[ast.Name | ast.Attribute, int, Context, bool]] = []
        # Each call of a dotted callee: (node, callee, tail, first string argument, statement
        # line, context); placed (`span`) only if the file's reader keeps it.
        self.calls: list[tuple[ast.Call, str, str, str | None, int, Context, tuple[Argument, ...]]] = []
        self.decorators: list[DecoratorFact] = []
        self.functions: list[FunctionFact] = []
        self.classes: list[ClassFact] = []
        self._statement_line = 1
        self._statement_index = 0
        self._in_fstring = 0
        self.tree: ast.Module | None = None
        self.source = b""
        self.declares_globals = True  # whether the file's text spells `global` (else no body is walked for it)
        # Names the file reads but to compare them with None, gathered by the walk itself rather
        # than by a second walk of the whole tree for each file with a catching `try:` (`ast.walk`
        # costs more than half this walk): an import in such a `try:` is a probe only when its
        # names are not among them, which is known only once the walk is done.
        self.loaded: set[str] = set()
        self._none_tested: set[int] = set()  # ids of the names a `x is None` test reads
        # Each `try:` whose handler catches a failed import: its body, and the indices in
        # `imports` of the facts of the imports straight in it (statement id -> its `try:`).
        self._tries: list[tuple[list[ast.stmt], list[int], frozenset[str]]] = []
        self._try_of: dict[int, int] = {}
        self._probe_calls: dict[int, int] = {}  # a call straight in such a `try:` (id -> its `try:`)
        # Statements CPython refused, walked with libcst where their stand-in is (facts.cst.split):
        # the stand-in's id -> its chunk, the names they all read, the calls their walks found.
        self.split: Split | None = None
        self.refused: dict[int, Chunk] = {}
        self.split_reads: frozenset[str] = frozenset()
        self.refused_calls: list[CallFact] = []

    # --- positions ----------------------------------------------------------------

    def column(self, line: int, offset: int) -> int:
        """1-based code-point column of a UTF-8 byte offset (what `ast` gives)."""
        text = self.lines[line - 1]
        if text.isascii():
            return offset + 1
        return len(text.encode("utf-8")[:offset].decode("utf-8", "replace")) + 1

    def span(self, node: ast.expr) -> Span:
        end_line = node.end_lineno or node.lineno
        end = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return Span(node.lineno, self.column(node.lineno, node.col_offset), end_line, self.column(end_line, end))

    def spelled(self, line: int, column: int, text: str) -> Span:
        """The span of the name `text` at a 1-based column, which must spell it (in letters whose
        NFKC form it is, PEP 3131: the span is then the spelling's, `ｐickle` for `pickle`)."""
        end = spelled_at(self.lines[line - 1], column - 1, text)
        if end is None:
            raise Unsupported(text)
        return Span(line, column, line, end + 1)

    def names_at(self, line: int, column: int, name: str) -> bool:
        """Whether the source at a 1-based column starts with the identifier `name`, however spelled."""
        return spelled_at(self.lines[line - 1], column - 1, name, name_pattern()) is not None

    def text_of(self, node: ast.expr) -> str:
        """The source of an expression as written (walkstate.written)."""
        end_line = node.end_lineno or node.lineno
        end = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        start, stop = self.column(node.lineno, node.col_offset) - 1, self.column(end_line, end) - 1
        if end_line == node.lineno:
            return written(self.lines[node.lineno - 1][start:stop])
        middle = self.lines[node.lineno : end_line - 1]
        return written("\n".join([self.lines[node.lineno - 1][start:], *middle, self.lines[end_line - 1][:stop]]))

    def before(self, line: int, offset: int) -> str:
        """What stands on the line before a byte offset."""
        return self.lines[line - 1][: self.column(line, offset) - 1]

    # --- where we are -------------------------------------------------------------


    def _enter(self, name: str | None = None, function: bool = False, branch: Branch | None = None) -> None:
        if name is not None:
            self.names.append(name)
            self.scopes.append(function)
        self.function_depth += function
        if branch is not None:
            self.branches.append(branch)
        self.changed()

    def _leave(self, name: str | None = None, function: bool = False, branch: Branch | None = None) -> None:
        if name is not None:
            self.names.pop()
            self.scopes.pop()
        self.function_depth -= function
        if branch is not None:
            self.branches.pop()
        self.changed()

    # --- statements ---------------------------------------------------------------

    def body(self, statements: Sequence[ast.stmt]) -> None:
        """A block, grouped as libcst groups it: one statement line per `;`-joined line, none
        for a one-line suite (`if x: import a`), whose facts take the header's line."""
        if not statements:
            return
        first = statements[0]
        if self.before(first.lineno, first.col_offset).strip():
            for statement in statements:  # a suite: `else: a; b`
                self.statement(statement)
            return
        outer = self._statement_line
        previous: ast.stmt | None = None  # the simple statement before, which a `;` may join
        exits = 0
        for statement in statements:
            compound = isinstance(statement, _COMPOUND) or id(statement) in self.refused
            if compound or previous is None or not self.joined(previous):
                self._statement_index += 1
                self._statement_line = statement.lineno
            self.statement(statement)
            previous = None if compound else statement
            version = self.version_calls.pop(id(statement), None)
            if version is not None:
                self.after_version(version, statement.lineno)
                exits += 1
            if _exits_early(statement):
                test = statement.test  # type: ignore[attr-defined]
                self.early_exit(self.test_of(test), statement.lineno, self.text_of(test))
                exits += 1
        for _ in range(exits):
            self.branches.pop()
        if exits:
            self.changed()
        self._statement_line = outer

    def joined(self, previous: ast.stmt) -> bool:
        """Whether a `;` follows the statement: the next one is on its logical line."""
        line = previous.end_lineno or previous.lineno
        if ";" not in self.lines[line - 1]:
            return False
        end = previous.end_col_offset if previous.end_col_offset is not None else previous.col_offset
        rest = self.lines[line - 1][self.column(line, end) - 1 :]
        return rest.lstrip(" \t\f").startswith(";")

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in self.may_raise:
            self.enter_skippable()  # its binding happens only where it does not raise
            self.import_(node) if isinstance(node, ast.Import) else self.import_from(node)
            self.leave_skippable()
        elif isinstance(node, ast.Import):
            self.import_(node)
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node)
        elif isinstance(node, ast.ClassDef):
            self.class_(node)
        elif isinstance(node, ast.If):
            self.expression(node.test)
            test = self.test_of(node.test)
            text = self.text_of(node.test)
            self._block(node.body, Branch(test, orelse=False, line=node.lineno, text=text))
            self._block(node.orelse, Branch(test, orelse=True, line=node.lineno, text=text))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.enter_skippable()
            self.loop(node)
            self.leave_skippable()
        elif isinstance(node, _TRIES):
            self.try_(node)
        elif isinstance(node, _SKIPPABLE):
            self.enter_skippable()
            self.generic(node)
            self.leave_skippable()
        elif self.refused and id(node) in self.refused:
            self.walk_refused(self.refused[id(node)])
        elif isinstance(node, ast.AnnAssign):
            self.assignment(node)
            self.expression(node.target)
            self.annotation(node.annotation, evaluated=not self.in_function_scope())
            if node.value is not None:
                self.expression(node.value)
        else:
            self.assignment(node)
            self.generic(node)

    def try_(self, node: ast.stmt) -> None:
        body: list[ast.stmt] = node.body  # type: ignore[attr-defined]
        catches = _catches_import(node)
        if catches:
            probing = _probing(body)
            for statement in probing:
                self._try_of[id(statement)] = len(self._tries)
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                    self._probe_calls[id(statement.value)] = len(self._tries)  # `import_module("x")`
            self._tries.append((probing, [], _handler_definitions(node)))
        if _catches_version(node):
            self.version_calls.update(self.versions_in(body))
        tried = _tried_imports(body) if catches else {}
        self.version_calls.update(tried)
        # `else:` runs, and with handlers that all leave, the rest of the block, only where
        # every import the body tries is installed.
        succeeded = all_of(tried.values())
        # A body of imports and constants raises only where an import fails: its catching
        # handlers run exactly where one is not installed, and nothing else in it is skipped.
        failed = Branch(succeeded, orelse=True, early=True, line=node.lineno) \
            if succeeded is not None and _imports_and_constants(body) else None
        plain = failed is not None
        if plain:
            self.may_raise.update(tried)
        self.try_depth += 1
        if not plain:
            self.enter_skippable()
        start = len(self.imports)
        self.body(body)
        imported = self.imported_since(start)
        for handler in node.handlers:  # type: ignore[attr-defined]
            self.handler(handler, imported, failed)
        if succeeded is not None:
            self._block(node.orelse, Branch(succeeded, orelse=False, early=True, line=node.lineno))  # type: ignore[attr-defined]
            if _handlers_leave(node):
                self.version_calls[id(node)] = succeeded
        else:
            self.body(node.orelse)  # type: ignore[attr-defined]
        self.body(node.finalbody)  # type: ignore[attr-defined]
        if not plain:
            self.leave_skippable()
        self.try_depth -= 1

    def handler(self, handler: ast.ExceptHandler, imported: tuple[str, ...], failed: Branch | None) -> None:
        """A handler; `failed`: in a `try:` of imports and constants, the branch where one of
        them is not installed (its catching handlers run there; no other handler can)."""
        catches = _handler_catches(handler)
        if imported and catches:
            self.fallbacks.append(imported)
        if failed is not None and catches:
            self._enter(branch=failed)
        elif failed is not None:
            self.enter_skippable()
        self.generic(handler)
        if failed is not None and catches:
            self._leave(branch=failed)
        elif failed is not None:
            self.leave_skippable()
        if imported and catches:
            self.fallbacks.pop()

    def walk_refused(self, chunk: Chunk) -> None:
        """A statement CPython refused, walked by libcst's collector with this walk's state."""
        from import_policy.facts.cst.from_cst import walk_chunk

        assert self.tree is not None
        walked = walk_chunk(self, chunk, self.package, self.lines, self.tree, self._statement_index, self.split_reads)
        self._statement_index = walked.statement_index
        self.refused_calls += walked.calls
        self.reads += walked.reads

    def table_bindings(self, statement: ast.stmt) -> list[tuple[str, Table | None]]:
        if self.refused and id(statement) in self.refused:
            from import_policy.facts.cst.from_cst import chunk_tables

            return chunk_tables(self.refused[id(statement)])
        return _table_bindings(statement)

    def assignment(self, node: ast.stmt) -> None:
        """Module-level bindings (facts.model.AssignFact) and returns (ReturnFact)."""
        if isinstance(node, ast.Return):
            if isinstance(node.value, ast.Tuple) and node.value.elts and not isinstance(node.value.elts[0], ast.Starred):
                self.returned(self.condition(node.value.elts[0]), node.lineno, first=True)
                return
            value = Leaf("None", "None") if node.value is None else self.condition(node.value)
            self.returned(value, node.lineno)
            return
        if not self.module_level():
            self.local_assignment(node)
            return  # only a module-level binding is a fact (`bind`): its value is not read elsewhere
        if isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "__lazy_modules__" for t in node.targets):
                self.assigned_lazy_modules(_strings(node.value))
            for target in node.targets:
                value = self.condition(node.value) if isinstance(target, (ast.Name, ast.Subscript)) else Opaque()
                for name in _target_names(target):
                    self.bind(name.id, value, name.lineno)
                    if isinstance(target, ast.Name):
                        self.bind_entries(name.id, self.entries(node.value), name.lineno)
                entry = self.entry_target(target)
                if entry is not None:
                    self.bind(entry, value, target.lineno)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            self.bind(node.target.id, self.condition(node.value), node.target.lineno)
            self.bind_entries(node.target.id, self.entries(node.value), node.target.lineno)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self.bind(node.target.id, Opaque(), node.target.lineno)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                for name in _target_names(target):
                    self.bind(name.id, Opaque(), name.lineno, removed=True)
                entry = self.entry_target(target)
                if entry is not None:
                    self.bind(entry, Opaque(), target.lineno, removed=True)

    def versions_in(self, body: list[ast.stmt]) -> dict[int, Installed]:
        """The statements of a `try:` body that call `importlib.metadata.version("x")` (alone,
        or bound to a name), each with the test it stands for."""
        found: dict[int, Installed] = {}
        for statement in body:
            value = statement.value if isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Call) and _named(value.func):
                dotted = full_name(value.func)
                test = version_test(self.qualify(dotted), _first_string(value)) if dotted is not None else None
                if test is not None:
                    found[id(statement)] = test
        return found

    def local_assignment(self, node: ast.stmt) -> None:
        """A function-local binding of an availability test (`facts.shared.availability.Locals`)."""
        function = self.context().function
        if function is None:
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
            for name in (name for target in targets for name in _target_names(target)):
                self.locals.bind(function, name.id, Opaque(), False)
            return
        if isinstance(target, ast.Name):
            spec = self.spec_value(value)
            self.locals.bind(function, target.id, spec if spec is not None else self.condition(value), spec is not None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            called = self.condition(value) if isinstance(value, ast.Call) else Opaque()
            for index, item in enumerate(target.elts):
                if isinstance(item, ast.Name):
                    taken: Test = replace(called, first=True) if index == 0 and isinstance(called, Leaf) and called.call else Opaque()
                    self.locals.bind(function, item.id, taken, False)

    def entries(self, value: ast.expr) -> list[tuple[object, Test]] | None:
        """A dict display's literal keys and their values read as conditions."""
        if not isinstance(value, ast.Dict):
            return None
        return [
            (key.value, self.condition(item)) for key, item in zip(value.keys, value.values)
            if isinstance(key, ast.Constant)
        ]

    def entry_target(self, target: ast.expr) -> str | None:
        """`env["k"] = ...` (a name's entry with a literal key): the entry's name."""
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = target.slice
            return entry_name(target.value.id, key.value) if isinstance(key, ast.Constant) else None
        return None

    def table_names(self, argument: ast.expr) -> tuple[str, ...]:
        """The strings an argument takes from a literal table."""
        if isinstance(argument, ast.Name):
            return self.tables.names_of(argument.id)
        if isinstance(argument, ast.Subscript) and isinstance(argument.value, ast.Name):
            table = self.tables.module.get(argument.value.id)
            key = _ast_key(argument.slice)
            if table is not None and key is not None:
                value = subscripted(table, key)
                return (value,) if value is not None else ()
        return ()

    def loop(self, node: ast.For | ast.AsyncFor) -> None:
        self.tables.enter_loop([name.id for name in _target_names(node.target)], self._looped(node))
        try:
            self._loop(node)
        finally:
            self.tables.leave_loop()

    def _looped(self, node: ast.For | ast.AsyncFor) -> tuple[tuple[str, ...], ...]:
        walked, method = node.iter, None
        if isinstance(node.iter, ast.Call) and not node.iter.args and isinstance(node.iter.func, ast.Attribute):
            walked, method = node.iter.func.value, node.iter.func.attr
        table = _ast_table(walked) if not isinstance(walked, ast.Name) else self.tables.module.get(walked.id)
        if table is None or not isinstance(node.target, (ast.Name, ast.Tuple)):
            return ()
        return looped(table, method, len(node.target.elts) if isinstance(node.target, ast.Tuple) else 1)

    def _loop(self, node: ast.For | ast.AsyncFor) -> None:
        for name in _target_names(node.target):
            self.bind(name.id, Opaque(), name.lineno)
        context = self.context()
        walked = node.iter
        package = None
        is_walk = False
        if isinstance(walked, ast.Call) and _named(walked.func):
            dotted = full_name(walked.func)
            is_walk = dotted is not None and self.qualify(dotted) in PACKAGE_WALKERS
            if is_walk and walked.args and _named(walked.args[0]):
                package = self.walked_package(full_name(walked.args[0]))
        before = self.computed_imports
        self.generic(node)
        if is_walk:
            self.scanned(package, node.lineno, context, self.computed_imports - before)

    def _block(self, statements: list[ast.stmt], branch: Branch) -> None:
        if not statements:
            return
        self._enter(branch=branch)
        self.body(statements)
        self._leave(branch=branch)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        line = normal(self.lines[node.lineno - 1])  # found, not placed: NFKC may move columns
        if line.find(node.name, line.find("def") + 3) < 0 or "def" not in line:
            raise Unsupported("`def` and its name on different lines")
        name = ".".join([*self.names, node.name])
        self.define(
            FunctionFact(
                name, node.lineno, self.context(), _globals(node.body) if self.declares_globals else (),
                unset=_unset(node.args),
            ),
            _signature(node, name),
        )
        self.type_params(node)
        self.decorators_of(node.decorator_list)
        self.arguments(node.args)
        if node.returns is not None:
            self.annotation(node.returns)
        self._enter(node.name, function=True)
        self.body(node.body)
        self._leave(node.name, function=True)

    def class_(self, node: ast.ClassDef) -> None:
        line = normal(self.lines[node.lineno - 1])
        if line.find(node.name, line.find("class") + 5) < 0 or "class" not in line:
            raise Unsupported("`class` and its name on different lines")
        bases = tuple(self.qualify(dotted) for dotted in (full_name(b) for b in node.bases if _named(b)) if dotted)
        self.classes.append(ClassFact(".".join([*self.names, node.name]), bases, node.lineno, self.context()))
        self.bind(node.name, Opaque(), node.lineno)
        self.type_params(node)
        self.decorators_of(node.decorator_list)
        for base in node.bases:
            self.expression(base)
        for keyword in node.keywords:
            self.generic(keyword)
        self._enter(node.name)
        self.body(node.body)
        self._leave(node.name)

    def arguments(self, node: ast.arguments) -> None:
        self.generic(node)

    def annotation(self, node: ast.expr, evaluated: bool = True) -> None:
        """An annotation (`AttributeFact.annotation`): a function body's variable's is never
        evaluated (`evaluated` False)."""
        self.open_annotation(evaluated)
        self.expression(node)
        self.close_annotation()

    def decorators_of(self, decorators: Iterable[ast.expr]) -> None:
        for decorator in decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            dotted = full_name(target) if _named(target) else None
            if dotted is not None:
                if self.before(decorator.lineno, decorator.col_offset).strip() != "@":
                    raise Unsupported("a decorator not on its `@` line")
                self.decorators.append(
                    DecoratorFact((self.qualify(dotted),), self.span(target), decorator.lineno, self.context())
                )
            self.expression(decorator)

    # --- imports ------------------------------------------------------------------

    def only_probes(self, body: list[ast.stmt], defined: frozenset[str] = frozenset()) -> bool:
        """Every import straight in the `try:` binds names the file never reads: the `try:` is
        there to see whether they import (one whose names are used is an optional import, and
        so is one whose names a handler defines again: the module provides them either way)."""
        loaded = self.loaded | defined
        for statement in body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                for alias in statement.names:
                    if alias.name == "*":
                        return False
                    plain = isinstance(statement, ast.Import) and alias.asname is None
                    if (alias.asname or (alias.name.split(".")[0] if plain else alias.name)) in loaded:
                        return False
        return True

    def probed(self, node: ast.stmt) -> None:
        """The import just recorded stands straight in a catching `try:`: a probe if that
        `try:` turns out to be one (`settle_probes`)."""
        at = self._try_of.get(id(node))
        if at is not None:
            self._tries[at][1].append(len(self.imports) - 1)

    def settle_probes(self) -> None:
        """Once the whole file is walked: an import straight in a catching `try:` whose imports
        all bind names the file never reads is a probe."""
        for _, indices, _ in self._tries:
            for index in indices:
                self.imports[index] = replace(self.imports[index], caught=True)
        for body, indices, defined in self._tries:
            if indices and self.only_probes(body, defined):
                for index in indices:
                    fact = self.imports[index]
                    if fact.bound is None or fact.bound not in self.loaded:
                        self.imports[index] = replace(fact, probe=True)

    def type_params(self, node: ast.AST) -> None:
        """PEP 695's parameters, which the walk does not visit: what they read still counts."""
        for param in getattr(node, "type_params", None) or ():
            self.loaded.update(read_names(param))

    def lazy_keyword(self, node: ast.stmt) -> bool:
        return bool(self.lazy_at) and (node.lineno, self.column(node.lineno, node.col_offset)) in self.lazy_at

    def import_(self, node: ast.Import) -> None:
        context = self.context()
        keyword = self.lazy_keyword(node)
        for alias in node.names:
            name = alias.name
            span = self.spelled(alias.lineno, self.column(alias.lineno, alias.col_offset), name)
            bound = alias.asname or name.split(".")[0]
            fact = ImportFact(
                kind="import", name=name, module=name, member=None, bound=bound,
                span=span, module_span=span, statement=self._statement_index,
                statement_line=self._statement_line, context=context,
            )
            self.record(fact, name if alias.asname else name.split(".")[0], keyword)
            self.probed(node)

    def import_from(self, node: ast.ImportFrom) -> None:
        level = node.level or 0
        module = absolute_module(self.package, node.module, level)
        if module is None and not level:
            return
        start = self.column(node.lineno, node.col_offset)
        found = _FROM_MODULE.match(self.lines[node.lineno - 1], start - 1)
        if found is None or len(found.group(1)) != level or (normal(found.group(2) or "") or None) != node.module:
            raise Unsupported("`from` and its module not spelled on one line")
        begin, end = (found.start(1), found.end()) if level else found.span(2)
        module_span = Span(node.lineno, begin + 1, node.lineno, end + 1)
        context = self.context()
        if module is None:
            self.escapes.append(ImportFact(
                kind="from", name=node.module or "", module="", member=None, bound=None, span=module_span,
                module_span=module_span, statement=self._statement_index, statement_line=self._statement_line,
                context=context, level=level,
            ))
            return

        def fact(name: str, member: str, bound: str | None, span: Span) -> ImportFact:
            return ImportFact(
                kind="from", name=name, module=module or "", member=member, bound=bound, span=span,
                module_span=module_span, statement=self._statement_index, statement_line=self._statement_line,
                context=context, level=level,
            )

        keyword = self.lazy_keyword(node)
        for alias in node.names:
            if alias.name == "*":
                self.imports.append(fact(module, "*", None, module_span))
                self.probed(node)  # caught where a `try:` catches its failure, as libcst's walk says
                return
            name = f"{module}.{alias.name}"
            span = self.spelled(alias.lineno, self.column(alias.lineno, alias.col_offset), alias.name)
            bound = alias.asname or alias.name
            self.record(fact(name, alias.name, bound, span), name, keyword)
            self.probed(node)

    # --- expressions --------------------------------------------------------------

    def condition(self, expression: ast.expr) -> Test:
        """An assigned or returned value read as a condition; too deep to read is Opaque."""
        try:
            return self.test_of(expression)
        except RecursionError:
            return Opaque()

    def test_of(self, expression: ast.expr) -> Test:
        if isinstance(expression, ast.BoolOp):
            op: Literal["and", "or"] = "and" if isinstance(expression.op, ast.And) else "or"
            # libcst nests `a and b and c` as `(a and b) and c`.
            folded = self.test_of(expression.values[0])
            for operand in expression.values[1:]:
                folded = BoolOp(op, (folded, self.test_of(operand)))
            return folded
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.Not):
            return Not(self.test_of(expression.operand))
        if isinstance(expression, ast.Compare):
            main = _main_test(expression)
            return main if not isinstance(main, Opaque) else self.comparison(expression)
        read = self.getattr_of(expression) or self.entry_of(expression)
        if read is not None:
            return read
        if isinstance(expression, ast.Name):
            local = self.locals.read(self.context().function, expression.id)
            if local is not None:
                return local.test
        if isinstance(expression, ast.Subscript) and isinstance(expression.value, ast.Call):
            return self.first_of(expression)
        target = expression.func if isinstance(expression, ast.Call) else expression
        dotted = full_name(target) if _named(target) else None
        if dotted is None:
            return Opaque()
        if isinstance(expression, ast.Call):
            return self.call_test(expression, dotted)
        return Leaf(dotted.rpartition(".")[2], self.qualify(dotted), False, isinstance(target, ast.Attribute))

    def call_test(self, call: ast.Call, dotted: str) -> Test:
        """A call read as a test: `find_spec("x")` is whether `x` is found; any other call keeps its
        literal first argument, or that it passes on its function's first parameter."""
        qualified = self.qualify(dotted)
        argument = _first_string(call)
        named = call.args[0].id if call.args and isinstance(call.args[0], ast.Name) else None
        passes = argument is None and self.passes_first(named)
        spec = spec_test(qualified, argument, passes)
        if spec is not None:
            return spec
        alone = len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred)
        return Leaf(
            dotted.rpartition(".")[2], qualified, True, isinstance(call.func, ast.Attribute), argument, passes, False,
            alone,
        )

    def first_of(self, node: ast.Subscript) -> Test:
        """`f("x")[0]`: the first item of what the call returns."""
        called = self.test_of(node.value)
        if isinstance(node.slice, ast.Constant) and node.slice.value == 0 and type(node.slice.value) is int:
            if isinstance(called, Leaf) and called.call:
                return replace(called, first=True)
        return Opaque()

    def spec_value(self, node: ast.expr) -> Test | None:
        """The test a find_spec value stands for: `find_spec("x")` itself, or a local `spec` bound to one."""
        if isinstance(node, ast.Name):
            local = self.locals.read(self.context().function, node.id)
            return local.test if local is not None and local.spec else None
        if isinstance(node, ast.Call) and _named(node.func):
            dotted = full_name(node.func)
            found = self.call_test(node, dotted) if dotted is not None else None
            return found if isinstance(found, Installed) else None
        return None

    def subject(self, node: ast.expr) -> Leaf | None:
        """A compared name: a name, an attribute, or `getattr(obj, "name", default)`."""
        read = self.getattr_of(node) or self.entry_of(node)
        if read is not None:
            return read
        if not isinstance(node, (ast.Name, ast.Attribute)) or _literal(node)[0]:
            return None
        dotted = full_name(node)
        if dotted is None:
            return None
        return Leaf(dotted.rpartition(".")[2], self.qualify(dotted), False, isinstance(node, ast.Attribute))

    def entry_of(self, node: ast.expr) -> Leaf | None:
        """`env["k"]` or `env.get("k"[, default])`: a dict entry read with a literal key."""
        if isinstance(node, ast.Subscript) and _named(node.value) and isinstance(node.slice, ast.Constant):
            owner, key = node.value, node.slice.value
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and _named(node.func.value) and len(node.args) in (1, 2) and not node.keywords
            and isinstance(node.args[0], ast.Constant)
        ):
            owner, key = node.func.value, node.args[0].value
        else:
            return None
        dotted = full_name(owner)
        if dotted is None:
            return None
        return entry_leaf(dotted, self.qualify(dotted), key, isinstance(owner, ast.Attribute))

    def getattr_of(self, node: ast.expr) -> Leaf | None:
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) in (2, 3) and not node.keywords and _named(node.args[0])
        ):
            return None
        name = node.args[1]
        dotted = full_name(node.args[0])
        if dotted is None or not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        return getattr_leaf(self.qualify(dotted), name.value)

    def comparison(self, compare: ast.Compare) -> Test:
        """`DEVICE_TYPE == "hip"`, `"hip" != DEVICE_TYPE`, `x in ("a", "b")`, `v is None`."""
        if len(compare.ops) != 1:
            return Opaque()
        op = _OPERATORS.get(type(compare.ops[0]))
        left, right = compare.left, compare.comparators[0]
        if op is None:
            return Opaque()
        if op in ("is", "is not", "==", "!=") and _is_none(right) != _is_none(left):
            spec = self.spec_value(left if _is_none(right) else right)
            tested = none_test(spec, op in ("is not", "!=")) if spec is not None else None
            if tested is not None:
                return tested
        if op in ("==", "!=", "is", "is not") and _literals(right) is None and _literals(left) is not None:
            left, right = right, left
        literals = _literals(right)
        single = not isinstance(right, (ast.Tuple, ast.List))
        return compared(self.subject(left), op, literals, single)

    def expression(self, node: ast.AST) -> None:
        """An expression, in the order a recursive visit takes (facts at one position keep
        it), with a stack: most of a file's nodes are here, and a call per node is most of
        their cost. Only calls, names (reads) and what changes the context stop the walk."""
        stack: list[ast.AST | None] = [node]
        pop, push, extend = stack.pop, stack.append, stack.extend
        lazy, chains, loaded, none_tested = self.lazy_names, self.chains, self.loaded, self._none_tested
        aliases = self.aliases
        while stack:
            current: Any = pop()  # any node of an expression (or None, a missing dict key)
            kind = type(current)
            if kind is ast.Constant or current is None:
                continue
            if kind is ast.Name or kind is ast.Attribute:
                root = current
                while type(root) is ast.Attribute:
                    root = root.value
                if type(root) is not ast.Name:
                    push(root)  # `f().a.b`: only the innermost value holds anything
                    continue
                name: str = root.id
                if type(root.ctx) is ast.Load:
                    if not none_tested or id(root) not in none_tested:
                        loaded.add(name)
                    if lazy:
                        self.read(name, self.span(root), self._statement_line)
                    if current is not root and name in aliases:
                        self.chain_read(current, root)
                if chains is not None:
                    chains.setdefault(name, set()).add(name if current is root else f"{full_name(current)}")
                    self.sites.append((current, self._statement_line, self.context(), self._in_fstring > 0))
                continue
            if kind is ast.Call:
                self.call(current)
            elif kind is ast.Compare:
                self.none_test(current)
            elif kind is ast.Lambda:
                self.arguments(current.args)
                self._enter("<lambda>", function=True)
                self.expression(current.body)
                self._leave("<lambda>", function=True)
                continue
            elif kind is ast.JoinedStr:
                # CPython 3.11 and older place nodes inside f-strings loosely; those calls are checked.
                self._in_fstring += 1
                self.generic(current)
                self._in_fstring -= 1
                continue
            for field in _walked_of(kind):  # last first: the stack gives them back in order
                value = getattr(current, field)
                if type(value) is list:
                    extend(reversed(value))
                elif isinstance(value, ast.AST):
                    push(value)

    def chain_read(self, chain: ast.Attribute, root: ast.Name) -> None:
        """`pkg.Model` read (`facts.records.model.AttributeFact`); `pkg.a.b = x` reads `pkg.a`."""
        read: ast.expr = chain
        if type(chain.ctx) is not ast.Load:
            read = chain.value
            if type(read) is not ast.Attribute:
                return
        dotted = full_name(read)
        if dotted is not None:
            self.add_attribute(self.attribute(dotted, root.lineno))

    def getattr_read(self, node: ast.Call, dotted: str, callee: str) -> None:
        """`getattr(pkg, "name"[, default])`, `hasattr(pkg, "name")`: a read of `pkg.name`."""
        if dotted != callee or dotted not in _ATTRIBUTE_READERS or node.keywords:
            return
        if len(node.args) not in ((2, 3) if dotted == "getattr" else (2,)) or not _named(node.args[0]):
            return
        owner = full_name(node.args[0])
        if owner is None or owner.partition(".")[0] not in self.aliases:
            return
        name = node.args[1]
        text = _string(name)
        if text is not None:
            self.add_attribute(self.attribute(f"{owner}.{text}", node.lineno))
            return
        taken = self.table_names(name)  # a loop over a literal table
        for each in taken:
            self.add_attribute(self.attribute(f"{owner}.{each}", node.lineno))
        if not taken:
            self.add_attribute(self.attribute(owner, node.lineno, computed=True))

    def none_test(self, compare: ast.Compare) -> None:
        """`x is None` (or `==`, `!=`, `is not`) reads `x` only to test it (`facts.reads`)."""
        if len(compare.ops) == 1 and type(compare.ops[0]) in _NONE_TESTS:
            sides = (compare.left, compare.comparators[0])
            if any(isinstance(side, ast.Constant) and side.value is None for side in sides):
                self._none_tested.update(id(side) for side in sides if type(side) is ast.Name)

    def generic(self, node: ast.AST) -> None:
        for field in _fields_of(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                if value and isinstance(value[0], ast.stmt):
                    self.body(value)
                    continue
                for item in value:
                    if isinstance(item, ast.AST):
                        self.child(item)
            elif isinstance(value, ast.AST):
                self.child(value)

    def child(self, node: ast.AST) -> None:
        if isinstance(node, ast.expr):
            self.expression(node)
        elif isinstance(node, ast.stmt):
            self.statement(node)
        elif isinstance(node, ast.arg):
            if node.annotation is not None:
                self.annotation(node.annotation)
        elif isinstance(node, ast.match_case):
            if node.guard is not None:
                self.expression(node.guard)
            self.generic(node.pattern)
            self.body(node.body)
        elif not isinstance(node, ast.expr_context):
            self.generic(node)  # arguments, keywords, comprehensions, handlers, with items, patterns

    def _placed(self, func: ast.expr, span: Span) -> bool:
        """Whether the source at the span starts with the callee's leftmost name."""
        root = _leftmost(func)
        return not isinstance(root, ast.Name) or self.names_at(span.line, span.column, root.id)

    def call(self, node: ast.Call) -> None:
        dotted = full_name(node.func) if _named(node.func) else None
        if dotted is None:
            return
        callee = self.qualify(dotted)
        if dotted in _ATTRIBUTE_READERS:
            self.getattr_read(node, dotted, callee)
        first = _first_string(node)
        context = self.context()
        line = self._statement_line
        if self._in_fstring and not self._placed(node.func, self.span(node)):
            raise Unsupported("a call misplaced inside an f-string")
        # A name from a literal table is a literal name: the call once for each it can take.
        for taken, arguments in self.call_variants(_given(node, self.table_names)):
            self.calls.append((node, callee, dotted.rpartition(".")[2], taken, line, context, arguments))
        dynamic = callee in DYNAMIC_IMPORTERS or dotted in DYNAMIC_IMPORTERS
        argument = _imported_argument(node) if dynamic else None
        imported = _string(argument) if argument is not None else None
        if dynamic and imported is None:
            self.computed_imports += 1
        if argument is not None and imported and not imported.startswith("."):
            arg_span = self.span(argument)
            self.imports.append(
                ImportFact(
                    kind="dynamic", name=imported, module=imported, member=None, bound=None, span=arg_span,
                    module_span=arg_span, statement=self._statement_index, statement_line=line, context=context,
                )
            )
            at = self._probe_calls.get(id(node))
            if at is not None:
                self._tries[at][1].append(len(self.imports) - 1)


# Builtins that read an attribute by a name given as a string (`AttributeFact`).
_ATTRIBUTE_READERS = frozenset({"getattr", "hasattr"})
_TRIES: tuple[type[ast.stmt], ...] = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_OPERATORS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}


class _ImportsOnly(_Collector):
    """The walk over statements alone, for `kept.imports_of`: every block is entered as the full
    walk enters it (so each import's context is the same), no expression is read."""

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom, *_COMPOUND)) or (self.refused and id(node) in self.refused):
            super().statement(node)  # any other statement holds no import and no block (a refused one: libcst's walk)
        elif isinstance(node, ast.Assign) and self.module_level() and any(
            isinstance(target, ast.Name) and target.id == "__lazy_modules__" for target in node.targets
        ):
            self.assigned_lazy_modules(_strings(node.value))  # which imports are lazy (PEP 810)

    def expression(self, node: ast.AST) -> None:
        return

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._enter(node.name, function=True)
        self.body(node.body)
        self._leave(node.name, function=True)

    def class_(self, node: ast.ClassDef) -> None:
        self._enter(node.name)
        self.body(node.body)
        self._leave(node.name)

    def loop(self, node: ast.For | ast.AsyncFor) -> None:
        self.generic(node)


def _tried_imports(body: list[ast.stmt]) -> dict[int, Test]:
    """The absolute imports straight in a `try:` body, each with the test that the modules it
    imports are installed: where one is not, the import raises and the rest of the body does
    not run."""
    found: dict[int, Test] = {}
    for statement in body:
        names = [alias.name for alias in statement.names] if isinstance(statement, ast.Import) else \
            [statement.module] if isinstance(statement, ast.ImportFrom) and not statement.level and statement.module else []
        test = installed_after(names)
        if test is not None:
            found[id(statement)] = test
    return found


def _imports_and_constants(body: list[ast.stmt]) -> bool:
    """A `try:` body that can raise nothing but a failed import: absolute imports, `pass`, and
    names bound to constants (`HAS_X = True`)."""
    for statement in body:
        if isinstance(statement, ast.Import) or (isinstance(statement, ast.ImportFrom) and not statement.level):
            continue
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and all(
            isinstance(target, ast.Name) for target in statement.targets
        ):
            continue
        return False
    return True


def _handlers_leave(node: ast.stmt) -> bool:
    """Every handler of a failed import ends in `return` or `raise`."""
    catching = [handler for handler in getattr(node, "handlers", ()) if _handler_catches(handler)]
    return bool(catching) and all(isinstance(handler.body[-1], (ast.Return, ast.Raise)) for handler in catching)


def _catches_import(node: ast.stmt) -> bool:
    """A `try:` with a handler that catches a failed import."""
    return any(_handler_catches(handler) for handler in getattr(node, "handlers", ()))


def _catches_version(node: ast.stmt) -> bool:
    """A `try:` with a handler that catches PackageNotFoundError (or a base of it, or bare)."""
    for handler in getattr(node, "handlers", ()):
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any((full_name(n) or "").rpartition(".")[2] in VERSION_CATCHERS for n in names):
            return True
    return False


def _unset(arguments: ast.arguments) -> tuple[str, ...]:
    """The parameters after the first whose default is `False` or `None` (FunctionFact.unset)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaulted = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
    defaulted += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
    return tuple(
        a.arg for a, default in defaulted
        if (not positional or a is not positional[0]) and isinstance(default, ast.Constant) and (default.value is False or default.value is None)
    )


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _handler_catches(handler: ast.ExceptHandler) -> bool:
    """A handler that catches a failed import: bare, or naming ImportError or a base of it."""
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return caught is None or any(
        (full_name(name) or "").rpartition(".")[2] in IMPORT_CATCHERS for name in names if name is not None
    )


_KEYWORD_VALUES: dict[str, Value] = {"True": True, "False": False, "None": None}


def _literal(node: ast.expr) -> tuple[bool, Value]:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float, bool))):
        return True, node.value
    if isinstance(node, ast.Name) and node.id in _KEYWORD_VALUES:
        # `Ｎone`: not the keyword (keywords are matched as spelled) but the name `None`, which
        # holds the constant; libcst's extractor reads its normalized name the same way.
        return True, _KEYWORD_VALUES[node.id]
    return False, None


def _literals(node: ast.expr) -> tuple[Value, ...] | None:
    """The literal(s) a test compares with: one, or a tuple or list of them."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    found: list[Value] = []
    for item in items:
        ok, value = _literal(item)
        if not ok:
            return None
        found.append(value)
    return tuple(found)


def _strings(node: ast.expr) -> tuple[str, ...] | None:
    """A literal list, tuple or set of strings (`__lazy_modules__ = ["json"]`)."""
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return None
    out = []
    for item in node.elts:
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            return None
        out.append(item.value)
    return tuple(out)




_SKIPPED_FIELDS = frozenset({"ctx", "type_comment", "kind"})
_FIELDS: dict[type, tuple[str, ...]] = {}
_WALKED: dict[type, tuple[str, ...]] = {}
# Comparisons a probe's name may take part in without being read (facts.reads).
_NONE_TESTS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)


def _fields_of(kind: type) -> tuple[str, ...]:
    """The fields of a node type that can hold nodes worth a visit."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in getattr(kind, "_fields", ()) if f not in _SKIPPED_FIELDS)
    return fields


def _walked_of(kind: type) -> tuple[str, ...]:
    """The fields an expression's walk visits, last first; operators hold nothing."""
    fields = _WALKED.get(kind)
    if fields is None:
        fields = _WALKED[kind] = tuple(reversed([f for f in _fields_of(kind) if f not in ("op", "ops")]))
    return fields


_SKIPPABLE: tuple[type[ast.stmt], ...] = (
    ast.While, ast.With, ast.AsyncWith, *((ast.Match,) if hasattr(ast, "Match") else ()),
)


def _probing(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a `try:` body an inline probe may stand in: straight in it, or under
    `if`s there (`try:` / `if sys.platform != "darwin":` / `import xformers`)."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, ast.If):
            found.extend(_probing(statement.body))
            found.extend(_probing(statement.orelse))
    return found


def _handler_definitions(node: ast.stmt) -> frozenset[str]:
    """Names a `try:`'s handlers define with `def` or `class` (a fallback implementation)."""
    return frozenset(
        statement.name for handler in getattr(node, "handlers", ()) for statement in handler.body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    )


def _globals(body: list[ast.stmt]) -> tuple[str, ...]:
    """Names a function body declares `global` (not those of functions or classes nested in it)."""
    found: list[str] = []
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Global):
            found.extend(node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return tuple(dict.fromkeys(found))


def _exits_early(statement: ast.stmt) -> bool:
    """`if C: ... return` (or `raise`) with no `else:`."""
    return (
        isinstance(statement, ast.If) and not statement.orelse
        and isinstance(statement.body[-1], (ast.Return, ast.Raise))
    )


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> LazySignature:
    """The function's signature, a parameter its body binds again (facts.shared.rebinding) as
    None: the body is walked only when the signature is first asked for."""
    args = node.args
    names = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))

    def make() -> Signature:
        rebound = bound_in(node.body)
        decorators = [full_name(d) if _named(d) else None for d in node.decorator_list]
        return signature_of(
            name, [a.arg for a in args.posonlyargs], [a.arg for a in args.args], [a.arg for a in args.kwonlyargs],
            decorators, rebound,
        )

    return LazySignature(names, make)


_REBINDING = by_class(cst=False)


def bound_in(body: list[ast.stmt]) -> set[str]:
    """Every name a node under `body` binds (`_rebinds`), nested scopes included: the nodes
    `ast.walk` visits, less the expression contexts (`Load`, `Store`), which bind nothing,
    without its generators (the walk was a tenth of a dependency file's extraction)."""
    found: set[str] = set()
    stack: list[ast.AST] = list(body)
    rows = _REBINDING
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind.__name__ in rows:
            found.update(_rebinds(node))
        for name in _fields_of(kind):
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return found


def _rebinds(node: ast.AST) -> Iterator[str]:
    """The names one node binds, by the shared table."""
    rows = _REBINDING.get(type(node).__name__)
    if rows is None:
        return
    for path, how in rows:
        value = field(node, path)
        for item in value if isinstance(value, list) else (value,):
            if item is None:
                continue
            if how == "target":
                yield from (n.id for n in ast.walk(item) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))  # type: ignore[arg-type]
            elif how in ("identifier", "identifiers") and isinstance(item, str):
                yield item
            elif how == "import" and isinstance(item, ast.alias):
                yield (item.asname or item.name).partition(".")[0]
            elif how == "parameters" and isinstance(item, ast.arguments):
                yield from (a.arg for a in (*item.posonlyargs, *item.args, *item.kwonlyargs, item.vararg, item.kwarg) if a is not None)


def _given(node: ast.Call, table_names: Callable[[ast.expr], tuple[str, ...]]) -> list[Given]:
    """Each argument a literal name can pass through: by position up to any `*args`, and by keyword."""
    given: list[Given] = []
    for at, argument in enumerate(node.args):
        if isinstance(argument, ast.Starred):
            break
        named = argument.id if isinstance(argument, ast.Name) else None
        given.append((at, _string(argument), named, table_names(argument)))
    for keyword in node.keywords:
        if keyword.arg is not None:
            named = keyword.value.id if isinstance(keyword.value, ast.Name) else None
            given.append((keyword.arg, _string(keyword.value), named, table_names(keyword.value)))
    return given


def _table_bindings(statement: ast.stmt) -> list[tuple[str, Table | None]]:
    """A module-level statement's bindings of names to literal displays (or to anything else:
    None), for `module_tables`."""
    if isinstance(statement, ast.Assign):
        table = _ast_table(statement.value) if len(statement.targets) == 1 else None
        return [(name.id, table) for target in statement.targets for name in _target_names(target)]
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and isinstance(statement.target, ast.Name):
        value = statement.value if isinstance(statement, ast.AnnAssign) else None
        return [(statement.target.id, _ast_table(value) if value is not None else None)]
    return []


def _ast_table(node: ast.expr) -> Table | None:
    """A tuple, list, set or dict display, its string entries."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        if any(isinstance(element, ast.Starred) for element in node.elts):
            return Table(tuple((None, None) for _ in node.elts), is_dict=False)  # no index is sure
        return Table(tuple((text, text) for text in map(_string, node.elts)), is_dict=False)
    if isinstance(node, ast.Dict):
        entries: list[tuple[str | int | None, str | None]] = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                return None  # `**other`: entries the display does not spell
            entries.append((_ast_key(key), _string(value)))
        return Table(tuple(entries), is_dict=True)
    return None


def _ast_key(node: ast.expr) -> str | int | None:
    """A literal key or index: a string, or an integer (`-1` included; never a bool)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _ast_key(node.operand)
        return -inner if isinstance(inner, int) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return _string(node)


def _target_names(target: ast.expr) -> list[ast.Name]:
    """The names an assignment target binds: `a`, `a, (b, *c)`."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _main_test(compare: ast.Compare) -> Test:
    """`__name__ == "__main__"` (either way round) is IsMain; `!=` its negation."""
    if len(compare.ops) != 1 or not isinstance(compare.ops[0], (ast.Eq, ast.NotEq)):
        return Opaque()
    sides = {_main_side(compare.left), _main_side(compare.comparators[0])}
    if sides != {"name", "main"}:
        return Opaque()
    return IsMain() if isinstance(compare.ops[0], ast.Eq) else Not(IsMain())


def _main_side(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name) and node.id == "__name__":
        return "name"
    if isinstance(node, ast.Constant) and node.value == "__main__":
        return "main"
    return None


def _is_keyword_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and (node.value is True or node.value is False or node.value is None)


def _named(node: ast.AST) -> bool:
    """What libcst would parse as a `Name` or an `Attribute`."""
    return isinstance(node, (ast.Name, ast.Attribute)) or _is_keyword_name(node)


def _leftmost(node: ast.expr) -> ast.expr:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _first_string(node: ast.Call) -> str | None:
    """The first argument when it is a `str` constant given by position (CPython refuses a
    positional argument after a keyword one, so `args[0]` is first in the source)."""
    return _string(node.args[0]) if node.args else None


def _imported_argument(node: ast.Call) -> ast.expr | None:
    """What a dynamic import's module name is passed as: the first argument, or `name=`."""
    if node.args:
        return None if isinstance(node.args[0], ast.Starred) else node.args[0]
    for keyword in node.keywords:
        if keyword.arg == IMPORTED_NAME:
            return keyword.value
    return None


def _string(node: ast.expr) -> str | None:
    """The value of a `str` constant: a literal in any spelling, or an f-string without
    placeholders (CPython's tree holds it as a JoinedStr of constants)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) and isinstance(part.value, str) for part in node.values
    ):
        return "".join(part.value for part in node.values)  # type: ignore[attr-defined]
    return None
