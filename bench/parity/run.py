"""Parity of the `vllm` preset with vLLM's own import scripts, on a vLLM checkout.

    python bench/parity/run.py --corpus ~/.cache/import-policy-corpus/vllm-0.33.0

Runs each script the way vLLM's pre-commit runs it (see scripts.py), runs
`import-policy check --format json` with a temporary `extends: [vllm]` config
at the checkout's root (so the project root is the checkout), maps both sides
to (rule, path, line of the statement) and prints, per rule, the findings of
each, the agreements and every disagreement with its class and reason.
Exit 1 when a disagreement is unexplained (it counts as "ours wrong").

The scripts and import-policy see the same files: the `.py` files a walk of
the checkout finds (import-policy's discovery: .gitignore honoured, as
`git ls-files` would for pre-commit).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import runpy
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import regex  # noqa: E402

from import_policy.policy.load import load  # noqa: E402
from import_policy.kinds.imports import ImportRule  # noqa: E402
from import_policy.discovery.files import discover  # noqa: E402

import scripts  # noqa: E402
from classify import REGEX_FN, REGEX_FP, UNEXPLAINED, Classifier, Verdict  # noqa: E402
from source import Source  # noqa: E402

RULES = (
    "pickle", "base64", "re", "triton", "tilelang", "huggingface-hub-repo-api", "transformers-legacy-names",
    "vllm-init-lazy-imports", "torch-cuda-api", "torch-cuda-manual-seed", "vllm-ir-boundary",
)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _ours(corpus: Path, config: Path, files: list[str], shards: int, jobs: int) -> tuple[dict[str, Any], float, float]:
    """import-policy over `files` with the rules the scripts have (the ROCm pass is measured apart):
    (its JSON, wall seconds, CPU seconds). `shards` processes split the files between them, each
    with `--jobs jobs`."""
    argv = [sys.executable, "-m", "import_policy", "check", "--config", str(config), "--format", "json", "--exit-zero",
            "--jobs", str(jobs), "--select", ",".join(RULES)]
    cpu, start = _cpu(), time.perf_counter()
    running = [
        subprocess.Popen([*argv, *files[i::shards]], cwd=corpus, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(shards)
    ]
    merged: dict[str, Any] = {"diagnostics": [], "summary": {"files": 0, "violations": 0, "fixable": 0}}
    for process in running:
        out, err = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"import-policy failed ({process.returncode}):\n{err}")
        part = json.loads(out)
        merged["diagnostics"] += part["diagnostics"]
        for key in merged["summary"]:
            merged["summary"][key] += part["summary"][key]
    return merged, time.perf_counter() - start, _cpu() - cpu


def _script_patterns(corpus: Path) -> tuple[dict[str, Any], list[Any]]:
    """The scripts' own regexes, to ask "does the regex match this text" while classifying."""
    forbidden = runpy.run_path(str(corpus / "tools/pre_commit/check_forbidden_imports.py"), run_name="parity")
    cuda = runpy.run_path(str(corpus / "tools/pre_commit/check_torch_cuda.py"), run_name="parity")
    patterns = {scripts.FORBIDDEN_NAMES[name]: f for name, f in forbidden["CHECK_IMPORTS"].items()}
    return patterns, [regex.compile(p, regex.MULTILINE) for p in cuda["_TORCH_CUDA_PATTERNS"]]


class Sources:
    def __init__(self, corpus: Path) -> None:
        self.corpus = corpus
        self.cache: dict[str, Source] = {}

    def __getitem__(self, relative: str) -> Source:
        if relative not in self.cache:
            self.cache[relative] = Source(self.corpus / relative)
        return self.cache[relative]


def compare(
    runs: list[scripts.ScriptRun], ours: dict[str, Any], sources: Sources, classifier: Classifier
) -> tuple[list[list[str]], list[tuple[str, str, int, str, Verdict]], int]:
    """(table rows, disagreements, script findings whose printed line was not the import's line)."""
    script_keys: dict[str, dict[tuple[str, int], list[scripts.ScriptFinding]]] = defaultdict(lambda: defaultdict(list))
    cuda_files: set[str] = set()
    shifted = 0
    for run in runs:
        for f in run.findings:
            src = sources[f.path]
            line = f.line
            if f.rule in scripts.FORBIDDEN_NAMES.values():
                line = src.first_code_line(line)  # `^\s*` may start the match on a blank line above
                shifted += line != f.line
            script_keys[f.rule][(f.path, src.statement_line(line))].append(f)
            if f.rule.startswith("torch-cuda"):
                cuda_files.add(f.path)
    our_keys: dict[str, dict[tuple[str, int], list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for d in ours["diagnostics"]:
        if d["rule"] in RULES:
            our_keys[d["rule"]][(d["path"], sources[d["path"]].statement_line(d["line"]))].append(d)

    rows = []
    disagreements = []
    for rule in RULES:
        theirs, mine = script_keys[rule], our_keys[rule]
        counts = {REGEX_FP: 0, REGEX_FN: 0, UNEXPLAINED: 0}
        for key in sorted(set(theirs) - set(mine)):
            verdict = classifier.script_only(rule, key[0], key[1], sources[key[0]])
            counts[verdict.kind] += 1
            disagreements.append((rule, key[0], key[1], "script only", verdict))
        for key in sorted(set(mine) - set(theirs)):
            verdict = classifier.ours_only(rule, key[0], mine[key][0], sources[key[0]], cuda_files)
            counts[verdict.kind] += 1
            disagreements.append((rule, key[0], key[1], "ours only", verdict))
        rows.append([
            rule,
            str(sum(map(len, theirs.values()))),
            str(sum(map(len, mine.values()))),
            str(len(set(theirs) & set(mine))),
            str(counts[REGEX_FP]),
            str(counts[REGEX_FN]),
            str(counts[UNEXPLAINED]),
        ])
    return rows, disagreements, shifted


def _table(header: Sequence[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a vLLM checkout")
    parser.add_argument("--ir-script", type=Path, help="upstream check_vllm_ir_imports.py, if the checkout lacks it")
    parser.add_argument("--ours-json", type=Path, help="reuse a saved `import-policy check --format json` of these files")
    parser.add_argument("--save-ours", type=Path, help="save import-policy's JSON here")
    parser.add_argument("--recheck", nargs="*", default=[], metavar="PATH",
                        help="with --ours-json: check these files again (the preset changed) and replace their findings")
    parser.add_argument("--under", nargs="*", default=[], metavar="PATH",
                        help="only the files under these checkout-relative paths (both sides see the same files)")
    parser.add_argument("--shards", type=int, default=1, help="import-policy processes sharing the files (default 1)")
    # One worker by default: the harness measures CPU, and a shared machine should not lose every core to it.
    parser.add_argument("--jobs", type=int, default=1, help="import-policy's --jobs in each shard (default 1)")
    args = parser.parse_args(argv)
    corpus = args.corpus.expanduser().resolve()

    config = corpus / f".import-policy-parity-{os.getpid()}.yaml"
    config.write_text("version: 1\nextends: [vllm]\n", encoding="utf-8")
    try:
        policy = load(config, corpus).policy
        files = [f.relative for f in discover([corpus], corpus, policy.exclude, frozenset({"python"})) if f.relative.endswith(".py")]
        if args.under:
            files = [f for f in files if any(f == u or f.startswith(u.rstrip("/") + "/") for u in args.under)]
        if args.ours_json:
            ours, our_seconds, our_cpu = json.loads(args.ours_json.read_text(encoding="utf-8")), float("nan"), float("nan")
            if args.recheck:
                again, _, _ = _ours(corpus, config, args.recheck, 1, args.jobs)
                kept = [d for d in ours["diagnostics"] if d["path"] not in set(args.recheck)]
                ours["diagnostics"] = kept + again["diagnostics"]
                ours["summary"]["violations"] = len(ours["diagnostics"])
        else:
            ours, our_seconds, our_cpu = _ours(corpus, config, files, args.shards, args.jobs)
            if args.save_ours:
                args.save_ours.write_text(json.dumps(ours), encoding="utf-8")
        runs = [scripts.forbidden_imports(corpus, files), scripts.init_lazy_imports(corpus), scripts.torch_cuda(corpus, files)]
        ir = scripts.ir_imports(corpus, args.ir_script)
        if ir is not None:
            runs.append(ir)
    finally:
        config.unlink()

    rules = {r.id: r for r in policy.rules if isinstance(r, ImportRule)}
    classifier = Classifier(rules, *_script_patterns(corpus))
    rows, disagreements, shifted = compare(runs, ours, Sources(corpus), classifier)

    print(f"# Parity on {corpus.name}: {len(files)} .py files\n")
    print("How each script ran:")
    for run in runs:
        print(f"- {run.how}: {len(run.findings)} findings, {run.seconds:.1f} s wall, {run.cpu:.1f} s CPU")
    if ir is None:
        print("- check_vllm_ir_imports.py: not run (not in the checkout; pass --ir-script)")
    print(
        f"- import-policy check --format json --select <the {len(RULES)} rules above> (extends: [vllm]) on the same files, "
        f"{args.shards} process(es), --jobs {args.jobs}: {ours['summary']['violations']} findings, {our_seconds:.1f} s wall, {our_cpu:.1f} s CPU\n"
    )
    print("Findings are compared per (rule, path, first line of the statement).\n")
    print(_table(["rule", "script", "ours", "agree", REGEX_FP, REGEX_FN, UNEXPLAINED], rows))
    total_unexplained = sum(int(r[-1]) for r in rows)
    if shifted:
        print(f"\ncheck_forbidden_imports.py printed {shifted} findings on a blank line above the import (its `^\\s*` starts the match there); compared at the import's line.")

    by_reason: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for rule, path, line, side, verdict in disagreements:
        reason = verdict.reason.split(": `")[0] if verdict.kind != UNEXPLAINED else verdict.reason
        by_reason[(rule, verdict.kind, f"{side}: {reason}")].append(f"{path}:{line}")
    print("\n## Disagreements\n")
    for (rule, kind, reason), where in sorted(by_reason.items()):
        print(f"- **{rule}** — {kind} ({len(where)}): {reason}")
        for w in where[:3]:
            print(f"  - {w}")
        if len(where) > 3:
            print(f"  - ... and {len(where) - 3} more")
    print("\n## Every disagreement\n")
    for rule, path, line, side, verdict in disagreements:
        print(f"{rule}\t{path}:{line}\t{side}\t{verdict.kind}\t{verdict.reason}")

    script_seconds, script_cpu = sum(r.seconds for r in runs), sum(r.cpu for r in runs)
    print(
        f"\nTime: vLLM's scripts {script_seconds:.1f} s wall, {script_cpu:.1f} s CPU together; "
        f"import-policy {our_seconds:.1f} s wall, {our_cpu:.1f} s CPU."
    )
    print(f"\nUnexplained (ours wrong until shown otherwise): {total_unexplained}")
    return 1 if total_unexplained else 0


if __name__ == "__main__":
    raise SystemExit(main())
