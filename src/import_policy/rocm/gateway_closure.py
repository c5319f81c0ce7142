"""Where a gateway fix is never offered: the modules that run while the gateway loads.

A gateway fix rewrites `import triton` to `from pk.triton_utils import triton`. In a module
the gateway itself runs while it is imported, that line imports the gateway from inside its
own import: a partially initialised module, and `ImportError: cannot import name`. Those
modules are the gateway's own submodules (a gateway that is a package), and every module in
its eager import closure: what importing it runs, its parent packages' `__init__` and what
they import included. The closure is the eager import graph's reach from the gateway, judged
as `kind: import-time` judges with `platform: any` (every branch runs but `TYPE_CHECKING`,
`__name__ == "__main__"` and function bodies), read through the same module graph and cache
as the project passes, over the whole project whichever files were named.

A finding there keeps its place in the report, marked not fixable, with the reason and the
chain: `(not fixable: `pk.platform` is imported by the gateway `pk.triton_utils` while it
loads (pk.triton_utils -> pk.platform); the fix would make the gateway import itself)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from import_policy.cache.facts import FactsCache
from import_policy.config.model import Examples, Origin, Policy
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.overlay import Overlay
from import_policy.facts.records.model import FileFacts
from import_policy.edits.payload import ImportFix
from import_policy.graph.chains import Link
from import_policy.graph.store import ModuleGraph
from import_policy.graph.build import graph_stores, module_graph, save_graph
from import_policy.graph.derive import Reader
from import_policy.graph.records import Memo, Records
from import_policy.kinds.import_time import ImportTimeRule, question
from import_policy.policy.follow import graph_plan
from import_policy.project.modules import module_name

_WHY = "the fix would make the gateway import itself"


def gateways_of(d: Diagnostic) -> tuple[str, ...]:
    """The gateways a finding's fix would import from (none for other fixes)."""
    if not d.fixable or not isinstance(d.fix, ImportFix):
        return ()
    return tuple(sorted({edit.gateway for edit in d.fix.edits if edit.gateway}))


def closure_rule(gateways: Sequence[str]) -> ImportTimeRule:
    """The question the graph answers: what importing each gateway runs, on any platform."""
    return ImportTimeRule(
        id="gateway-closure", message="", files=(), allow_in=(), severity="error", examples=Examples(),
        origin=Origin("built-in", 0), entry=tuple(gateways), forbid=(), platform="any",
    )


def refuse_in_closures(
    policy: Policy, diagnostics: list[Diagnostic], known: Mapping[str, FileFacts], read: Reader,
    cache: FactsCache | None, overlay: Overlay | None = None,
) -> list[Diagnostic]:
    """The findings, each gateway fix in a module its gateway runs while it loads made not
    fixable, saying why. The graph is built only when some finding has a gateway fix.
    `overlay`: buffers that stand for their files (an editor's, stdin)."""
    gateways = sorted({g for d in diagnostics for g in gateways_of(d)})
    if not gateways:
        return diagnostics
    asked = question(closure_rule(gateways), policy)
    plan = graph_plan(policy, [asked])
    stores = graph_stores(cache)
    records: Records = cache if cache is not None else Memo()
    graph = module_graph(plan, known, read, records, stores, overlay)
    out: list[Diagnostic] = []
    for d in diagnostics:
        for gateway in gateways_of(d):
            why = _inside(graph, gateway, module_name(d.path, policy.roots)[0])
            if why is not None:
                d = replace(d, message=f"{d.message} (not fixable: {why})", fixable=False, fix=None)
                break
        out.append(d)
    save_graph(plan, graph, stores)
    return out


def _inside(graph: ModuleGraph, gateway: str, module: str | None) -> str | None:
    """Why `module` runs while `gateway` loads, or None when it does not."""
    if module is None:
        return None
    if module.startswith(gateway + "."):
        return f"`{module}` is part of the gateway `{gateway}`; {_WHY}"
    parents: Mapping[str, Link | None] = graph.reach(gateway)
    if module not in parents or module == gateway:
        return None
    chain = ModuleGraph.chain(gateway, parents, module)
    return (
        f"`{module}` is imported by the gateway `{gateway}` while it loads ({' -> '.join(chain.modules)}); {_WHY}"
    )
