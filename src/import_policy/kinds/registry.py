"""The registry: every valid `kind:` value, and every built-in rule.

The keys of `KINDS` are the valid `kind:` choices; configuration parsing, the plan,
`rules`/`explain`, `test-rules` and stale tracking all look a rule's kind up here.
"""

from __future__ import annotations

from typing import Union

from import_policy.config.model import RuleBase
from import_policy.kinds.base import CKind, PythonKind
from import_policy.kinds.builtin import BuiltinRule
from import_policy.kinds.cfamily import IncludeKind, TokenKind
from import_policy.kinds.imports import ImportKind
from import_policy.kinds.relative_imports import RelativeImportsKind
from import_policy.kinds.syntax import SYNTAX_ERROR_RULE
from import_policy.kinds.unused_suppression import UNUSED_SUPPRESSION_RULE
from import_policy.kinds.import_time import ImportTimeKind
from import_policy.kinds.contracts.kinds import CONTRACT_KINDS
from import_policy.rocm.rules import ROCM_RULES

AnyKind = Union[PythonKind, CKind]

KINDS: dict[str, AnyKind] = {
    "import": ImportKind(),
    "include": IncludeKind(),
    "token": TokenKind(),
    "relative-imports": RelativeImportsKind(),
    "import-time": ImportTimeKind(),
    **CONTRACT_KINDS,
}

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
    if kind.language != "python":
        raise UnknownKind(f"kind {name!r} does not read Python files")
    return kind  # type: ignore[return-value]


def c_kind(name: str) -> CKind:
    kind = KINDS[name]
    if kind.language != "c":
        raise UnknownKind(f"kind {name!r} does not read C-family files")
    return kind  # type: ignore[return-value]
