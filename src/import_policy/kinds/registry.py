"""The registry: every valid `kind:` value, every built-in rule and every built-in project pass.

The keys of `KINDS` are the valid `kind:` choices; configuration parsing, the plan,
`rules`/`explain`, `test-rules` and stale tracking all look a rule's kind up here. A kind
in `PROJECT_KINDS` asks the graph a question instead of checking one file at a time: its
rules in force make one project pass (`project_passes`), run after the files are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar, Union

from import_policy.config.model import Policy, RuleBase
from import_policy.kinds.base import CKind, ProjectKind, ProjectPass, PythonKind
from import_policy.kinds.builtin import BuiltinRule
from import_policy.kinds.cfamily import IncludeKind, TokenKind
from import_policy.kinds.imports import ImportKind
from import_policy.kinds.syntax import SYNTAX_ERROR_RULE
from import_policy.kinds.unused_suppression import UNUSED_SUPPRESSION_RULE
from import_policy.kinds.import_time import ImportTimeKind
from import_policy.rocm import reachability
from import_policy.rocm.rules import ROCM_RULES

AnyKind = Union[PythonKind, CKind, ProjectKind]
_Kind = TypeVar("_Kind", covariant=True)


class _Registered(Mapping[str, _Kind]):
    """Kinds by name, each made (and its module imported) at its first lookup: a run imports
    the kinds its policy uses, not the contracts' records when it has no contract."""

    def __init__(self, makers: Mapping[str, Callable[[], _Kind]]) -> None:
        self._makers = dict(makers)
        self._made: dict[str, _Kind] = {}

    def __getitem__(self, name: str) -> _Kind:
        kind = self._made.get(name)
        if kind is None:
            kind = self._made[name] = self._makers[name]()
        return kind

    def __contains__(self, name: object) -> bool:
        return name in self._makers

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


# The contract kinds, as kinds/contracts/kinds.CONTRACT_KINDS names them (a test holds both equal).
CONTRACT_NAMES = ("layers", "independence", "protected", "acyclic")


def _contract(name: str) -> Callable[[], ProjectKind]:
    def make() -> ProjectKind:
        from import_policy.kinds.contracts.kinds import CONTRACT_KINDS

        return CONTRACT_KINDS[name]

    return make


def _relative_imports() -> PythonKind:
    from import_policy.kinds.relative_imports import RelativeImportsKind

    return RelativeImportsKind()


_PROJECT_MAKERS: dict[str, Callable[[], ProjectKind]] = {
    "import-time": ImportTimeKind,
    **{name: _contract(name) for name in CONTRACT_NAMES},
}
PROJECT_KINDS: Mapping[str, ProjectKind] = _Registered(_PROJECT_MAKERS)


def _project(name: str) -> Callable[[], AnyKind]:
    return lambda: PROJECT_KINDS[name]


KINDS: Mapping[str, AnyKind] = _Registered({
    "import": ImportKind,
    "include": IncludeKind,
    "token": TokenKind,
    "relative-imports": _relative_imports,
    **{name: _project(name) for name in _PROJECT_MAKERS},
})

# Project passes no YAML declares, each given the policy and which rule ids are selected (None: not in force).
BUILTIN_PASSES: tuple[Callable[[Policy, Callable[[str], bool]], ProjectPass | None], ...] = (
    reachability.make_pass,
)

# Rules no YAML declares; their ids are reserved.
BUILTIN: tuple[BuiltinRule, ...] = (SYNTAX_ERROR_RULE, *ROCM_RULES, UNUSED_SUPPRESSION_RULE)
BUILTIN_IDS = tuple(rule.id for rule in BUILTIN)


class UnknownKind(Exception):
    """A rule whose kind nobody registered: a programming error, never silently skipped."""


def kind_of(rule: RuleBase) -> AnyKind:
    try:
        return KINDS[rule.kind]
    except KeyError:
        raise UnknownKind(f"rule {rule.id!r} has kind {rule.kind!r}, which is not registered") from None


def python_kind(name: str) -> PythonKind:
    kind = KINDS[name]
    if kind.language != "python" or name in PROJECT_KINDS:
        raise UnknownKind(f"kind {name!r} does not check Python files one at a time")
    return kind  # type: ignore[return-value]


def project_passes(policy: Policy, wants: Callable[[str], bool], rules: Sequence[RuleBase]) -> tuple[ProjectPass, ...]:
    """The project passes of a run: the built-in ones in force, then one per project kind
    with rules among `rules` (those in force, prepared), in the registry's order."""
    passes = [found for make in BUILTIN_PASSES if (found := make(policy, wants)) is not None]
    for name in PROJECT_KINDS:
        mine = [rule for rule in rules if rule.kind == name]
        if mine:
            passes.append(PROJECT_KINDS[name].project_pass(mine, policy))
    return tuple(passes)


def c_kind(name: str) -> CKind:
    kind = KINDS[name]
    if kind.language != "c":
        raise UnknownKind(f"kind {name!r} does not read C-family files")
    return kind  # type: ignore[return-value]
