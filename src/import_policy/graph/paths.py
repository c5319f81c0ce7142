"""Questions about chains between sets of modules, over any graph that gives each module's
links (`Edges`): the shortest chain from one set to another avoiding some modules and some
links, every such chain as grimp finds them (each found chain's links left out of the next
search), and the strongly connected parts of a graph. The architecture contracts ask these;
nothing here knows what a layer or a contract is."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from import_policy.graph.chains import Link

Edges = Callable[[str], Sequence[Link]]
Pair = tuple[str, str]


def within(modules: Iterable[str], package: str) -> set[str]:
    """`package` and every module under it, among `modules`."""
    prefix = package + "."
    return {m for m in modules if m == package or m.startswith(prefix)}


def shortest_chain(
    edges: Edges, sources: Collection[str], targets: Collection[str],
    avoid: Collection[str] = (), cut: Collection[Pair] = (),
) -> tuple[Link, ...] | None:
    """The shortest chain of links from a module of `sources` to one of `targets`, through no
    module of `avoid` and no link of `cut` (its (source, target)); None when there is none.
    Breadth-first from every source at once, sources and links in order: ties go the same way
    every run."""
    parents: dict[str, Link | None] = {source: None for source in sorted(sources)}
    queue = deque(parents)
    while queue:
        module = queue.popleft()
        links = edges(module)
        for link in links:
            target = link.target
            if target in parents or (module, target) in cut:
                continue
            if target in targets:
                found = [_deepest(link, links, targets, cut)]
                step = parents[module]
                while step is not None:
                    found.append(step)
                    step = parents[step.source]
                return tuple(reversed(found))
            if target in avoid or target in sources:
                continue
            parents[target] = link
            queue.append(target)
    return None


def _deepest(link: Link, links: Sequence[Link], targets: Collection[str], cut: Collection[Pair]) -> Link:
    """Of the links one statement makes (`import a.b.c` runs `a.b` and `a.b.c`), the one to the
    deepest target: the module the statement names, where the chain ends."""
    best = link
    for other in links:
        if (
            (other.path, other.line) == (link.path, link.line) and other.target in targets
            and other.target.startswith(best.target + ".") and (other.source, other.target) not in cut
        ):
            best = other
    return best


def shortest_chains(
    edges: Edges, sources: Collection[str], targets: Collection[str], avoid: Collection[str] = (),
) -> Iterator[tuple[Link, ...]]:
    """Every chain grimp's `find_shortest_chains` finds: the shortest, then the shortest that
    uses none of the links found so far, until there is none. While a direct link from a
    source to a target is left, it is the shortest chain: each is found in one pass before
    any search (on vLLM most illegal chains are one link: a search each cost a second)."""
    cut: set[Pair] = set()
    for source in sorted(sources):
        links = edges(source)
        for link in links:
            if link.target in targets and (source, link.target) not in cut:
                found = _deepest(link, links, targets, cut)
                cut.add((source, found.target))
                yield (found,)
    while True:
        chain = shortest_chain(edges, sources, targets, avoid, cut)
        if chain is None:
            return
        cut.update((link.source, link.target) for link in chain)
        yield chain


def strongly_connected(nodes: Iterable[str], successors: Callable[[str], Iterable[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's, without recursion), each
    sorted, in the order of their first node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(set(successors(root)))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(set(successors(child))))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    found.sort()
    return found


__all__ = ["Edges", "shortest_chain", "shortest_chains", "strongly_connected", "within"]
