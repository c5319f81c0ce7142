"""What `import ENTRY` really loads, against what import-policy says it loads.

    python bench/import_truth.py --venv DIR [--entries peft,transformers,...] [--watched torch,triton,...]
                                 [--tool 'python -m import_policy'] [--installed environment|any]
                                 [--platform cpu|any|cuda|...] [--keep DIR] [--together]

For each entry package: a subprocess of the venv's own Python imports it and reads `sys.modules`
(nothing imported before it but what the interpreter loads at start); a finder first on
`sys.meta_path` records, for each module imported, the module and line that imported it (the
real importer; an availability test's `importlib.util.find_spec` asks the finders too and is not
taken for an import). import-policy answers each watched name with a probe project: a package
`probe_ENTRY` whose `__init__.py` is `import ENTRY`; `environment.python` the venv's, `follow:
all`, one `kind: import-time` rule per watched name, `installed:` as given, `platform:` as given,
by default `cpu`: the machine the bench runs on, without a GPU. A name is said to load when its
rule has a finding. One rule per name, not one rule forbidding them all: a rule's chains stop at
the first forbidden module (what `torch` imports is not reported again under a rule that forbids
`torch` too), so one rule would answer "the first watched module reached", not each name.

By default the tool runs once per entry, the rules' entry that entry's probe package; one probe
folder serves every entry in turn, so the facts of the files they share are read once (the
folder's cache). With `--together` it runs once for all entries: one probe package per entry, each
rule's `entry:` all of them. A finding is at the link of the probe package whose import reaches
the name (one finding per link and name), its chain starts there, and no probe package imports
another, so each entry's answer is still "import ENTRY alone"; what the rules derive of the
dependencies they share is derived once instead of once per entry. The bench prints, per entry and
in total, the confusion matrix, precision and recall, and every disagreement: a false positive
with the tool's chain, a false negative with Python's real importer.

Nothing is timed here (bench/run.py's T11 times the same probe). The venv is the T11 one
(bench/run.py --t11-env builds it: torch, transformers, peft, accelerate, timm, torchvision,
sentence-transformers, scikit-learn, pandas).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ENTRIES = (
    "peft", "transformers", "accelerate", "timm", "torchvision", "torchaudio", "sentence_transformers", "diffusers",
    "sklearn", "pandas", "scipy", "datasets", "huggingface_hub", "tokenizers", "safetensors", "sympy",
)
WATCHED = (
    "torch", "triton", "torch._dynamo", "torch._inductor", "torch.distributed", "torch.fx", "torch.onnx",
    "torch.utils.tensorboard", "torchvision", "torchaudio", "numpy", "scipy", "pandas", "sklearn", "PIL", "cv2",
    "sympy", "networkx", "bitsandbytes", "flash_attn", "xformers", "deepspeed", "transformer_engine", "jax",
    "tensorflow", "onnxruntime", "onnx", "yaml", "requests", "httpx", "fsspec", "filelock", "tqdm", "safetensors",
    "tokenizers", "huggingface_hub", "transformers", "accelerate", "peft", "timm", "psutil", "regex", "jinja2",
    "packaging", "matplotlib", "tensorboard", "wandb", "datasets",
)

# Runs in the venv's Python: imports the entry, prints every module loaded and who imported it.
PROBE = r"""
import json, sys
importers = {}

class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        # Only an import records its importer: `importlib.util.find_spec("x")` (an availability
        # test) asks the finders too, without loading anything.
        if name not in importers:
            frame = sys._getframe(1)
            importing = False
            while frame is not None and (frame.f_code.co_filename.startswith("<frozen") or
                                         "importlib" in frame.f_code.co_filename):
                importing = importing or frame.f_code.co_name == "_find_and_load"
                frame = frame.f_back
            if frame is not None and importing:
                importers[name] = f"{frame.f_globals.get('__name__', '?')}:{frame.f_lineno}"
        return None

sys.meta_path.insert(0, Watch)
error = None
try:
    import {entry}
except BaseException as exc:
    error = f"{type(exc).__name__}: {exc}"
print(json.dumps({"loaded": sorted(sys.modules), "importers": importers, "error": error}))
"""


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn
        self.notes += other.notes

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def row(self, label: str) -> str:
        return (f"| {label} | {self.tp} | {self.fp} | {self.fn} | {self.tn} | {self.precision:.2f} | "
                f"{self.recall:.2f} |")


def rule_id(name: str) -> str:
    """The id of a rule forbidding one watched name (bench/run.py's T11 writes one per name)."""
    return "no-" + name.replace(".", "-").replace("_", "-").lower()


def python_truth(python: str, entry: str) -> dict[str, object]:
    done = subprocess.run([python, "-c", PROBE.replace("{entry}", entry)], capture_output=True, text=True,
                          check=False, cwd=tempfile.gettempdir())
    try:
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (IndexError, ValueError):
        return {"loaded": [], "importers": {}, "error": f"probe failed: {done.stderr.strip()[-300:]}"}


def probe_package(entry: str) -> str:
    """The probe project's package whose `__init__` imports `entry` and nothing else."""
    return "probe_" + entry.replace(".", "_")


def entry_rule_id(name: str, entry: str) -> str:
    """The id of the rule forbidding `name` under `--together`, its entry `entry`'s probe package."""
    return f"{rule_id(name)}--{probe_package(entry).replace('_', '-').lower()}"


def policy(python: str, watched: Sequence[str], installed: str, platform: str = "cpu",
           entries: Sequence[str] = ()) -> str:
    """One rule per watched name and entry: the rules of one entry each answer "what does
    importing it alone load" (a dependency's site is one finding, with one chain, however many
    entries reach it: a rule whose entry were every probe package would say it of one only)."""
    rules = "".join(
        f"  - id: {entry_rule_id(name, entry)}\n    kind: import-time\n    entry: [{probe_package(entry)}]\n"
        f"    forbid: [{name}]\n    installed: {installed}\n    platform: {platform}\n"
        for entry in entries for name in watched
    )
    return f"version: 1\nenvironment:\n  python: {python}\nfollow: all\nrules:\n{rules}"


def write_probes(folder: Path, entries: Sequence[str]) -> None:
    """One package per entry, each importing its entry alone (none imports another)."""
    for entry in entries:
        package = folder / probe_package(entry)
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(f"import {entry}\n", encoding="utf-8")


def tool_answers(
    tool: Sequence[str], folder: Path, entries: Sequence[str], watched: Sequence[str],
) -> tuple[dict[str, dict[str, list[str]]], str]:
    """Per entry, each watched name a finding says it loads, with that finding's chain; and what
    went wrong, if the tool failed. One run answers every entry of the group, each by its own rules."""
    done = subprocess.run([*tool, "check", "--format", "json"], cwd=folder, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        return {}, f"exit {done.returncode}: {done.stderr.strip()[-500:]}"
    try:
        findings = json.loads(done.stdout or "[]")
    except ValueError:
        return {}, f"no JSON: {done.stdout[:200]!r}"
    if isinstance(findings, dict):  # `{"version": 1, "diagnostics": [...], "summary": {...}}`
        findings = findings.get("diagnostics", [])
    by_rule = {entry_rule_id(name, entry): (entry, name) for entry in entries for name in watched}
    found: dict[str, dict[str, list[str]]] = {entry: {} for entry in entries}
    for finding in findings if isinstance(findings, list) else []:
        asked = by_rule.get(str(finding.get("rule", "")))
        if asked is not None:
            chain = [str(m) for m in finding.get("chain") or []]
            found[asked[0]].setdefault(asked[1], chain or [str(finding.get("message", ""))])
    return found, ""


def judge(entry: str, truth: dict[str, object], answer: dict[str, list[str]], watched: Sequence[str]) -> Tally:
    tally = Tally()
    loaded = set(truth["loaded"])  # type: ignore[arg-type]
    importers: dict[str, str] = truth["importers"]  # type: ignore[assignment]
    for name in watched:
        really = name in loaded
        said = name in answer
        if really and said:
            tally.tp += 1
        elif said:
            tally.fp += 1
            tally.notes.append(f"FP {entry}: {name}: {' -> '.join(answer[name])}")
        elif really:
            tally.fn += 1
            tally.notes.append(f"FN {entry}: {name}: imported by {importers.get(name, '?')}")
        else:
            tally.tn += 1
    return tally


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, required=True, help="the environment whose packages are imported")
    parser.add_argument("--entries", default=",".join(ENTRIES), help="comma-separated entry packages")
    parser.add_argument("--watched", default=",".join(WATCHED), help="comma-separated watched module names")
    parser.add_argument("--tool", default=f"{shlex.quote(sys.executable)} -m import_policy",
                        help="how to run import-policy (default: this Python's)")
    parser.add_argument("--installed", choices=("environment", "any"), default="environment")
    parser.add_argument("--platform", default="cpu", help="the rules' platform (default: cpu, the bench's machine)")
    parser.add_argument("--keep", type=Path, help="keep the probe projects in this folder")
    parser.add_argument("--together", action="store_true",
                        help="one tool run for every entry (one probe package each, the rules' entries all of them)")
    args = parser.parse_args(argv)
    venv = args.venv.expanduser().absolute()
    python = str(venv / "bin" / "python")
    entries = [e for e in args.entries.split(",") if e]
    watched = [w for w in args.watched.split(",") if w]
    tool = shlex.split(args.tool)
    work = args.keep.expanduser().absolute() if args.keep else Path(tempfile.mkdtemp(prefix="import-truth-"))
    work.mkdir(parents=True, exist_ok=True)
    truths: dict[str, dict[str, object]] = {}
    for entry in entries:
        truth = python_truth(python, entry)
        if truth.get("error"):
            print(f"{entry}: skipped: Python cannot import it here ({truth['error']})", file=sys.stderr)
            continue
        truths[entry] = truth
    groups = [list(truths)] if args.together else [[entry] for entry in truths]
    total = Tally()
    rows: list[str] = []
    for group in groups:
        (work / "import-policy.yaml").write_text(
            policy(python, watched, args.installed, args.platform, group), encoding="utf-8")
        write_probes(work, group)
        answers, failure = tool_answers(tool, work, group, watched)
        if failure:
            print(f"{', '.join(group)}: the tool failed: {failure}", file=sys.stderr)
            continue
        for entry in group:
            tally = judge(entry, truths[entry], answers[entry], watched)
            rows.append(tally.row(entry))
            total.add(tally)
            print(f"{entry}: TP {tally.tp} FP {tally.fp} FN {tally.fn} TN {tally.tn}", file=sys.stderr)
    print(f"{len(rows)} entries, {len(watched)} watched names, installed: {args.installed}, platform: {args.platform}, venv {venv}\n")
    print("| entry | TP | FP | FN | TN | precision | recall |\n| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    print(total.row("**all**"))
    print("\nDisagreements:")
    for note in total.notes:
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
