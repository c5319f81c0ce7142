"""`import-policy` and `python -m import_policy`: argv -> exit code.

This module parses argv, dispatches to the command (`commands/`) and maps
what the command raised to an exit code and a message.

0: no error-severity violation remains; 1: violations remain; 2: usage,
configuration or path error, or an internal error.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from import_policy import __version__
from import_policy.cache import FOLDER as CACHE_FOLDER
from import_policy.commands import EXIT_ERROR, EXIT_OK, EXIT_VIOLATIONS, UsageError, discard_stdout
from import_policy.policy.errors import ConfigErrors
from import_policy.report import DOCUMENT_FORMATS

if TYPE_CHECKING:
    from import_policy.commands.options import CheckOptions

# Only what `--version`, `--help` and a bad command line need is imported above: every
# command's own modules (and the policy's records) are imported by the command that runs.

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_VIOLATIONS", "UsageError", "main"]


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
    check.add_argument("--extend-select", type=_rule_list, action="extend", metavar="RULES", help="these rule ids on top of the ones in force (comma-separated)")
    check.add_argument("--ignore", type=_rule_list, action="extend", metavar="RULES", help="skip these rule ids (comma-separated)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when violations remain")
    check.add_argument("--statistics", action="store_true", help="count violations per rule instead of listing them")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    check.add_argument("--fix-only", action="store_true", help="apply safe fixes; report and fail on nothing that remains (implies --fix)")
    check.add_argument("--show-fixes", action="store_true", help="with --fix, list what was fixed, by file and rule")
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply (or count as fixable) fixes that can change behaviour")
    check.add_argument("--diff", action="store_true", help="print the diff --fix would write, write nothing; exit 1 if a fix is pending")
    check.add_argument(
        "--format", "--output-format", dest="format", choices=("text", *DOCUMENT_FORMATS), default="text",
        help="output format (default: text)",
    )
    check.add_argument("-q", "--quiet", action="store_true", help="print the findings and nothing else (no summary, no notes)")
    check.add_argument("--stdin-filename", type=Path, metavar="PATH", help="read the source from stdin (PATH '-') and check it as PATH")
    check.add_argument("--no-cache", action="store_true", help=f"neither read nor write {CACHE_FOLDER}/")
    check.add_argument(
        "--exclude", type=_rule_list, action="extend", metavar="GLOBS",
        help="replace the configuration's exclude for this run (comma-separated path globs, relative to each project root)",
    )
    check.add_argument(
        "--extend-exclude", type=_rule_list, action="extend", metavar="GLOBS",
        help="path globs excluded on top of the configuration's exclude (comma-separated)",
    )
    check.add_argument("--show-files", action="store_true", help="list the files that would be checked, and check nothing")
    check.add_argument(
        "--show-settings", action="store_true", help="print the resolved settings of each project the paths reach, and check nothing",
    )
    check.add_argument("-v", "--verbose", action="store_true", help="say on stderr which configuration judges which files")
    check.add_argument("--jobs", type=_jobs, metavar="N", help="processes for big batches (default: the number of CPUs; 1: none)")
    baselines = check.add_mutually_exclusive_group()
    baselines.add_argument("--baseline", type=Path, metavar="FILE", help="report only violations not recorded in FILE")
    baselines.add_argument("--write-baseline", type=Path, metavar="FILE", help="record the current violations in FILE")

    # The other commands take paths as check does: the configurations check would use there.
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH",
        help="files or folders whose configurations to use, as check finds them (default: .)",
    )

    rules = commands.add_parser("rules", parents=[config, where], help="list the rules in force")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = commands.add_parser("explain", parents=[config], help="one rule in full, with its examples")
    explain.add_argument("rule", metavar="RULE")
    explain.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="as for rules (default: .)")

    commands.add_parser("test-rules", parents=[config, where], help="run every rule's examples")

    why = commands.add_parser("why", parents=[config], help="the eager import chains from the entry modules to MODULE")
    why.add_argument("module", metavar="MODULE", help="a heavy module (tilelang) or a project module")
    why.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="as for rules (default: .)")
    why.add_argument("--format", choices=("text", "json", "mermaid", "dot"), default="text")
    why.add_argument("--all", action="store_true", dest="all_chains", help="every route to MODULE, not only the shortest per entry module")
    why.add_argument("--rule", metavar="ID", help="the chains a `kind: import-time` rule follows (its entry modules and platform), or a contract's reading with --to")
    why.add_argument("--to", metavar="TARGET", help="the import chains from MODULE (and every module under it) to TARGET (and every module under it), as the contracts read them")
    why.add_argument("--platform", metavar="NAME", help="judge the branches on this platform profile (rocm, cuda, cpu, xpu, one declared under platforms:, or any)")

    commands.add_parser("server", help="the Language Server Protocol over stdio, for editors")
    commands.add_parser("clean", help=f"remove every {CACHE_FOLDER}/ folder under the current folder")
    # A bad flag is reported with the usage of the command it was given to, not the top level's.
    for name, command in commands.choices.items():
        command.set_defaults(command_parser=command)
    return parser


def _without_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """What to say when argv does not start with a command: `import-policy --fix` or
    `import-policy .` mean `check` (ruff and git name the command they would have run)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    if not argv:
        return "the following arguments are required: COMMAND (to check the current folder: `import-policy check`)"
    first = argv[0]
    if first in commands or first in ("-h", "--help", "--version"):
        return None
    import difflib
    import shlex

    from import_policy.discovery import probe

    again = shlex.join(["import-policy", "check", *argv])
    if first.startswith("-"):
        option = first.split("=", 1)[0]
        later = next((word for word in argv if word in commands), None)
        if later is not None:  # `import-policy --config x.yaml rules`: the command goes first
            rest = list(argv)
            rest.remove(later)
            return f"options go after the command; did you mean `{shlex.join(['import-policy', later, *rest])}`?"
        if any(known.startswith(option) for known in commands["check"]._option_string_actions):
            return f"`{option}` is an option of `check`; did you mean `{again}`?"
        return None  # argparse's own word on an option no command has
    near = difflib.get_close_matches(first, list(commands), n=1)
    if near:
        return f"unknown command {first!r}; did you mean `{shlex.join(['import-policy', near[0], *argv[1:]])}`?"
    if probe.exists(first) or "/" in first or first.endswith(".py") or first in (".", ".."):
        return f"{first!r} is not a command; did you mean `{again}`?"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        hint = _without_command(parser, given)
        if hint is not None:
            parser.error(hint)
        args, unknown = parser.parse_known_args(given)
        if unknown:
            args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exit_:
        return EXIT_ERROR if exit_.code not in (0, None) else EXIT_OK
    from import_policy import dataclass_code
    from import_policy.discovery.tracked import new_run

    dataclass_code.install()  # the records' methods compiled by an earlier run are not compiled again
    new_run()  # what a run says once (git refusing the repository) is said again by the next
    # A command imports most of the package as it goes, and its records hold no cycles: the
    # cyclic collector would walk every module's objects again at each collection for nothing
    # (as pipeline.engine says of a run's facts). The server lives on, so it keeps its collector.
    collecting = gc.isenabled() and args.command != "server"
    if collecting:
        gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()
        dataclass_code.save()


def _run(args: argparse.Namespace) -> int:
    from import_policy.quoting import escape_controls

    try:
        code = _dispatch(args)
        sys.stdout.flush()  # here, where a closed pipe can still be told from a crash
        return code
    except BrokenPipeError:
        # The reader took what it wanted (`| head`): not a failure of the command.
        discard_stdout()
        return EXIT_OK
    except ConfigErrors as errors:
        for error in errors.errors:
            # Each error on its line: whatever a value or a name holds cannot start another.
            print(f"import-policy: {escape_controls(str(error))}", file=sys.stderr)
        print(f"import-policy: {len(errors.errors)} configuration error(s); nothing was checked", file=sys.stderr)
        return EXIT_ERROR
    except UsageError as error:
        print(f"import-policy: error: {escape_controls(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception:  # the contract: an internal error is exit 2 with a message, not a bare crash
        print("import-policy: internal error; please report it with this trace:", file=sys.stderr)
        import traceback  # only an internal error prints one

        traceback.print_exc()
        return EXIT_ERROR


def check_options(args: argparse.Namespace) -> CheckOptions:
    """`check`'s flags as the typed value its steps read."""
    from import_policy.commands.options import CheckOptions

    return CheckOptions(
        paths=list(args.paths), config=args.config, select=args.select, extend_select=args.extend_select,
        ignore=args.ignore, exit_zero=args.exit_zero, statistics=args.statistics, fix=args.fix, fix_only=args.fix_only,
        show_fixes=args.show_fixes, unsafe_fixes=args.unsafe_fixes, diff=args.diff, format=args.format,
        quiet=args.quiet, stdin_filename=args.stdin_filename, no_cache=args.no_cache, exclude=args.exclude,
        extend_exclude=args.extend_exclude, show_files=args.show_files, show_settings=args.show_settings,
        verbose=args.verbose, jobs=args.jobs, baseline=args.baseline, write_baseline=args.write_baseline,
    )


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "server":  # each file's own configuration, found as the editor opens it
        from import_policy.commands import server

        return server.command()
    if args.command == "clean":
        from import_policy.commands.clean import clean

        return clean(Path.cwd())
    if args.command == "check":
        from import_policy.commands.check import answer_warm

        if [str(path) for path in args.paths] == ["-"] and args.stdin_filename is None:
            args.stdin_filename = Path("-")  # ruff's `check -`: the buffer is reported as `-`
        elif "-" in [str(path) for path in args.paths] and len(args.paths) > 1:
            raise UsageError("'-' (stdin) cannot be checked together with other paths")

        options = check_options(args)
        warm = answer_warm(options, Path.cwd())  # an unchanged tree and configuration: no policy to build
        if warm is not None:
            return warm
        from import_policy.commands.projects import check_projects

        return check_projects(options, Path.cwd())  # each file under its nearest configuration
    from import_policy.commands.configs import configurations

    if args.command == "test-rules":
        from import_policy.commands import test_rules

        return test_rules.command_over(args.config, args.paths, Path.cwd())
    found = configurations(args.config, args.paths, Path.cwd())
    # Each command's module is imported only when asked for: start-up time is most of a warm run.
    if args.command == "rules":
        from import_policy.commands.rules import rules

        return rules(found, args.format)
    if args.command == "explain":
        from import_policy.commands.rules import explain

        return explain(found, args.rule)
    if args.command == "why":
        from import_policy.commands import why

        return why.command_over(
            found, args.module, args.format, every=args.all_chains, rule=args.rule, to=args.to, platform=args.platform,
        )
    raise AssertionError(f"unknown command {args.command!r}")  # argparse allows only the commands above
