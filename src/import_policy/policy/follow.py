"""The policy's `follow:` and `environment:` as the graph reads them: which distributions are
followed (`graph.through`), and a warning for each the environment does not hold."""

from __future__ import annotations

from import_policy.config.model import Policy
from import_policy.graph.distributions import Followed
from import_policy.graph.through import dependencies_of


def dependencies(policy: Policy) -> Followed | None:
    """The distributions the policy follows, in the project's environment; None without `follow:`."""
    wanted = policy.follow
    if wanted is None:
        return None
    return dependencies_of(policy.root, wanted.names, wanted.every, wanted.python)


def warnings(policy: Policy) -> list[str]:
    """`file:line: warning: ...` for each followed name that is not installed."""
    followed = dependencies(policy)
    wanted = policy.follow
    if followed is None or wanted is None:
        return []
    where = followed.environment
    if where is None:
        return [
            f"{wanted.origin}: warning: follow: no environment to read dependencies from (environment.python, "
            "$VIRTUAL_ENV or a .venv under the project root); nothing is followed"
        ]
    out = []
    for name in followed.missing:
        line = wanted.lines[wanted.names.index(name)] if name in wanted.names and wanted.lines else wanted.origin.line
        out.append(
            f"{wanted.origin.source}:{line}: warning: follow: {name!r} is not installed in {where.prefix} "
            f"(found by {where.how}); it is not followed"
        )
    return out


__all__ = ["dependencies", "warnings"]
