"""Where a setting was declared, found again in the YAML when a message needs its line.

The model keeps a line per rule and section, not per list entry: a file is
read again only when something is to be reported about one of its entries.
"""

from __future__ import annotations

from pathlib import Path

from import_policy.policy.load import preset_text
from import_policy.config.model import Origin, Policy
from import_policy.config.yamltree import Map, Seq, YamlError, parse


def _text(source: str) -> str | None:
    if source.startswith("preset:"):
        return preset_text(source[len("preset:"):])
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def top_level_entry(policy: Policy, key: str, value: str) -> Origin | None:
    """The last file (later files win) whose top-level `key` list holds `value`, at its line."""
    for source in reversed(policy.sources):
        text = _text(source)
        if text is None:
            continue
        try:
            tree = parse(text)
        except YamlError:
            continue
        if not isinstance(tree, Map) or key not in tree.items:
            continue
        line, node = tree.items[key]
        items = node.items if isinstance(node, Seq) else [node]
        for item in items:
            if not isinstance(item, (Seq, Map)) and item.value == value:
                return Origin(source, item.line)
    return None


def rule_entry(origin: Origin, keys: tuple[str, ...]) -> int:
    """The line of `keys` (a path of map keys, `("fix", "gateway")`) in the rule declared at
    `origin`; the rule's own line when it cannot be found."""
    text = _text(origin.source)
    if text is None:
        return origin.line
    try:
        tree = parse(text)
    except YamlError:
        return origin.line
    rules = tree.items.get("rules") if isinstance(tree, Map) else None
    if rules is None or not isinstance(rules[1], Seq):
        return origin.line
    for node in rules[1].items:
        if isinstance(node, Map) and node.line == origin.line:
            line = origin.line
            for key in keys:
                if not isinstance(node, Map) or key not in node.items:
                    return line
                line, node = node.items[key]
            return line
    return origin.line
