"""`import-policy` and `python -m import_policy`: argv -> exit code.

0: no error-severity violation remains; 1: violations remain; 2: usage,
configuration or path error, or an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from dataclasses import replace
from collections.abc import Sequence
from pathlib import Path

from import_policy import __version__
from import_policy.config.load import DEFAULT_PRESET, ConfigErrors, Loaded, load
from import_policy.kinds.describe import describe_rule, rule_rows
from import_policy.diagnostics import Diagnostic
from import_policy.config.model import Policy
from import_policy.discovery.files import PathError, SourceFile, discover
from import_policy.cache.facts import FOLDER as CACHE_FOLDER, FactsCache
from import_policy.pipeline.plan import Plan, Selection
from import_policy.pipeline.extract import Reader, read_file
from import_policy.pipeline.engine import Result, run
from import_policy.pipeline.parallel import default_jobs
from import_policy.cache.run import Outcome, RunCache
from import_policy.fix.payload import applies
from import_policy.adoption.stale import ExceptTracker, find_stale, whole_tree
from import_policy.report import text as text_report

EXIT_OK, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


def _rule_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes (1 or more), got {value!r}")
    return jobs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="import-policy", description="Keep a repository's imports honest: YAML import rules checked with libcst."
    )
    parser.add_argument("--version", action="version", version=f"import-policy {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    config = argparse.ArgumentParser(add_help=False)
    config.add_argument("--config", type=Path, metavar="FILE", help="the policy file (default: discovered upward)")

    check = commands.add_parser("check", parents=[config], help="check files and folders")
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders (default: .)")
    check.add_argument("--select", type=_rule_list, action="extend", metavar="RULES", help="only these rule ids (comma-separated)")
    check.add_argument("--ignore", type=_rule_list, action="extend", metavar="RULES", help="skip these rule ids (comma-separated)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when violations remain")
    check.add_argument("--statistics", action="store_true", help="count violations per rule instead of listing them")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply (or count as fixable) fixes that can change behaviour")
    check.add_argument("--diff", action="store_true", help="print the diff --fix would write, write nothing; exit 1 if a fix is pending")
    check.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text", help="output format (default: text)")
    check.add_argument("--stdin-filename", type=Path, metavar="PATH", help="read the source from stdin (PATH '-') and check it as PATH")
    check.add_argument("--no-cache", action="store_true", help=f"neither read nor write {CACHE_FOLDER}/")
    check.add_argument("--jobs", type=_jobs, metavar="N", help="processes for big batches (default: the number of CPUs; 1: none)")
    baselines = check.add_mutually_exclusive_group()
    baselines.add_argument("--baseline", type=Path, metavar="FILE", help="report only violations not recorded in FILE")
    baselines.add_argument("--write-baseline", type=Path, metavar="FILE", help="record the current violations in FILE")

    rules = commands.add_parser("rules", parents=[config], help="list the rules in force")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = commands.add_parser("explain", parents=[config], help="one rule in full, with its examples")
    explain.add_argument("rule", metavar="RULE")

    commands.add_parser("test-rules", parents=[config], help="run every rule's examples")

    why = commands.add_parser("why", parents=[config], help="the eager import chains from the entry modules to MODULE")
    why.add_argument("module", metavar="MODULE", help="a heavy module (tilelang) or a project module")
    why.add_argument("--format", choices=("text", "json", "mermaid", "dot"), default="text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_ERROR if exit_.code not in (0, None) else EXIT_OK
    try:
        return _dispatch(args)
    except ConfigErrors as errors:
        for error in errors.errors:
            print(f"import-policy: {error}", file=sys.stderr)
        print(f"import-policy: {len(errors.errors)} configuration error(s); nothing was checked", file=sys.stderr)
        return EXIT_ERROR
    except UsageError as error:
        print(f"import-policy: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception:  # the contract: an internal error is exit 2 with a message, not a bare crash
        print("import-policy: internal error; please report it with this trace:", file=sys.stderr)
        traceback.print_exc()
        return EXIT_ERROR


def _load(args: argparse.Namespace) -> Loaded:
    loaded = load(args.config, Path.cwd())
    if loaded.config is None:
        print(f"import-policy: no configuration found; using the built-in {DEFAULT_PRESET} preset", file=sys.stderr)
    return loaded


def _dispatch(args: argparse.Namespace) -> int:
    loaded = _load(args)
    if args.command == "rules":
        return _rules(loaded, args.format)
    if args.command == "explain":
        text = describe_rule(loaded.policy, args.rule)
        if text is None:
            known = ", ".join(row["id"] for row in rule_rows(loaded.policy))
            raise UsageError(f"unknown rule {args.rule!r}; rules in force: {known}")
        sys.stdout.write(text)
        return EXIT_OK
    if args.command == "why":
        return _why(loaded, args)
    if args.command == "test-rules":
        from import_policy.commands.test_rules import run_all as run_examples

        report, passed = run_examples(loaded.policy)
        sys.stdout.write(report)
        return EXIT_OK if passed else EXIT_VIOLATIONS
    return _check(loaded, args)


def _selection(loaded: Loaded, args: argparse.Namespace) -> Selection:
    known = {row["id"] for row in rule_rows(loaded.policy)}
    for flag, ids in (("--select", args.select), ("--ignore", args.ignore)):
        unknown = sorted(set(ids or ()) - known)
        if unknown:
            raise UsageError(f"{flag}: unknown rule {', '.join(map(repr, unknown))}; rules in force: {', '.join(sorted(known))}")
    return Selection(frozenset(args.select) if args.select else None, frozenset(args.ignore or ()))


def _check(loaded: Loaded, args: argparse.Namespace) -> int:
    policy = loaded.policy
    selection = _selection(loaded, args)
    paths = args.paths or [Path(".")]
    read: Reader = read_file
    stdin_bytes: bytes | None = None
    if args.stdin_filename is not None:
        from import_policy.commands.check_stdin import read_stdin, stdin_file

        if [str(p) for p in args.paths] not in ([], ["-"]):
            raise UsageError("--stdin-filename reads the source from stdin: give '-' or no PATH")
        stdin_bytes = read_stdin(sys.stdin.buffer)
        stdin_source = stdin_file(policy, args.stdin_filename)
        files = [stdin_source] if stdin_source is not None else []
        read = _stdin_reader(stdin_bytes)
    else:
        try:
            files = discover(paths, policy.root, policy.exclude, remember=not args.no_cache)
        except PathError as error:
            raise UsageError(f"no such file or folder: {error}") from None
    # Stale allowlist entries can only be told when the whole tree is checked.
    tracker = ExceptTracker() if args.stdin_filename is None and whole_tree(paths, policy.root) else None
    cache = None if args.no_cache or stdin_bytes is not None else FactsCache(policy.root)
    jobs = args.jobs or default_jobs()
    # An unchanged whole tree is answered from the last run (runcache); fixing always checks afresh.
    runs = RunCache(policy.root) if cache is not None and tracker is not None and not (args.fix or args.diff) else None
    # Sorted: a frozenset's repr follows the process's string hashing, which differs run to run.
    selected = (sorted(selection.select) if selection.select is not None else None, sorted(selection.ignore))
    run_key = RunCache.key(policy, selected, files) if runs is not None else None
    reused = runs.get(run_key, files) if runs is not None and run_key is not None else None
    stale_lines: list[str] = []
    if reused is not None:
        result = Result(reused.diagnostics, reused.files, reused.unreadable)
        stale_lines = reused.stale
    else:
        snapshot = RunCache.snapshot(files) if runs is not None and run_key is not None else None
        plan = Plan(policy, selection, observe=tracker.observe if tracker else None, cache=cache)
        result = run(plan, files, read, jobs=jobs)
        if tracker is not None:
            stale_lines = [str(stale) for stale in find_stale(policy, selection, files, tracker, read, cache, jobs)]
        if runs is not None and run_key is not None and snapshot is not None:
            runs.put(run_key, files, snapshot, Outcome(list(result.diagnostics), result.files, result.unreadable, stale_lines))
    fixing = None
    if args.fix or args.diff:
        from import_policy.fix.run import fix_and_check_again, to_disk  # the fixer needs libcst

        if stdin_bytes is not None and not args.diff:
            return _fix_stdin(args, policy, selection, files, stdin_bytes, result)
        # Reported as the files now are, each unapplied fix saying why.
        result, fixing = fix_and_check_again(
            result, files, read, policy, selection, args.unsafe_fixes, write=None if args.diff else to_disk,
            root=policy.root, cwd=Path.cwd(),
        )
        if args.diff:
            sys.stdout.write("".join(fixing.diffs))
            print(f"Would fix {fixing.applied} violation{'s' if fixing.applied != 1 else ''}.", file=sys.stderr)
            return EXIT_VIOLATIONS if fixing.applied else EXIT_OK
        for path, reason in fixing.write_errors:
            print(f"import-policy: cannot write {path}: {reason}", file=sys.stderr)
    overrides = {file.relative: stdin_bytes for file in files if stdin_bytes is not None}
    kept = list(result.diagnostics)
    if args.write_baseline is not None or args.baseline is not None:
        from import_policy.adoption.steps import AdoptionError, source_reader, use_baseline

        try:
            kept = use_baseline(
                result.diagnostics, write_to=args.write_baseline, read_from=args.baseline,
                source_of=source_reader(policy.root, overrides), files=files, selection=selection,
            )
        except AdoptionError as error:
            raise UsageError(str(error)) from None
    cwd = Path.cwd()
    # `fixable` means: a fix that would apply with the flags given; the others are "hidden" (ruff).
    hidden = sum(d.fixable and not applies(d, args.unsafe_fixes) for d in kept)
    shown = [_rebase(replace(d, fixable=applies(d, args.unsafe_fixes)), policy.root, cwd) for d in kept]
    shown.sort(key=Diagnostic.sort_key)
    out = sys.stdout
    # Each format's module is imported only when asked for: start-up time is most of a warm run.
    if args.statistics and args.format != "json":
        out.write(text_report.render_statistics(shown))
    elif args.statistics or args.format == "json":
        from import_policy.report import json as json_report

        out.write(json_report.render_statistics(shown) if args.statistics else json_report.render(shown, result.files))
    elif args.format == "sarif":
        from import_policy.report import sarif as sarif_report
        from import_policy.report.sarif_fixes import fix_hook

        shown_stdin = {_rebase_path(path, policy.root, cwd): data for path, data in overrides.items() if data is not None}
        out.write(sarif_report.render(shown, policy, cwd, fix_hook(cwd, shown_stdin)))
    elif args.format == "github":
        from import_policy.report import github as github_report

        out.write(github_report.render(shown))
    else:
        fixed = fixing.applied if fixing is not None else 0
        out.write(text_report.render(shown, text_report.use_colour(out), fixed=fixed, hidden=hidden))
    for path, reason in result.unreadable:
        print(f"import-policy: cannot read {path}: {reason}", file=sys.stderr)
    for line in stale_lines:
        print(f"import-policy: {line}", file=sys.stderr)
    if result.unreadable:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    return EXIT_VIOLATIONS if any(d.severity == "error" for d in shown) else EXIT_OK


def _fix_stdin(
    args: argparse.Namespace, policy: Policy, selection: Selection, files: list[SourceFile], source: bytes,
    before: Result,
) -> int:
    """The fixed source to stdout, for an editor's buffer; what remains to stderr."""
    from import_policy.commands.check_stdin import fix_stdin

    new, remaining = fix_stdin(policy, selection, files, source, before, args.unsafe_fixes)
    sys.stdout.flush()
    sys.stdout.buffer.write(new)
    sys.stdout.buffer.flush()
    shown = sorted(
        (_rebase(replace(d, fixable=applies(d, args.unsafe_fixes)), policy.root, Path.cwd()) for d in remaining),
        key=Diagnostic.sort_key,
    )
    if shown:
        sys.stderr.write(text_report.render(shown, False))
    if args.exit_zero:
        return EXIT_OK
    return EXIT_VIOLATIONS if any(d.severity == "error" for d in shown) else EXIT_OK


def _stdin_reader(source: bytes) -> Reader:
    return lambda _file: source


def _why(loaded: Loaded, args: argparse.Namespace) -> int:
    from import_policy.commands.why import WhyError, why

    try:
        text, warnings = why(loaded.policy, args.module, args.format, Path.cwd())
    except WhyError as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"import-policy: {warning}", file=sys.stderr)
    sys.stdout.write(text)
    return EXIT_OK  # no chain is an answer, not a failure


def _rebase(d: Diagnostic, root: Path, cwd: Path) -> Diagnostic:
    """Diagnostics carry root-relative paths; people read them relative to where they stand."""
    from dataclasses import replace

    return replace(d, path=_rebase_path(d.path, root, cwd))


def _rebase_path(path: str, root: Path, cwd: Path) -> str:
    if root == cwd and not path.startswith("../"):
        return path  # the usual case, and thousands of findings: no path arithmetic
    return Path(os.path.relpath(root / path, cwd)).as_posix()


def _rules(loaded: Loaded, fmt: str) -> int:
    rows = rule_rows(loaded.policy)
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    headers = ("id", "kind", "severity", "fixable", "source", "message")
    table = [headers] + [tuple(str(row[h]).replace("\n", " ") for h in headers) for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers) - 1)]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")
    return EXIT_OK
