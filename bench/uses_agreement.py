"""Do the two use resolvers agree? CPython's (`ast` + `symtable`, facts.uses_ast) against libcst's
scope analysis, on every file of a tree where a use rule could judge a use.

    python bench/uses_agreement.py [--corpus DIR] [--every-use] [--limit N] [--show 20]

The policy is the tree's own (`import-policy.yaml`, the vllm preset in the corpus). A file
takes part when the engine would resolve its uses: some import rule applies to it and the
use prefilter lets it through. Each file's uses go through the engine's own use gate for
its rules (what a run records); `--every-use` lets every chain rooted at an imported name
through instead, a far wider comparison. Prints the files, the uses each resolver found,
the uses they disagree on, and the first disagreements. Nothing here is a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from import_policy.policy.load import load
from import_policy.discovery.files import discover, module_name
from import_policy.facts.cpython import from_ast
from import_policy.facts.cst.from_cst import extract as libcst_extract
from import_policy.facts.records.model import UseFact
from import_policy.facts.shared.usegate import UseGate
from import_policy.pipeline.plan import Plan, Selection

DEFAULT_CORPUS = Path("~/.cache/import-policy-corpus/vllm-0.33.0")


def _every_use(name: str, imported: Sequence[str]) -> bool:
    return True


def _key(use: UseFact) -> tuple[int, int, int, int]:
    return (use.span.line, use.span.column, use.span.end_line, use.span.end_column)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--every-use", action="store_true", help="judge every chain rooted at an imported name")
    parser.add_argument("--limit", type=int, default=0, help="stop after this many files (0: all)")
    parser.add_argument("--show", type=int, default=20, help="disagreements to print")
    args = parser.parse_args(argv)
    root = args.corpus.expanduser().resolve()
    policy = load(None, root).policy
    plan = Plan(policy, Selection())
    files = [f for f in discover([root], policy.root, policy.exclude, remember=False) if f.language == "python"]
    counts = {"files": 0, "uses": 0, "libcst uses": 0, "disagreements": 0, "fallbacks": 0, "syntax errors": 0}
    seconds = {"cpython": 0.0, "libcst": 0.0}
    shown = 0
    for file in files:
        rules = plan.rules_for(file.relative)
        if not rules:
            continue
        source = file.path.read_bytes()
        module, is_package = module_name(file.relative, policy.roots)
        needs = plan.needs(rules)
        if not needs.could_report(source, module) or not needs.uses_matter(source, module):
            continue
        gate: UseGate = _every_use if args.every_use else needs.gate()
        start = time.perf_counter()
        ours = from_ast.rule_facts(source, file.relative, module, is_package, gate)
        seconds["cpython"] += time.perf_counter() - start
        start = time.perf_counter()
        theirs = libcst_extract(source, file.relative, module, is_package, want_uses=True, use_gate=gate)
        seconds["libcst"] += time.perf_counter() - start
        counts["files"] += 1
        if theirs.syntax_error is not None:
            counts["syntax errors"] += 1
            continue
        if ours is None:
            counts["fallbacks"] += 1
            continue
        mine = {_key(u): u for u in ours.uses}
        other = {_key(u): u for u in theirs.uses}
        counts["uses"] += len(mine)
        counts["libcst uses"] += len(other)
        for key in sorted(set(mine) | set(other)):
            a, b = mine.get(key), other.get(key)
            if a == b:
                continue
            counts["disagreements"] += 1
            if shown < args.show:
                shown += 1
                line = source.decode("utf-8", "replace").splitlines()[key[0] - 1].strip()
                print(f"{file.relative}:{key[0]}:{key[1]}: cpython {a.qualified_names if a else None} "
                      f"libcst {b.qualified_names if b else None}\n    {line}")
        if args.limit and counts["files"] >= args.limit:
            break
    print(", ".join(f"{name} {value}" for name, value in counts.items()))
    print(f"time: cpython {seconds['cpython']:.1f} s, libcst {seconds['libcst']:.1f} s")
    return 1 if counts["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
