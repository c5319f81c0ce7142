"""Globs that match no file: a typo, or a slash-less pattern such as `*_utils.py`, which is
anchored at the project root and so matches nothing below it. Told only when the whole tree
is checked (a partial run cannot know), as a warning at the glob's YAML line; never for a
built-in preset's globs, which no user can edit and which are written for many trees.

`files` of a rule and `rocm_safety.files` are matched against the files the run checks
(of the rule's language); `exclude`, whose files the walk never lists, against the tree as
it is without it: a literal path (`build/`, `build/**`) by whether it exists, any other
glob against a walk without `exclude`. Stale `allow_in` entries are adoption.stale's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from import_policy.adoption.stale import entry_line
from import_policy.config.model import Origin, Policy
from import_policy.policy.where import top_level_entry
from import_policy.discovery.files import SourceFile, discover
from import_policy.kinds.registry import kind_of
from import_policy.patterns import PathGlob
from import_policy.pipeline.plan import Selection

_WILDCARD = re.compile(r"[*?\[]")


def unmatched_globs(
    policy: Policy, selection: Selection, files: Sequence[SourceFile], *, remember: bool
) -> list[str]:
    """One stderr line per glob that matches no file."""
    out: list[str] = []
    for rule in policy.rules:
        if not selection.wants(rule.id) or _preset(rule.origin):
            continue
        language = kind_of(rule).language
        paths = [file.relative for file in files if file.language == language]
        for glob in rule.files:
            if not any(glob.matches(path) for path in paths):
                where = Origin(rule.origin.source, entry_line(rule.origin, "files", glob.text))
                out.append(_line(where, f"files entry {glob.text!r} of rule {rule.id!r}", glob, paths))
    rocm = policy.rocm_safety
    if rocm is not None:
        paths = [file.relative for file in files if file.language == "python"]
        for glob in rocm.files:
            where = rocm.origin_of("files", glob.text)
            if not _preset(where) and not any(glob.matches(path) for path in paths):
                out.append(_line(where, f"rocm_safety.files entry {glob.text!r}", glob, paths))
    out.extend(_unmatched_excludes(policy, remember))
    return out


def _unmatched_excludes(policy: Policy, remember: bool) -> Iterator[str]:
    globs = [glob for glob in policy.exclude if not _exists(policy, glob)]
    paths: list[str] = []
    if any(_literal(glob) is None for glob in globs):
        paths = [file.relative for file in discover([policy.root], policy.root, (), remember=remember)]
    for glob in globs:
        if _literal(glob) is None and any(glob.matches(path) for path in paths):
            continue
        where = top_level_entry(policy, "exclude", glob.text)
        if where is not None and not _preset(where):
            yield _line(where, f"exclude entry {glob.text!r}", glob, paths)


def _literal(glob: PathGlob) -> str | None:
    """The path a glob without wildcards names (`build/**` names `build`); None if it has some."""
    body = glob.text.rstrip("/")
    if body.endswith("/**"):
        body = body[: -len("/**")]
    return None if _WILDCARD.search(body) else body


def _exists(policy: Policy, glob: PathGlob) -> bool:
    literal = _literal(glob)
    return literal is not None and (policy.root / literal).exists()


def _preset(origin: Origin) -> bool:
    return origin.source.startswith("preset:")


def _line(where: Origin, what: str, glob: PathGlob, paths: Sequence[str]) -> str:
    hint = ""
    if "/" not in glob.text.rstrip("/"):
        deeper = PathGlob.compile("**/" + glob.text)
        if any(deeper.matches(path) for path in paths):
            hint = f"; globs are anchored at the project root: did you mean '**/{glob.text}'?"
    return f"{where}: warning: {what} matches no file{hint}"


__all__ = ["unmatched_globs"]
