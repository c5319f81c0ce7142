"""`unused-suppression` (opt-in, ruff's RUF100): a suppression comment that silenced nothing,
or that names a rule id no rule has.

Which findings a comment silenced is told by checking the file again with every
suppression marker neutralised (`neutralise`, same length, so every position
holds): a finding of that second run that the file's comments cover is one they
silenced. This module is the pure part: the comments of a file, and the
findings about them given what was silenced; the command runs the checks.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import Language
from import_policy.facts.shared.comments import FILE_DIRECTIVE_LINES, MARKER, parse_directive, suppressions
from import_policy.facts.records.model import Suppressions
from import_policy.kinds.builtin import BuiltinRule

UNUSED_SUPPRESSION = "unused-suppression"
_DOC = """
What it does: reports a `# import-policy: ignore[...]` (or `ignore-file`) comment that
silenced no finding in this run, and one that names a rule id no rule has (a typo such as
`ignore[no-pickel]` would otherwise silence nothing without a word). ruff's RUF100.
Why: a suppression outlives the code it was written for; a stale one hides the next real
finding on its line.
Options: off by default; turn it on with `--select unused-suppression` or
`--extend-select unused-suppression`. A comment is judged against every rule in force
in the configuration, whatever `--select` narrowed the run to; a rule id turned off with
`--ignore` is not judged. `# import-policy: ignore[unused-suppression]` on the comment's
line keeps it.
"""
UNUSED_SUPPRESSION_RULE = BuiltinRule(
    UNUSED_SUPPRESSION, "builtin", "A suppression comment that silenced nothing, or names no rule.", "no", False,
    lambda: _DOC, opt_in=True,
)
# Same length as MARKER, and no directive: line and column of everything else stay true.
_NEUTRAL = b"import-policy;"
_LEADERS = ("#", "//", "/*")
_DIRECTIVE_END = re.compile(r"import-policy:\s*ignore(?:-file)?(?:\[[^\]]*\])?")


def neutralise(source: bytes) -> bytes:
    """The source with no suppression left in it."""
    return source.replace(MARKER, _NEUTRAL) if MARKER in source else source


@dataclass(frozen=True)
class Comment:
    """One suppression directive as written."""

    line: int
    column: int  # 1-based, of the comment's leader (`#`, `//`, `/*`)
    end_column: int
    whole_file: bool
    rules: frozenset[str]  # empty: every rule
    text: str  # the directive, for the message


def _in_force(source: bytes, language: Language) -> Suppressions:
    """The suppressions the checks honour: read from comments only (never from a string)."""
    if language == "python":
        return suppressions(source)
    from import_policy.facts.cfamily.scan import blank
    from import_policy.kinds.cfamily import decode, suppressions as c_suppressions

    text = decode(source)
    return c_suppressions(text, blank(text))


def comments(source: bytes, language: Language) -> list[Comment]:
    """The directives in a file's comments, where they stand. `ignore-file` counts in the
    first lines only, as for suppression."""
    if MARKER not in source:
        return []
    real = _in_force(source, language)
    lines = {line for line, _ in real.lines}
    text = source.decode("utf-8", errors="replace")
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        start = line.find(MARKER.decode())
        if start < 0 or (number not in lines and not real.file):
            continue
        leader = max(line.rfind(mark, 0, start) for mark in _LEADERS)
        if leader < 0:
            continue
        directive = parse_directive(line[leader:])
        match = _DIRECTIVE_END.search(line, start)
        if directive is None or match is None:
            continue
        whole_file, rules = directive
        if (whole_file and (number > FILE_DIRECTIVE_LINES or not real.file)) or (not whole_file and number not in lines):
            continue
        found.append(Comment(number, leader + 1, match.end() + 1, whole_file, rules, match.group(0)))
    return found


def _silenced_by(comment: Comment, finding: Diagnostic) -> bool:
    if comment.rules and finding.rule not in comment.rules:
        return False
    return comment.whole_file or comment.line in finding.suppress_lines


def check(
    path: str,
    found: Iterable[Comment],
    revealed: Iterable[Diagnostic],
    judged: Collection[str],
    known: Collection[str],
) -> list[Diagnostic]:
    """The findings about `path`'s comments. `revealed`: the file's findings with no suppression
    in force; `judged`: the rule ids that ran (a comment naming another is not judged on it);
    `known`: every rule id there is."""
    revealed = list(revealed)
    out = []
    for comment in found:
        silenced = {d.rule for d in revealed if _silenced_by(comment, d)}
        unknown = sorted(r for r in comment.rules if r not in known)
        if comment.rules:
            unused = sorted(
                r for r in comment.rules
                if r in judged and r not in silenced and r != UNUSED_SUPPRESSION and r in known
            )
        else:
            unused = [] if silenced else ["*"]
        if not unknown and not unused:
            continue
        parts = []
        if unused == ["*"]:
            parts.append("silenced nothing; remove it")
        elif unused:
            parts.append(f"silenced nothing for {', '.join(f'`{r}`' for r in unused)}")
        for rule in unknown:
            import difflib  # only a misspelling pays for it

            near = difflib.get_close_matches(rule, list(known), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else ""
            parts.append(f"names `{rule}`, which is no rule{hint}")
        out.append(Diagnostic(
            rule=UNUSED_SUPPRESSION, severity="error", path=path,
            line=comment.line, column=comment.column, end_line=comment.line, end_column=comment.end_column,
            message=f"`{comment.text}` " + "; ".join(parts),
            # It may itself be silenced on its own line: `# import-policy: ignore[unused-suppression]`.
            suppress_lines=(comment.line,),
        ))
    return out
