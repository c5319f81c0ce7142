"""ruff-style text: `path:line:col: rule-id [*] message` (the mark after the rule, as ruff's
`F401 [*]`), then a summary line."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TextIO

from import_policy.diagnostics import Diagnostic
from import_policy.quoting import escape_controls, quote_path

_BOLD, _RED, _GREEN, _YELLOW, _CYAN, _RESET = "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[36m", "\033[0m"


def use_colour(stream: TextIO) -> bool:
    """Colour on a terminal or with FORCE_COLOR set (https://force-color.org, for CI logs that
    render it), and never with NO_COLOR set (https://no-color.org): NO_COLOR wins."""
    if os.environ.get("NO_COLOR", "") != "":
        return False
    if os.environ.get("FORCE_COLOR", "") != "":
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# A line of a diff with its ending; `\r` alone ends a line too (old Mac files), a form feed does not.
_DIFF_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def colour_diff(diff: str) -> str:
    """One file's unified diff in ruff's colours: the old name red, the new green, removed
    lines red, added green, the rest plain. Each escape closes before the line ending, so a
    line's colour never runs into the next."""
    out = []
    for index, line in enumerate(m.group() for m in _DIFF_LINE.finditer(diff) if m.group()):
        body = line.rstrip("\r\n")
        end = line[len(body):]
        if index == 0 and body.startswith("--- "):
            body = f"--- {_RED}{body[4:]}{_RESET}"
        elif index == 1 and body.startswith("+++ "):
            body = f"+++ {_GREEN}{body[4:]}{_RESET}"
        elif index > 1 and body.startswith("-"):
            body = f"{_RED}{body}{_RESET}"
        elif index > 1 and body.startswith("+"):
            body = f"{_GREEN}{body}{_RESET}"
        out.append(body + end)
    return "".join(out)


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


def render(
    diagnostics: Sequence[Diagnostic], colour: bool, fixed: int = 0, hidden: int = 0,
    before_summary: str = "", show_summary: bool = True,
) -> str:
    """`show_summary`: off with --quiet; `before_summary`: --show-fixes' list of what was fixed."""
    lines = []
    for d in map(_printable, diagnostics):
        # A warning says so in words: without colour it must not read as an error.
        if colour:
            rule_colour = _RED if d.severity == "error" else _YELLOW
            mark = f" [{_CYAN}*{_RESET}]" if d.fixable else ""  # ruff colours only the star
            level = "" if d.severity == "error" else f"{_YELLOW}warning:{_RESET} "
            lines.append(
                f"{_BOLD}{d.path}{_RESET}{_CYAN}:{_RESET}{d.line}{_CYAN}:{_RESET}{d.column}{_CYAN}:{_RESET} "
                f"{_BOLD}{rule_colour}{d.rule}{_RESET}{mark} {level}{d.message}"
            )
        else:
            mark = " [*]" if d.fixable else ""
            level = "" if d.severity == "error" else "warning: "
            lines.append(f"{d.path}:{d.line}:{d.column}: {d.rule}{mark} {level}{d.message}")
    if before_summary:
        lines.append(before_summary.rstrip("\n"))
    if show_summary:
        lines.append(summary(diagnostics, fixed, hidden))
    return "\n".join(lines) + "\n" if lines else ""


def _printable(d: Diagnostic) -> Diagnostic:
    """The finding with its path quoted as git quotes it and its message kept on one line: a
    file name must not forge a line or a terminal sequence."""
    path, message = quote_path(d.path), escape_controls(d.message)
    return d if path is d.path and message is d.message else replace(d, path=path, message=message)


def fixed_line(fixed: int) -> str:
    return f"Fixed {_plural(fixed, 'violation')}." if fixed else "No violations fixed."


def render_fixes(fixed: Sequence[Diagnostic]) -> str:
    """--show-fixes (ruff's layout): per file, how many findings of each rule were fixed."""
    by_path: dict[str, Counter[str]] = {}
    for d in fixed:
        by_path.setdefault(d.path, Counter())[d.rule] += 1
    lines = [f"Fixed {_plural(len(fixed), 'violation')}:"]
    for path in sorted(by_path):
        lines.append(f"- {quote_path(path)}:")
        lines.extend(f"    {n} × {rule}" for rule, n in sorted(by_path[path].items()))
    return "\n".join(lines) + "\n"


def statistics(diagnostics: Sequence[Diagnostic]) -> list[tuple[int, str, int]]:
    """(count, rule id, how many of them are fixable), most frequent first (ruff's --statistics)."""
    counts = Counter(d.rule for d in diagnostics)
    fixable = Counter(d.rule for d in diagnostics if d.fixable)
    return [(n, rule, fixable[rule]) for rule, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def render_statistics(diagnostics: Sequence[Diagnostic], show_summary: bool = True) -> str:
    rows = statistics(diagnostics)
    width = max((len(str(n)) for n, _, _ in rows), default=1)
    rule_width = max((len(rule) for _, rule, _ in rows), default=1)
    lines = [f"{n:>{width}}\t{rule:<{rule_width}}\t{fixable} fixable" for n, rule, fixable in rows]
    if show_summary:
        lines.append(summary(diagnostics))
    return "\n".join(lines) + "\n" if lines else ""
