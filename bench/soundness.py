"""The prefilter and CPython's fast facts change no result, over a whole tree.

    python bench/soundness.py [--corpus ~/.cache/import-policy-corpus/vllm-0.33.0] [--jobs 2] [--config FILE] [--keep-fast-facts]

Checks every file twice with the policy found at the corpus root (or --config): as a run does it
(prefilter on, facts from CPython's `ast` where they equal libcst's) and the slow way (no prefilter:
every file a rule applies to is parsed with libcst and every use resolved). Prints both counts and
every difference; exits 1 if there is one. No cache is read or written. It takes a while: the slow
way parses the whole tree with libcst (about 100 ms a file). `--keep-fast-facts`: the slow way
still takes CPython's facts, so only the prefilter (what is read) is compared: a read-everything
run against a run, in minutes (the extractors are held equal by tests/facts/).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from import_policy.policy.load import load  # noqa: E402
from import_policy.diagnostics import Diagnostic  # noqa: E402
from import_policy.discovery.files import discover  # noqa: E402
from import_policy.pipeline.engine import run  # noqa: E402
from import_policy.pipeline.plan import Plan, Selection  # noqa: E402


def _key(d: Diagnostic) -> tuple[object, ...]:
    return (d.path, d.line, d.column, d.end_line, d.end_column, d.rule, d.message, d.fixable, d.chain)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=Path("~/.cache/import-policy-corpus/vllm-0.33.0"))
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep-fast-facts", action="store_true", help="compare the prefilter only (read everything, CPython's facts)")
    args = parser.parse_args(argv)
    root = args.corpus.expanduser().resolve()
    policy = load(args.config, root).policy
    files = discover([root], policy.root, policy.exclude)
    results = {}
    slow = "no prefilter, CPython's facts" if args.keep_fast_facts else "no prefilter, libcst for every fact"
    for label, fast in (("as a run does it", True), (slow, False)):
        start = time.perf_counter()
        plan = Plan(policy, Selection(), prefilter=fast, fast_facts=fast or args.keep_fast_facts)
        found = run(plan, files, jobs=args.jobs).diagnostics
        results[label] = sorted(_key(d) for d in found)
        print(f"{label}: {len(found)} diagnostics over {len(files)} files, {time.perf_counter() - start:.1f} s wall")
    fast_run, slow_run = results.values()
    only_fast = sorted(set(fast_run) - set(slow_run))
    only_slow = sorted(set(slow_run) - set(fast_run))
    for key in only_fast:
        print("only as a run does it:", key)
    for key in only_slow:
        print("only the slow way:", key)
    same = fast_run == slow_run
    print("identical" if same else f"DIFFERENT: {len(only_fast)} only as a run does it, {len(only_slow)} only the slow way")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
