"""What a finding under a test the pass could not judge tells the user to set.

`values` states what a name or a subscript holds (`DEVICE_TYPE`, `env["has_te"]`); it never
settles a call, whose last name the pass matches against `guards` (false on ROCm) and `rocm`
(true on ROCm). So a test the pass could not judge is read as Python reads it (each text is
the test as written) and each part is sent where it can be settled: a call to `guards` /
`rocm`, the rest to `values`. A call whose name `values` already holds is said to be one
(the configuration named it, and it changed nothing), and `import-policy check` warns at
that `values` key (`called_values`); so it does at a key that the code the pass read only
ever calls, finding or not (the pass tells each file's uses of the keys: `tell_uses`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from import_policy.config.model import Origin, RocmSafety
from import_policy.diagnostics import Diagnostic
from import_policy.rocm.predicates import RULE_IDS

# How a finding names a `values` key that stands for a call (`called_values` reads it back).
_CALLED = "rocm_safety.values names `{name}`, which settles a name or a subscript, never a call"
_CALLED_BACK = re.compile(r"rocm_safety\.values names `([^`]+)`, which settles a name or a subscript, never a call")


def unjudged(texts: tuple[str, ...], rocm: RocmSafety) -> str:
    """`; under ..., which the pass cannot judge on ROCm: ...` for a site's unjudged tests."""
    if not texts:
        return ""
    names = ", ".join(f"`{text}`" for text in texts)
    parts = [part for text in texts for part in _parts(text, rocm)]
    calls = list(dict.fromkeys((part.last, part.text) for part in parts if part.kind == "call"))
    compared = list(dict.fromkeys(part.text for part in parts if part.kind == "compared"))
    if not calls and not compared:
        them = "it" if len(texts) == 1 else "them"
        return f"; under {names}, which the pass cannot judge on ROCm: state {them} in rocm_safety.values"
    advice = []
    if calls:
        listed = ", ".join(f"`{name}`" for name in dict.fromkeys(last for last, _ in calls))
        advice.append(f"add {listed} to rocm_safety.guards (false on ROCm) or rocm_safety.rocm (true on ROCm)")
    valued = list(dict.fromkeys(part.text for part in parts if part.kind == "value"))
    if valued:
        advice.append(f"state {', '.join(f'`{text}`' for text in valued)} in rocm_safety.values")
    if compared:
        advice.append(
            f"no setting states what {', '.join(f'`{text}`' for text in compared)} returns "
            "(rocm_safety.values settles names and subscripts)"
        )
    held = {name for name, _ in rocm.values}
    named = dict.fromkeys(full if full in held else last for last, full in calls if last in held or full in held)
    notes = "".join(f" ({_CALLED.format(name=name)})" for name in named)
    return f"; under {names}, which the pass cannot judge on ROCm: {'; '.join(advice)}{notes}"


# Each file the pass read, with its uses of the `values` keys (graph.value_uses), as the last
# pass of this process told them (`tell_uses`); `called_values` takes them.
_USES: dict[str, list[tuple[str, bool, int]]] = {}


def tell_uses(uses: dict[str, list[tuple[str, bool, int]]]) -> None:
    _USES.clear()
    _USES.update(uses)


def take_uses() -> dict[str, list[tuple[str, bool, int]]]:
    """The uses the pass told since the last call."""
    out = dict(_USES)
    _USES.clear()
    return out


def called_values(
    rocm: RocmSafety | None, diagnostics: Iterable[Diagnostic], uses: dict[str, list[tuple[str, bool, int]]] | None = None,
) -> list[str]:
    """`file:line: warning: ...` for each `values` key a ROCm finding shows to stand for a
    call, and each one the code the pass read (`uses`) only ever calls: the configuration
    states it, and it settles nothing there."""
    if rocm is None or not rocm.values:
        return []
    found: dict[str, Diagnostic] = {}
    for diagnostic in diagnostics:
        if diagnostic.rule in RULE_IDS:
            for name in _CALLED_BACK.findall(diagnostic.message):
                found.setdefault(name, diagnostic)
    out = {
        name: f"{_at(rocm.origin_of('values', name))}: warning: rocm_safety.values key {name!r} is called by the code "
        f"the pass judges ({d.path}:{d.line}), and a value settles a name or a subscript, never a call: name it in "
        f"{_SETTLE} instead"
        for name, d in found.items()
    }
    held = dict(rocm.values)
    for name, (path, line) in _only_called(uses or {}).items():
        if name in held and name not in out:
            out[name] = (
                f"{_at(rocm.origin_of('values', name))}: warning: rocm_safety.values key {name!r} is only ever called by "
                f"the code the pass read ({path}:{line}), and a value settles a name or a subscript, never a call: "
                f"name it in {_settle(held[name])} instead"
            )
    return [out[name] for name in sorted(out)]


_SETTLE = "rocm_safety.guards (false on ROCm) or rocm_safety.rocm (true on ROCm)"


def _settle(value: object) -> str:
    """Where a key's value says to name the call: `true` in `rocm`, `false` or `null` in `guards`."""
    if value is True:
        return "rocm_safety.rocm (it is true on ROCm)"
    if value is False or value is None:
        return "rocm_safety.guards (it is false on ROCm)"
    return _SETTLE


def _only_called(uses: dict[str, list[tuple[str, bool, int]]]) -> dict[str, tuple[str, int]]:
    """Each key some file calls and none reads as a name, with its first call (by path, line)."""
    called: dict[str, tuple[str, int]] = {}
    read: set[str] = set()
    for path in sorted(uses):
        for key, is_call, line in uses[path]:
            if not is_call:
                read.add(key)
            elif key not in called:
                called[key] = (path, line)
    return {key: where for key, where in called.items() if key not in read}


def _at(origin: Origin) -> str:
    return str(origin).replace("preset:", "preset ")


@dataclass(frozen=True)
class _Part:
    kind: str  # "call": settled by guards / rocm; "value": by values; "compared": a call's result compared, by nothing
    text: str  # as written (a call: its dotted name)
    last: str = ""  # a call's last name


def _parts(text: str, rocm: RocmSafety) -> Iterator[_Part]:
    """The operands of the test that no `guards` or `rocm` entry decides, each with what could
    settle it."""
    decided = {name.lstrip("_") for name in (*rocm.guards, *rocm.rocm) if "." not in name}
    dotted = {name for name in (*rocm.guards, *rocm.rocm) if "." in name}
    source = f"({text})"
    for leaf in _leaves(source):
        if isinstance(leaf, ast.Call):
            name = _name(leaf.func)
            last = name.rpartition(".")[2] if name is not None else ""
            if name is None:
                yield _Part("compared", _segment(source, leaf))
            elif last.lstrip("_") not in decided and name not in dotted:
                yield _Part("call", name, last)
        elif isinstance(leaf, ast.Compare) and isinstance(leaf.left, ast.Call):
            yield _Part("compared", _segment(source, leaf.left))
        else:
            yield _Part("value", _segment(source, leaf))


def _segment(source: str, node: ast.expr) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def _leaves(source: str) -> list[ast.expr]:
    """The operands `not`, `and` and `or` combine, as Python parses the test (parenthesised: a
    test written over lines parses so); none when it does not parse alone."""
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        return []
    out: list[ast.expr] = []
    stack: list[ast.expr] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BoolOp):
            stack.extend(reversed(node.values))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            stack.append(node.operand)
        else:
            out.append(node)
    return out


def _name(func: ast.expr) -> str | None:
    """`current_platform.is_cuda` -> that dotted name; None for a call of anything else."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        owner = _name(func.value)
        return f"{owner}.{func.attr}" if owner is not None else func.attr
    return None


__all__ = ["called_values", "unjudged"]
