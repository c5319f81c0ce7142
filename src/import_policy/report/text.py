"""ruff-style text: `path:line:col: rule-id message [*]`, then a summary line."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from import_policy.diagnostics import Diagnostic

_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\033[1m", "\033[31m", "\033[33m", "\033[36m", "\033[0m"


def use_colour(stream: TextIO) -> bool:
    """Colour on a terminal only, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR", "") != "":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary(diagnostics: Sequence[Diagnostic], fixed: int = 0, hidden: int = 0) -> str:
    """`fixed`: findings `--fix` just fixed (ruff: `Found N (M fixed, K remaining).`);
    `hidden`: fixes only `--unsafe-fixes` would apply (ruff's hidden-fixes line)."""
    if not diagnostics and not fixed:
        return "All checks passed!"
    fixable = sum(d.fixable for d in diagnostics)
    if fixed:
        line = f"Found {_plural(len(diagnostics) + fixed, 'violation')} ({fixed} fixed, {len(diagnostics)} remaining)."
    else:
        line = f"Found {_plural(len(diagnostics), 'violation')} ({fixable} fixable with --fix)."
    if hidden:
        fixes = "1 hidden fix" if hidden == 1 else f"{hidden} hidden fixes"
        note = f"{fixes} can be enabled with the --unsafe-fixes option"
        line += f"\nNo fixes available ({note})." if not fixable else f"\n({note})."
    return line


def render(diagnostics: Sequence[Diagnostic], colour: bool, fixed: int = 0, hidden: int = 0) -> str:
    lines = []
    for d in diagnostics:
        mark = " [*]" if d.fixable else ""
        if colour:
            rule_colour = _RED if d.severity == "error" else _YELLOW
            lines.append(
                f"{_BOLD}{d.path}{_RESET}{_CYAN}:{_RESET}{d.line}{_CYAN}:{_RESET}{d.column}{_CYAN}:{_RESET} "
                f"{_BOLD}{rule_colour}{d.rule}{_RESET} {d.message}{mark}"
            )
        else:
            lines.append(f"{d.path}:{d.line}:{d.column}: {d.rule} {d.message}{mark}")
    lines.append(summary(diagnostics, fixed, hidden))
    return "\n".join(lines) + "\n"


def statistics(diagnostics: Sequence[Diagnostic]) -> list[tuple[int, str, bool, str]]:
    """(count, rule, all fixable, the rule's first message), most frequent first."""
    counts = Counter(d.rule for d in diagnostics)
    first: dict[str, Diagnostic] = {}
    fixable: dict[str, bool] = {}
    for d in diagnostics:
        first.setdefault(d.rule, d)
        fixable[d.rule] = fixable.get(d.rule, True) and d.fixable
    return [(n, rule, fixable[rule], first[rule].message) for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def render_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    rows = statistics(diagnostics)
    width = max((len(str(n)) for n, *_ in rows), default=1)
    rule_width = max((len(rule) for _, rule, *_ in rows), default=1)
    lines = [
        f"{n:>{width}}\t{rule:<{rule_width}}\t{'[*] ' if fix else ''}{message}" for n, rule, fix, message in rows
    ]
    lines.append(summary(diagnostics))
    return "\n".join(lines) + "\n"
