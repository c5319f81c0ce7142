"""The package's own import graph: no cycle, counting every import (module level, inside
functions, under TYPE_CHECKING), so a newcomer can read it bottom-up."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "import_policy").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(path: Path, known: set[str]) -> set[str]:
    """Every project module `path` imports, wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found.update(name for name in names if name in known)
    return found


def graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: imports_of(path, known) - {name} for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_at_most_eight_modules_at_the_top() -> None:
    top = sorted(p.name for p in (SRC / "import_policy").glob("*.py"))
    assert len(top) <= 8, top


def folder_pairs(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """Pairs of top-level folders of the package each of which imports the other."""

    def folder(module: str) -> str | None:
        parts = module.split(".")
        if len(parts) < 3:  # import_policy itself or a top-level module
            return None
        return parts[1]

    arrows = {
        (folder(a), folder(b)) for a, targets in edges.items() for b in targets
    }
    return {
        frozenset((a, b)) for a, b in arrows
        if a and b and a != b and (b, a) in arrows
    }


def test_only_the_folder_pairs_docs_architecture_explains() -> None:
    # Each pair is a folder holding two layers on purpose (docs/architecture.md says why);
    # a new pair is a module in the wrong folder.
    assert folder_pairs(graph()) == {frozenset(("cache", "discovery")), frozenset(("kinds", "rocm"))}


def test_the_pair_finder_finds_one() -> None:
    edges = {"import_policy.a.x": {"import_policy.b.y"}, "import_policy.b.y": set(),
             "import_policy.b.z": {"import_policy.a.w"}, "import_policy.a.w": set(),
             "import_policy.top": {"import_policy.a.x"}}
    assert folder_pairs(edges) == {frozenset(("a", "b"))}
