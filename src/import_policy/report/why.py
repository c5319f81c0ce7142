"""`import-policy why MODULE`: the shortest eager chains, as text, JSON, Mermaid or DOT."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from import_policy.graph.chains import Chain, Link
from import_policy.quoting import escape_controls

# Rebases a root-relative path for display (the CLI shows paths relative to the current folder).
Shown = Callable[[str], str]


def _where(link: Link, shown: Shown) -> str:
    return f"{shown(link.path)}:{link.line}"


def _label(link: Link, shown: Shown, escape: Callable[[str], str] = str) -> str:
    """A drawn edge's label: where the step is, and what it needs that the environment lacks
    (module names from the checked code: `escape` writes their controls as escapes)."""
    needs = f" if {escape(' and '.join(link.requires))} installed" if link.requires else ""
    return _where(link, shown) + needs


def _verb(link: Link) -> str:
    if link.kind == "package":
        return "runs its parent package"
    if link.kind == "import":
        return escape_controls(link.detail)
    return f"calls {escape_controls(link.detail)}"


# Module names and details may come from the checked code (a dynamic import's string literal):
# every format but JSON (which escapes on its own) writes their control characters as C
# escapes, so a name never starts a line of its own, a terminal sequence or a workflow command.
_e = escape_controls


def render_text(target: str, chains: Sequence[tuple[str, Chain | None]], shown: Shown) -> str:
    out: list[str] = []
    for entry, chain in chains:
        if chain is None:
            out.append(f"{_e(entry)}: no eager import chain to {_e(target)}")
            continue
        out.append(f"{_e(entry)} -> {_e(target)} ({len(chain.links)} link{'s' if len(chain.links) != 1 else ''}):")
        for link in chain.links:
            out.append(f"  {_where(link, shown)}: {_e(link.source)} -> {_e(link.target)} ({_verb(link)}){_e(link.if_installed())}")
    if all(chain is None for _, chain in chains):
        out.append(f"No eager import chain from the entry modules to {_e(target)}.")
    return "\n".join(out) + "\n"


def render_json(target: str, chains: Sequence[tuple[str, Chain | None]], shown: Shown) -> str:
    rows: list[dict[str, Any]] = []
    for entry, chain in chains:
        if chain is None:
            rows.append({"entry": entry, "chain": None, "links": []})
            continue
        rows.append({
            "entry": entry,
            "chain": list(chain.modules),
            "links": [
                {"from": link.source, "to": link.target, "path": shown(link.path), "line": link.line,
                 "kind": link.kind, "detail": link.detail, "requires": list(link.requires)}
                for link in chain.links
            ],
        })
    return json.dumps({"version": 1, "module": target, "chains": rows}, indent=2) + "\n"


def _edges(chains: Sequence[tuple[str, Chain | None]]) -> tuple[list[str], list[Link]]:
    """Nodes and links of all chains, each once, in first-seen order."""
    nodes: list[str] = []
    links: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for entry, chain in chains:
        if chain is None:
            continue
        if entry not in nodes:
            nodes.append(entry)
        for link in chain.links:
            if link.target not in nodes:
                nodes.append(link.target)
            if (link.source, link.target) not in seen:
                seen.add((link.source, link.target))
                links.append(link)
    return nodes, links


def render_mermaid(target: str, chains: Sequence[tuple[str, Chain | None]], shown: Shown) -> str:
    nodes, links = _edges(chains)
    ids = {name: f"n{index}" for index, name in enumerate(nodes)}
    out = ["flowchart LR"]
    if not nodes:
        out.append(f"  %% no eager import chain from the entry modules to {_e(target)}")
    for name in nodes:
        out.append(f'  {ids[name]}["{_e(name).replace(chr(34), "#quot;")}"]')
    for link in links:
        # A quoted path's own `"` would end Mermaid's label: it is written as the entity.
        label = _label(link, shown, _e).replace('"', "#quot;")
        out.append(f'  {ids[link.source]} -->|"{label}"| {ids[link.target]}')
    if target in ids:
        out.append(f"  style {ids[target]} stroke:#d33,stroke-width:2px")
    return "\n".join(out) + "\n"


def _dot_string(text: str) -> str:
    return '"' + _e(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(target: str, chains: Sequence[tuple[str, Chain | None]], shown: Shown) -> str:
    nodes, links = _edges(chains)
    out = ["digraph why {", "  rankdir=LR;", "  node [shape=box];"]
    if not nodes:
        out.append(f"  // no eager import chain from the entry modules to {_e(target)}")
    for name in nodes:
        extra = ", color=red" if name == target else ""
        out.append(f"  {_dot_string(name)} [label={_dot_string(name)}{extra}];")
    for link in links:
        out.append(f"  {_dot_string(link.source)} -> {_dot_string(link.target)} [label={_dot_string(_label(link, shown))}];")
    out.append("}")
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "mermaid": render_mermaid, "dot": render_dot}
