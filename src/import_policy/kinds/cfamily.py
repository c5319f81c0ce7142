"""`kind: include` and `kind: token` rules over C/C++/CUDA sources (contract section 3).

A file is decoded once and blanked once; include rules read the directives of
the comment-blanked text, token rules search the text with comments and
literals blanked, and suppression comments are read from what was blanked as
comment.  Nothing is preprocessed: `#if 0` blocks are checked like any code.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Union

import regex  # type: ignore[import-untyped, unused-ignore]

from import_policy.facts.cfamily_scan import Blanked, Include, TokenTimeout, blank, find_includes, find_tokens
from import_policy.config.model import IncludeRule, TokenRule
from import_policy.diagnostics import Diagnostic
from import_policy.facts.comments import FILE_DIRECTIVE_LINES, parse_directive
from import_policy.facts.model import Suppressions
from import_policy.patterns import any_match

CRule = Union[IncludeRule, TokenRule]

# Bounds one pattern's search over one file; a pattern that needs more is
# backtracking catastrophically, and one slow rule must not stall a run.
TOKEN_TIMEOUT = 1.0

_MARKER = "import-policy:"


def decode(source: bytes) -> str:
    """C sources carry no encoding declaration: UTF-8, a BOM dropped, bad bytes as U+FFFD.

    A replaced byte still occupies one column, so positions after it stay close to
    what an editor shows, and a Latin-1 comment never stops the file being checked.
    """
    return source.decode("utf-8-sig", errors="replace")


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str]:
    # Same flags as config validation, so a pattern that validated compiles here.
    return regex.compile(pattern, regex.MULTILINE)


def include_forbidden(rule: IncludeRule, header: str) -> bool:
    """Forbidden when a `forbid` glob matches the header path and no `except` glob does."""
    return any_match(rule.forbid, header) is not None and any_match(rule.except_, header) is None


def check_include(rule: IncludeRule, includes: Sequence[Include], path: str) -> list[Diagnostic]:
    found = []
    for include in includes:
        if not include_forbidden(rule, include.path):
            continue
        shown = f"<{include.path}>" if include.angled else f'"{include.path}"'
        found.append(
            Diagnostic(
                rule=rule.id, severity=rule.severity, path=path,
                line=include.line, column=include.column, end_line=include.line, end_column=include.end_column,
                message=rule.message or f"`#include {shown}` is forbidden",
                suppress_lines=(include.line,),
            )
        )
    return found


def check_token(rule: TokenRule, code: str, path: str, timeout: float = TOKEN_TIMEOUT) -> list[Diagnostic]:
    """Every match of every `forbid` regex in `code` (comments and literals already blanked)."""
    found = []
    for pattern in rule.forbid:
        compiled = _compiled(pattern)
        try:
            # Most files have no match; a bare search spares find_tokens' line index.
            if compiled.search(code, timeout=timeout) is None:
                continue
            matches = find_tokens(code, compiled, timeout=timeout)
        except (TokenTimeout, TimeoutError):
            found.append(
                Diagnostic(
                    rule=rule.id, severity=rule.severity, path=path, line=1, column=1, end_line=1, end_column=1,
                    message=(
                        f"token pattern {pattern!r} timed out after {timeout:g}s on this file; "
                        "the file was not checked against it (simplify the pattern: nested "
                        "quantifiers backtrack catastrophically)"
                    ),
                    suppress_lines=(1,),
                )
            )
            continue
        for match in matches:
            found.append(
                Diagnostic(
                    rule=rule.id, severity=rule.severity, path=path,
                    line=match.line, column=match.column, end_line=match.end_line, end_column=match.end_column,
                    message=rule.message or f"`{_one_line(match.text)}` is forbidden",
                    suppress_lines=(match.line,),
                )
            )
    return found


def _one_line(text: str) -> str:
    return " ".join(text.split()) or text


def suppressions(text: str, blanked: Blanked) -> Suppressions:
    """`// import-policy: ignore[...]` directives, read only from comments.

    A comment is what blanking removed from `no_comments`; code characters are
    dropped and spaces kept, so a directive spelled in a string literal (which
    `no_comments` keeps) is never taken for one.
    """
    if _MARKER not in text:
        return Suppressions()
    whole_file = False
    lines: dict[int, frozenset[str]] = {}
    for number, (original, kept) in enumerate(zip(text.split("\n"), blanked.no_comments.split("\n")), start=1):
        if _MARKER not in original or original == kept:
            continue
        comment = "".join(o if o != k or o.isspace() else " " for o, k in zip(original, kept))
        directive = parse_directive(comment)
        if directive is None:
            continue
        is_file, rules = directive
        if is_file:
            whole_file = whole_file or number <= FILE_DIRECTIVE_LINES
            continue
        known = lines.get(number)
        everything = not rules or (known is not None and not known)
        lines[number] = frozenset() if everything else (known or frozenset()) | rules
    return Suppressions(whole_file, tuple(sorted(lines.items())))


def check_file(rules: Sequence[CRule], relative_path: str, source: bytes) -> list[Diagnostic]:
    """Every include and token rule in `rules` over one C-family file, suppressions applied.

    The caller passes only the rules that apply to `relative_path` and are selected.
    """
    if not rules:
        return []
    text = decode(source)
    blanked = blank(text)
    includes = find_includes(blanked.no_comments) if any(isinstance(r, IncludeRule) for r in rules) else []
    found: list[Diagnostic] = []
    for rule in rules:
        if isinstance(rule, IncludeRule):
            found.extend(check_include(rule, includes, relative_path))
        else:
            found.extend(check_token(rule, blanked.code, relative_path))
    if not found:
        return found
    quiet = suppressions(text, blanked)
    return [d for d in found if not quiet.covers(d.rule, d.suppress_lines)]
