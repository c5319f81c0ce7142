"""What one parse of a file tells the checks: plain, frozen, serialisable records.

Checks never see libcst nodes, only these, so they can be tested on hand-built
facts, cached, and run in another process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional, Union


@dataclass(frozen=True)
class Span:
    """1-based line and column; `end_column` is exclusive (ruff's convention)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Leaf:
    """One operand of an `if` test: a name, attribute or call.

    `tail` is its last identifier (`current_platform.is_cuda()` -> `is_cuda`);
    `qualified` is its dotted name resolved through the file's imports
    (`TC` after `from typing import TYPE_CHECKING as TC` -> `typing.TYPE_CHECKING`).
    """

    tail: str
    qualified: str
    call: bool = False  # `is_cuda()` rather than `is_cuda`
    # Written as an attribute (`tensor.is_cuda`, `getattr(torch.version, "hip", None)`), not a
    # bare name: read without a call, it is an object's property unless its owner is a module.
    attribute: bool = False
    # A call's first positional argument, a string literal (`_is_package_available("bnb")`):
    # what the function's first parameter holds when the judge reads its returns.
    argument: str | None = None
    # A call whose first argument is the enclosing function's first positional parameter
    # (never rebound): it passes on whatever literal that function was given.
    passes: bool = False
    # The first item of what the call returns (`f("x")[0]`, `ok, version = f("x")`).
    first: bool = False
    # The call gives one positional argument and nothing else.
    alone: bool = False


@dataclass(frozen=True)
class IsMain:
    """`__name__ == "__main__"`: false while a module is imported."""


@dataclass(frozen=True)
class BoolOp:
    op: Literal["and", "or"]
    operands: tuple[Test, ...]


@dataclass(frozen=True)
class Not:
    operand: Test


# A literal a platform test compares with: what `values:` can say a name holds.
Value = Union[str, int, float, bool, None]


@dataclass(frozen=True)
class Compare:
    """`subject` equals one of `values`: `DEVICE_TYPE == "hip"` (one value), `x in ("a", "b")`,
    `torch.version.hip is None` (`None`); `!=`, `not in` and `is not` are its `Not`."""

    subject: Leaf
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Installed:
    """Whether the environment has `name`: a module Python's path finder finds
    (`importlib.util.find_spec("x") is not None`), or with `distribution` an installed
    distribution (`importlib.metadata.version("x")` returns). `parameter`: the name is the
    enclosing function's first positional parameter (`find_spec(pkg_name)`), told at a call
    that passes a literal there. Judged only where `installed: environment` asks."""

    name: str
    distribution: bool = False
    parameter: bool = False


@dataclass(frozen=True)
class Opaque:
    """A test the passes do not reason about (comparisons, literals, ...)."""


Test = Union[Leaf, BoolOp, Not, Opaque, IsMain, Compare, Installed]


@dataclass(frozen=True)
class Branch:
    """An enclosing `if`: its test, and whether the fact sits in its `else:` side.

    `early`: not an `else:` written out but the statements after `if C: return` (or
    `raise`) in the same block, which run only when C is false.
    """

    test: Test
    orelse: bool
    early: bool = False
    # The line of the `if` (or `elif`) whose test this is: a module-level name read there has
    # the value of the binding that ran last before it (platform.Judge).
    line: int = 0
    # The test as written (outer parentheses dropped, whitespace runs as one space): what a
    # finding under a test the pass cannot judge names.
    text: str = ""


@dataclass(frozen=True)
class Context:
    """Where a fact stands.

    `import_time`: runs when the module is imported (module level, class bodies,
    module-level `if`/`try`/`with`, decorators and defaults), not in a function
    or lambda body.
    `type_checking`: inside type-checking-only code (section 3 of the contract).
    `branches`: the enclosing `if`s, outermost first, for guard evaluation.
    `function`: the dotted name of the enclosing function, if any.
    """

    import_time: bool
    type_checking: bool
    branches: tuple[Branch, ...] = ()
    function: str | None = None
    # Inside a `try:`, `with`, loop or `match` statement (any part of it): a binding here may
    # not happen even where every enclosing `if` runs (an exception, an empty loop, no case).
    tried: bool = False


ImportKind = Literal["import", "from", "dynamic"]
# How an import is lazy (PEP 810): not at all, by the `lazy` soft keyword, or by being named
# in the module's `__lazy_modules__` (which only Python 3.15 and later read).
LazyKind = Literal["", "keyword", "modules"]


@dataclass(frozen=True)
class ImportFact:
    """One imported name.

    `import a.b.c` -> name `a.b.c`, bound `a`; `import a.b as c` -> bound `c`;
    `from m import x as y` -> name `m.x`, module `m`, member `x`, bound `y`;
    `from m import *` -> name `m`, member `*`; `import_module("m")` -> kind dynamic.
    Relative imports are already resolved; `module` is None when they reach
    above the top package.
    """

    kind: ImportKind
    name: str
    module: str
    member: str | None
    bound: str | None
    span: Span
    module_span: Span
    statement: int  # index of the statement, grouping the names of one `from` import
    statement_line: int
    context: Context
    level: int = 0  # number of leading dots of a relative import
    lazy: LazyKind = ""
    # In a `try:` body whose handler catches ImportError (or a base of it), and the names it
    # binds are never read afterwards but to be deleted or compared with None: an inline probe.
    probe: bool = False
    # In a handler that catches a failed import (facts.walkstate.IMPORT_CATCHERS): the names the
    # `try:` bodies around it import (each name and its module), so a gateway fix can tell
    # the fallback for a failed gateway import, which it must leave alone.
    fallback_for: tuple[str, ...] = ()
    # Straight in a `try:` body whose handler catches a failed import (an optional import,
    # probe or not): where the module is not installed, the import raises and the handler runs.
    caught: bool = False


@dataclass(frozen=True)
class UseFact:
    """A use of an imported name: the outermost `a.b.c` chain whose root an import bound."""

    qualified_names: tuple[str, ...]
    root: str
    span: Span
    statement_line: int
    context: Context


@dataclass(frozen=True)
class ReadFact:
    """A read, at import time, of a name a lazy import bound: where that import is loaded."""

    name: str
    span: Span
    statement_line: int
    context: Context


@dataclass(frozen=True)
class AttributeFact:
    """A read of `owner.name` through a name a module-level import bound, where Python would ask
    a lazy loader of `owner` for `name` (contract section 4, "Lazy loaders"): an attribute chain
    rooted at such a name (`pkg.Model`, in any expression; for a chain that is assigned or deleted,
    the chain it is an attribute of), and `getattr(pkg, "dump")` / `hasattr(pkg, "Model")` with a
    literal name. Each name once per context, at its first line.

    `qualified`: the chain resolved through the file's imports.
    `annotation`: in an annotation Python evaluates when it runs the definition (a parameter's, a
    return's, a module or class body's variable), which it does only before 3.14 (PEP 649); with
    `from __future__ import annotations`, or a function body's variable annotation, nothing is
    recorded (Python never evaluates them).
    `computed`: `getattr(pkg, name)` with a name the pass cannot tell; `qualified` is `pkg`."""

    qualified: str
    line: int
    context: Context
    annotation: bool = False
    computed: bool = False


@dataclass(frozen=True)
class CallFact:
    """A call whose callee resolves to a dotted name, with its literal string arguments.

    The ROCm pass reads probes (`_has_module("x")`) and calls of project
    functions from these.
    """

    callee: str  # resolved through the file's imports
    tail: str
    first_string: str | None
    span: Span
    statement_line: int
    context: Context
    # The arguments a literal name can pass through into a project function (`find_spec(n)`,
    # `check(n)`, `self.probe(name="a.b")`): each dotted string literal other than the first
    # positional one (`first_string`), and each of the enclosing function's parameters passed on.
    arguments: tuple[Argument, ...] = ()


@dataclass(frozen=True)
class Argument:
    """One argument of a call: its slot (a position before any `*args`, or a keyword's name) and
    what it holds: a dotted string literal, or (`parameter`) the enclosing function's parameter
    of that name, never rebound in it (facts.shared.rebinding)."""

    slot: Union[int, str]
    value: str
    parameter: bool = False


@dataclass(frozen=True)
class Signature:
    """How a call's arguments bind a function's parameters (a parameter its body binds again is
    None); kept only for a function that passes a parameter on (`CallFact.arguments`)."""

    positional: tuple[Optional[str], ...]  # positional-only ones first
    positional_only: int
    keyword_only: tuple[Optional[str], ...] = ()
    method: Literal["", "static", "class"] = ""  # `@staticmethod`, `@classmethod`


@dataclass(frozen=True)
class DecoratorFact:
    qualified_names: tuple[str, ...]
    span: Span
    statement_line: int
    context: Context


@dataclass(frozen=True)
class FunctionFact:
    """A function definition: its dotted name within the module and what it returns directly."""

    name: str
    line: int
    context: Context
    # Names the function declares `global`: a call of it may rebind them at module level.
    globals: tuple[str, ...] = ()
    signature: Signature | None = None
    # Its parameters after the first whose default is `False` or `None`: what they hold in a call
    # that gives one argument alone (`_is_package_available("x")` with `return_version=False`).
    unset: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassFact:
    """A class definition: its dotted name within the module and its bases, each resolved
    through the file's imports (`from .base import Checker` then `class C(Checker)` ->
    `pkg.base.Checker`); a base that is not a name or attribute is left out."""

    name: str
    bases: tuple[str, ...]
    line: int
    context: Context


@dataclass(frozen=True)
class AssignFact:
    """A module-level binding of a name other than an import or a `def`: `x = <value>`.

    `value` is the right-hand side read as a condition when it is one (`_is_hip = is_hip()`),
    else Opaque; tuple targets, augmented assignments, `for` targets and classes bind
    with an Opaque value. The ROCm pass reads what a name was last bound to as a platform flag.

    A dict display bound to a name (`env = {"has_te": f()}`) and a literal-key assignment
    (`env["has_te"] = f()`) also bind the entry, named `env["has_te"]` (keys holding no `.`,
    `"`, `\\`, `[` or `]`). `removed`: a `del` of the name (or entry).
    """

    name: str
    value: Test
    line: int
    context: Context
    removed: bool = False


@dataclass(frozen=True)
class ReturnFact:
    """A `return` in a function (`function` is its dotted name); a bare `return` gives `None`."""

    function: str
    value: Test
    line: int
    context: Context
    # A tuple is returned (`return exists, version`): `value` is its first item.
    first: bool = False


@dataclass(frozen=True)
class ScanFact:
    """A `for` loop over `pkgutil.iter_modules(...)` / `walk_packages(...)` whose body imports
    a computed name (`importlib.import_module(name)`): it imports every module of a package.

    `package`: the dotted module whose `__path__` is walked when the first argument is
    `X.__path__` with X a module-level import, else None (the package comes from an argument).
    """

    package: str | None
    line: int
    context: Context


@dataclass(frozen=True)
class LoaderFact:
    """A lazy loader a module installs: what `from module import name` (or a read of
    `module.name`) imports when the module does not bind `name` (PEP 562 `__getattr__`).

    `kind`: "getattr" (a module-level `def __getattr__`), "attach" (`lazy_loader.attach` or a
    copy of it), "stub" (`lazy_loader.attach_stub`: its table is the `.pyi` beside the file),
    "lazymodule" (`sys.modules[__name__] = _LazyModule(...)`, transformers' pattern).
    `table`: name -> the absolute module its lookup imports ("" where the pass could not tell:
    a cut); the name "*" stands for any other name, its module spelled with "{}" where the
    name goes (`import_module(f".{name}", __name__)`).
    `files`: folders (relative to the module's own, "" for it) whose files give more of the
    table as transformers' `define_import_structure` computes it, each with its prefix.
    `cut`: an import of the loader the pass could not resolve for names outside the table, as
    written (with its line); "" when there is none.
    `replaces`: the module object is replaced, so the module's own bindings are no attributes.
    `bound`: names the loader binds without importing (`extra_objects`)."""

    kind: Literal["getattr", "attach", "stub", "lazymodule"]
    line: int
    table: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    cut: str = ""
    replaces: bool = False
    bound: tuple[str, ...] = ()
    # The names `from module import *` asks of the module (its `__all__`, as Python reads it), each
    # asked of the loader where the module does not bind it; "*" stands for every name the
    # loader's table holds (`__all__` bound to what `lazy_loader.attach` returns).
    star: tuple[str, ...] = ()
    # An `__all__` the pass cannot evaluate, named with its line (`` `__all__` (line 3) ``): a cut for `import *`.
    star_cut: str = ""


@dataclass(frozen=True)
class SyntaxErrorFact:
    message: str
    line: int
    column: int


@dataclass(frozen=True)
class Suppressions:
    """`# import-policy: ignore[...]` comments: line -> rule ids (empty: every rule)."""

    file: bool = False
    lines: tuple[tuple[int, frozenset[str]], ...] = ()

    def covers(self, rule: str, lines: tuple[int, ...]) -> bool:
        if self.file:
            return True
        for line, rules in self.lines:
            if line in lines and (not rules or rule in rules):
                return True
        return False


@dataclass(frozen=True)
class FileFacts:
    path: str  # relative to the project root, '/' separators
    module: str | None
    is_package: bool
    imports: tuple[ImportFact, ...] = ()
    uses: tuple[UseFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    decorators: tuple[DecoratorFact, ...] = ()
    functions: tuple[FunctionFact, ...] = ()
    classes: tuple[ClassFact, ...] = ()
    # Relative imports that climb above the top package (`from ....x import y` three levels
    # down): they import nothing Python could resolve, so only their form is recorded, one per
    # statement, with `module` "" and `name` the module as written after the dots.
    escapes: tuple[ImportFact, ...] = ()
    assigns: tuple[AssignFact, ...] = ()
    returns: tuple[ReturnFact, ...] = ()
    scans: tuple[ScanFact, ...] = ()
    reads: tuple[ReadFact, ...] = ()
    attributes: tuple[AttributeFact, ...] = ()
    suppressions: Suppressions = field(default_factory=Suppressions)
    syntax_error: SyntaxErrorFact | None = None
    # The module's lazy loader, when it installs one at import time.
    loader: LoaderFact | None = None
    # The names the file exports as transformers' `define_import_structure` reads them (its
    # `__all__` as text, and the classes and functions under `@requires`).
    exports: tuple[str, ...] = ()
    # False for a file no rule needed, which was never parsed: it has no facts at all.
    parsed: bool = True
    # The digest (cache.facts.content_digest) of the bytes these facts were extracted from,
    # where the engine knows it: the ROCm pass logs it, never the digest of a second read
    # that an edit in between would make another file's. Not stored: the cache key holds it.
    content: str = ""
