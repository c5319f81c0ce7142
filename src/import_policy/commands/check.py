"""`import-policy check [PATH ...]`: the steps of a check, in the order `check` runs them.

flags (combinations refused) -> selection -> input (the files, or stdin
standing for one) -> cache policy (what may be reused) -> run or reuse (the
engine, or the last run over the same tree; unused suppressions and stale
entries with a fresh run) -> fix or diff -> baseline -> report: presentation
(paths as the user stands, fixability under the flags given), format dispatch,
stderr notes, exit code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from import_policy.cache.run import Outcome, RunCache, policy_digest
from import_policy.commands import EXIT_ERROR, EXIT_OK, EXIT_VIOLATIONS, UsageError, discard_stdout
from import_policy.commands.options import CheckOptions
from import_policy.policy.load import Loaded
from import_policy.config.model import Policy
from import_policy.diagnostics import SYNTAX_ERROR, Diagnostic
from import_policy.discovery.files import PathError, SourceFile, discover, relative_to_root
from import_policy.edits.payload import applies
from import_policy.fix.reach import refuse_outside_root
from import_policy.patterns import PathGlob, PatternError, any_match
from import_policy.pipeline.unused import UNUSED_SUPPRESSION, unused_suppressions, wants_unused_suppression
from import_policy.project.layout import layout_digest
from import_policy.quoting import quote_path
from import_policy.report.formats import FORMATS, Report
from import_policy.report import text as text_report

# The rest is imported where it is used: a whole-tree run the caches answer (`answer_warm`)
# builds no policy, runs no engine and reads no file but the configuration's.
if TYPE_CHECKING:
    from import_policy.adoption.stale import ExceptTracker
    from import_policy.discovery.overlay import Overlay
    from import_policy.cache.facts import FactsCache
    from import_policy.fix.run import FixRun
    from import_policy.pipeline.engine import Result
    from import_policy.pipeline.extract import Reader
    from import_policy.pipeline.plan import Selection
    from import_policy.report.sarif import RuleTable



@dataclass(frozen=True)
class Inputs:
    """What is checked: the files, how their bytes are read, and stdin's bytes when stdin stands for one."""

    paths: list[Path]
    files: list[SourceFile]
    read: Reader
    stdin: bytes | None
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # folders the walk could not read
    overlay: Overlay | None = None  # buffers standing for their files (stdin's)
    links: list[tuple[str, str]] = field(default_factory=list)  # links inside the root, where each leads


@dataclass(frozen=True)
class Caches:
    """What this run may reuse or record."""

    facts: FactsCache | None
    runs: RunCache | None  # set only when the last run over the same tree may answer this one
    run_key: str | None
    tracker: ExceptTracker | None  # set only when the whole tree is checked, so stale entries can be told
    policy_digest: str | None = None  # what the run cache keys the policy by


@dataclass
class Checked:
    result: Result
    stale: list[str]  # the stale-entry lines for stderr


def answer_warm(args: CheckOptions, cwd: Path) -> int | None:
    """A whole-tree check answered by the run cache before any policy is built: the policy
    index (cache.policy) knows, from the bytes of every configuration file, the root, the
    `exclude` globs and the policy digest the last run was keyed by. None: no such answer
    (something differs, or the flags need the policy), so `check` runs the usual way."""
    from import_policy.policy.load import known, no_config_note

    refuse_conflicts(args)
    needs_policy = args.fix or args.fix_only or args.diff or args.baseline is not None or args.write_baseline is not None
    needs_policy = needs_policy or args.exclude is not None or args.extend_exclude is not None
    needs_policy = needs_policy or args.show_files or args.show_settings or args.verbose
    if args.no_cache or args.stdin_filename is not None or needs_policy:
        return None
    found = known(args.config, cwd)
    if found is None:
        return None
    entry, config = found
    paths = args.paths or [Path(".")]
    root = entry.root
    if not all(path.is_dir() and path.resolve() == root for path in paths):
        return None  # a named subfolder may be excluded, which is warned about: that needs the policy
    try:
        exclude = tuple(PathGlob.compile(text) for text in entry.exclude)
    except PatternError:
        return None
    skipped: list[tuple[str, str]] = []
    unreadable: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    markers: set[str] = set()
    try:
        files = discover(
            paths, root, exclude, remember=True, skipped=skipped, unreadable=unreadable, markers=markers, links=links,
        )
    except PathError:
        return None
    if unreadable:
        return None  # the usual way names them
    if args.config is None and _nested_project(root, markers, cwd):
        return None  # a project nested in this one judges its own files: the usual way splits them
    named = {*(args.select or ()), *(args.extend_select or ()), *(args.ignore or ())}
    if not named <= set(entry.ids) or SYNTAX_ERROR in (args.ignore or ()):
        return None  # the usual way expands prefixes, says which is unknown, warns of what cannot be ignored
    stamp = followed_stamp(root, entry.follow)
    run_key = RunCache.key(entry.policy, _keyed(args, stamp), files, links) if stamp is not None else None
    outcome = RunCache(root).get(run_key, files) if run_key is not None else None
    if outcome is None:
        return None
    table = None
    if args.format == "sarif" and not args.statistics:
        from import_policy.report.sarif_rules import kept_table

        table = kept_table(root, entry.policy)  # SARIF's rule table: the one thing it needs of the policy
        if table is None:
            return None
    if config is None and not args.quiet:
        print(f"import-policy: {no_config_note(cwd, cwd)}", file=sys.stderr)
    for path, why in skipped:
        print(f"import-policy: skipped {quote_path(path)}: {why}", file=sys.stderr)
    inputs = Inputs(paths, files, lambda file: file.path.read_bytes(), None)
    kept = list(outcome.diagnostics)
    finished = Finished(outcome.files, outcome.unreadable, outcome.stale)
    return report(args, root, None, inputs, finished, kept, None, None, {}, table)


def _nested_project(root: Path, markers: set[str], cwd: Path) -> bool:
    """Whether a folder the walk of `root` met below it holds a configuration of its own
    (`markers`: the walked folders holding a file that may be one)."""
    from import_policy.policy.load import ConfigErrors, config_in

    try:
        return any(config_in(root / folder, cwd) is not None for folder in markers if folder != ".")
    except ConfigErrors:
        return True  # the usual way reports it



def check(loaded: Loaded, args: CheckOptions, split: Split | None = None) -> int:
    """One project's check and its report. `split`: hands back the walked files this
    project's configuration judges (the others belong to a project nested in it)."""
    gathered = gather(loaded, args, split)
    if isinstance(gathered, int):
        return gathered
    kept, wrote = apply_baseline(
        gathered.result.diagnostics, args, gathered.policy, gathered.inputs.files, gathered.selection, gathered.overrides,
    )
    return report(
        args, gathered.policy.root, gathered.policy, gathered.inputs, gathered.finished, kept, gathered.fixing, wrote,
        gathered.overrides,
    )


# Walked files -> those the project's own configuration judges.
Split = Callable[[list[SourceFile]], list[SourceFile]]


@dataclass
class Gathered:
    """A project's part of a run, before baselines and the report."""

    policy: Policy
    selection: Selection
    inputs: Inputs
    result: Result
    finished: Finished
    fixing: FixRun | None
    overrides: dict[str, bytes]


def gather(loaded: Loaded, args: CheckOptions, split: Split | None = None) -> Gathered | int:
    """A project's files checked (and fixed, with `--fix`); an exit code when the step
    already wrote its whole output (`--diff`, `--fix` on stdin)."""
    from import_policy.policy.tree import against_tree
    from import_policy.pipeline.parallel import default_jobs

    refuse_conflicts(args)
    # What the configuration names must be in the tree (an error stops here); a gateway
    # export it does not bind is a warning, and not fixable.
    tree = against_tree(loaded.policy, remember=not args.no_cache)
    loaded = replace(loaded, policy=tree.policy)
    policy = loaded.policy
    selection = selection_of(loaded, args)
    inputs = read_inputs(policy, args)
    if split is not None and inputs.stdin is None:
        inputs = replace(inputs, files=split(inputs.files))
    if args.show_files or args.show_settings or args.verbose:
        from import_policy.commands.settings import show

        if show(args, loaded, selection, inputs.files, Path.cwd()):
            return EXIT_OK  # said what was asked; nothing checked
    unused = wants_unused_suppression(selection)
    caches = cache_policy(policy, selection, inputs, args, unused)
    # A run whose `exclude` the command line changed is not what the configuration's bytes say.
    cli_exclude = args.exclude is not None or args.extend_exclude is not None
    if caches.run_key is not None and caches.policy_digest is not None and not cli_exclude:
        from import_policy.policy.load import remember

        remember(loaded, Path.cwd(), caches.policy_digest, rule_ids(policy))
    jobs = args.jobs or default_jobs()
    checked = run_or_reuse(policy, selection, inputs, caches, jobs, unused=unused, quiet=args.quiet, notes=tree.warnings)
    if not args.no_cache:
        from import_policy.cache.ignores import save_all

        save_all()
    fixing: FixRun | None = None
    if args.fix or args.fix_only or args.diff:
        if inputs.stdin is not None and not args.diff:
            return fix_stdin(args, policy, selection, inputs, inputs.stdin, checked.result)
        if args.diff:
            code = diff(checked.result, inputs, args.unsafe_fixes, policy.root, quiet=args.quiet)
            unreadable = [*inputs.unreadable, *checked.result.unreadable]
            say_faults(unreadable, [] if args.quiet else checked.stale)
            return EXIT_ERROR if unreadable else code
        fixing = fix(checked, inputs, policy, selection, args.unsafe_fixes)
    overrides = {file.relative: inputs.stdin for file in inputs.files if inputs.stdin is not None}
    result = checked.result
    finished = Finished(result.files, [*inputs.unreadable, *result.unreadable], checked.stale)
    return Gathered(policy, selection, inputs, result, finished, fixing, overrides)


@dataclass(frozen=True)
class Finished:
    """What the report says of the run besides its findings."""

    files: int
    unreadable: list[tuple[str, str]]
    stale: list[str]  # the stale-entry lines for stderr
    # The findings' paths are already relative to the current folder, each judged under its
    # own project root (a run over several projects).
    rebased: bool = False


def report(
    args: CheckOptions, root: Path, policy: Policy | None, inputs: Inputs, checked: Finished,
    kept: list[Diagnostic], fixing: FixRun | None, wrote: str | None, overrides: dict[str, bytes],
    table: RuleTable | None = None,
) -> int:
    """Presentation, the report in its format, what stderr must say, and the exit code.
    `policy` is None for a run answered without one (`--format sarif`: then `table` is
    SARIF's rule table as the cache kept it)."""
    cwd = Path.cwd()
    if args.fix_only:
        kept = []  # ruff's --fix-only: what remains is neither reported nor a failure
    if inputs.stdin is None and not checked.rebased:
        kept = refuse_outside_root(kept, root)
    # `fixable` means: a fix that would apply with the flags given; the others are "hidden" (ruff).
    hidden = sum(d.fixable and not applies(d, args.unsafe_fixes) for d in kept)
    shown = present(kept, args.unsafe_fixes, root, cwd)
    nothing = inputs.stdin is None and not inputs.files
    if nothing and not args.quiet and not checked.unreadable:
        # As ruff: a warning, and no "All checks passed!" for a run that checked nothing.
        print("import-policy: warning: no Python or C-family files found under the given paths; nothing was checked", file=sys.stderr)
    if wrote is not None and (args.format != "text" or args.statistics):
        print(f"import-policy: {wrote}", file=sys.stderr)  # stdout holds the document
    text = Text(
        fixed=fixing.applied if fixing is not None else 0, hidden=hidden,
        fixes=present(fixing.fixed, args.unsafe_fixes, root, cwd) if fixing is not None and args.show_fixes else None,
        # A path that could not be read is no pass: no "All checks passed!" (ruff's E902).
        summary=not args.quiet, silent=nothing or (bool(checked.unreadable) and not shown), wrote=wrote, fix_only=args.fix_only,
    )
    # Fix edits are kept in the project's cache; a run over several projects (rebased) has no one project.
    cache_root = None if args.no_cache or checked.rebased else root
    write_report(args, shown, checked.files, policy, cwd, overrides, text, cache_root, table)
    say_faults(checked.unreadable, [] if args.quiet else checked.stale)
    if checked.unreadable or (fixing is not None and fixing.write_errors):
        return EXIT_ERROR  # as ruff: a file --fix could not write is an error, named on stderr
    return exit_code(shown, args.exit_zero)


def say_faults(unreadable: Sequence[tuple[str, str]], notes: Sequence[str]) -> None:
    """On stderr: each path that could not be read, then the configuration's warnings and stale entries."""
    for path, reason in unreadable:
        print(f"import-policy: cannot read {quote_path(path)}: {reason}", file=sys.stderr)
    for line in notes:
        print(f"import-policy: {line}", file=sys.stderr)


@dataclass(frozen=True)
class Text:
    """What the text format says besides the findings."""

    fixed: int = 0  # findings --fix just fixed
    hidden: int = 0  # fixes only --unsafe-fixes would apply
    fixes: list[Diagnostic] | None = None  # --show-fixes: what was fixed
    summary: bool = True  # off with --quiet
    silent: bool = False  # no file was found: the warning on stderr said so
    wrote: str | None = None  # --write-baseline: what was written
    fix_only: bool = False


def refuse_conflicts(args: CheckOptions) -> None:
    """Flags that together would write something invalid fail before any file is read."""
    if args.statistics and args.format in ("sarif", "github"):
        raise UsageError(f"--statistics prints a table (text or json); it cannot be written as --format {args.format}")


def selection_of(loaded: Loaded, args: CheckOptions) -> Selection:
    """`--select` (replaces the set in force), `--extend-select` (adds to it) and `--ignore`,
    each id checked against the rules there are."""
    from import_policy.commands.selectors import resolve
    from import_policy.kinds.describe import rule_rows
    from import_policy.pipeline.plan import Selection
    from import_policy.report.sarif import RuleTable

    known = rule_ids(loaded.policy)
    in_force = {row["id"] for row in rule_rows(loaded.policy)}
    chosen = resolve("--select", args.select, in_force, known)
    extend = resolve("--extend-select", args.extend_select, in_force, known)
    ignore = resolve("--ignore", args.ignore, in_force, known)
    if SYNTAX_ERROR in ignore and not args.quiet:
        # ruff's word for a rule that ignoring cannot turn off: say so rather than do nothing silently.
        print(
            f"import-policy: warning: `{SYNTAX_ERROR}` cannot be ignored: a file that does not parse was not checked, "
            "so it stays reported",
            file=sys.stderr,
        )
    select = chosen | extend if args.select else None
    selection = Selection(select, ignore).under(loaded.policy)
    left = {rule_id for rule_id in in_force | extend | chosen if rule_id != SYNTAX_ERROR and selection.wants(rule_id)}
    if ignore and not left:
        raise UsageError(
            f"--ignore {','.join(sorted(ignore))} leaves no rule in force, so the run would check nothing; "
            f"rules in force: {', '.join(sorted(in_force - {SYNTAX_ERROR}))}"
        )
    # `--extend-select` adds to the set in force, opt-in rules included.
    return replace(selection, enable=selection.enable | extend)


def rule_ids(policy: Policy) -> set[str]:
    """The ids a selection may name: the rules in force and the opt-in built-ins."""
    from import_policy.kinds.describe import opt_in_builtins, rule_rows

    return {row["id"] for row in rule_rows(policy)} | {rule.id for rule in opt_in_builtins()}


def read_inputs(policy: Policy, args: CheckOptions) -> Inputs:
    """The files named (default `.`) walked, or stdin checked as `--stdin-filename`."""
    paths = args.paths or [Path(".")]
    if args.stdin_filename is None:
        skipped: list[tuple[str, str]] = []
        unreadable: list[tuple[str, str]] = []
        links: list[tuple[str, str]] = []
        try:
            files = discover(
                paths, policy.root, policy.exclude, remember=not args.no_cache, skipped=skipped, unreadable=unreadable,
                links=links,
            )
        except PathError as error:
            raise UsageError(str(error)) from None
        for path, why in skipped:
            print(f"import-policy: skipped {quote_path(path)}: {why}", file=sys.stderr)
        if args.paths:
            warn_excluded(policy, args.paths)
        from import_policy.pipeline.extract import read_file

        return Inputs(paths, files, read_file, None, unreadable, links=links)
    from import_policy.commands.check_stdin import read_stdin, stdin_file

    if [str(p) for p in args.paths] not in ([], ["-"]):
        raise UsageError("--stdin-filename reads the source from stdin: give '-' or no PATH")
    from import_policy.discovery.overlay import Overlay

    source = read_stdin(sys.stdin.buffer)
    stdin_source = stdin_file(policy, args.stdin_filename)
    if stdin_source is None:
        return Inputs(paths, [], _constant(source), source)
    # The buffer stands for its file, and only for it, wherever the run reads that file.
    # Keyed by the path given and by the one under the project root the pass builds (they
    # differ where the current folder is reached through a link).
    overlay = Overlay({stdin_source.path: source, policy.root / stdin_source.relative: source})
    return Inputs(paths, [stdin_source], overlay.reader(), source, overlay=overlay)


def warn_excluded(policy: Policy, named: Sequence[Path]) -> None:
    """A path named on the command line that `exclude` covers is skipped, but never silently (ruff's
    `--force-exclude`): one stderr line per `exclude` entry, with its count and config line."""
    if not policy.exclude:
        return
    by_glob: dict[str, list[str]] = {}
    for given in named:
        path = Path(os.path.abspath(given))
        relative = relative_to_root(path, policy.root)
        if relative == "." or relative.startswith("../"):
            continue
        glob = any_match(policy.exclude, relative)
        if glob is None and path.is_dir():
            glob = any_match(policy.exclude, relative + "/")  # `build/**` covers all that is in build
        if glob is not None:
            by_glob.setdefault(glob.text, []).append(quote_path(Path(given).as_posix()))
    for text, paths in by_glob.items():
        from import_policy.policy.where import top_level_entry

        origin = top_level_entry(policy, "exclude", text)
        where = f"{origin}: " if origin is not None else ""
        count = "1 path" if len(paths) == 1 else f"{len(paths)} paths"
        print(
            f"import-policy: {where}warning: exclude entry {text!r} covers {count} named on the command line, "
            f"not checked: {', '.join(paths[:3])}{f' and {len(paths) - 3} more' if len(paths) > 3 else ''}",
            file=sys.stderr,
        )


def _constant(source: bytes) -> Reader:
    return lambda _file: source


def cache_policy(policy: Policy, selection: Selection, inputs: Inputs, args: CheckOptions, unused: bool) -> Caches:
    from import_policy.cache.facts import FactsCache
    from import_policy.discovery.files import whole_tree

    # Stale allowlist entries can only be told when the whole tree is checked.
    tracker: ExceptTracker | None = None
    if inputs.stdin is None and whole_tree(inputs.paths, policy.root):
        from import_policy.adoption.stale import ExceptTracker

        tracker = ExceptTracker()
    facts = None if args.no_cache else FactsCache(policy.root)  # keyed by content: a buffer is safe there
    # An unchanged whole tree is answered from the last run (runcache); fixing always checks afresh.
    fixing = args.fix or args.fix_only or args.diff
    # The environment decides (`installed: environment`) and nothing is followed: no key of the
    # run cache watches it, so no whole-tree answer is kept.
    from import_policy.policy.follow import asks_installed

    unwatched = asks_installed(policy) and _follow_of(policy) is None
    runs = RunCache(policy.root) if facts is not None and tracker is not None and not fixing and not unwatched else None
    digest = policy_digest(policy) if runs is not None else None
    stamp = followed_stamp(policy.root, _follow_of(policy)) if digest is not None else None
    run_key = (
        RunCache.key(digest, _keyed(args, stamp), inputs.files, inputs.links) if digest is not None and stamp is not None
        else None
    )
    return Caches(facts, runs, run_key, tracker, digest)


def followed_stamp(root: Path, follow: tuple[str | None, tuple[str, ...], bool] | None) -> str | None:
    """What the run cache keys a run by besides the tree: what the graph reads of the followed
    distributions, as one digest: the stat data of every followed module's file as the path
    finder finds it and of every folder listed to find them (a file added or removed), and
    which distributions are followed, as installed; "" when nothing is followed. None when a
    file or folder changed too recently for its stat data to tell a later edit (cache.racy,
    git's racy-clean rule): then no cache answers or records the run. An edit in a
    dependency is a miss."""
    if follow is None:
        return ""
    import hashlib

    from import_policy.cache.racy import now_ns, racy
    from import_policy.cache.stat import stat_of
    from import_policy.graph.through import dependencies_of

    since = now_ns()  # before the graph reads any of them
    followed = dependencies_of(root, follow[1], follow[2], follow[0])
    if followed is None:
        return ""
    stamp = hashlib.blake2b(followed.identity.encode(), digest_size=20)
    files, folders = followed.read()
    # A folder's stat data tells an entry added or removed; a file's, an edit.
    for path in (*files, *folders):
        data = stat_of(path)
        if data is None:
            stamp.update(f"{path}\0-\0".encode("utf-8", "surrogateescape"))
            continue
        if racy(data, since):
            return None
        stamp.update(f"{path}\0{data.mtime_ns}:{data.ctime_ns}:{data.size}:{data.inode}\0".encode(
            "utf-8", "surrogateescape"))
    return stamp.hexdigest()


def _keyed(args: CheckOptions, stamp: str) -> object:
    """The selection, and what is followed as it stands (nothing: the selection alone)."""
    return (selection_key(args), stamp) if stamp else selection_key(args)


def _follow_of(policy: Policy) -> tuple[str | None, tuple[str, ...], bool] | None:
    follow = policy.follow
    return None if follow is None or not (follow.names or follow.every) else (follow.python, follow.names, follow.every)


def selection_key(args: CheckOptions) -> tuple[object, ...]:
    """The selection as the run cache keys it: the flags as given. With the policy's digest
    (its `ignore:`/`enable:` included) they decide the `Selection` and whether unused
    suppressions are judged, and they can be read before the policy is built (`answer_warm`)."""
    # Sorted: a frozenset's repr follows the process's string hashing, which differs run to run.
    return (
        sorted(set(args.select)) if args.select else None,
        sorted(set(args.extend_select or ())),
        sorted(set(args.ignore or ())),
    )


def run_or_reuse(
    policy: Policy, selection: Selection, inputs: Inputs, caches: Caches, jobs: int, *, unused: bool, quiet: bool,
    notes: Sequence[str] = (),
) -> Checked:
    """The last run's outcome when the tree is unchanged, else a fresh run (recorded for next
    time). `notes`: warnings about the configuration, for stderr, recorded with the outcome so
    a run the cache answers says them too."""
    from import_policy.pipeline import slow
    from import_policy.pipeline.engine import Result, run
    from import_policy.pipeline.plan import Plan

    runs, run_key, files = caches.runs, caches.run_key, inputs.files
    reused = runs.get(run_key, files) if runs is not None and run_key is not None else None
    if reused is not None:
        return Checked(Result(reused.diagnostics, reused.files, reused.unreadable), reused.stale)
    snapshot = RunCache.snapshot(files) if runs is not None and run_key is not None else None
    layout = (list(policy.roots), layout_digest(policy.root, policy.roots)) if snapshot is not None else None
    tracker = caches.tracker
    plan = Plan(
        policy, selection, observe=tracker.observe if tracker else None, cache=caches.facts,
        slow_after=None if quiet else slow.SECONDS,
        # Stale `allow_in` entries are told from this run too: no second one.
        track_allow_in=tracker is not None, exempted=tracker.exempted if tracker else None,
    )
    from import_policy.graph.through import take_warnings

    take_warnings()  # what an earlier run in this process told
    result = run(plan, files, inputs.read, jobs=jobs, overlay=inputs.overlay)
    if unused:
        result.diagnostics[:] = sorted(
            result.diagnostics + unused_suppressions(policy, selection, inputs.files, inputs.read, caches.facts, jobs), key=Diagnostic.sort_key
        )
    from import_policy.rocm.advice import called_values, take_uses

    stale = [
        *notes, *take_warnings(), *stale_entries(policy, selection, inputs, caches, jobs),
        *called_values(policy.rocm_safety, result.diagnostics, take_uses()),
    ]
    if runs is not None and run_key is not None and snapshot is not None and layout is not None:
        runs.put(
            run_key, files, snapshot, Outcome(list(result.diagnostics), result.files, result.unreadable, stale), layout,
        )
    return Checked(result, stale)


def stale_entries(policy: Policy, selection: Selection, inputs: Inputs, caches: Caches, jobs: int) -> list[str]:
    """Globs that match no file and allowlist entries that matched nothing in this run (only
    told for a whole tree)."""
    if caches.tracker is None:
        return []
    from import_policy.adoption.stale import find_stale
    from import_policy.adoption.unmatched import unmatched_globs

    found = find_stale(policy, selection, inputs.files, caches.tracker)
    return [*unmatched_globs(policy, selection, inputs.files, remember=caches.facts is not None), *(str(stale) for stale in found)]


def diff(result: Result, inputs: Inputs, unsafe: bool, root: Path, *, quiet: bool) -> int:
    """`--diff`: what `--fix` would write, on stdout; nothing written; exit 1 when a fix is pending."""
    from import_policy.fix.run import fix_files  # the fixer needs libcst

    fixing = fix_files(result.diagnostics, inputs.files, inputs.read, unsafe, write=None, root=root, cwd=Path.cwd())
    # Coloured as ruff colours it, on a terminal or with FORCE_COLOR; a pipe (`| git apply`) gets it plain.
    colour = text_report.use_colour(sys.stdout)
    try:
        # The files' own bytes: colouring reads them as UTF-8 and gives back every byte it did not colour.
        diffs = [_coloured(d) for d in fixing.diffs] if colour else fixing.diffs
        sys.stdout.flush()
        sys.stdout.buffer.write(b"".join(diffs))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        discard_stdout()
    if not quiet:
        print(f"Would fix {fixing.applied} violation{'s' if fixing.applied != 1 else ''}.", file=sys.stderr)
    return EXIT_VIOLATIONS if fixing.applied else EXIT_OK


def _coloured(diff: bytes) -> bytes:
    return text_report.colour_diff(diff.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def fix(checked: Checked, inputs: Inputs, policy: Policy, selection: Selection, unsafe: bool) -> FixRun:
    """`--fix`: write the fixes, then report the files as they now are (in `checked`), each
    unapplied fix saying why."""
    from import_policy.fix.run import fix_and_check_again, to_disk  # the fixer needs libcst

    # The check again runs the rules in force, not the unused-suppression pass: no fix removes
    # a comment, so a comment silences after the fix what it silenced before.
    unused = [d for d in checked.result.diagnostics if d.rule == UNUSED_SUPPRESSION]
    checked.result, fixing = fix_and_check_again(
        checked.result, inputs.files, inputs.read, policy, selection, unsafe, write=to_disk,
        root=policy.root, cwd=Path.cwd(),
    )
    if unused:
        others = [d for d in checked.result.diagnostics if d.rule != UNUSED_SUPPRESSION]
        checked.result.diagnostics[:] = sorted(others + unused, key=Diagnostic.sort_key)
    for path, reason in fixing.write_errors:
        print(f"import-policy: cannot write {quote_path(path)}: {reason}", file=sys.stderr)
    return fixing


def fix_stdin(
    args: CheckOptions, policy: Policy, selection: Selection, inputs: Inputs, source: bytes,
    before: Result,
) -> int:
    """The fixed source to stdout, for an editor's buffer; what remains to stderr."""
    from import_policy.commands.check_stdin import fix_stdin as fixed_stdin

    new, remaining = fixed_stdin(policy, selection, inputs.files, source, before, args.unsafe_fixes, inputs.read)
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(new)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        discard_stdout()
    shown = [] if args.fix_only else present(remaining, args.unsafe_fixes, policy.root, Path.cwd())
    if shown:
        sys.stderr.write(text_report.render(shown, False, show_summary=not args.quiet))
    return exit_code(shown, args.exit_zero)


def apply_baseline(
    diagnostics: list[Diagnostic], args: CheckOptions, policy: Policy, files: list[SourceFile],
    selection: Selection, overrides: dict[str, bytes],
) -> tuple[list[Diagnostic], str | None]:
    """(what remains to report, what `--write-baseline` wrote). `--baseline` drops what it
    records; `--write-baseline` records every finding but `syntax-error`, which stays reported."""
    named = args.write_baseline or args.baseline
    if named is None:
        return list(diagnostics), None
    from import_policy.adoption.steps import AdoptionError, source_reader, use_baseline

    # Entries' paths are relative to the baseline's own folder: one baseline then serves runs
    # over one project or several, from any folder (a monorepo's pre-commit names either).
    base = Path(os.path.realpath(os.path.dirname(os.path.abspath(named))))
    moved, originals = _moved(diagnostics, policy.root, base)
    wrote: list[str] = []
    try:
        kept = use_baseline(
            moved, write_to=args.write_baseline, read_from=args.baseline,
            source_of=source_reader(base, {_move(path, policy.root, base): data for path, data in overrides.items()}),
            files=[replace(file, relative=_move(file.relative, policy.root, base)) for file in files],
            selection=selection, root=base,
            wrote=wrote.append, **({"warn": lambda _line: None} if args.quiet else {}),
        )
    except AdoptionError as error:
        raise UsageError(str(error)) from None
    return [originals.get(id(d), d) for d in kept], wrote[0] if wrote else None


def _move(path: str, root: Path, base: Path) -> str:
    return path if root == base else Path(os.path.relpath(root / path, base)).as_posix()


def _moved(diagnostics: Sequence[Diagnostic], root: Path, base: Path) -> tuple[list[Diagnostic], dict[int, Diagnostic]]:
    """The findings with paths relative to `base`, and each one's original by identity."""
    if root == base:
        return list(diagnostics), {}
    moved: list[Diagnostic] = []
    originals: dict[int, Diagnostic] = {}
    for d in diagnostics:
        places = tuple((_move(place[0], root, base), *place[1:]) for place in d.places)
        copy = replace(d, path=_move(d.path, root, base), places=places)
        originals[id(copy)] = d
        moved.append(copy)
    return moved, originals


def present(diagnostics: Sequence[Diagnostic], unsafe: bool, root: Path, cwd: Path) -> list[Diagnostic]:
    """Sorted, with paths relative to where the user stands and `fixable` under the flags given."""
    shown = []
    for d in diagnostics:
        fixable = applies(d, unsafe)
        # Copied only when something changes: a warm run presents thousands of findings.
        shown.append(_rebase(d if fixable == d.fixable else replace(d, fixable=fixable), root, cwd))
    shown.sort(key=Diagnostic.sort_key)
    return shown


def write_report(
    args: CheckOptions, shown: list[Diagnostic], files: int, policy: Policy | None, cwd: Path,
    overrides: dict[str, bytes], text: Text, cache_root: Path | None = None, table: RuleTable | None = None,
) -> None:
    """The findings on stdout in the format asked for. A reader that closes the pipe early
    (`| head`) ends the output quietly; the exit code still says what was found."""
    try:
        _write_report(args, shown, files, policy, cwd, overrides, text, cache_root, table)
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()


def _write_report(
    args: CheckOptions, shown: list[Diagnostic], files: int, policy: Policy | None, cwd: Path,
    overrides: dict[str, bytes], text: Text, cache_root: Path | None, table: RuleTable | None,
) -> None:
    out = sys.stdout
    # Each format's module is imported only when asked for: start-up time is most of a warm run.
    if args.statistics and args.format != "json":
        if not text.silent:
            out.write(text_report.render_statistics(shown, show_summary=text.summary))
    elif args.statistics:
        from import_policy.report import json as json_report

        out.write(json_report.render_statistics(shown))
    elif args.format in FORMATS:
        # A run answered without the policy (answer_warm) had no stdin to show.
        root = policy.root if policy is not None else cwd
        shown_stdin = {_rebase_path(path, root, cwd): data for path, data in overrides.items()}
        out.write(FORMATS[args.format](Report(shown, files, policy, cwd, shown_stdin, cache_root, table)))
    elif not text.silent:
        out.write(_text(shown, text, text_report.use_colour(out)))


def _text(shown: list[Diagnostic], text: Text, colour: bool) -> str:
    fixes = text_report.render_fixes(text.fixes) if text.fixes else ""
    if text.fix_only:
        # ruff's --fix-only: what was fixed, nothing of what remains.
        return fixes + (text_report.fixed_line(text.fixed) + "\n" if text.summary else "")
    if text.wrote is not None and not shown:
        return text.wrote + "\n" if text.summary else ""  # not "All checks passed!": the findings went to the baseline
    body = text_report.render(shown, colour, fixed=text.fixed, hidden=text.hidden, before_summary=fixes, show_summary=text.summary)
    if text.wrote is not None and text.summary:
        body += text.wrote + "\n"
    return body


def exit_code(shown: Sequence[Diagnostic], exit_zero: bool) -> int:
    if exit_zero:
        return EXIT_OK
    return EXIT_VIOLATIONS if any(d.severity == "error" for d in shown) else EXIT_OK


def _rebase(d: Diagnostic, root: Path, cwd: Path) -> Diagnostic:
    """Diagnostics carry root-relative paths; people read them relative to where they stand."""
    path = _rebase_path(d.path, root, cwd)
    return d if path == d.path else replace(d, path=path)


def _rebase_path(path: str, root: Path, cwd: Path) -> str:
    if root == cwd and not path.startswith("../"):
        return path  # the usual case, and thousands of findings: no path arithmetic
    return Path(os.path.relpath(root / path, cwd)).as_posix()
