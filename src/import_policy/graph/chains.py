"""A project's import graph, generic over what an edge is: the caller gives, per module, the
links that running it makes run; this walks them breadth-first and spells out chains."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from import_policy.patterns import module_heads


@dataclass(frozen=True)
class Link:
    """One step of a chain: `source` running makes `target` run, at `path:line`."""

    source: str
    target: str
    path: str
    line: int
    kind: str  # what made the step ("import", "package", "call", ...), as the edge predicate says
    detail: str
    # Modules (or distributions) the environment read lacks that the step needs: a `try:` import
    # of one, or an availability test of one that keeps the step off there (the default reading).
    requires: tuple[str, ...] = ()

    def if_installed(self) -> str:
        """What is said of this step where it needs what the environment lacks, else empty."""
        return if_installed(self.requires)


def if_installed(names: Sequence[str]) -> str:
    """" (if `x` is installed)", " (if `x` and `y` are installed)"; empty for no names."""
    if not names:
        return ""
    quoted = [f"`{name}`" for name in names]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    return f" (if {listed} {'is' if len(quoted) == 1 else 'are'} installed)"


@dataclass(frozen=True)
class Chain:
    entry: str
    links: tuple[Link, ...]

    @property
    def modules(self) -> tuple[str, ...]:
        return (self.entry, *(link.target for link in self.links))

    def if_installed(self) -> str:
        """What a message adds where a step needs what the environment lacks ("if `x` is
        installed"), empty where none does."""
        return if_installed(list(dict.fromkeys(name for link in self.links for name in link.requires)))

    @property
    def requires(self) -> bool:
        """Whether some step needs what the environment lacks."""
        return any(link.requires for link in self.links)


class ImportGraph:
    """`modules` maps each module to its file; `edges(module)` gives the links out of it."""

    def __init__(self, modules: Mapping[str, str], edges: Callable[[str], Sequence[Link]]) -> None:
        self.modules = modules
        self.edges = edges
        self._reach: dict[str, dict[str, Link | None]] = {}

    def reach(self, entry: str) -> dict[str, Link | None]:
        """Every module that importing `entry` runs, with the link it was first reached by (BFS)."""
        if entry in self._reach:
            return self._reach[entry]
        if entry not in self.modules:
            return {}
        parents: dict[str, Link | None] = {entry: None}
        queue = deque([entry])
        # Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first.
        for ancestor in (head for head in module_heads(entry) if head != entry):
            if ancestor in self.modules and ancestor not in parents:
                parents[ancestor] = Link(entry, ancestor, self.modules[ancestor], 1, "package", f"parent package of {entry}")
                queue.append(ancestor)
        # A link that needs a module the environment lacks (`Link.requires`) is taken only once no
        # other reaches its target: a module any other way loads is never said to need it.
        needing: list[Link] = []
        while queue or needing:
            if not queue:
                for link in needing:
                    if link.target not in parents:
                        parents[link.target] = link
                        queue.append(link.target)
                needing = []
                continue
            module = queue.popleft()
            for link in self.edges(module):
                if link.requires:
                    needing.append(link)
                elif link.target not in parents:
                    parents[link.target] = link
                    queue.append(link.target)
        self._reach[entry] = parents
        return parents

    @staticmethod
    def chain(entry: str, parents: Mapping[str, Link | None], module: str) -> Chain:
        """The shortest chain from `entry` to `module`, from what `reach` recorded."""
        links: list[Link] = []
        current = parents[module]
        while current is not None:
            links.append(current)
            current = parents[current.source] if current.source != entry else None
        return Chain(entry, tuple(reversed(links)))

    def into(self, entry: str) -> dict[str, list[Link]]:
        """Every link between two modules `entry` reaches, by its target."""
        parents = self.reach(entry)
        found: dict[str, list[Link]] = {}
        for module in parents:
            for link in self.edges(module):
                if link.target in parents:
                    found.setdefault(link.target, []).append(link)
        return found
