"""Applying fixes: statement by statement where they allow it, one transformer, verified, written atomically.

`fix_bytes(source, diagnostics, unsafe)` takes the findings a check produced
for one file and returns the new bytes with what was applied and what was not
(and why). Checking again afterwards is `import_policy.fix.run`'s job
(`fix_source` there is the library entry point: check, fix, check again).

The rule every fix keeps: a safe fix keeps every name bound to the same object at every
point of the module, and never makes an import cycle through the gateway. Where that cannot
be shown, the fix is not offered or not applied, and the finding says why. Spelled out:
- every alias the original bound is bound by the fix (edits are keyed by the name and the
  name it binds: `import m as a, m as b` keeps both);
- a split statement keeps the order of its bindings (`fix.imports`: runs of one destination);
- a gateway import is folded into an earlier one only when no code between binds or reads a
  name it binds (`_merge`, `_Seen`), else it is rewritten where it stands;
- no gateway fix in a module the gateway runs while it loads (its submodules, its eager import
  closure: `rocm.gateway_closure`, asked by the engine before any fix is offered).

How it stays safe:
- Findings are located again in the fixer's own parse by their line and
  column (the node's start), never by text search.
- Every edit of one statement is worked out together from the statement's
  original node; two findings on one name (two rules) keep the first edit.
- The transformer replaces whole statement lines ({node: replacement}, as
  Fixit does), so nothing outside the rewritten import lines changes, except
  probe callees renamed in place.
- A fix whose applier says it is statement-local is worked out on its
  statement's bytes alone (`fix.splice`) and spliced back; the whole new file
  must compile (CPython) or the whole-file path decides. Otherwise the file is
  parsed whole, and the result must parse again (libcst), or nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar, Union

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

from import_policy.diagnostics import Diagnostic, FixPayload
from import_policy.facts.shared.identifiers import normal
from import_policy.edits.imports import Edits, Out, Refused, bound_by, rewrite_from, rewrite_import
from import_policy.edits.payload import AliasEdit, ImportFix, InlineProbeFix, ProbeFix, applies
from import_policy.fix.patch import Edit, edits_between
from import_policy.fix.splice import NEWLINE, Statement, compiles, first_newline, isolate, splice
from import_policy.rocm.inline_probe_fix import importlib_util_at, plan_inline_probe, with_importlib_util
from import_policy.rocm.probe_fix import ProbeImport, ProbeIndex, plan_probe, update_import

Replacement = Union[cst.CSTNode, cst.FlattenSentinel[cst.CSTNode], cst.RemovalSentinel]
Rewriter = Callable[[cst.CSTNode], Replacement]
Line = Union[cst.SimpleStatementLine, cst.SimpleStatementSuite]


@dataclass
class FileFix:
    new: bytes
    applied: list[Diagnostic] = field(default_factory=list)
    failed: list[tuple[Diagnostic, str]] = field(default_factory=list)
    # Where the fix changed the file: byte ranges of the old bytes and what replaces each (`--diff`).
    edits: list[Edit] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def fix_bytes(source: bytes, diagnostics: Sequence[Diagnostic], unsafe: bool = False) -> FileFix:
    wanted = [d for d in diagnostics if applies(d, unsafe)]
    if not wanted:
        return FileFix(source)
    fixed = _fix_statements(source, wanted)
    return fixed if fixed is not None else _fix_file(source, wanted)


def _fix_file(source: bytes, wanted: Sequence[Diagnostic]) -> FileFix:
    """The whole file through libcst: for fixes that read or edit more than their statement."""
    try:
        tree = cst.parse_module(source)
    except Exception as error:  # a file the fixer cannot parse is left alone, whatever the reason
        return FileFix(source, failed=[(d, f"the file does not parse: {error}") for d in wanted])
    job = _Job(tree, source)
    for d in wanted:
        try:
            job.add(d)
        except Refused as why:
            job.failed.append((d, str(why)))
    if not job.applied:
        return FileFix(source, failed=job.failed)
    try:
        rewriters = job.rewriters()
        new = tree.visit(_Apply(rewriters)).bytes
        cst.parse_module(new)
    except Exception as error:
        reason = f"the fixed file would not parse ({str(error).splitlines()[0] if str(error) else type(error).__name__}); left alone"
        return FileFix(source, failed=job.failed + [(d, reason) for d in job.applied])
    return FileFix(new, job.applied, job.failed, edits_between(source, new, job.lines_of(rewriters)))


def _fix_statements(source: bytes, wanted: Sequence[Diagnostic]) -> FileFix | None:
    """Only the statements being fixed through libcst, their new bytes spliced in; None when the
    whole file must be taken (a fix that is not statement-local, a statement that cannot be cut
    out, a result CPython does not compile)."""
    claims = _claims(wanted)
    found = isolate(source, wanted) if claims is not None else None
    if claims is None or found is None or not _alone(source, claims, found):
        return None
    newline = first_newline(source)
    replacements: list[tuple[Statement, bytes]] = []
    applied: list[Diagnostic] = []
    failed: list[tuple[Diagnostic, str]] = []
    # A statement's fix depends only on its text, indentation and its findings in its own
    # coordinates: a file that repeats a statement (generated code) has it rewritten once.
    done_before: dict[object, tuple[bytes, list[int], list[tuple[int, str]]] | None] = {}
    for statement, findings in found.values():
        key = (statement.text, statement.indent, tuple(_in_statement(statement, d) + (d.rule, d.fix) for d in findings))
        if key not in done_before:
            rewritten = _fix_statement(statement, findings, newline)
            done_before[key] = None if rewritten is None else (
                rewritten[0],
                [i for i, d in enumerate(findings) if any(d is a for a in rewritten[1])],
                [(i, why) for i, d in enumerate(findings) for f, why in rewritten[2] if f is d],
            )
        remembered = done_before[key]
        if remembered is None:
            return None
        new, done, refused = remembered
        applied += [findings[i] for i in done]
        failed += [(findings[i], why) for i, why in refused]
        if done:
            replacements.append((statement, new))
    if not replacements:
        return FileFix(source, failed=failed)
    fixed = splice(source, replacements)
    if not compiles(fixed):
        return None  # the whole-file path says why, in the words it always used
    return FileFix(fixed, applied, failed, [(statement.start, statement.end, new) for statement, new in replacements])


def _claims(wanted: Sequence[Diagnostic]) -> dict[str, list[Diagnostic]] | None:
    """name -> the findings whose fix depends on the name not being spelled elsewhere;
    None when one of the fixes is not statement-local."""
    claims: dict[str, list[Diagnostic]] = {}
    for d in wanted:
        assert d.fix is not None
        applier = APPLIERS.get(d.fix.tag)
        if applier is None or applier.local is None:
            return None
        try:
            names = applier.local(d.fix)
        except Refused:
            return None
        for name in names:
            claims.setdefault(name, []).append(d)
    return claims


def _alone(
    source: bytes, claims: dict[str, list[Diagnostic]], found: dict[int, tuple[Statement, list[Diagnostic]]]
) -> bool:
    """Whether no claimed name is spelled outside the one statement claiming it: another import
    from the same gateway may be merged with, and the whole file decides that."""
    owner = {d: statement for statement, ds in found.values() for d in ds}
    for name, ds in claims.items():
        statements = {owner[d] for d in ds}
        if len(statements) > 1:
            return False
        (statement,) = statements
        needle = name.encode("utf-8")
        if source.find(needle, 0, statement.start) != -1 or source.find(needle, statement.end) != -1:
            return False
    return True


def _in_statement(statement: Statement, d: Diagnostic) -> tuple[int, int]:
    """The finding's place in the statement's own coordinates: line 1 is its first line,
    without the indentation."""
    shift = len(statement.indent) if d.line == statement.first_line else 0
    return d.line - statement.first_line + 1, d.column - shift


def _fix_statement(
    statement: Statement, findings: Sequence[Diagnostic], newline: str
) -> tuple[bytes, list[Diagnostic], list[tuple[Diagnostic, str]]] | None:
    """(the statement's new lines, applied, refused and why), or None to take the whole file."""
    try:
        tree = cst.parse_module(statement.text)
        if tree.default_newline != newline:
            # New lines take the file's line break; the statement's own breaks stay its own.
            tree = tree.visit(_PinNewlines(tree.default_newline)).with_changes(default_newline=newline)
    except Exception:
        return None
    job = _Job(tree, statement.text)
    for d in findings:
        line, column = _in_statement(statement, d)
        try:
            job.add(replace(d, line=line, column=column))
        except Refused as why:
            job.failed.append((d, str(why)))
    # The job holds the moved findings; report the caller's own.
    applied = [d for d in findings if not any(d is f for f, _ in job.failed)]
    if not job.applied:
        return b"", [], job.failed
    try:
        new_tree = tree.visit(_Apply(job.rewriters()))
    except Exception:
        return None
    if new_tree.header or new_tree.footer:
        return None
    text = "".join(statement.indent + new_tree.code_for_node(line) for line in new_tree.body)
    return text.encode("utf-8"), applied, job.failed


# --- writing ------------------------------------------------------------------------------


# --- locating findings and planning the edits -----------------------------------------------


class _Job:
    def __init__(self, tree: cst.Module, source: bytes) -> None:
        self.tree = tree
        self.source = source
        self.applied: list[Diagnostic] = []
        self.failed: list[tuple[Diagnostic, str]] = []
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        self.positions = positions
        # (line, 1-based column) of a node's start -> the nodes a finding there may mean
        self.at: dict[tuple[int, int], list[tuple[cst.CSTNode, cst.CSTNode | None]]] = {}
        self.probes = ProbeIndex()
        for node, where in positions.items():
            key = (where.start.line, where.start.column + 1)
            if isinstance(node, cst.Import):
                for item in node.names:
                    start = positions[item.name].start
                    self.at.setdefault((start.line, start.column + 1), []).append((node, item))
            elif isinstance(node, cst.ImportFrom):
                # A finding about the module points at its start, the dots of a relative one included.
                heads: list[cst.CSTNode] = [*node.relative[:1], *([node.module] if node.module is not None else [])]
                for head in heads:
                    start = positions[head].start
                    self.at.setdefault((start.line, start.column + 1), []).append((node, None))
                if not isinstance(node.names, cst.ImportStar):
                    for item in node.names:
                        start = positions[item.name].start
                        self.at.setdefault((start.line, start.column + 1), []).append((node, item))
            elif isinstance(node, cst.Call):
                self.at.setdefault(key, []).append((node, None))
            self.probes.note(node, where.start.line)
        # statement -> written name -> edit; statement -> probe import updates; callee renames
        self.edits: dict[cst.CSTNode, Edits] = {}
        self.probe_imports: dict[cst.ImportFrom, list[ProbeImport]] = {}
        self.renames: dict[cst.Name, str] = {}
        self.replaced: dict[cst.CSTNode, cst.CSTNode] = {}  # whole statements (an inline probe's `try:`)

    def add(self, d: Diagnostic) -> None:
        assert d.fix is not None
        applier = APPLIERS.get(d.fix.tag)
        if applier is None:
            raise Refused("no fix this version knows how to apply")
        applier.plan(self, d, d.fix)
        self.applied.append(d)

    def candidates(self, d: Diagnostic) -> list[tuple[cst.CSTNode, cst.CSTNode | None]]:
        """The nodes that start where the finding points (statement, imported name or None)."""
        return self.at.get((d.line, d.column), [])

    # --- from plans to rewriters ---

    def rewriters(self) -> dict[cst.CSTNode, Rewriter]:
        out: dict[cst.CSTNode, Rewriter] = {}
        for name, replacement in self.renames.items():
            out[name] = lambda node, new=replacement: node.with_changes(value=new)  # type: ignore[misc]
        for old, new in self.replaced.items():
            if old is self.tree:
                out[old] = lambda node: with_importlib_util(node) if isinstance(node, cst.Module) else node
            else:
                out[old] = lambda node, new=new: new  # type: ignore[misc]
        for lines in _blocks(self.tree):
            _plan_block(lines, self, out)
        return out

    def lines_of(self, rewriters: Mapping[cst.CSTNode, Rewriter]) -> list[tuple[int, int]] | None:
        """The byte ranges of the source (whole lines, as the parser counts them) that the
        rewriters may change; None when that cannot be told."""
        spans = [
            (where.start.line, where.end.line)
            for node in rewriters if node is not self.tree and (where := self.positions.get(node))
        ]
        if self.tree in rewriters:
            # The module's rewrite inserts `import importlib.util` before one statement of its
            # body: the lines from the file's start to that statement's may change.
            body, at = self.tree.body, importlib_util_at(self.tree)
            where = self.positions.get(body[at]) if at < len(body) else None
            if where is None:
                return None
            spans.append((1, where.start.line))
        if not spans:
            return None
        last = max(end for _, end in spans)
        starts = [0]
        for found in NEWLINE.finditer(self.source):
            starts.append(found.end())
            if len(starts) > last:
                break
        starts.append(len(self.source))
        return [(starts[first - 1], starts[min(end, len(starts) - 1)]) for first, end in spans]

    def touched(self, small: cst.BaseSmallStatement) -> bool:
        return small in self.edits or small in self.probe_imports

    def outputs(self, small: cst.BaseSmallStatement) -> list[Out]:
        node: cst.CSTNode = small
        edits = self.edits.get(small)
        if isinstance(small, cst.ImportFrom) and small in self.probe_imports:
            node = update_import(small, self.probe_imports[small], self.probes, self.source)
            if edits:
                edits = _follow_renames(small, node, edits)
        if not edits:
            assert isinstance(node, cst.BaseSmallStatement)
            return [Out(node=node)]
        if isinstance(node, cst.Import):
            return rewrite_import(node, edits)
        assert isinstance(node, cst.ImportFrom)
        return rewrite_from(node, edits)


def _written(node: cst.CSTNode) -> list[str]:
    names = getattr(node, "names", ())
    return [normal(get_full_name_for_node(a.name) or "") for a in names if isinstance(a, cst.ImportAlias)]


def _follow_renames(before: cst.ImportFrom, after: cst.CSTNode, edits: Edits) -> Edits:
    """The edits of a statement whose names the probe fix renamed or added to: a renamed name
    keeps its edit under its new spelling, and when every name of the statement moved to one
    module (a module or relative-import fix), the names the probe fix added move with them."""
    old, new = _written(before), _written(after)
    out = dict(edits)
    for was, now in zip(old, new):
        for key in [key for key in out if key[0] == was] if was != now else ():
            edit = out.pop(key)
            bound = now if edit.bound == was else edit.bound
            out[(now, bound)] = replace(edit, written=now, bound=bound)
    targets = {(e.target, e.gateway) for e in out.values()}
    written = {name for name, _ in out}
    if len(targets) == 1 and all(name in written for name in old if name in new):
        target, gateway = next(iter(targets))
        if gateway is None:
            for added in new[len(old):]:
                out.setdefault((added, added), AliasEdit(added, False, added, target))
    return out


# --- appliers: one per payload tag ----------------------------------------------------------


def _plan_import(job: _Job, d: Diagnostic, payload: FixPayload) -> None:
    fix = _expect(payload, ImportFix)
    wanted = cst.Import if fix.kind == "import" else cst.ImportFrom
    found = [(node, item) for node, item in job.candidates(d) if isinstance(node, wanted)]
    if not found:
        raise Refused("the import was not found where the finding points")
    statement, item = found[0]
    if isinstance(item, cst.ImportAlias) and fix.kind == "import":
        # `import a.b as a` binds the module `a.b` where `import a.b` binds `a`: the finding
        # cannot tell them apart, the node can (and the name it binds must be the edit's).
        name = normal(get_full_name_for_node(item.name) or "")
        for edit in fix.edits:
            dotted = "." in name and (item.asname is not None) != edit.aliased
            if edit.written == name and (
                bound_by(item, name, False) != edit.bound
                or (dotted and (edit.aliased or edit.dotted_target is None))
            ):
                raise Refused(f"`import {name}` does not bind what the finding expected")
    # The facts name what Python binds: `import ｒe` is `re` (facts.identifiers).
    written = {
        normal(get_full_name_for_node(item.name) or "")
        for item in getattr(statement, "names", ())
        if isinstance(item, cst.ImportAlias)
    }
    edits = job.edits.setdefault(statement, {})
    for edit in fix.edits:
        if edit.written not in written:
            raise Refused(f"`{edit.written}` is not in the statement the finding points at")
    for edit in fix.edits:
        # A second rule on the same name: the first edit stands, the name is fixed once. Keyed
        # by the name bound too: `import m as a, m as b` is two names, each keeps its alias.
        edits.setdefault((edit.written, edit.bound), edit)


P = TypeVar("P")


def _expect(payload: FixPayload, record: type[P]) -> P:
    # The tag chose the applier; a record that claims another type's tag is refused, not trusted.
    if not isinstance(payload, record):
        raise Refused(f"a `{payload.tag}` payload that is not a {record.__name__}")
    return payload


@dataclass(frozen=True)
class Applier:
    """How the fixer applies one payload type.

    `plan` locates the finding in the fixer's parse and records the edits on the
    job. `local`: see below; a statement-local fix costs what its statement
    costs, whatever the size of the file.
    """

    plan: Callable[[_Job, Diagnostic, FixPayload], None]
    # For a fix that edits only its own statement and reads nothing else: the names whose
    # mention elsewhere in the file could change how it is written (an import from the same
    # gateway, which the whole-file path merges into). None: the fixer parses the whole file.
    local: Callable[[FixPayload], Sequence[str]] | None


# payload tag -> its applier; the same keys as `import_policy.edits.payload.PAYLOADS`.
APPLIERS: dict[str, Applier] = {
    ImportFix.tag: Applier(_plan_import, local=lambda fix: _gateway_names(_expect(fix, ImportFix))),
    ProbeFix.tag: Applier(plan_probe, local=None),  # reads every mention of the probe's name
    InlineProbeFix.tag: Applier(plan_inline_probe, local=None),  # replaces its `try:`, may add an import
}


def _gateway_names(fix: ImportFix) -> list[str]:
    # The last part is spelled however the import is written (`from a.b import`, `from a . b import`).
    return [edit.gateway.rpartition(".")[2] for edit in fix.edits if edit.gateway]


def _blocks(tree: cst.Module) -> Iterator[Sequence[cst.CSTNode]]:
    """Every statement block: the module body, indented blocks, one-line suites (as one-line blocks)."""
    pending: list[cst.CSTNode] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, (cst.Module, cst.IndentedBlock)):
            yield node.body
        elif isinstance(node, cst.SimpleStatementSuite):
            yield [node]
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.BaseExpression)):
            continue
        for child in node.children:
            if isinstance(child, (cst.BaseStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler,
                                  cst.ExceptStarHandler, cst.Finally, cst.MatchCase)):
                pending.append(child)


def _existing_gateway(line: cst.CSTNode) -> tuple[str, cst.ImportFrom] | None:
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if not isinstance(small, cst.ImportFrom) or small.relative or small.module is None:
        return None
    if isinstance(small.names, cst.ImportStar):
        return None
    module = get_full_name_for_node(small.module)
    return (normal(module), small) if module else None


def _clean(line: cst.CSTNode) -> bool:
    """A line that can disappear into another without losing a comment or blank line."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or line.leading_lines:
        return False
    return "#" not in cst.Module(body=[]).code_for_node(line)


def _pairs(node: cst.ImportFrom) -> list[tuple[str, str]]:
    pairs = []
    for item in node.names:  # type: ignore[union-attr]
        name = normal(get_full_name_for_node(item.name) or "")
        bound = item.asname.name if item.asname is not None else None
        pairs.append((name, normal(bound.value) if isinstance(bound, cst.Name) else name))
    return pairs


def _plan_block(lines: Sequence[cst.CSTNode], job: _Job, out: dict[cst.CSTNode, Rewriter]) -> None:
    """Plan the rewritten lines of one block, folding gateway imports into the first one per
    gateway where that moves no binding across code that binds or reads the name."""
    gateways = {e.gateway for edits in job.edits.values() for e in edits.values() if e.gateway}
    targets: dict[str, Out] = {}
    seen = _Seen()
    extended: list[tuple[cst.CSTNode, Out]] = []
    for line in lines:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            seen.note_code(line)
            continue
        if not any(job.touched(small) for small in line.body):
            existing = _existing_gateway(line)
            if existing is not None and existing[0] in gateways and existing[0] not in targets:
                target = Out(gateway=existing[0], base=existing[1], pairs=_pairs(existing[1]))
                targets[existing[0]] = target
                seen.note({bound for _, bound in target.pairs})
                seen.start(existing[0])
                extended.append((line, target))
            else:
                seen.note_code(line)
            continue
        per_small: list[list[Out]] = []
        for small in line.body:
            outs = job.outputs(small) if job.touched(small) else [Out(unchanged=True)]
            per_small.append(outs)
        if isinstance(line, cst.SimpleStatementSuite):
            seen.note_code(line)
        else:
            _merge(per_small, line.body, targets, seen, whole_line=_clean(line))
        out[line] = _line_rewriter(per_small)
    for line, target in extended:
        if target.extra:
            out[line] = _line_rewriter([[target]])


# Code that may read or bind any module name (a star import, spelled "*" here; calls that
# reach the namespace): no binding is moved across it.
_ANY_NAME = frozenset({"*", "globals", "locals", "vars", "exec", "eval", "__dict__", "setattr", "delattr"})


class _Seen:
    """Per gateway, the names spelled since its first import in the block (a name a later
    import binds is folded into that first import only when it is not among them)."""

    def __init__(self) -> None:
        self.since: dict[str, set[str]] = {}
        self.any: set[str] = set()  # gateways past code that may touch any name

    def start(self, gateway: str) -> None:
        self.since[gateway] = set()

    def note(self, names: set[str], skip: str | None = None) -> None:
        for gateway, spelled in self.since.items():
            if gateway != skip:
                spelled |= names
                if names & _ANY_NAME:
                    self.any.add(gateway)

    def note_code(self, node: cst.CSTNode) -> None:
        if self.since:
            self.note(_spelled(node))

    def clear(self, gateway: str, names: set[str]) -> bool:
        return gateway not in self.any and not names & self.since.get(gateway, set())


def _spelled(node: cst.CSTNode) -> set[str]:
    """Every name the code spells (as Python binds it): all it may bind or read, and more."""
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(normal(name.value))

        def visit_ImportStar(self, star: cst.ImportStar) -> None:
            found.add("*")

    node.visit(Names())
    return found


def _merge(
    per_small: list[list[Out]], smalls: Sequence[cst.BaseSmallStatement], targets: dict[str, Out], seen: _Seen,
    whole_line: bool,
) -> None:
    """Fold gateway imports into the block's first import from the same gateway.

    A statement is folded away only when that loses nothing: it was built here
    (no comment of its own), or the whole line is a plain one-statement line; and
    the line keeps a statement unless it may vanish whole. And only when no code
    between binds or reads a name it binds: then every name is bound to the same
    object at every point where it is read (else it is rewritten where it stands).
    """
    left = sum(len(outs) for outs in per_small)
    for index, outs in enumerate(per_small):
        for out in list(outs):
            if out.gateway is None:
                seen.note_code(smalls[index] if out.unchanged or out.node is None else out.node)
                continue
            bound = {name for _, name in out.pairs}
            target = targets.get(out.gateway)
            if target is None:
                targets[out.gateway] = out
                seen.note(bound)
                seen.start(out.gateway)
                continue
            foldable = (whole_line and left == 1) or (out.base is None and left != 1)
            if not foldable or not seen.clear(out.gateway, bound):
                seen.note(bound)
                continue
            for pair in out.pairs:
                # Appended, the pair binds its name last; left out only where the name's last
                # binding there is this very pair (`import triton` twice).
                last = next((p for p in reversed(target.bound_pairs()) if p[1] == pair[1]), None)
                if last != pair:
                    target.extra.append(pair)
            outs.remove(out)
            left -= 1
            seen.note(bound, skip=out.gateway)


def _line_rewriter(per_small: list[list[Out]]) -> Rewriter:
    def rewrite(updated: cst.CSTNode) -> Replacement:
        assert isinstance(updated, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        smalls: list[cst.BaseSmallStatement] = []
        for index, outs in enumerate(per_small):
            smalls.extend(updated.body[index] if o.unchanged else o.render() for o in outs)
        if not smalls:
            return cst.RemoveFromParent()
        if isinstance(updated, cst.SimpleStatementLine) and len(per_small) == 1:
            first = updated.with_changes(body=[smalls[0]])
            if len(smalls) == 1:
                return first
            rest = [cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]) for s in smalls[1:]]
            return cst.FlattenSentinel([first, *rest])
        return updated.with_changes(body=_semicolons(smalls))

    return rewrite


def _semicolons(smalls: list[cst.BaseSmallStatement]) -> list[cst.BaseSmallStatement]:
    joined = []
    for index, small in enumerate(smalls):
        if index < len(smalls) - 1 and not isinstance(small.semicolon, cst.Semicolon):
            small = small.with_changes(
                semicolon=cst.Semicolon(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(" "))
            )
        joined.append(small)
    return joined


class _PinNewlines(cst.CSTTransformer):
    """Write out the line breaks libcst leaves implicit (the module's default), before the default changes."""

    def __init__(self, value: str) -> None:
        super().__init__()
        self.value = value

    def leave_Newline(self, original_node: cst.Newline, updated_node: cst.Newline) -> cst.Newline:
        return updated_node.with_changes(value=self.value) if updated_node.value is None else updated_node


class _Apply(cst.CSTTransformer):
    def __init__(self, rewriters: dict[cst.CSTNode, Rewriter]) -> None:
        super().__init__()
        self.rewriters = rewriters

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Replacement:  # type: ignore[override]
        rewrite = self.rewriters.get(original_node)
        return updated_node if rewrite is None else rewrite(updated_node)
