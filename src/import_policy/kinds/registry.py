"""The registry: every valid `kind:` value, every built-in rule and every built-in project pass.

The keys of `KINDS` are the valid `kind:` choices; configuration parsing, the plan,
`rules`/`explain`, `test-rules` and stale tracking all look a rule's kind up here. A kind
in `PROJECT_KINDS` asks the graph a question instead of checking one file at a time: its
rules in force make one project pass (`project_passes`), run after the files are read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Union

from import_policy.config.model import Policy, RuleBase
from import_policy.kinds.base import CKind, ProjectKind, ProjectPass, PythonKind
from import_policy.kinds.builtin import BuiltinRule
from import_policy.kinds.cfamily import IncludeKind, TokenKind
from import_policy.kinds.imports import ImportKind
from import_policy.kinds.relative_imports import RelativeImportsKind
from import_policy.kinds.syntax import SYNTAX_ERROR_RULE
from import_policy.kinds.unused_suppression import UNUSED_SUPPRESSION_RULE
from import_policy.kinds.import_time import ImportTimeKind
from import_policy.kinds.contracts.kinds import CONTRACT_KINDS
from import_policy.rocm import reachability
from import_policy.rocm.rules import ROCM_RULES

AnyKind = Union[PythonKind, CKind, ProjectKind]

PROJECT_KINDS: dict[str, ProjectKind] = {
    "import-time": ImportTimeKind(),
    **CONTRACT_KINDS,
}

KINDS: dict[str, AnyKind] = {
    "import": ImportKind(),
    "include": IncludeKind(),
    "token": TokenKind(),
    "relative-imports": RelativeImportsKind(),
    **PROJECT_KINDS,
}

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
    for name, kind in PROJECT_KINDS.items():
        mine = [rule for rule in rules if rule.kind == name]
        if mine:
            passes.append(kind.project_pass(mine, policy))
    return tuple(passes)


def c_kind(name: str) -> CKind:
    kind = KINDS[name]
    if kind.language != "c":
        raise UnknownKind(f"kind {name!r} does not read C-family files")
    return kind  # type: ignore[return-value]
