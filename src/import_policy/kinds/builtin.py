"""Rules no YAML declares (`syntax-error`, the ROCm-safety pass's rules): what `rules` lists
of them and what `explain` prints, which each registers in `kinds.registry`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from import_policy.config.model import Policy


def _no_settings(policy: Policy) -> list[str]:
    return []


@dataclass(frozen=True)
class BuiltinRule:
    id: str
    kind: str
    summary: str
    fixable: str  # "yes", "unsafe" or "no": whether some of its findings carry a fix, and which
    needs_rocm: bool  # in force only with a `rocm_safety` section
    # What it does / Why / Example / Use instead / Options, as docs/rules.md has it: read when
    # `explain` asks, never at start-up.
    doc: Callable[[], str]
    # The settings in force that decide what it reports, as `explain` shows them.
    settings: Callable[[Policy], list[str]] = _no_settings
    # Off unless `enable:`d or `--select`ed.
    opt_in: bool = False

    def in_force(self, policy: Policy) -> bool:
        return not self.needs_rocm or policy.rocm_safety is not None


def shipped_doc(package: str, rule_id: str) -> Callable[[], str]:
    """A rule's documentation, shipped in the wheel beside the code that implements it."""

    def read() -> str:
        from importlib import resources  # only `explain` reads a rule's docs: a check never imports it

        return (resources.files(package) / "docs" / f"{rule_id}.md").read_text(encoding="utf-8")

    return read
