"""Where a reachability finding is reported, and what silences it (contract section 7).

A finding is a site an entry module reaches, with its chain. It is reported at its site
when the site's file is checked; when it is not, at its link in each file named on the
command line (pre-commit passes the changed ones) that the chain passes through: the commit
that adds `from mypkg import heavy_side` to `mypkg/__init__.py` changes no line of
`heavy_side.py`, yet it is what makes `mypkg` reach the hazard. One report where the site is
checked keeps `pre-commit run --all-files` equal to a whole-tree check. All reports of one
finding stand or fall together: a suppression at the site (read even when the site's file is
not checked) or at its link in a named file silences every one of them, and the baseline
keys them as one finding, recorded at its site (`Diagnostic.places`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace

from import_policy.diagnostics import Diagnostic, Place
from import_policy.facts.records.model import FileFacts, Suppressions
from import_policy.graph.chains import Chain

# Links no statement makes: importing `a.b` runs `a/__init__` first, which is no line of `a`.
_NO_STATEMENT = frozenset({"package"})
_WHAT = {"call": "call", "scan": "package walk"}


@dataclass(frozen=True)
class Finding:
    """One reachability finding: the diagnostic at its site, the chain, what the site reaches."""

    site: Diagnostic
    chain: Chain
    reached: str  # `xformers`, or `@tilelang.jit` for a decorator


@dataclass(frozen=True)
class Where:
    """What the hook rule needs of the run: which files were named, which may hold a report,
    their facts (for a statement's first line) and how to read a file's lines and comments."""

    named: Collection[str]
    checked: Collection[str]  # files the site report may stand in (checked, applying, parsed)
    reports_in: Callable[[str], bool]  # files the pass's findings may be reported in (`files`)
    facts: Callable[[str], FileFacts | None]
    lines: Callable[[str], list[str] | None]
    quiet: Callable[[str], Suppressions]


def place_of(d: Diagnostic) -> Place:
    return (d.path, d.line, d.column, d.end_line, d.end_column)


def reports(findings: Iterable[Finding], where: Where) -> list[Diagnostic]:
    """Every report of every finding that nothing silences."""
    out: list[Diagnostic] = []
    for finding in findings:
        site = finding.site
        if not where.reports_in(site.path):
            continue  # a finding no whole-tree run would report is reported nowhere
        home = place_of(site)
        # One report where the site is checked, as a whole-tree run (or `pre-commit run
        # --all-files`) has it; else one at each named file the chain passes through.
        links = _links(finding, where)
        places = (home, *(place_of(d) for d in links))
        found = [site] if site.path in where.checked else links
        found = [replace(d, places=places) for d in found]
        if not found:
            continue
        silenced = where.quiet(site.path).covers(site.rule, site.suppress_lines) or any(
            where.quiet(d.path).covers(d.rule, d.suppress_lines) for d in links
        )
        if not silenced:
            out.extend(found)
    return out


def _links(finding: Finding, where: Where) -> list[Diagnostic]:
    """The finding at each link of its chain that stands in a named file, the site's own link aside."""
    out: list[Diagnostic] = []
    seen: set[tuple[str, int]] = set()
    site = finding.site
    for link in finding.chain.links[:-1]:
        if link.kind in _NO_STATEMENT or link.path not in where.named or not where.reports_in(link.path):
            continue
        if (link.path, link.line) in seen or (link.path, link.line) == (site.path, site.line):
            continue
        seen.add((link.path, link.line))
        lines = where.lines(link.path)
        if lines is None:
            continue
        text = lines[link.line - 1] if 0 < link.line <= len(lines) else ""
        column = len(text) - len(text.lstrip()) + 1
        end = len(text.rstrip()) + 1
        chain = " -> ".join(finding.chain.modules)
        what = _WHAT.get(link.kind, "import")
        message = (
            f"this {what} makes `{finding.chain.entry}` reach `{finding.reached}` "
            f"({site.path}:{site.line}): {chain}"
        )
        out.append(Diagnostic(
            rule=site.rule, severity=site.severity, path=link.path, line=link.line, column=column,
            end_line=link.line, end_column=max(end, column), message=message,
            suppress_lines=(link.line, _statement_line(where.facts(link.path), link.line)),
            chain=site.chain,
        ))
    return out


def _statement_line(facts: FileFacts | None, line: int) -> int:
    """The first line of the statement a link's line belongs to (a multi-line `from` import)."""
    if facts is not None:
        for fact in facts.imports:
            if fact.span.line == line:
                return fact.statement_line
        for call in facts.calls:
            if call.span.line == line:
                return call.statement_line
    return line


__all__ = ["Finding", "Where", "place_of", "reports"]
