"""Rewriting one import statement (libcst nodes in, nodes out), keeping every byte it can.

`rewrite_import` / `rewrite_from` split a statement's names into: the names
kept as they are (or renamed in place by a module fix), and groups that move
to another module (a gateway, or a module fix of some names of a `from`). The
statement's own node is reused for the first output, so its comments,
parentheses and spacing stay; a group that has to become a new statement
copies the original's formatting where it can.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.helpers import get_full_name_for_node

from import_policy.facts.shared.identifiers import normal
from import_policy.edits.payload import AliasEdit


class Refused(Exception):
    """The node does not look like what the finding described; leave it alone."""


@dataclass
class Out:
    """One small statement a rewrite produces.

    `node`: a finished statement (None for a gateway import still being built).
    A gateway import is built from `base` (an existing `from` node whose aliases
    are already renamed, formatting kept) or from scratch, plus `extra` names
    merged into it from later statements of the same block.
    """

    node: cst.BaseSmallStatement | None = None
    gateway: str | None = None
    base: cst.ImportFrom | None = None
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (exported name, bound name)
    extra: list[tuple[str, str]] = field(default_factory=list)
    unchanged: bool = False  # take the statement as the transformer hands it over

    def bound_pairs(self) -> list[tuple[str, str]]:
        return self.pairs + self.extra

    def render(self) -> cst.BaseSmallStatement:
        if self.gateway is None:
            assert self.node is not None
            return self.node
        module = dotted(self.gateway)
        if self.base is not None:
            node = self.base.with_changes(module=module, relative=())
            return append_names(node, self.extra) if self.extra else node
        aliases = [alias(export, bound) for export, bound in self.bound_pairs()]
        return cst.ImportFrom(module=module, names=_with_commas(aliases))


def dotted(name: str) -> cst.Attribute | cst.Name:
    expression = cst.parse_expression(name)
    assert isinstance(expression, (cst.Attribute, cst.Name))
    return expression


def alias(export: str, bound: str) -> cst.ImportAlias:
    asname = None if export == bound else cst.AsName(name=cst.Name(bound))
    return cst.ImportAlias(name=cst.Name(export), asname=asname)


def _with_commas(aliases: list[cst.ImportAlias]) -> list[cst.ImportAlias]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=comma) for a in aliases[:-1]] + [
        aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    ]


def _plain(comma: cst.Comma | cst.MaybeSentinel) -> cst.Comma:
    """A comma like `comma` without the comment it may carry (so copying it never copies a comment)."""
    if not isinstance(comma, cst.Comma):
        return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace):
        after = after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return comma.with_changes(whitespace_after=after)


def append_names(node: cst.ImportFrom, pairs: list[tuple[str, str]]) -> cst.ImportFrom:
    """`from m import a` + [(b, b)] -> `from m import a, b`, in the statement's own layout."""
    assert not isinstance(node.names, cst.ImportStar)
    names = list(node.names)
    last = names[-1]
    between = _plain(names[-2].comma) if len(names) > 1 else _plain(cst.MaybeSentinel.DEFAULT)
    new = [alias(export, bound) for export, bound in pairs]
    if isinstance(last.comma, cst.Comma) and node.lpar is not None:
        # A trailing comma in parentheses: every new name gets one, the last keeps the original's.
        tail = last.comma
        names[-1] = last.with_changes(comma=between)
        new = [a.with_changes(comma=between) for a in new[:-1]] + [new[-1].with_changes(comma=tail)]
    else:
        names[-1] = last.with_changes(comma=between)
        new = [a.with_changes(comma=between) for a in new[:-1]] + [new[-1].with_changes(comma=last.comma)]
    return node.with_changes(names=names + new)


def _close(node_names: list[cst.ImportAlias]) -> list[cst.ImportAlias]:
    """Outside parentheses the last name may not keep a comma."""
    return node_names[:-1] + [node_names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


Edits = dict[tuple[str, str], AliasEdit]  # (written name, bound name) -> its edit


def bound_by(item: cst.ImportAlias, written: str, from_import: bool) -> str:
    """The name an imported name binds: its `as` name, else (for `import a.b`) `a`."""
    if item.asname is not None and isinstance(item.asname.name, cst.Name):
        return normal(item.asname.name.value)
    return written if from_import else written.split(".")[0]


def rewrite_import(node: cst.Import, edits: Edits) -> list[Out]:
    """The statement's names in runs of one destination, in their order: a name is bound
    where the original bound it, relative to every other name of the statement
    (`import triton as t, os as t` leaves `t` bound to os)."""
    runs: list[list[cst.ImportAlias] | Out] = []
    for item in node.names:
        # Edits are keyed by the name as Python binds it (`ｒe` is `re`): the new name is then
        # bound to what the old one bound (`import ｒe` -> `import regex as re`); and by the
        # name bound, so `import m as a, m as b` keeps both.
        written = normal(get_full_name_for_node(item.name) or "")
        edit = edits.get((written, bound_by(item, written, False)))
        if edit is not None and "." in written and (item.asname is not None) != edit.aliased:
            # `import a.b as a`, which the finding took for `import a.b`: it binds the module `a.b`.
            if edit.aliased or edit.dotted_target is None:
                raise Refused(f"`import {written}` does not bind what the finding expected")
            edit = replace(edit, aliased=True, target=edit.dotted_target)
        if edit is None or edit.gateway is None:
            if edit is not None:
                asname = item.asname
                if asname is None and edit.target != edit.bound:
                    asname = cst.AsName(name=cst.Name(edit.bound))
                item = item.with_changes(name=dotted(edit.target), asname=asname)
            last = runs[-1] if runs else None
            if isinstance(last, list):
                last.append(item)
            else:
                runs.append([item])
            continue
        last = runs[-1] if runs else None
        if not (isinstance(last, Out) and last.gateway == edit.gateway):
            last = Out(gateway=edit.gateway)
            runs.append(last)
        last.pairs.append((edit.target, edit.bound))
    return [Out(node=node.with_changes(names=_close(run))) if isinstance(run, list) else run for run in runs]


def _module_name(node: cst.ImportFrom) -> str:
    return get_full_name_for_node(node.module) if node.module is not None else ""  # type: ignore[return-value]


def _subset(node: cst.ImportFrom, picked: list[tuple[int, cst.ImportAlias]]) -> cst.ImportFrom:
    """The statement with only `picked` (original index, alias) names, its layout kept.

    Outside parentheses the last name loses its comma. Inside, a name that was
    not last takes over the line break before `)`, so no blank line is left and
    its comment (which lives on its comma) stays.
    """
    names = [item for _, item in picked]
    original = list(node.names)  # type: ignore[arg-type]
    last_index, last = picked[-1]
    if node.lpar is None:
        return node.with_changes(names=names[:-1] + [last.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    if last_index == len(original) - 1 or not isinstance(last.comma, cst.Comma):
        return node.with_changes(names=names)
    rpar = node.rpar
    after = last.comma.whitespace_after
    tail = original[-1].comma
    if isinstance(tail, cst.Comma) and isinstance(tail.whitespace_after, cst.ParenthesizedWhitespace):
        closing: cst.BaseParenthesizableWhitespace = tail.whitespace_after
    else:
        assert rpar is not None
        closing = rpar.whitespace_before
        rpar = rpar.with_changes(whitespace_before=cst.SimpleWhitespace(""))
    if isinstance(after, cst.ParenthesizedWhitespace) and isinstance(closing, cst.ParenthesizedWhitespace):
        after = after.with_changes(indent=closing.indent, last_line=closing.last_line)
        names[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=after))
        return node.with_changes(names=names, rpar=rpar)
    names[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(names=names)


def rewrite_from(node: cst.ImportFrom, edits: Edits) -> list[Out]:
    """As `rewrite_import`: runs of one destination (kept here, another module, a gateway), in order."""
    if isinstance(node.names, cst.ImportStar):
        raise Refused("a star import is not rewritten")
    # (is gateway, target module or gateway or "" to keep), the names as they will read, (export, bound) pairs
    runs: list[tuple[tuple[bool, str], list[tuple[int, cst.ImportAlias]], list[tuple[str, str]]]] = []
    for index, item in enumerate(node.names):
        # Edits are keyed by the name as Python binds it (`ｒe` is `re`) and the name it binds.
        written = normal(get_full_name_for_node(item.name) or "")
        edit = edits.get((written, bound_by(item, written, True)))
        if edit is None:
            key, new = (False, ""), item
        elif edit.gateway is None:
            key, new = (False, edit.target), item
        else:
            asname: cst.AsName | None = None
            if edit.target != edit.bound:
                asname = item.asname if item.asname is not None else cst.AsName(name=cst.Name(edit.bound))
            key, new = (True, edit.gateway), item.with_changes(name=cst.Name(edit.target), asname=asname)
        if not runs or runs[-1][0] != key:
            runs.append((key, [], []))
        runs[-1][1].append((index, new))
        if edit is not None and edit.gateway is not None:
            runs[-1][2].append((edit.target, edit.bound))
    outs: list[Out] = []
    for (is_gateway, target), aliases, pairs in runs:
        moved = _subset(node, aliases)
        if is_gateway:
            outs.append(Out(gateway=target, base=moved.with_changes(module=dotted(target), relative=()), pairs=pairs))
        elif target:
            outs.append(Out(node=moved.with_changes(module=dotted(target), relative=())))
        else:
            outs.append(Out(node=moved))
    return outs
