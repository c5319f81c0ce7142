"""Benchmark import-policy against the tools it replaces, on a vLLM checkout.

    python bench/run.py --corpus ~/.cache/import-policy-corpus/vllm-0.33.0 [--runs 5] [--slow-runs 1]

Cases (issue 7):
  T1  whole tree, vLLM's forbidden-import rules, cold cache   vs vLLM's check_forbidden_imports.py
  T2  the same, warm cache                                     vs ruff TID251/TID253 --no-cache, ruff cached
  T3  a pre-commit batch of 10 files with nothing to parse     vs vLLM's script on the same files
      (and a check that such a run never imports libcst)
  T4  heavy-import-reachable over the whole project, cold/warm vs import-linter cold/warm
  T5  peak RSS of every command above

Commands alternate within each round; every figure is a median over the rounds.
CPU time (user + sys of the process and its children, from wait4) is the
figure to compare on a shared machine; wall time is printed too. The bench
installs what it compares against (regex, ruff, import-linter) into the
interpreter it runs under, with pip, when missing. Nothing here is a test:
timings never go into pytest.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
POLICY = HERE / "parity" / "forbidden_imports.yaml"
CACHE = ".import_policy_cache"
PY = sys.executable


@dataclass
class Timing:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_kb: list[int] = field(default_factory=list)

    def add(self, wall: float, cpu: float, rss: int) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss_kb.append(rss)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)


def measure(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall s, user+sys CPU s of the process tree it waited for, peak RSS KB)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"bench: {' '.join(argv[:4])} ... exited {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


@dataclass
class Command:
    name: str
    argv: list[str]
    before: Callable[[], None] = lambda: None  # e.g. empty a cache, untimed
    timing: Timing = field(default_factory=Timing)


def alternate(commands: Sequence[Command], runs: int, cwd: Path) -> None:
    for round_ in range(runs):
        order = commands if round_ % 2 == 0 else list(reversed(commands))
        for command in order:
            command.before()
            command.timing.add(*measure(command.argv, cwd))
        print(f"  round {round_ + 1}/{runs}: " + ", ".join(f"{c.name} {c.timing.cpu[-1]:.2f}s" for c in commands),
              file=sys.stderr)


def ensure(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        subprocess.run([PY, "-m", "pip", "install", "--quiet", package], check=True)


def python_files(corpus: Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("build", "__pycache__"))
        out += sorted(os.path.relpath(os.path.join(folder, f), corpus) for f in files if f.endswith(".py"))
    return out


def no_parse_batch(corpus: Path, files: list[str], size: int = 10) -> list[str]:
    """`size` files under vllm/ the prefilter lets skip the parse (typical of a pre-commit run)."""
    sys.path.insert(0, str(HERE.parent / "src"))
    from import_policy.config.load import load
    from import_policy.discovery import module_name
    from import_policy.engine import Plan, Selection

    policy = load(None, corpus).policy
    plan = Plan(policy, Selection())
    batch = []
    for relative in files:
        if not relative.startswith("vllm/") or len(batch) >= size:
            continue
        source = (corpus / relative).read_bytes()
        if plan.candidates is not None and not plan.candidates.wants(source, module_name(relative, policy.roots)[0]):
            if 2_000 < len(source) < 40_000:
                batch.append(relative)
    return batch[::-1][:size]


RUFF_CONFIG = """\
[lint.flake8-tidy-imports]
banned-module-level-imports = ["triton", "tilelang"]
[lint.flake8-tidy-imports.banned-api]
"pickle".msg = "pickle"
"cloudpickle".msg = "cloudpickle"
"base64".msg = "base64"
"re".msg = "re"
"huggingface_hub.HfApi".msg = "hf"
"huggingface_hub.HfFileSystem".msg = "hf"
"huggingface_hub.hf_hub_download".msg = "hf"
"huggingface_hub.snapshot_download".msg = "hf"
"huggingface_hub.list_repo_files".msg = "hf"
"huggingface_hub.file_exists".msg = "hf"
"huggingface_hub.try_to_load_from_cache".msg = "hf"
"huggingface_hub.list_repo_refs".msg = "hf"
"huggingface_hub.repo_exists".msg = "hf"
"transformers.PretrainedConfig".msg = "tf"
"transformers.PreTrainedTokenizer".msg = "tf"
"transformers.PreTrainedTokenizerFast".msg = "tf"
"transformers.tokenization_utils".msg = "tf"
"transformers.tokenization_utils_fast".msg = "tf"
"transformers.image_processing_utils_fast".msg = "tf"
"""

HEAVY = ["tilelang", "tvm", "triton", "aiter", "deep_gemm", "deep_ep", "flashinfer", "flash_attn", "flash_mla",
         "xformers", "cutlass", "quack"]

REACHABLE_POLICY = """\
version: 1
extends: [vllm]
"""

IMPORTLINTER = """\
[importlinter]
root_package = vllm
include_external_packages = True

[importlinter:contract:heavy]
name = vllm does not import heavy modules
type = forbidden
source_modules = vllm
forbidden_modules =
{modules}
"""


def rows(label: str, ours: Command, theirs: Command, target: float | None) -> str:
    ratio = ours.timing.cpu_median / theirs.timing.cpu_median
    verdict = "" if target is None else ("met" if ratio <= target else "missed")
    goal = "" if target is None else f"<= {target:g}x"
    return (
        f"| {label} | {ours.timing.cpu_median:.3f} s ({ours.timing.wall_median:.3f}) | {theirs.name} "
        f"{theirs.timing.cpu_median:.3f} s ({theirs.timing.wall_median:.3f}) | {ratio:.2f}x | {goal} {verdict} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5, help="rounds for fast cases (median; at least 5 for the record)")
    parser.add_argument("--slow-runs", type=int, default=5, help="rounds for the cold whole-tree cases")
    parser.add_argument("--cases", default="T1,T2,T3,T4", help="comma-separated subset")
    parser.add_argument("--jobs", default=str(os.cpu_count() or 1), help="import-policy --jobs")
    args = parser.parse_args(argv)
    corpus: Path = args.corpus.expanduser().resolve()
    cases = set(args.cases.split(","))
    for module, package in (("regex", "regex"), ("ruff", "ruff"), ("importlinter", "import-linter")):
        ensure(module, package)
    config = corpus / "import-policy.yaml"
    if not config.exists():
        shutil.copy(POLICY, config)
    files = python_files(corpus)
    script = str(corpus / "tools/pre_commit/check_forbidden_imports.py")
    ours = [PY, "-m", "import_policy", "check", "--jobs", args.jobs]
    work = Path(tempfile.mkdtemp(prefix="import-policy-bench-"))
    clear = lambda: shutil.rmtree(corpus / CACHE, ignore_errors=True)  # noqa: E731
    out: list[str] = []
    all_commands: list[Command] = []
    print(f"corpus {corpus}: {len(files)} .py files; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}", file=sys.stderr)

    if "T1" in cases:
        print("T1 cold whole tree", file=sys.stderr)
        t1 = Command("import-policy cold", ours, before=clear)
        vllm = Command("check_forbidden_imports.py", [PY, script, *files])
        alternate([t1, vllm], args.slow_runs, corpus)
        out.append(rows("T1 whole tree, cold", t1, vllm, 0.3))
        all_commands += [t1, vllm]
    if "T2" in cases:
        print("T2 warm whole tree", file=sys.stderr)
        (work / "ruff.toml").write_text(RUFF_CONFIG, encoding="utf-8")
        ruff = [PY, "-m", "ruff", "check", "--config", str(work / "ruff.toml"), "--select", "TID251,TID253",
                "--exit-zero", "--quiet", "--cache-dir", str(work / "ruff-cache"), "."]
        measure(ours, corpus)  # fill both caches, untimed
        measure(ruff, corpus)
        t2 = Command("import-policy warm", ours)
        ruff_cold = Command("ruff --no-cache", [*ruff, "--no-cache"])
        ruff_warm = Command("ruff cached", ruff)
        alternate([t2, ruff_cold, ruff_warm], args.runs, corpus)
        out.append(rows("T2 whole tree, warm", t2, ruff_warm, 3))
        out.append(rows("T2 whole tree, warm", t2, ruff_cold, None))
        all_commands += [t2, ruff_cold, ruff_warm]
    if "T3" in cases:
        batch = no_parse_batch(corpus, files)
        print(f"T3 pre-commit batch: {' '.join(batch)}", file=sys.stderr)
        probe = "import sys; from import_policy.cli import main; main(sys.argv[1:]); print('libcst' in sys.modules)"
        loaded = subprocess.run([PY, "-c", probe, "check", "--no-cache", *batch], cwd=corpus, capture_output=True,
                                text=True, check=False).stdout.strip().splitlines()[-1]
        if loaded != "False":
            raise SystemExit("bench: T3 imported libcst")
        t3 = Command("import-policy batch", [*ours, "--no-cache", *batch])
        t3_cached = Command("import-policy batch cached", [*ours, *batch])
        vllm3 = Command("check_forbidden_imports.py", [PY, script, *batch])
        alternate([t3, t3_cached, vllm3], args.runs, corpus)
        out.append(rows("T3 10-file batch, no parse (libcst not imported)", t3, vllm3, 1.5))
        out.append(rows("T3 the same, cache on", t3_cached, vllm3, 1.5))
        all_commands += [t3, t3_cached, vllm3]
    if "T4" in cases:
        print("T4 heavy-import-reachable", file=sys.stderr)
        reachable_config = corpus / "import-policy-reachable.yaml"
        reachable_config.write_text(REACHABLE_POLICY, encoding="utf-8")
        (work / ".importlinter").write_text(
            IMPORTLINTER.format(modules="\n".join(f"    {m}" for m in HEAVY)), encoding="utf-8")
        reach = [PY, "-m", "import_policy", "check", "--config", str(reachable_config), "--jobs", args.jobs,
                 "--select", "heavy-import-reachable", "vllm"]
        lint = [PY, "-c", "import sys; from importlinter.cli import lint_imports_command as c; c()",
                "--config", str(work / ".importlinter")]
        project = corpus
        t4_cold = Command("import-policy reachable cold", reach, before=clear)
        lint_cold = Command("import-linter --no-cache", [*lint, "--no-cache"])
        alternate([t4_cold, lint_cold], args.slow_runs, project)
        measure(lint, project)
        measure(reach, project)
        t4_warm = Command("import-policy reachable warm", reach)
        lint_warm = Command("import-linter cached", lint)
        alternate([t4_warm, lint_warm], args.runs, project)
        out.append(rows("T4 heavy-import-reachable, cold", t4_cold, lint_cold, 3))
        out.append(rows("T4 heavy-import-reachable, warm", t4_warm, lint_warm, 1))
        all_commands += [t4_cold, lint_cold, t4_warm, lint_warm]
        reachable_config.unlink()

    print("| case | import-policy CPU (wall) | against CPU (wall) | ratio (CPU) | target |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(out))
    print("\n| command | peak RSS (MB) | target |")
    print("| --- | --- | --- |")
    for command in all_commands:
        peak = max(command.timing.rss_kb) / 1024
        mine = command.name.startswith("import-policy")
        print(f"| {command.name} | {peak:.0f} | {'<= 300 ' + ('met' if peak <= 300 else 'missed') if mine else ''} |")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
