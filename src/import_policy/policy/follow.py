"""The policy's `follow:`, `environment:` and `installed:` as the graph reads them: which
distributions are followed (`graph.through`), what is installed where `installed:
environment` asks, and what to tell the user about them (warnings, errors)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from import_policy.config.model import Follow, Policy
from import_policy.graph.distributions import Followed, normalize, unfound
from import_policy.graph.environment import environment_variables, passed_over, project_environment
from import_policy.graph.plan import GraphPlan, make_plan
from import_policy.graph.question import Question
from import_policy.graph.search_path import SearchPath
from import_policy.graph.through import Availability, dependencies_of
from import_policy.kinds.imports import gateways


def graph_plan(policy: Policy, questions: Sequence[Question], prefilter: bool = True) -> GraphPlan:
    """The graph's plan asking `questions` (at least one) of the policy's project: its layout,
    the names its gateways re-export, the distributions it follows and, where a question lets
    the environment decide, what is installed."""
    followed = dependencies(policy)
    return make_plan(
        policy, questions, gateways(policy.rules), followed, prefilter,
        installed=lambda top: availability(policy, followed, top),
    )


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
    if followed is None or wanted is None or followed.environment is None:
        return []
    where = followed.environment
    return [
        f"{wanted.origin.source}:{_line(wanted, name)}: warning: follow: {name!r} is not installed in {where.prefix} "
        f"(found by {where.how}); it is not followed"
        for name in followed.missing
    ]


def errors(policy: Policy, followed: Followed | None) -> list[tuple[str, int, str]]:
    """(file, line, message) for a `follow` that cannot read what it names: no environment,
    none of its distributions installed, or one installed none of whose modules is found."""
    wanted = policy.follow
    if followed is None or wanted is None:
        return []
    where = followed.environment
    if where is None and wanted.python is not None:
        return [(wanted.origin.source, wanted.origin.line, (
            f"follow: environment.python {wanted.python} is no environment: no lib/pythonX.Y/site-packages "
            "(nor Lib/site-packages) there"
        ))]
    if where is None:
        return [(wanted.origin.source, wanted.origin.line, (
            "follow: no environment to read dependencies from: no environment.python, no .venv under the "
            f"project root ({policy.root / '.venv'}), {_virtual_env()}; set environment.python"
        ))]
    looked = f"{where.prefix} (found by {where.how}; site-packages: {', '.join(where.site_packages)})"
    if not followed.distributions:
        return [(wanted.origin.source, wanted.origin.line, (
            f"follow: none of {', '.join(wanted.names) if wanted.names else 'its distributions'} is installed in {looked}"
        ))]
    out = []
    # Under `follow: all` an environment holds distributions of scripts, data or native
    # libraries only (nvidia's): only a name the user wrote must be found.
    for distribution in unfound(followed) if not followed.every else ():
        name = next((n for n in wanted.names if normalize(n) == distribution.key), distribution.name)
        tops = ", ".join(distribution.tops) or "none told by RECORD, installed-files.txt, top_level.txt or its name"
        if distribution.kind == "zipped-egg":
            out.append((wanted.origin.source, _line(wanted, name), (
                f"follow: {name!r} is installed as a zip archive ({distribution.site}, which a .pth file adds); "
                f"Python imports its modules ({tops}) from the archive, follow reads none of them: "
                "install it unzipped (pip install) to follow it"
            )))
            continue
        out.append((wanted.origin.source, _line(wanted, name), (
            f"follow: {name!r} is installed ({distribution.info}) but none of its modules ({tops}) is found on "
            f"the environment's path ({', '.join(followed.search.folders) if followed.search else looked})"
        )))
    return out


def _virtual_env() -> str:
    environ = environment_variables()
    virtual = environ.get("VIRTUAL_ENV")
    if not virtual:
        return "no $VIRTUAL_ENV"
    why = passed_over(virtual, environ, sys.prefix)
    return f"$VIRTUAL_ENV {virtual} passed over ({why})" if why else f"$VIRTUAL_ENV {virtual} holds no site-packages"


def _line(wanted: Follow, name: str) -> int:
    return wanted.lines[wanted.names.index(name)] if name in wanted.names and wanted.lines else wanted.origin.line


def asks_installed(policy: Policy) -> bool:
    """Whether a rule in force or `rocm_safety` lets the environment decide (`installed: environment`)."""
    rocm = policy.rocm_safety
    return (rocm is not None and rocm.installed == "environment") or any(
        getattr(rule, "installed", "any") == "environment" for rule in policy.rules
    )


def availability(policy: Policy, followed: Followed | None, project: frozenset[str]) -> Availability | None:
    """What is installed, where the policy asks: the followed environment's path, else the
    project's environment's (None: nothing asks)."""
    if not asks_installed(policy):
        # Answers hold whatever is installed; the followed environment only says which hold
        # only if a module it lacks is installed.
        return Availability(followed.search, project) if followed is not None and followed.search is not None else None
    if followed is not None and followed.search is not None:
        return Availability(followed.search, project)
    environment = project_environment(policy.root, policy.follow.python if policy.follow is not None else None)
    return Availability(SearchPath(environment.site_packages) if environment is not None else None, project)


__all__ = ["asks_installed", "availability", "dependencies", "errors", "graph_plan", "warnings"]
