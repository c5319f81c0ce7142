"""A platform profile: what a process on one platform holds, as data the judge reads.

No module of the graph names a platform: each built-in profile and any profile a user
declares are each a `Platform`, judged the same way (`graph/judge.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from import_policy.facts.records.model import Value


@dataclass(frozen=True)
class Platform:
    name: str
    guards: tuple[str, ...] = ()  # names (last names, or dotted) false on this platform
    true: tuple[str, ...] = ()  # names true on it
    values: tuple[tuple[str, Value], ...] = ()  # what a name (last or dotted) holds there
