"""What both extractors track while they walk a module, whichever parser built the tree.

Where a fact stands (function depth, enclosing names, enclosing `if`s) and what the
module-level imports bind, so that `if` tests and callees resolve the same way in
libcst's extractor (facts.python) and CPython's (facts.fast).
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Optional, Union

from import_policy.facts.records.model import (
    Argument, AssignFact, AttributeFact, BoolOp, Branch, Compare, Context, FunctionFact, ImportFact, Installed, Leaf, Not, Opaque, ReadFact, ReturnFact,
    ScanFact, Signature, Span, Test, Value,
)
from import_policy.facts.shared.availability import Locals
from import_policy.facts.shared.identifiers import normal
from import_policy.facts.shared.tables import Tables
from import_policy.facts.shared.typecheck import is_type_checking_only

# Calls whose first argument (or `name=`), a string, is a module imported by name.
DYNAMIC_IMPORTERS = frozenset({
    "importlib.import_module", "import_module", "__import__", "importlib.__import__", "builtins.__import__",
})
# The parameter both `importlib.import_module` and `__import__` take the module's name by.
IMPORTED_NAME = "name"
# Loops over these import every module of a package when their body imports a computed name.
PACKAGE_WALKERS = frozenset({"pkgutil.iter_modules", "pkgutil.walk_packages"})
# A `try:` whose handler names one of these (or is bare) catches a failed import.
IMPORT_CATCHERS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
# One argument of a call as an extractor gives it: its slot (a position before any `*args`, or
# a keyword), its value when a string literal, its name when a bare name, and the strings it
# takes from a literal table (`facts.shared.tables`).
Given = tuple[Union[int, str], Optional[str], Optional[str], tuple[str, ...]]
# Decorators that change what a method's first parameter is bound to.
METHOD_KINDS = {"staticmethod": "static", "builtins.staticmethod": "static",
                "classmethod": "class", "builtins.classmethod": "class"}
# Methods Python makes static or class methods without a decorator.
IMPLICIT_KINDS = {"__new__": "static", "__init_subclass__": "class", "__class_getitem__": "class"}


def signature_of(
    name: str, positional_only: list[str], positional: list[str], keyword_only: list[str],
    decorators: list[str | None], rebound: set[str],
) -> Signature:
    """A function's signature from its parameters' names, the decorators' dotted names and the
    names its body binds again (facts.shared.rebinding)."""
    kinds = [METHOD_KINDS[d] for d in decorators if d in METHOD_KINDS]
    method = kinds[0] if kinds else IMPLICIT_KINDS.get(name.rpartition(".")[2], "")
    return Signature(
        tuple(None if p in rebound else p for p in [*positional_only, *positional]), len(positional_only),
        tuple(None if p in rebound else p for p in keyword_only), "static" if method == "static" else "class" if method == "class" else "",
    )


def _dotted(text: str) -> bool:
    """A dotted module name (`cutlass.cute`): the only literal a parameter passes that matters
    (`find_spec` of a top-level name imports nothing)."""
    return "." in text and all(part.isidentifier() for part in text.split("."))


# Comparison operators a platform test is read from, and whether each negates.
COMPARISONS = {"==": False, "!=": True, "in": False, "not in": True, "is": False, "is not": True}


def compared(subject: Leaf | None, op: str, values: tuple[Value, ...] | None, single: bool) -> Test:
    """`subject <op> literal(s)` as a platform test; Opaque when it is not one. `single`: the
    literal side was one literal, not a tuple or list (which only `in` takes)."""
    if subject is None or subject.call or values is None or op not in COMPARISONS:
        return Opaque()
    if op in ("in", "not in") and single or op not in ("in", "not in") and not single:
        return Opaque()
    if op in ("is", "is not") and values != (None,):
        return Opaque()  # identity with anything but None is not a value test
    test = Compare(subject, values)
    return Not(test) if COMPARISONS[op] else test


def written(text: str) -> str:
    """A test as written, the same whichever parser placed it: outer parentheses dropped
    (CPython's span leaves them out, libcst's keeps them), whitespace runs as one space, in
    NFKC form (as the names in it are read: `ｃp.is_rocm()` is `cp.is_rocm()`)."""
    text = normal(_without_comments(text).strip())
    while text.startswith("(") and text.endswith(")") and _one_pair(text):
        text = text[1:-1].strip()
    return " ".join(text.split())


def _without_comments(text: str) -> str:
    if "#" not in text:
        return text
    wrapped = f"({text}\n)"  # a multi-line test without its parentheses tokenizes inside them
    try:
        comments = [t for t in tokenize.generate_tokens(io.StringIO(wrapped).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return text
    lines = wrapped.split("\n")
    for comment in reversed(comments):
        row, start = comment.start
        line = lines[row - 1]
        lines[row - 1] = line[:start] + line[comment.end[1]:]
    return "\n".join(lines)[1:-2]


def _one_pair(text: str) -> bool:
    """Whether the opening parenthesis closes at the text's end (`(a) and (b)` is two pairs)."""
    depth = 0
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.OP]
    except (tokenize.TokenError, SyntaxError):
        return False
    for index, token in enumerate(tokens):
        if token.string in "([{":
            depth += 1
        elif token.string in ")]}":
            depth -= 1
            if depth == 0:
                return index == len(tokens) - 1
    return False


def entry_name(owner: str | None, key: object) -> str | None:
    """`env["has_te"]`: the name a dict entry with a literal key is bound and read under; None
    for a key that is not a plain string or would make the name ambiguous."""
    if owner is None or not isinstance(key, str) or any(c in key for c in '."\\[]'):
        return None
    return f'{owner}["{key}"]'


def entry_leaf(dotted: str | None, qualified: str, key: object, attribute: bool) -> Leaf | None:
    """A literal-key read of a dict (`env["has_te"]`, `env.get("has_te")`) as a platform test:
    `dotted` as written, `qualified` through the file's imports."""
    tail = entry_name(dotted.rpartition(".")[2] if dotted else None, key)
    full = entry_name(qualified, key)
    if tail is None or full is None:
        return None
    return Leaf(tail, full, False, attribute)


def getattr_leaf(owner: str | None, name: str | None) -> Leaf | None:
    """`getattr(torch.version, "hip", None)` reads as `torch.version.hip`."""
    if owner is None or name is None or not name.isidentifier():
        return None
    return Leaf(name, f"{owner}.{name}", False, True)



class LazySignature:
    """A function's signature, worked out only when first asked: which parameters the body
    binds again takes a walk of the body, and only a call passing a parameter on (or a
    function that does, whose signature is kept) asks; a walk of every function's body was a
    third of a cold run's extraction."""

    def __init__(self, names: frozenset[str], make: Callable[[], Signature]) -> None:
        self.names = names  # every parameter's name, bound again or not
        self._make: Callable[[], Signature] | None = make
        self._signature: Signature | None = None

    def get(self) -> Signature:
        if self._signature is None:
            assert self._make is not None
            self._signature, self._make = self._make(), None
        return self._signature

class WalkState:
    functions: list[FunctionFact]  # each collector's own (handed on with the rest)

    def __init__(self) -> None:
        super().__init__()  # the other base of libcst's collector: its visitor
        self.imports: list[ImportFact] = []
        self.escapes: list[ImportFact] = []
        # bound name -> dotted name, for resolving `if` tests and callees without scope analysis
        self.aliases: dict[str, str] = {}
        self.function_depth = 0
        self.names: list[str] = []
        self.branches: list[Branch] = []
        self.assigns: list[AssignFact] = []
        self.returns: list[ReturnFact] = []
        self.scans: list[ScanFact] = []
        self.computed_imports = 0  # dynamic imports of a name that is not a literal, so far
        self._context: Context | None = None
        # PEP 810: where the `lazy` keyword stood (line, column of the `import`/`from` after it),
        # the module's `__lazy_modules__` when it is a literal, `try:` blocks open, and the
        # names lazy imports bound, whose import-time reads are recorded.
        self.lazy_at: frozenset[tuple[int, int]] = frozenset()
        self.lazy_modules: frozenset[str] | None = None
        self.try_depth = 0
        # Open `try:`, `with`, loop and `match` statements: a binding inside may not happen.
        self.skippable = 0
        self.lazy_names: set[str] = set()
        self.reads: list[ReadFact] = []
        # Names the file reads anywhere but to delete them or compare them with None (a probe's
        # import binds a name nothing reads); None until a `try:` import asks.
        self.read_names: frozenset[str] | None = None
        # For each open handler that catches a failed import: what its `try:` body imported.
        self.fallbacks: list[tuple[str, ...]] = []
        # Literal tables and the loop variables that take their strings (facts.shared.tables).
        self.tables = Tables()
        # Each function's signature, a rebound parameter as None (`CallFact.arguments`), and the
        # functions that pass a parameter on (only theirs is kept: `kept_signatures`).
        self.parameters: dict[str, LazySignature] = {}
        self.forwarding: set[str] = set()
        # Function-local names bound to availability tests (`exists = find_spec(name) is not None`).
        self.locals = Locals()
        # Statements after which the rest of their block runs only where a test of what is
        # installed holds: `importlib.metadata.version("x")` straight in a `try:` that catches
        # PackageNotFoundError, an import straight in a `try:` that catches a failed import, and
        # such a `try:` whose every catching handler returns or raises (`installed_after`).
        self.version_calls: dict[int, Test] = {}
        # The imports of a `try:` of imports and constants: skippable themselves (each may
        # raise), where the rest of that `try:` is not.
        self.may_raise: set[int] = set()
        # The signature of each function of `functions`, by its place there.
        self.signatures: list[LazySignature] = []
        # Attribute reads through module-level imports (facts.records.model.AttributeFact), each
        # (name, context, kind) once at its first line: the place in `attributes` of each.
        self.attributes: list[AttributeFact] = []
        self.attribute_at: dict[tuple[str, int, bool, bool], int] = {}
        # Open scopes, innermost last: whether each is a function's (a class body's is not).
        self.scopes: list[bool] = []
        # Open annotations, innermost last: whether Python evaluates each when it runs the
        # definition (a function body's variable annotation it never evaluates).
        self.annotations: list[bool] = []
        # `from __future__ import annotations`: no annotation is evaluated.
        self.postponed = False

    def hand_to(self, other: WalkState) -> None:
        """`other` goes on with this walk (libcst's walk of a statement CPython refused, and
        back): it takes every piece of the state, the same objects, so what either records
        goes to the same lists. The facts both collectors keep alike go with it."""
        for name in _HANDED:
            setattr(other, name, getattr(self, name))
        other.changed()

    def call_variants(self, given: list[Given]) -> list[tuple[str | None, tuple[Argument, ...]]]:
        """(first string, arguments) for each way a call is recorded, from its arguments as
        given: once, or once for each string its first argument that takes strings from a
        literal table can take (a name from a literal table is a literal name)."""
        tabled = next((at for at, (_, literal, _, strings) in enumerate(given) if literal is None and strings), None)
        if tabled is None:
            return [self._recorded(given)]
        slot, strings = given[tabled][0], given[tabled][3]
        return [self._recorded([*given[:tabled], (slot, text, None, ()), *given[tabled + 1:]]) for text in strings]

    def _recorded(self, given: list[Given]) -> tuple[str | None, tuple[Argument, ...]]:
        function = self.context().function
        lazy = self.parameters.get(function) if function is not None else None
        names: set[str | None] = set()
        if lazy is not None and any(literal is None and name in lazy.names for _, literal, name, _ in given):
            signature = lazy.get()  # a parameter passed on: is it bound again?
            names = set(signature.positional) | set(signature.keyword_only)
        first: str | None = None
        arguments: list[Argument] = []
        for slot, literal, name, _ in given:
            if literal is not None and slot == 0:
                first = literal
            elif literal is not None and _dotted(literal):
                arguments.append(Argument(slot, literal))
            elif literal is None and name is not None and name in names:
                arguments.append(Argument(slot, name, True))
        if function is not None and any(argument.parameter for argument in arguments):
            self.forwarding.add(function)
        return first, tuple(arguments)

    def kept_signatures(self, functions: list[FunctionFact]) -> tuple[FunctionFact, ...]:
        """The functions, each with its signature only where its body passes a parameter on."""
        return tuple(
            replace(function, signature=self.signatures[at].get()) if function.name in self.forwarding else function
            for at, function in enumerate(functions)
        )

    def define(self, function: FunctionFact, signature: LazySignature) -> None:
        """A function (its fact without a signature) and its signature, worked out when asked."""
        self.parameters[function.name] = signature
        self.signatures.append(signature)
        self.functions.append(function)

    def module_level(self) -> bool:
        """At module level proper: not in a function, not in a class body."""
        return self.function_depth == 0 and not self.names

    def bind(self, name: str, value: Test, line: int, removed: bool = False) -> None:
        if self.module_level():
            self.assigns.append(AssignFact(name, value, line, self.context(), removed))

    def bind_entries(self, owner: str, entries: list[tuple[object, Test]] | None, line: int) -> None:
        """`owner = {"k": v, ...}`: each literal key's entry is bound too (after the name)."""
        for key, value in entries or ():
            name = entry_name(owner, key)
            if name is not None:
                self.bind(name, value, line)

    def enter_skippable(self) -> None:
        self.skippable += 1
        self.changed()

    def leave_skippable(self) -> None:
        self.skippable -= 1
        self.changed()

    def returned(self, value: Test, line: int, first: bool = False) -> None:
        context = self.context()
        if context.function is not None:
            self.returns.append(ReturnFact(context.function, value, line, context, first))

    def passes_first(self, argument: str | None) -> bool:
        """Whether a name given first to a call is the enclosing function's first parameter."""
        function = self.context().function
        lazy = self.parameters.get(function) if function is not None else None
        if argument is None or lazy is None or argument not in lazy.names:
            return False
        names = lazy.get().positional
        return bool(names) and names[0] == argument

    def after_version(self, test: Test, line: int) -> None:
        """After `importlib.metadata.version("x")` (or `import x`) straight in a `try:` that
        catches its failure, the rest of the body runs only where `x` is installed (an
        unwritten test: no text); so does the rest of the block after a `try:` whose handlers
        of a failed import all leave it."""
        self.branches.append(Branch(test, orelse=False, early=True, line=line))
        self.changed()

    def early_exit(self, test: Test, line: int, text: str) -> None:
        """After `if C: return` (or `raise`), the rest of the block runs only when C is false."""
        self.branches.append(Branch(test, orelse=True, early=True, line=line, text=text))
        self.changed()

    def scanned(self, package: str | None, line: int, context: Context, dynamic_calls: int) -> None:
        if dynamic_calls:
            self.scans.append(ScanFact(package, line, context))

    def walked_package(self, dotted: str | None) -> str | None:
        """`pkg.__path__` with `pkg` a module-level import -> `pkg`'s dotted name."""
        if dotted is None or not dotted.endswith(".__path__"):
            return None
        root = dotted.split(".")[0]
        return self.qualify(dotted[: -len(".__path__")]) if root in self.aliases else None

    def context(self) -> Context:
        if self._context is None:
            branches = tuple(self.branches)
            self._context = Context(
                import_time=self.function_depth == 0,
                type_checking=is_type_checking_only(branches),
                branches=branches,
                function=".".join(self.names) if self.function_depth else None,
                tried=self.skippable > 0,
            )
        return self._context

    def changed(self) -> None:
        """The depth, names or branches changed: the next fact gets a new context."""
        self._context = None

    def qualify(self, dotted: str) -> str:
        root, dot, rest = dotted.partition(".")
        target = self.aliases.get(root)
        return dotted if target is None else target + dot + rest

    def imported_since(self, start: int) -> tuple[str, ...]:
        """The names (and their modules) of the imports recorded from index `start` on."""
        return tuple(dict.fromkeys(n for fact in self.imports[start:] for n in (fact.name, fact.module) if n))

    def record(self, fact: ImportFact, target: str, keyword: bool = False) -> None:
        if fact.module == "__future__" and fact.member == "annotations":
            self.postponed = True
        fact = self.lazy_import(fact, keyword)
        if self.fallbacks:
            fact = replace(fact, fallback_for=tuple(dict.fromkeys(n for names in self.fallbacks for n in names)))
        self.imports.append(fact)
        if fact.bound is not None and fact.context.function is None:
            self.aliases[fact.bound] = target
            if fact.lazy:
                self.lazy_names.add(fact.bound)
            else:
                self.lazy_names.discard(fact.bound)

    def lazy_import(self, fact: ImportFact, keyword: bool) -> ImportFact:
        """The import marked lazy where PEP 810 makes it so: the keyword before it, or its
        module named in `__lazy_modules__`, at module level outside any `try:`."""
        if fact.kind == "dynamic" or fact.member == "*" or not self.module_level() or self.try_depth:
            return fact
        named = fact.module if fact.kind == "from" else fact.name
        if keyword:
            return replace(fact, lazy="keyword")
        if self.lazy_modules is not None and named in self.lazy_modules:
            return replace(fact, lazy="modules")
        return fact

    def assigned_lazy_modules(self, names: tuple[str, ...] | None) -> None:
        """`__lazy_modules__ = [...]` at module level: a literal list of module names; under an
        `if` or in a `try:` it may not run, and then the imports stay eager (None)."""
        if self.module_level():
            always = not self.branches and not self.try_depth
            self.lazy_modules = frozenset(names) if names is not None and always else None

    def open_annotation(self, evaluated: bool = True) -> None:
        """An annotation begins: one Python evaluates when it runs the definition, unless
        `evaluated` is False (a variable's in a function body)."""
        self.annotations.append(evaluated)

    def close_annotation(self) -> None:
        self.annotations.pop()

    def in_function_scope(self) -> bool:
        """Straight in a function's body (not in a class body nested in one)."""
        return bool(self.scopes) and self.scopes[-1]

    def attribute(self, dotted: str, line: int, computed: bool = False) -> AttributeFact | None:
        """A read of the chain `dotted` (as written, its root bound by a module-level import) here;
        `computed`: `getattr(dotted, name)` with a name the pass cannot tell. None: in an
        annotation Python never evaluates (a string, or a function body's variable's)."""
        annotation = bool(self.annotations)
        if annotation and (self.postponed or not self.annotations[-1]):
            return None
        return AttributeFact(self.qualify(dotted), line, self.context(), annotation, computed)

    def add_attribute(self, read: AttributeFact | None) -> None:
        """Keep the read, each (name, context, kind) once, at its first line."""
        if read is None:
            return
        key = (read.qualified, id(read.context), read.annotation, read.computed)
        at = self.attribute_at.get(key)
        if at is None:
            self.attribute_at[key] = len(self.attributes)
            self.attributes.append(read)
        elif read.line < self.attributes[at].line:
            self.attributes[at] = read

    def read(self, name: str, span: Span, statement_line: int) -> None:
        """A read of `name`; recorded when a lazy import bound it and it runs at import time."""
        if name in self.lazy_names and self.function_depth == 0:
            self.reads.append(ReadFact(name, span, statement_line, self.context()))


def settled_attributes(found: list[AttributeFact]) -> tuple[AttributeFact, ...]:
    """The attribute reads in line order, each (name, context, kind) once, at its first line
    (however each walk ordered them, and wherever it started a new but equal context)."""
    first: dict[tuple[str, Context, bool, bool], AttributeFact] = {}
    for read in sorted(found, key=_attribute_order):
        first.setdefault((read.qualified, read.context, read.annotation, read.computed), read)
    return tuple(first.values())


def _attribute_order(read: AttributeFact) -> tuple[int, str, int, str, bool, bool, bool, bool]:
    """Line order, and within a line an order neither walk's own decides."""
    context = read.context
    return (
        read.line, read.qualified, len(context.branches), context.function or "", context.tried,
        context.type_checking, read.annotation, read.computed,
    )


# Everything a walk's state holds but the names the file reads (each collector finds them its
# own way) and the context it caches, and the facts both collectors record alike.
_HANDED = (*(name for name in vars(WalkState()) if name not in ("_context", "read_names")), "decorators", "functions", "classes")


def installed_after(names: Iterable[str]) -> Test | None:
    """The test under which code after imports of `names` runs: each is installed (Python
    raises ImportError at the first that is not)."""
    return all_of(Installed(name) for name in names if name)


def all_of(tests: Iterable[Test]) -> Test | None:
    """The tests joined by `and` (nested ones flattened, each once); None for none."""
    flat: list[Test] = []
    for test in tests:
        flat.extend(test.operands if isinstance(test, BoolOp) and test.op == "and" else (test,))
    unique = tuple(dict.fromkeys(flat))
    if not unique:
        return None
    return unique[0] if len(unique) == 1 else BoolOp("and", unique)
