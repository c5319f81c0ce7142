"""What a rule kind is: the protocol every `kind:` value implements, and what it is handed.

A kind is one unit (pre-commit's languages, import-linter's contract types): its own
YAML keys and their parsing, which files it reads and the facts it needs, its check,
and how `explain` shows it. The engine, `rules`, `test-rules` and the stale-entry
tracker only ever ask a rule's kind, so a new kind is one module and one registry line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from import_policy.diagnostics import Diagnostic
from import_policy.config.model import Policy
from import_policy.facts.records.model import FileFacts
from import_policy.facts.shared.usegate import UseGate
from import_policy.patterns import DottedPattern, Verdict

# Types only: a run that takes its policy from the cache imports no validation or C-family scanner.
if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator
    from import_policy.facts.cfamily.scan import Include
    from import_policy.graph.plan import GraphPlan
    from import_policy.graph.question import Question
    from import_policy.kinds.project import ProjectContext

Language = Literal["python", "c"]


class Candidates(Protocol):
    """A byte-level test that never misses a finding: could the file matter at all?"""

    def wants(self, source: bytes, module: str | None = None) -> bool: ...


class _Every:
    def wants(self, source: bytes, module: str | None = None) -> bool:
        return True


class _No:
    def wants(self, source: bytes, module: str | None = None) -> bool:
        return False


EVERY_FILE: Candidates = _Every()
NO_FILE: Candidates = _No()


class RuleFault(Exception):
    """What a kind's `prepare` finds wrong with a rule in this tree (an entry module that is not
    a module of the project): a configuration error at the YAML line, raised before any file
    is read."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class Kind(Protocol):
    """Every kind: its YAML, its language, and how people read its rules."""

    @property
    def name(self) -> str:
        """The `kind:` value."""
        ...

    @property
    def language(self) -> Language: ...

    @property
    def keys(self) -> tuple[str, ...]:
        """YAML keys beyond the common ones (`id`, `message`, `files`, ...)."""
        ...

    def parse(self, v: Validator, items: Items, common: RuleFields) -> Any:
        """The rule (a frozen `RuleBase`), with every fault reported through `v`."""
        ...

    def fixable(self, rule: Any) -> str:
        """'yes', 'unsafe' or 'no', as `rules` shows it."""
        ...

    def says(self, rule: Any) -> str:
        """What its findings say, as `rules` shows it: the rule's `message`, else the kind's
        default with a placeholder for what each finding fills in (never blank)."""
        ...

    def explain_patterns(self, rule: Any) -> list[str]:
        """The `forbid` (and `except`) lines of `explain`."""
        ...

    def explain_options(self, rule: Any) -> list[str]:
        """The kind's own settings, shown after `allow_in`."""
        ...

    def name_excepts(self, rule: Any) -> Sequence[DottedPattern]:
        """`except` entries over dotted names, which the stale tracker follows per judged name."""
        ...


class PythonKind(Kind, Protocol):
    def prepare(self, rule: Any, policy: Policy) -> Any:
        """The rule as this run checks it: a kind whose findings depend on the project's layout
        (not only on one file's facts) reads it here, once per run."""
        ...

    def candidates(self, rules: Sequence[Any]) -> Candidates:
        """Which files these rules (all of this kind, all applying to the path) could report in."""
        ...

    def uses(self, rules: Sequence[Any]) -> tuple[Candidates, UseGate, str] | None:
        """When uses of names must be resolved: (which files, which names, a fingerprint of
        what decides them, for the facts cache). None: the kind reads no uses."""
        ...

    def check(self, rule: Any, facts: FileFacts) -> list[Diagnostic]: ...

    def forbids(self, rule: Any, name: str) -> bool:
        """Whether a forbid pattern covers the dotted name, `except` entries aside (an entry
        decides only a name the rule would otherwise forbid)."""
        ...

    def verdict(self, rule: Any, name: str) -> Verdict:
        """How the rule judges a dotted name (for `except` entries the stale tracker follows)."""
        ...


class CScan(Protocol):
    """One C-family file, decoded and blanked once for every rule."""

    @property
    def code(self) -> str: ...

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) in the source of `code`'s character at `offset`."""
        ...

    @property
    def includes(self) -> Sequence[Include]: ...


class CKind(Kind, Protocol):
    def check(self, rule: Any, scan: CScan, path: str) -> list[Diagnostic]: ...


class ProjectPass(Protocol):
    """A check of the whole project: it states its questions of the graph (`Question`: what
    counts as a site, on which platform, from which entries) and checks the graph's answers,
    run once per run with the run's `ProjectContext` (`context.graphs.ask(question)`)."""

    def questions(self) -> Sequence[Question]:
        """Every question `check` asks: the run's one prefilter and record serve them all."""
        ...

    def wants_file(self, plan: GraphPlan, source: bytes, path: str) -> bool:
        """Whether the engine must parse a checked file for this pass (a finding of its own in
        the file, beyond what a chain reaches); `source` as `pytext.python_text` gives it."""
        ...

    def check(self, context: ProjectContext) -> list[Diagnostic]:
        """The findings, suppression comments applied (`context.report` applies them to what
        it places, `context.unsuppressed` to the rest)."""
        ...


class ProjectKind(Kind, Protocol):
    """A kind whose rules are questions about the whole project (`kind: import-time`): no
    per-file check; its rules in force make one `ProjectPass`."""

    def prepare(self, rule: Any, policy: Policy) -> Any:
        """The rule as this run checks it (`PythonKind.prepare`)."""
        ...

    def project_pass(self, rules: Sequence[Any], policy: Policy) -> ProjectPass:
        """The pass checking `rules` (all of this kind, all in force), in their order."""
        ...

    def forbids(self, rule: Any, name: str) -> bool: ...

    def verdict(self, rule: Any, name: str) -> Verdict: ...
