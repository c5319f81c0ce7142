"""`kind: include` and `kind: token` rules over C/C++/CUDA sources (contract section 3).

A file is decoded once and blanked once; include rules read the directives of
the comment-blanked text, token rules search the text with comments and
literals blanked, and suppression comments are read from what was blanked as
comment.  Nothing is preprocessed: `#if 0` blocks are checked like any code.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from import_policy.config.model import RuleBase
from import_policy.diagnostics import Diagnostic
from import_policy.facts.shared.comments import FILE_DIRECTIVE_LINES, parse_directive
from import_policy.facts.records.model import Suppressions
from import_policy.kinds.base import CScan
from import_policy.patterns import DottedPattern, PathGlob, any_match

# Validation and the YAML tree are imported by the parse functions: a run that takes its
# policy from the cache (cache.policy) imports neither.
if TYPE_CHECKING:
    from import_policy.config.validate import Items, RuleFields, Validator
    from import_policy.facts.cfamily.scan import Blanked, Include, Position
    import regex  # type: ignore[import-untyped, unused-ignore]


@dataclass(frozen=True)
class IncludeRule(RuleBase):
    forbid: tuple[PathGlob, ...]
    except_: tuple[PathGlob, ...]
    kind: str = field(default="include", kw_only=True)


@dataclass(frozen=True)
class TokenRule(RuleBase):
    forbid: tuple[str, ...]  # regex sources, compiled by the token check
    kind: str = field(default="token", kw_only=True)

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
    # Imported here: only a run that scans a C-family file for tokens pays for `regex`.
    import regex  # type: ignore[import-untyped, unused-ignore]

    # Same flags as config validation, so a pattern that validated compiles here.
    return regex.compile(pattern, regex.MULTILINE)


def include_forbidden(rule: IncludeRule, header: str) -> bool:
    """Forbidden when a `forbid` glob matches the header path and no `except` glob does."""
    return any_match(rule.forbid, header) is not None and any_match(rule.except_, header) is None


def check_include(rule: IncludeRule, includes: Sequence[Include], path: str) -> list[Diagnostic]:
    found = []
    for include in includes:
        # Matched as the file system resolves it (`<./ATen/x.h>` is `ATen/x.h`), shown as written.
        if not include_forbidden(rule, include.header):
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


def check_token(
    rule: TokenRule, code: str, path: str, timeout: float = TOKEN_TIMEOUT, position: Position | None = None,
) -> list[Diagnostic]:
    """Every match of every `forbid` regex in `code` (comments and literals already blanked);
    `position` maps an offset of `code` to the source (its splices deleted, see `Scan`)."""
    from import_policy.facts.cfamily.scan import TokenTimeout, find_tokens  # a run with no C-family file never loads the scanner

    found = []
    for pattern in rule.forbid:
        compiled = _compiled(pattern)
        try:
            # Most files have no match; a bare search spares find_tokens' line index.
            if compiled.search(code, timeout=timeout) is None:
                continue
            matches = find_tokens(code, compiled, timeout=timeout, position=position)
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


class Scan:
    """One C-family file, decoded and blanked once for every rule that reads it.

    Directives and tokens are read as the preprocessor reads them, after translation
    phase 2 deletes every backslash-newline (`facts/cfamily/phases.py`), each found at the
    source line where it starts; suppression comments are read from the source's own lines."""

    def __init__(self, source: bytes) -> None:
        from import_policy.facts.cfamily.phases import splice
        from import_policy.facts.cfamily.scan import blank

        self.text = decode(source)
        self.blanked = blank(self.text)
        self.spliced = splice(self.text)
        self.seen = self.blanked if self.spliced.text is self.text else blank(self.spliced.text)
        self._includes: list[Include] | None = None

    @property
    def code(self) -> str:
        return self.seen.code

    def position(self, offset: int) -> tuple[int, int]:
        return self.spliced.position(offset)

    @property
    def includes(self) -> list[Include]:
        if self._includes is None:
            from import_policy.facts.cfamily.scan import find_includes

            self._includes = find_includes(self.seen.no_comments, self.spliced.position, self.spliced.text)
        return self._includes

    def unsuppressed(self, found: list[Diagnostic]) -> list[Diagnostic]:
        if not found:
            return found
        quiet = suppressions(self.text, self.blanked)
        return [d for d in found if not quiet.covers(d.rule, d.suppress_lines)]


def _texts(items: Sequence[PathGlob]) -> str:
    return ", ".join(g.text for g in items) if items else "(none)"


class IncludeKind:
    """`kind: include`: `#include` directives whose header path a `forbid` glob matches."""

    name = "include"
    language: Literal["c"] = "c"
    keys = ("forbid", "except")

    def parse(self, v: Validator, items: Items, common: RuleFields) -> IncludeRule:
        from import_policy.config.yamltree import Seq

        empty = Seq([], common["origin"].line)
        return IncludeRule(
            forbid=tuple(v.globs(items["forbid"][1] if "forbid" in items else empty, "forbid")),
            except_=tuple(v.globs(items["except"][1] if "except" in items else empty, "except")),
            **common,
        )

    def fixable(self, rule: IncludeRule) -> str:
        return "no"

    def says(self, rule: IncludeRule) -> str:
        return rule.message or "`#include <header>` is forbidden"

    def explain_patterns(self, rule: IncludeRule) -> list[str]:
        return [f"  forbid:        {_texts(rule.forbid)}", f"  except:        {_texts(rule.except_)}"]

    def explain_options(self, rule: IncludeRule) -> list[str]:
        return []

    def name_excepts(self, rule: IncludeRule) -> Sequence[DottedPattern]:
        return ()

    def check(self, rule: IncludeRule, scan: CScan, path: str) -> list[Diagnostic]:
        return check_include(rule, scan.includes, path)


class TokenKind:
    """`kind: token`: regexes over C-family code with comments and string literals blanked."""

    name = "token"
    language: Literal["c"] = "c"
    keys = ("forbid",)

    def parse(self, v: Validator, items: Items, common: RuleFields) -> TokenRule:
        from import_policy.config.yamltree import Seq

        forbid = items["forbid"][1] if "forbid" in items else Seq([], common["origin"].line)
        texts = v.strings(forbid, "forbid")
        if common["origin"].source.startswith("preset:"):
            # A built-in preset's patterns are compiled by the test that ships it
            # (tests/kinds/test_presets_compile.py): a run that loads a preset and scans no
            # C-family file never imports `regex` (dearer to import than a batch's own checks).
            return TokenRule(forbid=tuple(text for text, _ in texts), **common)
        import regex  # type: ignore[import-untyped, unused-ignore]

        out = []
        for text, line in texts:
            try:
                regex.compile(text, regex.MULTILINE)
            except regex.error as error:
                v.error(line, f"bad regular expression {text!r}: {error}")
                continue
            out.append(text)
        return TokenRule(forbid=tuple(out), **common)

    def fixable(self, rule: TokenRule) -> str:
        return "no"

    def says(self, rule: TokenRule) -> str:
        return rule.message or "`<matched text>` is forbidden"

    def explain_patterns(self, rule: TokenRule) -> list[str]:
        return [f"  forbid:        {', '.join(rule.forbid) if rule.forbid else '(none)'}"]

    def explain_options(self, rule: TokenRule) -> list[str]:
        return []

    def name_excepts(self, rule: TokenRule) -> Sequence[DottedPattern]:
        return ()

    def check(self, rule: TokenRule, scan: CScan, path: str) -> list[Diagnostic]:
        return check_token(rule, scan.code, path, position=scan.position)
