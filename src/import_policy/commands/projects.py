"""`check` over paths that may span several projects: each file judged by its nearest configuration.

The paths named are grouped by the configuration found from each one upward; a
walked folder that holds a project of its own (its own configuration, deeper
down) hands that project's files over to it, so a walk over a monorepo finds
every project in it. Each project is checked apart (its own policy, root and
graph), and one report covers them all, its paths relative to the current folder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from import_policy.policy.load import Loaded, load, no_config_note
from import_policy.policy.nearest import Found, Nearest, same
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import SourceFile
from import_policy.commands.options import CheckOptions

if TYPE_CHECKING:
    from import_policy.commands.check import Gathered, Split


@dataclass
class Group:
    """One project's share of the paths named."""

    found: Found  # its configuration and where it was found; None: the built-in preset
    start: Path  # where its search began (for the preset's note)
    paths: list[Path] = field(default_factory=list)


def check_projects(args: CheckOptions, cwd: Path) -> int:
    from import_policy.commands.check import check
    from import_policy.commands.named_configs import is_configuration_like, validate

    configurations = [path for path in args.paths if is_configuration_like(path)]
    if configurations and args.stdin_filename is None:
        # A commit that changes a configuration: validated (a broken one raises), never checked as source.
        if args.config is None:
            validate(configurations, cwd)
        rest = [path for path in args.paths if path not in configurations]
        if not rest:
            return _nothing_named(args, cwd)
        args = _with_paths(args, rest)
    if args.config is not None:
        return check(_load(args, cwd, cwd), args)
    nearest = Nearest(cwd)
    if args.stdin_filename is not None:
        # The buffer is judged where its file is: by the configuration nearest to that path.
        (group,) = _groups([args.stdin_filename], nearest)
        return check(_load(args, cwd, group.start), args)
    done = _gather_all(args, cwd, _groups(args.paths or [Path(".")], nearest), nearest)
    if isinstance(done, int):
        return done
    if len(done) == 1:
        return _report_one(args, done[0])
    return _report_several(args, cwd, done)


def _nothing_named(args: CheckOptions, cwd: Path) -> int:
    """Only configuration files were named, and each is valid: a report of no file."""
    from import_policy.commands.check import Finished, Inputs, report

    if args.config is not None:
        _load(args, cwd, cwd, note=False)  # the configuration given is validated too
    # Reported as a buffer of nothing is: no warning that no source file was found, since
    # what was named (configurations) was checked.
    inputs = Inputs([], [], lambda file: b"", b"")
    return report(args, cwd, None, inputs, Finished(0, [], [], rebased=True), [], None, None, {})


def _groups(paths: list[Path], nearest: Nearest) -> list[Group]:
    groups: list[Group] = []
    for path in paths:
        found = nearest.of_path(path)
        for group in groups:
            if same(group.found, found):
                group.paths.append(path)
                break
        else:
            absolute = os.path.abspath(path)
            # Loaded from where it was found; the preset's note names where the search began.
            start = found[1] if found is not None else Path(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
            groups.append(Group(found, start, [path]))
    return groups


def _splitter(group: Group, nearest: Nearest, nested: list[Group]) -> Split:
    """Keeps the walked files `group`'s configuration judges; a file judged by another (one
    deeper down: the folder named is the other's nearest) puts that project in `nested`."""

    def split(files: list[SourceFile]) -> list[SourceFile]:
        kept: list[SourceFile] = []
        folders: dict[str, bool] = {}
        for file in files:
            folder = file.relative.rpartition("/")[0]  # one path computed per folder, not per file
            ours = folders.get(folder)
            if ours is None:
                found = nearest.of_folder(os.path.dirname(file.path))
                ours = folders[folder] = same(found, group.found)
                if not ours and found is not None and not any(same(found, other.found) for other in nested):
                    nested.append(Group(found, found[1], [found[1]]))
            if ours:
                kept.append(file)
        return kept

    return split


def _load(args: CheckOptions, cwd: Path, start: Path, note: bool = True) -> Loaded:
    loaded = load(args.config, cwd, remember=not args.no_cache, start=start)
    if loaded.config is None and note and not args.quiet:
        print(f"import-policy: {no_config_note(start, cwd)}", file=sys.stderr)
    return with_excludes(loaded, args)


def with_excludes(loaded: Loaded, args: CheckOptions) -> Loaded:
    """`--exclude` replaces the configuration's `exclude` for the run, `--extend-exclude`
    adds to it (ruff's flags); globs as in the configuration, relative to the project root."""
    from import_policy.commands import UsageError
    from import_policy.patterns import PathGlob, PatternError

    if args.exclude is None and args.extend_exclude is None:
        return loaded
    globs = []
    for flag, texts in (("--exclude", args.exclude), ("--extend-exclude", args.extend_exclude)):
        for text in texts or ():
            try:
                globs.append(PathGlob.compile(text))
            except PatternError as error:
                raise UsageError(f"{flag}: bad glob {text!r}: {error}") from None
    kept = () if args.exclude is not None else loaded.policy.exclude
    return replace(loaded, policy=replace(loaded.policy, exclude=(*kept, *globs)))


def _with_paths(args: CheckOptions, paths: list[Path]) -> CheckOptions:
    return replace(args, paths=paths)


def _gather_all(args: CheckOptions, cwd: Path, queue: list[Group], nearest: Nearest) -> list[Gathered] | int:
    """Each project's part of the run, the projects a walk finds nested included."""
    from import_policy.commands.check import gather

    done: list[tuple[Group, Gathered]] = []
    seen: list[Group] = []
    codes: list[int] = []  # `--diff`: each project's part is written as it is found
    while queue:
        group = queue.pop(0)
        earlier = next((index for index, other in enumerate(seen) if same(group.found, other.found)), None)
        if earlier is not None:
            before = seen[earlier]
            if all(path in before.paths for path in group.paths):
                continue  # a nested project met again
            # Named files of a project a walk then finds whole: checked again, as one run
            # over every path (a file is found once whatever paths lead to it).
            del seen[earlier]
            done = [(g, part) for g, part in done if g is not before]
            group = Group(group.found, group.start, [*before.paths, *group.paths])
        seen.append(group)
        nested: list[Group] = []
        # The preset's note waits for the walk: a monorepo's root with no configuration of
        # its own, whose files all belong to its projects, is judged by no preset.
        loaded = _load(args, cwd, group.start, note=False)
        gathered = gather(loaded, _with_paths(args, group.paths), _splitter(group, nearest, nested))
        queue.extend(nested)
        if isinstance(gathered, int):
            codes.append(gathered)
            continue
        if loaded.config is None:
            if not gathered.inputs.files and (nested or done or queue):
                continue  # every file it walked is another project's
            if not args.quiet:
                print(f"import-policy: {no_config_note(group.start, cwd)}", file=sys.stderr)
        done.append((group, gathered))
    return max(codes) if codes else [part for _, part in done]


def _report_one(args: CheckOptions, g: Gathered) -> int:
    from import_policy.commands.check import apply_baseline, report

    kept, wrote = apply_baseline(g.result.diagnostics, args, g.policy, g.inputs.files, g.selection, g.overrides)
    return report(args, g.policy.root, g.policy, g.inputs, g.finished, kept, g.fixing, wrote, g.overrides)


def _report_several(args: CheckOptions, cwd: Path, done: list[Gathered]) -> int:
    """One report over several projects: every path relative to the current folder (a
    baseline's too), each finding judged fixable under its own project's root."""
    from import_policy.commands.check import Finished, Inputs, apply_baseline, report
    from import_policy.fix.reach import refuse_outside_root
    from import_policy.fix.run import FixRun

    diagnostics: list[Diagnostic] = []
    files: list[SourceFile] = []
    unreadable: list[tuple[str, str]] = []
    stale: list[str] = []
    fixing = FixRun() if any(g.fixing is not None for g in done) else None
    count = 0
    for g in done:
        root = g.policy.root
        diagnostics.extend(_rebase(d, root, cwd) for d in refuse_outside_root(g.result.diagnostics, root))
        files.extend(replace(f, relative=_relative(f.relative, root, cwd)) for f in g.inputs.files)
        unreadable.extend((_relative(path, root, cwd), why) for path, why in g.finished.unreadable)
        stale.extend(g.finished.stale)
        count += g.finished.files
        if fixing is not None and g.fixing is not None:
            fixing.applied += g.fixing.applied
            fixing.fixed.extend(_rebase(d, root, cwd) for d in g.fixing.fixed)
            fixing.write_errors.extend((_relative(path, root, cwd), why) for path, why in g.fixing.write_errors)
    diagnostics.sort(key=Diagnostic.sort_key)
    first = done[0]
    # What the report names of the rules (SARIF's rule list): every project's, the first
    # project's where two declare one id.
    rules = {rule.id: rule for g in reversed(done) for rule in g.policy.rules}
    policy = replace(first.policy, root=cwd, rules=tuple(rules.values()))
    kept, wrote = apply_baseline(diagnostics, args, policy, files, first.selection, {})
    inputs = Inputs([p for g in done for p in g.inputs.paths], files, first.inputs.read, None)
    finished = Finished(count, unreadable, stale, rebased=True)
    return report(args, cwd, policy, inputs, finished, kept, fixing, wrote, {})


def _relative(path: str, root: Path, cwd: Path) -> str:
    if root == cwd:
        return path
    return Path(os.path.relpath(root / path, cwd)).as_posix()


def _rebase(d: Diagnostic, root: Path, cwd: Path) -> Diagnostic:
    """`d` with every path relative to `cwd`: its own and its places' (where a reachability
    finding is recorded in a baseline, and the links it may be matched at)."""
    if root == cwd:
        return d
    places = tuple((_relative(place[0], root, cwd), *place[1:]) for place in d.places)
    return replace(d, path=_relative(d.path, root, cwd), places=places)
