"""A question the graph answers: what counts as a site, on which platform, from which entries.

The graph speaks of no rule and no platform by name: a rule (the platform-safety rules, a
`kind: import-time` rule, the gateway closure) states its question as a `Question`, and the
graph (`graph.reach.Project`, `graph.store.ModuleGraph`) answers it. Two questions that are
equal are one graph: the question is part of the key a graph is kept under.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Literal

from import_policy.graph.platform import Platform
from import_policy.patterns import DottedPattern, judge

# The platform of a question asked on every platform: no name is known false, true or set,
# so every branch may run but those that never run at import time (`if TYPE_CHECKING:`,
# `if __name__ == "__main__":`, function bodies).
EVERY_PLATFORM = Platform("any")

# What an import is an edge to (`graph.scoped`): `module`, what runs while a module is
# imported; `any`, every import statement, function bodies included.
Scope = Literal["module", "any"]


@dataclass(frozen=True)
class Question:
    # What counts as a site: an import of a module these cover (or anything under one).
    heavy: tuple[DottedPattern, ...]
    # Calls that import the module named by their first argument: (probe, what to use instead).
    probes: tuple[tuple[str, str | None], ...] = ()
    # The platform the branches are judged on; None: every platform (`EVERY_PLATFORM`).
    platform: Platform | None = None
    # The modules whose import is followed.
    entries: tuple[str, ...] = ()
    # The oldest Python the project supports: a lazy import is lazy only where every supported
    # Python runs it so.
    python: tuple[int, int] = (3, 10)
    # Whether the environment decides what a `try:` import does (`installed: environment`): one
    # of a module not installed raises, and its handler runs.
    installed: bool = False
    # How an import is read (`graph.scoped`): (scope, whether `if TYPE_CHECKING:` imports count);
    # None: the eager graph (`graph.reach.Project`).
    reading: tuple[Scope, bool] | None = None

    @property
    def graph_key(self) -> Question:
        """The question without what counts as a site (nor where its import starts): every
        question with the same `graph_key` is answered by one graph, its links and reach
        derived once (`graph.store.ModuleGraph.asking`); only the sites are each one's."""
        return replace(self, heavy=(), probes=(), entries=())

    @property
    def sites_key(self) -> str:
        """What a question's heavy sites depend on beyond its graph: its heavy modules and probes."""
        described = repr((self.heavy, self.probes))
        return hashlib.blake2b(described.encode(), digest_size=12).hexdigest()

    @property
    def judged_on(self) -> Platform:
        return self.platform if self.platform is not None else EVERY_PLATFORM

    def is_heavy(self, name: str) -> bool:
        """A heavy module, or anything under one (`tilelang.language`)."""
        return judge(name, self.heavy, ()).forbidden


__all__ = ["EVERY_PLATFORM", "Question", "Scope"]
