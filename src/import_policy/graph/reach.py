"""The project's eager import graph on one platform, its heavy sites, and shortest chains (contract section 4).

Built from the facts of every project file, never by importing anything.
Nodes are project modules; an edge is an import that runs on the platform when its
module is imported (`judge.Judge` decides what runs). A heavy site is, in
code that runs at import time on the platform: an import of a heavy module, a call of a
probe on one (or `find_spec("a.b")` with `a` heavy), a call of a project
function that (through other project functions, across modules) imports or
probes one, or a decorator from a heavy module.
"""

from __future__ import annotations

import copy
import functools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from import_policy.facts.records.model import (
    AttributeFact, CallFact, Context, DecoratorFact, FileFacts, ImportFact, Leaf, ReadFact, ScanFact, Signature, Span,
    SyntaxErrorFact,
)
from import_policy.graph.passing import How, actual
from import_policy.graph.value_uses import ValueUse, value_uses
from import_policy.patterns import module_heads
from import_policy.graph.chains import Chain, ImportGraph, Link
from import_policy.project.modules import modules_of
from import_policy.graph.judge import AFTER, Environment, Judge
from import_policy.facts.source.exports import exports_of, wants_exports
from import_policy.graph import lazy_reads
from import_policy.graph.lazy_loaders import Loaders
from import_policy.graph.question import Question
from import_policy.graph.sites import through_gateway
from import_policy.graph.witness import (
    MAX_CALL_DEPTH, BodyFact, Called, Calls, ClassKey, FunctionKey, Mask, Target, joined,
)

# The kinds of link this pass's edges make (`Link.kind`): "import", "package", "probe",
# "call", "scan", "jit".
SiteKind = Literal["import", "probe", "call", "jit"]
# A memo's key and value (`Project._memo`).
_K = TypeVar("_K")
_V = TypeVar("_V")
# PEP 810: the first Python that runs `lazy import` and `__lazy_modules__` lazily.
LAZY_PYTHON = (3, 15)


@dataclass(frozen=True)
class HeavySite:
    """Where a module imports a heavy module at import time."""

    path: str
    module: str | None
    heavy: str
    span: Span
    statement_line: int
    kind: SiteKind
    detail: str  # `import tilelang`, `_has_module("tilelang")`, `has_x() -> _has_module("x")`, `@tilelang.jit`
    trial: bool = False  # an inline probe: a `try:` imports the module only to see whether it can
    # A lazy import that stays eager: an older Python the project supports runs it eagerly.
    eager_lazy: bool = False
    loaded_by: str | None = None  # a lazy import loaded where this name is read at import time
    # The tests, as written, the site runs under only because the pass could not judge them
    # on the platform (its own, and those on the way through the functions a call runs).
    unjudged: tuple[str, ...] = ()
    # The other heavy modules a call site loads, each with the calls that load it (`heavy` is the
    # first one the call's body loads): a call that loads several is one site naming each.
    also: tuple[tuple[str, str], ...] = ()
    # What the environment read lacks that the site needs (`Link.requires`).
    requires: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.path, self.span.line, self.span.column)

    def loads(self) -> tuple[str, ...]:
        """Every heavy module the site loads."""
        return (self.heavy, *(name for name, _ in self.also))

    def also_text(self) -> str:
        """The other heavy modules a call loads, for a message (contract section 4: one finding names each)."""
        if not self.also:
            return ""
        each = [f"`{name}` ({way})" for name, way in self.also]
        return ", and also " + (each[0] if len(each) == 1 else ", ".join(each[:-1]) + " and " + each[-1])


# A file with no heavy site (most): one list for all, never changed.
_NO_SITES: list[HeavySite] = []

# An import heavy for some questions (`Project._heavy_imports`): the import, those questions,
# those for which the module of `from m import x` is heavy itself, and where it runs (`loaded`).
_Heavy = tuple[ImportFact, Mask, Mask, "ReadFact | None | bool"]




class Project:
    """The graph, built lazily: a file is parsed only when a chain or a call reaches it.

    `modules` maps every project module to its file (from the file walk, no
    reading); `load` gives a file's facts (None: unreadable). With pre-commit
    passing a few files, only the part of the project the entry modules reach,
    and the functions the passed files call, is ever parsed.
    """

    def __init__(
        self, question: Question, modules: Mapping[str, str], load: Callable[[str], FileFacts | None],
        exports: Mapping[str, str] | None = None, installed: Environment | None = None,
    ) -> None:
        self.question = question
        # With `installed: environment`: whether a module is installed (a `try:` import of one
        # that is not raises, and its handler runs).
        self.installed = installed if question.installed else None
        # The environment read, whichever way answers hold (None where no environment is read).
        self.environment = installed
        self.module_path = modules  # looked up, never walked unless a package walk asks
        self.exports = dict(exports or {})
        self.judge = Judge(question.judged_on, self, self.installed)
        # By default, with an environment read: the same platform judged with that environment
        # deciding, to say which findings hold only if a module it lacks is installed.
        self.deployed = Judge(question.judged_on, self, installed) if installed is not None and self.installed is None else None
        self._load = load
        self._files: dict[str, _File | None] = {}
        # Files loaded that do not parse: what the graph could not see.
        self.unparsed: dict[str, SyntaxErrorFact] = {}
        self._sites: dict[str, list[HeavySite]] = {}
        self._edges: dict[str, list[Link]] = {}
        # What import-time calls load, by the probes of the questions asking (shared by every
        # question asked of this graph: `asking`).
        self._calls: dict[tuple[tuple[str, str | None], ...], Calls] = {}
        self._scans: dict[Target, tuple[str, ...]] = {}
        self._body_imports: dict[Target, tuple[str, ...]] = {}
        self._body_reads: dict[Target, tuple[tuple[str, bool], ...]] = {}
        self._heads: dict[str, bool] = {}  # whether a top-level name is a module's (graph.lazy_reads)
        self._asks: dict[str, tuple[tuple[str, str], ...]] = {}  # the loaders a read asks, and for what
        self._mros: dict[ClassKey, tuple[ClassKey, ...]] = {}
        # By dotted name, file and depth: a name a star import chain re-exports is asked of the
        # same files again by every call that spells it.
        self._class_keys: dict[tuple[str, str, int], ClassKey | None] = {}
        self._children: dict[str, tuple[str, ...]] = {}
        self.graph = ImportGraph(modules, self.edges)
        self._in_progress: set[object] = set()
        # A file's bytes, for a table read from files as text (transformers' exports); the run
        # that makes the project sets it (logging what it reads), else the facts' exports serve.
        self.read_text: Callable[[str], bytes | None] | None = None
        self.loaders = Loaders(
            self.module_path.get, self.facts, self.binds, lambda: self.module_path, self._load, self._exports,
        )
        # Where a lazy loader's import could not be told, by the module whose import asked it:
        # what `why` names where a chain may be cut.
        self.cuts: dict[str, list[str]] = {}

    @classmethod
    def from_facts(
        cls, question: Question, files: Iterable[FileFacts], exports: Mapping[str, str] | None = None,
    ) -> Project:
        by_path = {facts.path: facts for facts in files}
        return cls(question, modules_of(by_path.values()), by_path.get, exports)

    def asking(self, question: Question) -> Project:
        """The same graph under `question`, which differs from this one's only in what counts
        as a site (`Question.graph_key`): files, links, calls and classes are derived once for
        both, and what calls load is walked once for every question asking at the time
        (`sites_for`); only the heavy sites are each one's."""
        view = copy.copy(self)
        view.question = question
        view._sites = {}
        view._in_progress = set()
        return view

    def _file(self, path: str) -> _File | None:
        if path not in self._files:
            facts = self._load(path)
            if facts is not None and facts.syntax_error is not None:
                self.unparsed[path] = facts.syntax_error  # a gap in the graph: the run reports it
            ok = facts is not None and facts.syntax_error is None and not path.endswith(".pyi")
            self._files[path] = _File(facts) if ok and facts is not None else None  # stubs never run
        return self._files[path]

    def facts(self, path: str) -> FileFacts | None:
        file = self._file(path)
        return file.facts if file is not None else None

    # --- calls through project functions ------------------------------------------

    def resolve(self, callee: str, path: str, within: str | None = None, depth: int = 0) -> FunctionKey | None:
        """The project function a callee names: (file, dotted name in it), following re-exports,
        `self.m()` within a class, and `obj.m()` on a module-level instance of a local class."""
        if depth > 8:
            return None
        here = self._file(path)
        if here is not None:
            if callee in here.functions:
                return path, callee
            if f"{callee}.__init__" in here.functions:  # `Registry()` runs `Registry.__init__`
                return path, f"{callee}.__init__"
            root, _, rest = callee.partition(".")
            if rest and root in ("self", "cls") and within is not None and "." in within:
                method = f"{within.rpartition('.')[0]}.{rest}"
                return (path, method) if method in here.functions else None
            owner = here.instances.get(root)
            if rest and owner is not None and f"{owner}.{rest}" in here.functions:
                return path, f"{owner}.{rest}"
        parts = callee.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            target = self.module_path.get(".".join(parts[:cut]))
            if target is None:
                continue
            rest_parts = parts[cut:]
            there = self._file(target)
            if there is None:
                return None
            if ".".join(rest_parts) in there.functions:
                return target, ".".join(rest_parts)
            if ".".join([*rest_parts, "__init__"]) in there.functions:
                return target, ".".join([*rest_parts, "__init__"])
            alias = there.aliases.get(rest_parts[0])
            if alias is not None:  # `from .import_utils import has_x` in a package __init__
                return self.resolve(".".join([alias, *rest_parts[1:]]), target, None, depth + 1)
            for star in there.stars:  # `from .common import *` in a package __init__
                found = self.resolve(".".join([star, *rest_parts]), target, None, depth + 1)
                if found is not None:
                    return found
            return None
        return None

    def _memo(self, memo: dict[_K, _V], tag: str, key: _K, depth: int, cycle: _V, derive: Callable[[], _V]) -> _V:
        """`memo[key]`, derived once; a recursion back into the same derivation, or one deeper
        than MAX_CALL_DEPTH, gets `cycle` (the first visit decides)."""
        if key in memo:
            return memo[key]
        if (tag, key) in self._in_progress or depth > MAX_CALL_DEPTH:
            return cycle
        self._in_progress.add((tag, key))
        found = derive()
        self._in_progress.discard((tag, key))
        memo[key] = found
        return found

    def body(self, key: FunctionKey) -> list[BodyFact]:
        """The imports and calls in the function's body, in source order."""
        file = self._file(key[0])
        return file.bodies.get(key[1], []) if file is not None else []

    def signature(self, key: FunctionKey) -> Signature | None:
        """The function's signature where its body passes a parameter on (one of that name: none)."""
        file = self._file(key[0])
        return file.signatures.get(key[1]) if file is not None else None

    # --- calls through project classes ----------------------------------------------

    def targets(
        self, callee: str, path: str, within: str | None = None, receiver: ClassKey | None = None,
    ) -> list[Target]:
        """The project functions a call runs (`bound_targets`)."""
        return [target for target, _ in self.bound_targets(callee, path, within, receiver)]

    def bound_targets(
        self, callee: str, path: str, within: str | None = None, receiver: ClassKey | None = None,
    ) -> list[tuple[Target, How]]:
        """The project functions a call runs, as Python finds them, each with how the call reaches
        it (graph.passing): a project class's `__new__` and `__init__` (its own or inherited),
        `self.m()` / `cls.m()` / `super().m()` by the MRO of the instance's class, `cls.X.m()` on
        the class's own instance (a singleton's `cls._instance`), `C.m()`, a module-level
        instance's method, a function."""
        root, _, rest = callee.partition(".")
        if within is not None and rest and root in ("self", "cls", "super"):
            own = self.enclosing_class(path, within)
            if own is not None:
                actual_cls = receiver if receiver is not None and own in self.mro(receiver) else own
                attribute, _, method = rest.rpartition(".")
                if attribute and (root != "cls" or "." in attribute):
                    return []  # `self.model.forward()`: an object the pass does not know
                found = self.lookup(actual_cls, method, after=own if root == "super" else None)
                return [((found, actual_cls), self._through(root, attribute, path, within))] if found is not None else []
        cls = self.class_key(callee, path)
        if cls is not None:  # `EnvChecker()`
            found_keys = (self.lookup(cls, "__new__"), self.lookup(cls, "__init__"))
            return [((key, cls), "construct") for key in found_keys if key is not None]
        owner, _, method = callee.rpartition(".")
        owner_cls = self.class_key(owner, path) if owner else None
        how: How = "class"
        if owner_cls is None and owner:  # `registry.m()`, `from .env import CHECKER; CHECKER.m()`
            module, _, name = owner.rpartition(".")
            where = self.module_path.get(module) if module else path
            there = self._file(where) if where is not None else None
            instance = there.instances.get(name) if there is not None else None
            owner_cls = self.class_key(instance, where) if instance is not None and where is not None else None
            how = "instance"
        if owner_cls is not None:  # `C.m()`, `registry.m()` with `registry = Registry()`
            found = self.lookup(owner_cls, method)
            return [((found, owner_cls), how)] if found is not None else []
        key = self.resolve(callee, path, within)
        return [((key, None), self._resolved(callee, key, path))] if key is not None else []

    def _through(self, root: str, attribute: str, path: str, within: str) -> How:
        """How `self.m()`, `cls.m()`, `cls._instance.m()`, `super().m()` reach `m`: through an
        instance, or the class (`cls`, and `super()` in a class method or `__new__`)."""
        if root == "self" or attribute:
            return "instance"
        if root == "cls":
            return "class"
        enclosing = self.signature((path, within))
        if enclosing is None:  # no signature kept: only `__init__` is surely an instance's
            return "instance" if within.endswith(".__init__") else None
        return "class" if enclosing.method in ("class", "static") else "instance"

    def _resolved(self, callee: str, key: FunctionKey, path: str) -> How:
        """How a call `resolve` answered reaches its function: a plain function, a class's
        `__init__` (`Registry()`), a method through `self`, `cls` or a module-level instance;
        any other way to a method passes nothing."""
        file = self._file(key[0])
        owner = key[1].rpartition(".")[0]
        if file is None or owner not in file.classes:
            return "function"
        if key[1].endswith(".__init__") and not callee.endswith(".__init__"):
            return "construct"
        root = callee.partition(".")[0]
        here = self._file(path)
        if root == "self" or (here is not None and root in here.instances):
            return "instance"
        return "class" if root == "cls" else None

    def enclosing_class(self, path: str, within: str) -> ClassKey | None:
        """The class whose method (or a function nested in it) `within` is: what `self` is."""
        file = self._file(path)
        if file is None:
            return None
        parts = within.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            name = ".".join(parts[:cut])
            if name in file.classes:
                return path, name
        return None

    def class_key(self, qualified: str, path: str, depth: int = 0) -> ClassKey | None:
        """The project class a dotted name names, following imports and re-exports."""
        key = (qualified, path, depth)
        if key in self._class_keys:
            return self._class_keys[key]
        found = self._class_key(qualified, path, depth)
        self._class_keys[key] = found
        return found

    def _class_key(self, qualified: str, path: str, depth: int) -> ClassKey | None:
        if depth > 8:
            return None
        here = self._file(path)
        if here is not None and qualified in here.classes:
            return path, qualified
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            target = self.module_path.get(".".join(parts[:cut]))
            if target is None:
                continue
            there = self._file(target)
            if there is None:
                return None
            rest = ".".join(parts[cut:])
            if rest in there.classes:
                return target, rest
            alias = there.aliases.get(parts[cut])
            if alias is not None and alias != qualified:
                return self.class_key(".".join([alias, *parts[cut + 1:]]), target, depth + 1)
            for star in there.stars:
                found = self.class_key(".".join([star, *parts[cut:]]), target, depth + 1)
                if found is not None:
                    return found
            return None
        return None

    def mro(self, cls: ClassKey, depth: int = 0) -> tuple[ClassKey, ...]:
        """The class's method resolution order among project classes (C3; bases the project
        does not define are left out)."""
        return self._memo(self._mros, "mro", cls, depth, (cls,), lambda: self._mro(cls, depth))

    def _mro(self, cls: ClassKey, depth: int) -> tuple[ClassKey, ...]:
        file = self._file(cls[0])
        fact = file.classes.get(cls[1]) if file is not None else None
        bases = [self.class_key(base, cls[0]) for base in (fact.bases if fact is not None else ())]
        parents = [self.mro(base, depth + 1) for base in bases if base is not None]
        return (cls, *_c3([list(p) for p in parents] + [[p[0] for p in parents]]))

    def lookup(self, cls: ClassKey, method: str, after: ClassKey | None = None) -> FunctionKey | None:
        """The method the class's MRO finds (`after`: past that class, as `super()` looks)."""
        order = self.mro(cls)
        if after is not None:
            order = order[order.index(after) + 1:] if after in order else ()
        for owner in order:
            file = self._file(owner[0])
            name = f"{owner[1]}.{method}"
            if file is not None and name in file.functions:
                return owner[0], name
        return None

    def scanned(self, target: Target, depth: int = 0) -> tuple[str, ...]:
        """Packages whose every module calling the function imports (a `pkgutil` walk)."""
        return self._memo(self._scans, "scan", target, depth, (), lambda: self._scanned(target, depth))

    def _scanned(self, target: Target, depth: int) -> tuple[str, ...]:
        found: list[str] = []
        key, receiver = target
        path = key[0]
        file = self._file(path)
        if file is not None:
            for scan in file.scans.get(key[1], ()):
                if scan.package is not None and self.judge.runs(scan.context, path):
                    found.append(scan.package)
            for fact in file.bodies.get(key[1], ()):
                if isinstance(fact, CallFact) and self.judge.runs(fact.context, path):
                    found.extend(self._call_scans(fact, path, depth + 1, receiver))
        return tuple(dict.fromkeys(found))

    def body_imports(self, target: Target, depth: int = 0) -> tuple[str, ...]:
        """What calling the function imports that runs on the platform (its body, and the project
        functions it calls): `def _register(): from . import models` called at import time."""
        return self._memo(self._body_imports, "imports", target, depth, (), lambda: self._body_imports_of(target, depth))

    def _body_imports_of(self, target: Target, depth: int) -> tuple[str, ...]:
        found: list[str] = []
        key, receiver = target
        path = key[0]
        file = self._file(path)
        for fact in file.bodies.get(key[1], ()) if file is not None else ():
            if not self.judge.runs(fact.context, path):
                continue
            if isinstance(fact, ImportFact):
                found.append(_imported(fact))
                if fact.kind == "from" and fact.member != "*":
                    found.append(fact.name)  # the submodule, when it is one (judged by the caller)
            else:
                for inner in self.targets(fact.callee, path, fact.context.function, receiver):
                    found.extend(self.body_imports(inner, depth + 1))
        return tuple(dict.fromkeys(found))

    def body_reads(self, target: Target, depth: int = 0) -> tuple[tuple[str, bool], ...]:
        """The attribute reads calling the function runs on the platform (its body's, and the
        project functions' it calls), each with whether its last name is computed
        (graph.lazy_reads): `def load(): return pkg.LLM` called at import time."""
        return self._memo(self._body_reads, "reads", target, depth, (), lambda: self._body_reads_of(target, depth))

    def _body_reads_of(self, target: Target, depth: int) -> tuple[tuple[str, bool], ...]:
        key, receiver = target
        path = key[0]
        file = self._file(path)
        if file is None:
            return ()
        runs = lambda context: self.judge.runs(context, path)  # noqa: E731
        # `getattr(pkg, name)` with a computed name in a body is left out: it is mostly a helper's
        # parameter a caller passes a name the module binds (numpy.ma's `getattr(np, funcname)`
        # for each of its wrappers), and a cut named at every call was noise (a limit, documented).
        reads = lazy_reads.in_body(file.attributes.get(key[1], ()), runs, self.question.python)
        found: list[tuple[str, bool]] = [(name, computed) for name, _, computed in reads if not computed]
        for fact in file.bodies.get(key[1], ()):
            if isinstance(fact, CallFact) and self.judge.runs(fact.context, path):
                for inner in self.targets(fact.callee, path, fact.context.function, receiver):
                    found.extend(self.body_reads(inner, depth + 1))
        return tuple(dict.fromkeys(found))

    def _call_scans(self, call: CallFact, path: str, depth: int, receiver: ClassKey | None = None) -> list[str]:
        found: list[str] = []
        for target in self.targets(call.callee, path, call.context.function, receiver):
            found.extend(self.scanned(target, depth))
            key = target[0]
            callee = self._file(key[0])
            # `import_model_classes("pkg.models")`: the walk's package is the literal argument.
            if call.first_string is not None and callee is not None and any(
                scan.package is None for scan in callee.scans.get(key[1], ())
            ):
                found.append(call.first_string)
        return found

    def children(self, package: str) -> tuple[str, ...]:
        """The modules directly in a project package (what `pkgutil.iter_modules` lists)."""
        if package not in self._children:
            prefix = package + "."
            self._children[package] = tuple(
                sorted(m for m in self.module_path if m.startswith(prefix) and "." not in m[len(prefix):])
            )
        return self._children[package]

    # --- sites and edges ----------------------------------------------------------

    def sites(self, path: str) -> list[HeavySite]:
        """The heavy sites of one file, in source order (decorators included)."""
        if path not in self._sites:
            self._sites[path] = self.sites_for(path, (self.question,))[0]
        return self._sites[path]

    def calls(self, probes: tuple[tuple[str, str | None], ...]) -> Calls:
        """What import-time calls load, for the questions with these probes."""
        found = self._calls.get(probes)
        if found is None:
            found = self._calls[probes] = Calls(self, probes)
        return found

    def sites_for(self, path: str, questions: Sequence[Question]) -> list[list[HeavySite]]:
        """The heavy sites of one file for each of `questions` (which share this graph and their
        probes), each in source order: what the file's import-time calls load is walked once
        for them all, and each question reads its own sites off the walk."""
        file = self._file(path)
        if file is None or not questions:
            return [_NO_SITES for _ in questions]
        facts = file.facts
        calls = self.calls(questions[0].probes)
        bits = [calls.bit(question) for question in questions]
        imports = self._heavy_imports(facts, calls, functools.reduce(operator.or_, bits))
        found = [list(self._import_sites(facts, imports, bit)) for bit in bits]
        called = self._called(facts, calls, functools.reduce(operator.or_, bits))
        decorated = self._decorated(file)
        for bit, sites in zip(bits, found):
            sites.extend(self._call_sites(facts, called, bit))
            sites.extend(self._decorator_sites(facts, decorated, calls, bit))
        return [sorted(sites, key=lambda s: (s.span.line, s.span.column)) if sites else _NO_SITES for sites in found]

    def cuts_at(self, path: str) -> list[str]:
        """Where the lazy loaders the file's imports ask could not be told what they import (the
        chains cut there), as `why` names them; its links are derived for it."""
        file = self._file(path)
        module = file.facts.module if file is not None else None
        if module is None or self.module_path.get(module) != path:
            return []
        self.edges(module)
        return list(self.cuts.get(module, ()))

    def value_uses(self, path: str) -> list[ValueUse]:
        """The file's uses of the `values` keys (graph.value_uses)."""
        file = self._file(path)
        keys = frozenset(name for name, _ in self.question.judged_on.values)
        return value_uses(file.facts, keys) if file is not None else []

    def edges(self, module: str) -> list[Link]:
        if module not in self._edges:
            file = self._file(self.module_path[module]) if module in self.module_path else None
            self._edges[module] = self._find_edges(file.facts) if file is not None else []
        return self._edges[module]

    def eager(self, facts: FileFacts, fact: ImportFact | CallFact) -> bool:
        return self.judge.eager(fact.context, facts.path)

    def lazy(self, fact: ImportFact) -> bool:
        """A lazy import every Python the project supports runs lazily (PEP 810)."""
        return bool(fact.lazy) and self.question.python >= LAZY_PYTHON

    def loaded(self, facts: FileFacts, fact: ImportFact) -> ReadFact | None | bool:
        """Where an import runs on the platform at import time: True at its statement, a read of the
        name a lazy import bound (the first that runs on the platform), or None: it does not."""
        if not self.judge.eager(fact.context, facts.path):
            return None
        if self.installed is not None and not self._can_run(fact):
            return None
        if not self.lazy(fact):
            return True
        at = (fact.span.line, fact.span.column)
        for read in facts.reads:
            if read.name == fact.bound and (read.span.line, read.span.column) > at and self.judge.eager(read.context, facts.path):
                return read
        return None

    def requires(self, context: Context, path: str, tried: str | None = None) -> tuple[str, ...]:
        """By default, with an environment read: what it lacks that code here needs to run, the
        module a `try:` import here tries (`tried`) or one an availability test that keeps this
        code off there tests (what a finding says: "if `x` is installed")."""
        if self.deployed is None or self.environment is None:
            return ()
        names = [tried] if tried is not None and not self.environment(tried) else []
        for branch in context.branches:
            if self.deployed.branch_value(branch, context, path) is (True if branch.orelse else False):
                names.extend(self.deployed.tested(branch.test, path))
        return tuple(dict.fromkeys(names))

    def _import_requires(self, facts: FileFacts, fact: ImportFact) -> tuple[str, ...]:
        if self.deployed is None:
            return ()
        tried = (fact.module if fact.kind == "from" else fact.name) if fact.caught else None
        return self.requires(fact.context, facts.path, tried)

    def _can_run(self, fact: ImportFact) -> bool:
        """With the environment deciding: a `try:` import of a module not installed raises (its
        handler runs), and a handler's import runs only where one of the imports its `try:`
        tries is not installed."""
        assert self.installed is not None
        if fact.caught and not self.installed(fact.module if fact.kind == "from" else fact.name):
            return False
        return not fact.fallback_for or not all(self.installed(name) for name in fact.fallback_for)

    def _loaded_before_raising(self, facts: FileFacts, fact: ImportFact) -> list[str]:
        """With the environment deciding, a `try:` import of a module not installed whose
        packages are: Python imports each of those before it raises (`import a.b` imports `a`)."""
        if self.installed is None or not fact.caught or not self.judge.eager(fact.context, facts.path):
            return []
        named = fact.module if fact.kind == "from" else fact.name
        found: list[str] = []
        if self.installed(named):
            return found  # kept off by something else (a fallback where its `try:` succeeds)
        for prefix in module_heads(named):
            if prefix == named or not self.installed(prefix):
                break
            found.append(prefix)
        return found

    def _heavy_imports(self, facts: FileFacts, calls: Calls, need: Mask) -> list[_Heavy]:
        """The file's imports heavy for a question of `need`: each with those questions, those
        for which the module of `from m import x` is heavy itself, and where it runs (`loaded`)."""
        found: list[_Heavy] = []
        for fact in facts.imports:
            mask = calls.heavy(fact.name) & need
            if mask:
                whole = calls.heavy(fact.module) & mask if fact.kind == "from" else 0
                found.append((fact, mask, whole, self.loaded(facts, fact)))
        return found

    def _import_sites(self, facts: FileFacts, imports: list[_Heavy], bit: Mask) -> Iterator[HeavySite]:
        seen_statements: set[int] = set()
        loads: dict[int, ReadFact] = {}  # a lazy `from` statement of a heavy module: its first read
        for fact, mask, wholes, where in imports:
            if not mask & bit:
                continue
            whole = bool(wholes & bit)
            if isinstance(where, ReadFact) and whole:
                first = loads.get(fact.statement)
                if first is None or (where.span.line, where.span.column) < (first.span.line, first.span.column):
                    loads[fact.statement] = where
                continue
            if where is None:
                continue
            # A `from` statement of a heavy module counts once, at its module.
            if whole:
                if fact.statement in seen_statements:
                    continue
                seen_statements.add(fact.statement)
            heavy = fact.module if whole else fact.name
            span = fact.module_span if whole else fact.span
            detail = f"import {heavy}" if fact.kind != "dynamic" else f'import_module("{heavy}")'
            if isinstance(where, ReadFact):
                yield self._lazy_site(facts, heavy, where, f"lazy {detail}")
                continue
            yield HeavySite(
                facts.path, facts.module, heavy, span, fact.statement_line, "import",
                f"lazy {detail}" if fact.lazy else detail, trial=fact.probe, eager_lazy=bool(fact.lazy),
                unjudged=self.judge.unjudged(fact.context, facts.path), requires=self._import_requires(facts, fact),
            )
        for fact in facts.imports:
            read = loads.pop(fact.statement, None)
            if read is not None:
                yield self._lazy_site(facts, fact.module, read, f"lazy import {fact.module}")

    def _called(self, facts: FileFacts, calls: Calls, need: Mask) -> list[tuple[CallFact, Called, tuple[str, ...]]]:
        """The file's import-time calls that load a heavy module for a question of `need`: each
        as `passing.actual` makes it, what it loads, and what the environment lacks for it."""
        found: list[tuple[CallFact, Called, tuple[str, ...]]] = []
        for fact in facts.calls:
            if not self.judge.eager(fact.context, facts.path):
                continue
            call, literals = actual(fact, ())
            loads = calls.call(call, facts.path, 0, None, literals, need)
            if loads is not None:
                requires = self.requires(fact.context, facts.path) if self.deployed is not None else ()
                found.append((call, loads, requires))
        return found

    def _call_sites(
        self, facts: FileFacts, called: list[tuple[CallFact, Called, tuple[str, ...]]], bit: Mask,
    ) -> Iterator[HeavySite]:
        """Each call's site: every heavy module it loads, the first as `heavy` (contract section 4)."""
        for call, loads, requires in called:
            found = loads.read(bit) if loads.mask & bit else None
            if not found:
                continue
            (heavy, steps, _), *others = found
            # One step is the probe itself; more is a call of a project function.
            kind: SiteKind = "probe" if len(steps) == 1 else "call"
            yield HeavySite(
                facts.path, facts.module, heavy, call.span, call.statement_line, kind, " -> ".join(steps),
                unjudged=joined(self.judge.unjudged(call.context, facts.path), *(tests for _, _, tests in found)),
                also=tuple((name, " -> ".join(way)) for name, way, _ in others), requires=requires,
            )

    def _decorated(self, file: _File) -> list[tuple[DecoratorFact, list[str]]]:
        """The file's decorators that run at import time, each with the names it reads through
        a module-level import, as the gateways they pass stand for them."""
        facts = file.facts
        found: list[tuple[DecoratorFact, list[str]]] = []
        for decorator in facts.decorators:
            if self.judge.eager(decorator.context, facts.path):
                # `tilelang = _LazyTilelang()`: a local object that shares the name is no module's
                names = [through_gateway(name, self.exports) for name in decorator.qualified_names if file.imported(name)]
                if names:
                    found.append((decorator, names))
        return found

    def _decorator_sites(
        self, facts: FileFacts, decorated: list[tuple[DecoratorFact, list[str]]], calls: Calls, bit: Mask,
    ) -> Iterator[HeavySite]:
        for decorator, names in decorated:
            real = next((name for name in names if calls.heavy(name) & bit), None)
            if real is not None:
                yield HeavySite(
                    facts.path, facts.module, real.split(".")[0], decorator.span, decorator.statement_line,
                    "jit", f"@{real}", unjudged=self.judge.unjudged(decorator.context, facts.path),
                )

    def _lazy_site(self, facts: FileFacts, heavy: str, read: ReadFact, detail: str) -> HeavySite:
        return HeavySite(
            facts.path, facts.module, heavy, read.span, read.statement_line, "import", detail, loaded_by=read.name,
            unjudged=self.judge.unjudged(read.context, facts.path),
        )

    def _find_edges(self, facts: FileFacts) -> list[Link]:
        assert facts.module is not None
        found = _Links(facts.module, facts.path, self.module_path)
        add = found.add
        for fact in facts.imports:
            where = self.loaded(facts, fact)
            if where is None:
                for prefix in self._loaded_before_raising(facts, fact):
                    add(prefix, fact.span.line, "import", f"{_spelled(fact)}, which raises after importing {prefix}")
                continue
            found.requires = self._import_requires(facts, fact)
            # A lazy import runs where its name is first read at import time.
            line, detail = (where.span.line, f"{_spelled(fact)}, loaded by reading `{where.name}`") \
                if isinstance(where, ReadFact) else (fact.span.line, _spelled(fact))
            named = fact.module if fact.kind == "from" and fact.member != "*" else fact.name
            for prefix in module_heads(named):
                add(prefix, line, "import", detail)
            if fact.kind == "from" and fact.member != "*" and fact.name in self.module_path:
                # `from pkg import name` imports the submodule only when pkg/__init__ does not bind
                # it when the import runs (in pkg/__init__ itself, before the import).
                init_path = self.module_path.get(fact.module)
                at = fact.span.line if init_path == facts.path else AFTER
                if init_path is None or fact.member is None or not self.binds(init_path, fact.member, at):
                    add(fact.name, line, "import", detail)
            if fact.kind == "from" and fact.member not in (None, "*"):
                self._lazy_edges(facts, fact.module, fact.member or "", fact.span.line, line, detail, add)
            elif fact.kind == "from" and fact.member == "*":
                self._star_edges(facts, fact.module, fact.span.line, line, detail, add)
        found.requires = ()
        self._read_edges(facts, add)
        file = self._file(facts.path)
        for scan in file.scans.get(None, ()) if file is not None else ():
            if scan.package is not None and self.judge.eager(scan.context, facts.path):
                for child in self.children(scan.package):
                    add(child, scan.line, "scan", f"walks {scan.package} and imports each module")
        for call in facts.calls:
            if self.judge.eager(call.context, facts.path):
                found.requires = self.requires(call.context, facts.path)
                self._call_edges(facts, call, add)
        return found.links

    def _exports(self, path: str) -> tuple[str, ...]:
        """What a file exports as transformers' `define_import_structure` reads it."""
        if self.read_text is None:
            facts = self.facts(path)
            return facts.exports if facts is not None else ()
        source = self.read_text(path)
        text = source.decode("utf-8", "replace") if source is not None else ""
        return exports_of(text) if wants_exports(text) else ()

    def _lazy_edges(
        self, facts: FileFacts, module: str, member: str, at: int, line: int, detail: str,
        add: Callable[[str, int, str, str], None],
    ) -> None:
        """The modules `module`'s lazy loader imports when `member` is asked of it at `line`."""
        loaded = self.loaders.asked(module, member, facts.path, at, at if self.module_path.get(module) == facts.path else AFTER)
        if loaded is None:
            return
        for target in loaded.modules:
            for prefix in module_heads(target):
                add(prefix, line, "import", f"{detail}, which the lazy loader at {loaded.where} answers by importing {target}")
        if loaded.cut:
            self.cuts.setdefault(facts.module or "", []).append(
                f"{facts.path}:{line}: {detail}: the lazy loader at {loaded.where} imports what the pass cannot "
                f"tell ({loaded.cut}); the chain is cut there"
            )

    def _call_edges(self, facts: FileFacts, call: CallFact, add: Callable[[str, int, str, str], None]) -> None:
        """What an import-time call imports: the packages it walks, what the functions it runs
        import, and what lazy loaders their bodies ask (`from pkg import name`, `pkg.name`)."""
        line = call.span.line
        for package in self._call_scans(call, facts.path, 0):
            for child in self.children(package):
                add(child, line, "scan", f"{call.tail}() imports every module of {package}")
        for target in self.targets(call.callee, facts.path, call.context.function):
            for name in self.body_imports(target):
                for prefix in module_heads(name):
                    add(prefix, line, "call", f"{call.tail}() imports {name}")
                owner, _, member = name.rpartition(".")
                if owner and name not in self.module_path:  # `from pkg import name` in the body
                    self._lazy_edges(facts, owner, member, line, line, f"{call.tail}() imports {name}", add)
            asked: set[str] = set()
            for qualified, computed in self.body_reads(target):
                self._read_asks(facts, qualified, line, computed, f"{call.tail}() reads `{qualified}`", add, asked)

    def _read_edges(self, facts: FileFacts, add: Callable[[str, int, str, str], None]) -> None:
        """What the lazy loaders the module's import-time reads ask import (graph.lazy_reads)."""
        asked: set[str] = set()
        eager = lambda context: self.judge.eager(context, facts.path)  # noqa: E731
        for qualified, line, computed in lazy_reads.import_time(facts, eager, self.question.python):
            self._read_asks(facts, qualified, line, computed, f"reads `{qualified}`", add, asked)

    def _read_asks(
        self, facts: FileFacts, qualified: str, line: int, computed: bool, detail: str,
        add: Callable[[str, int, str, str], None], asked: set[str],
    ) -> None:
        """What a read of `qualified` at `line` makes a lazy loader import, once per name asked
        (`asked`); `getattr(pkg, name)` with a computed name, of a module with a loader, is a cut."""
        head = qualified.partition(".")[0]
        known = self._heads.get(head)
        if known is None:  # one lookup per top-level name: most reads are of no module's
            known = self._heads[head] = head in self.module_path
        if not known:
            return
        if computed:
            loader = self.loaders.loader(qualified) if qualified in self.module_path else None
            if loader is not None and qualified not in asked:
                asked.add(qualified)
                self.cuts.setdefault(facts.module or "", []).append(
                    f"{facts.path}:{line}: `getattr({qualified}, ...)` asks the lazy loader at {loader[0]}:{loader[1].line} "
                    "for a name the pass cannot tell; the chain is cut there"
                )
            return
        if qualified not in self._asks:
            self._asks[qualified] = lazy_reads.asked(
                qualified, self.module_path.__contains__, lambda module: self.loaders.loader(module) is not None,
                self.loaders.maps,
            )
        for owner, member in self._asks[qualified]:
            if f"{owner}.{member}" not in asked:
                asked.add(f"{owner}.{member}")
                self._lazy_edges(facts, owner, member, line, line, detail, add)

    def _star_edges(
        self, facts: FileFacts, module: str, at: int, line: int, detail: str, add: Callable[[str, int, str, str], None],
    ) -> None:
        """`from module import *`: each name of the module's `__all__` it does not bind is asked of its loader."""
        star = self.loaders.star(module)
        if star is None:
            return
        names, cut, where = star
        for name in names:
            self._lazy_edges(facts, module, name, at, line, f"{detail} (`{name}` in its `__all__`)", add)
        if cut:
            self.cuts.setdefault(facts.module or "", []).append(
                f"{facts.path}:{line}: {detail}: the lazy loader at {where} is asked each name of {cut}, which the pass "
                "cannot read; the chain is cut there"
            )

    def binds(self, path: str, name: str, at: int = AFTER) -> bool:
        """Whether the module surely binds `name` (other than to its own submodule of that
        name) before line `at`: a binding that runs on the platform whenever the module does (not
        under an `if` that may not take its side, `TYPE_CHECKING` or `if False:`, not in a
        `try:` that may fail or its handler, a `with`, a loop), with no `del` after it."""
        file = self._file(path)
        if file is None:
            return False
        events = sorted(
            (line, removed, context) for line, removed, context in file.bindings.get(name, ()) if line < at
        )
        bound = False
        for _, removed, context in events:
            if removed:
                bound = bound and not self.judge.runs(context, path)
            elif self.judge.surely(context, path):
                bound = True
        return bound

    # --- chains -------------------------------------------------------------------

    def reach(self, entry: str) -> dict[str, Link | None]:
        """Every module that importing `entry` runs, with the link it was first reached by (BFS)."""
        return self.graph.reach(entry)

    chain = staticmethod(ImportGraph.chain)

    def reachable_sites(self, entry: str) -> Iterator[tuple[Chain, HeavySite]]:
        """Each heavy site `entry` reaches, with the shortest chain to it."""
        parents = self.reach(entry)
        for module in parents:
            for site in self.sites(self.module_path[module]):
                yield with_site(self.chain(entry, parents, module), site), site

    def first_reached(self, entries: Iterable[str]) -> Iterator[tuple[Chain, HeavySite]]:
        return first_reached(entries, self.reachable_sites)

    def why(self, entry: str, target: str) -> Chain | None:
        """The shortest eager chain from `entry` to a project module or a heavy module, one that
        needs nothing the environment lacks wherever there is one (as a finding's chain is)."""
        found = self.why_all(entry, target)
        return found[0] if found else None

    def why_all(self, entry: str, target: str) -> list[Chain]:
        """Every route to `target`, one chain per last two links: each import of the module that
        holds the site (or of `target`, a project module) by each module `entry` reaches, then
        the site, each chain the shortest that ends with those links; those that need nothing the
        environment lacks first."""
        parents = self.reach(entry)
        into = self.graph.into(entry)

        def routes(module: str) -> list[Chain]:
            """Chains to `module`, one per import of it (the entry itself, or a parent package
            of the entry, by its own link)."""
            link = parents[module]
            found = [Chain(entry, (*self.chain(entry, parents, l.source).links, l)) for l in into.get(module, ())]
            if link is None or link.kind == "package":
                found.insert(0, self.chain(entry, parents, module))
            return found

        chains: list[Chain] = []
        if target in self.module_path:
            if target in parents:
                chains = routes(target)
        else:
            for module in parents:
                sites = [
                    (site, name) for site in self.sites(self.module_path[module]) for name in site.loads()
                    if name == target or name.startswith(target + ".")
                ]
                for prefix in routes(module) if sites else ():
                    chains.extend(with_site(prefix, site, name) for site, name in sites)
        chains.sort(key=lambda chain: (chain.requires, len(chain.links)))
        return chains


class _File:
    """One file's facts, indexed for call resolution."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.functions = {f.name for f in facts.functions}
        # A function's signature where its body passes a parameter on; None where two functions
        # of that name differ (graph.passing binds nothing then).
        self.signatures: dict[str, Signature | None] = {}
        for function in facts.functions:
            seen = self.signatures.get(function.name, function.signature)
            self.signatures[function.name] = function.signature if seen == function.signature else None
        # Module-level bindings, for re-exports: `from .import_utils import has_x` binds `has_x`.
        self.aliases = {
            i.bound: i.name if i.kind == "from" or i.bound != i.name.split(".")[0] else i.bound
            for i in facts.imports
            if i.bound is not None and i.context.function is None
        }
        self.stars = [i.module for i in facts.imports if i.member == "*" and i.context.function is None]
        self.classes = {c.name: c for c in facts.classes}
        # Each module-level binding of a name other than to its own submodule of that name (for
        # `from pkg import name`; `from . import name` in pkg/__init__ is the submodule): line,
        # whether it is a `del`, and where it stands.
        self.bindings: dict[str, list[tuple[int, bool, Context]]] = {}
        for assign in facts.assigns:
            self.bindings.setdefault(assign.name, []).append((assign.line, assign.removed, assign.context))
        for function in facts.functions:
            if "." not in function.name:
                self.bindings.setdefault(function.name, []).append((function.line, False, function.context))
        for i in facts.imports:
            if i.bound is not None and i.context.function is None and i.name != f"{facts.module}.{i.bound}":
                self.bindings.setdefault(i.bound, []).append((i.span.line, False, i.context))
        self.bound = set(self.bindings)
        # `registry = Registry()` with `Registry` a local class: `registry.m()` is `Registry.m`.
        counts: dict[str, int] = {}
        for assign in facts.assigns:
            counts[assign.name] = counts.get(assign.name, 0) + 1
        self.instances = {
            a.name: a.value.qualified for a in facts.assigns
            if counts[a.name] == 1 and isinstance(a.value, Leaf) and a.value.call and "." not in a.value.qualified
            and a.value.qualified in self.bound
        }
        self.bodies: dict[str, list[BodyFact]] = {}
        body_facts: list[BodyFact] = [*facts.imports, *facts.calls]
        for fact in body_facts:
            if fact.context.function is not None:
                self.bodies.setdefault(fact.context.function, []).append(fact)
        for body in self.bodies.values():
            body.sort(key=lambda f: (f.span.line, f.span.column))
        # Each function's attribute reads (graph.lazy_reads), by the function.
        self.attributes: dict[str, list[AttributeFact]] = {}
        for read in facts.attributes:
            if read.context.function is not None:
                self.attributes.setdefault(read.context.function, []).append(read)
        self.scans: dict[str | None, list[ScanFact]] = {}
        for scan in facts.scans:
            self.scans.setdefault(scan.context.function, []).append(scan)


    def imported(self, qualified: str) -> bool:
        """Whether a qualified name was reached through a module-level import (`import tilelang`
        then `@tilelang.jit`; a `tilelang = None` fallback beside it does not change that)."""
        for target in self.aliases.values():
            if qualified == target or qualified.startswith(target + "."):
                return True
        return False


class _Links:
    """A module's links as `Project._find_edges` collects them: one per target, in source order;
    where an import that needs nothing missing (`Link.requires`) reaches a target again, its link
    replaces the one that needs something."""

    def __init__(self, source: str, path: str, known: Mapping[str, str]) -> None:
        self.source = source
        self.path = path
        self.known = known
        self.links: list[Link] = []
        self.placed: dict[str, int] = {}
        self.requires: tuple[str, ...] = ()  # what the import being read needs

    def add(self, target: str, line: int, kind: str, detail: str) -> None:
        at = self.placed.get(target)
        if at is not None:
            if not self.requires and self.links[at].requires:
                self.links[at] = Link(self.source, target, self.path, line, kind, detail)
        elif target != self.source and target in self.known:
            self.placed[target] = len(self.links)
            self.links.append(Link(self.source, target, self.path, line, kind, detail, self.requires))


def first_reached(
    entries: Iterable[str], reachable_sites: Callable[[str], Iterable[tuple[Chain, HeavySite]]]
) -> Iterator[tuple[Chain, HeavySite]]:
    """Each heavy site any entry reaches, once: with the shortest chain from the first entry
    (in the order given) that reaches it."""
    seen: set[tuple[str, int, int]] = set()
    for entry in entries:
        for chain, site in reachable_sites(entry):
            if site.key not in seen:
                seen.add(site.key)
                yield chain, site


def with_site(chain: Chain, site: HeavySite, name: str | None = None) -> Chain:
    """The chain to the module holding a site, with the site as its last link (to `name`, one
    of the heavy modules it loads; the first by default)."""
    source = chain.modules[-1]
    kind: str = "import" if site.kind == "import" else site.kind
    detail = site.detail if name in (None, site.heavy) else dict(site.also).get(name or "", site.detail)
    last = Link(source, name or site.heavy, site.path, site.span.line, kind, detail, site.requires)
    return Chain(chain.entry, (*chain.links, last))


def _c3(sequences: list[list[ClassKey]]) -> list[ClassKey]:
    """C3 linearization's merge; where the bases admit no consistent order (Python would
    refuse the class), their orders one after the other."""
    sequences = [list(s) for s in sequences if s]
    merged: list[ClassKey] = []
    while sequences:
        for sequence in sequences:
            head = sequence[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return merged + [c for s in sequences for c in s if c not in merged]
        merged.append(head)
        sequences = [[c for c in s if c != head] for s in sequences]
        sequences = [s for s in sequences if s]
    return merged


def _imported(fact: ImportFact) -> str:
    """The module an import runs: `from m import x` runs `m` (and `m.x` if a submodule)."""
    return fact.module if fact.kind == "from" and fact.member != "*" else fact.name


def _spelled(fact: ImportFact) -> str:
    lazy = "lazy " if fact.lazy else ""
    if fact.kind == "from":
        return f"{lazy}from {fact.module} import {fact.member}"
    if fact.kind == "dynamic":
        return f'import_module("{fact.name}")'
    return f"{lazy}import {fact.name}"
