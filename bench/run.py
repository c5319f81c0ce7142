"""Benchmark import-policy against the tools it replaces, on a vLLM checkout.

    python bench/run.py [--corpus DIR] [--venv DIR] [--runs 5] [--slow-runs 5] [--cases T1,T2,T3,T4,T6,T7,T8,T9]
    python bench/run.py --prepare-only      # build T6's tree and config, check the config loads, stop
    python bench/run.py --write-t7 DIR      # write T7's file and configs into DIR, stop (to time it by hand)

Cases (docs/benchmarks.md has the targets and how to read them):
  T1  whole tree, the vllm preset without heavy-import-reachable, cold   vs vLLM's check_forbidden_imports.py
  T1b the same with vLLM's seven forbidden-import rules only (like for like with that script)
  T2  T1's run with a warm cache                                          vs ruff TID251/TID253 cached, --no-cache
  T3  a pre-commit batch of 10 files, cache warm from a whole-tree run     vs vLLM's script on the same files
      (and whether such a run imports libcst)
  T4  heavy-import-reachable over the whole project, cold/warm           vs import-linter cold/warm
  T5  peak RSS of every import-policy command above
  T6  the tree copied 4 times, cold                                       vs the same layout with 1 copy (T1')
  T7  one generated 1.4 MB file, a use rule (forbid: [torch.cuda.synchronize]), cold   vs ruff TID251 on it
  T8  `check --diff` of one generated 4 MB file with one fixable import   against absolute targets (5 s, 300 MB)
  T9  `check --diff` of one generated file with 16,000 fixable imports    vs `check` of the same file
  T10 the vllm preset with `follow: [transformers]` (--deps-env: a venv with transformers installed,
      --no-deps is enough), whole tree cold and warm and T3's batch warm    vs the same without `follow`
  T11 the `import peft` probe (--t11-env: a venv with the ML stack; built there when missing, about
      6 GB: torch transformers peft accelerate timm torchvision sentence-transformers scikit-learn
      pandas; an existing one is only read, nothing is installed into it: import-policy runs from
      this checkout, `environment.python` pointing at the venv), `follow: all`, one import-time
      rule per watched name, cold and warm
                                  vs `ruff analyze graph --isolated` over torch transformers peft sympy;
      and the same probe with one rule forbidding every watched name      (48 rules within 1.2x of 1)
  T12 a `kind: layers` contract over vLLM's top-level packages (scope: any, TYPE_CHECKING counted:
      import-linter's reading), cold and warm                             vs lint-imports on the same contract
  T13 `check --no-cache` of a generated 10,000-line file with one nested-quote f-string (PEP 701,
      which CPython 3.10 and 3.11 refuse)                                 vs the same file without it

T1-T4 and T6 read the corpus, which defaults to ~/.cache/import-policy-corpus/vllm-0.33.0
and is fetched with ../shared/corpus/fetch_sdist.py when missing; T7, T8 and T9 generate
their own files and need neither. Everything runs in a venv of its own
(~/.cache/import-policy-bench/venv: this repository, editable, and the tools the cases
compare with: regex, ruff, import-linter; T8 and T9 need none of them): the bench sets it up,
then runs itself again under it.
Commands alternate within each round; every figure is a median over the rounds.
CPU time (user + sys of the process and its children, from wait4) is the figure
to compare on a shared machine; wall time is printed too. Nothing here is a
test: timings never go into pytest.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PRESETS = REPO / "rules"
POLICY = HERE / "parity" / "forbidden_imports.yaml"
CACHE = ".import_policy_cache"
CONFIG = "import-policy.yaml"
T1B_CONFIG = "import-policy-bench-t1b.yaml"
CORPUS_NAME, CORPUS_VERSION = "vllm", "0.33.0"
DEFAULT_CORPUS = Path(f"~/.cache/import-policy-corpus/{CORPUS_NAME}-{CORPUS_VERSION}")
DEFAULT_VENV = Path("~/.cache/import-policy-bench/venv")
DEFAULT_FETCHER = REPO.parent / "shared" / "corpus" / "fetch_sdist.py"
TOOLS = ("regex", "ruff", "import-linter")  # regex: vLLM's script imports it
# What each case needs besides import-policy: the vLLM corpus, and the tools it is compared with.
# T7 and T8 generate their own files, so on a fresh clone they need neither the corpus nor its fetcher.
CORPUS_CASES = frozenset({"T1", "T2", "T3", "T4", "T6", "T10", "T12"})
CASE_TOOLS = {
    "T1": ("regex",), "T2": ("ruff",), "T3": ("regex",), "T4": ("import-linter",), "T7": ("ruff",),
    "T11": ("ruff",), "T12": ("import-linter",),
}
INNER = "IMPORT_POLICY_BENCH_VENV"  # set when the bench runs itself again under its venv
CASES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T13")
FOLLOW_CONFIG = "import-policy-bench-follow.yaml"
FOLLOW_POLICY = "version: 1\nextends: [vllm]\nenvironment:\n  python: {python}\nfollow: [transformers]\n"
GRAPH_RULE = "heavy-import-reachable"
PRESET_POLICY = "version: 1\nextends: [vllm]\n"
# vllm.yaml extends these two; `_merge` in policy/load.py merges parents first.
PRESET_ORDER = ("rocm-safety", "stable-abi", "vllm")
COPIES = 4
T6_TARGET = 4.4  # linear in the tree's size, with 10% slack
T8_BYTES = 4 * 1024 * 1024
T8_TARGET_S = 5.0
T8_POLICY = "version: 1\nrules:\n  - id: regex-not-re\n    forbid: [re]\n    fix: {replace_module: regex}\n"
T9_FIXES = 16_000
T13_BYTES = 380_000  # T8's blocks: about 10,000 lines
T13_TARGET = 2.0  # what the file costs without the newer construct (as on 3.12+), within 2x
T13_NEWER = 'LABEL = f"{TABLE["k"]}"\n'  # PEP 701: CPython 3.10 and 3.11 refuse it
T13_PLAIN = "LABEL = f\"{TABLE['k']}\"\n"  # the same f-string every Python reads
T9_TARGET = 3.0  # --diff within a few times the check of the same file
DEFAULT_T11_ENV = Path("~/.cache/import-policy-bench/t11")
T11_PACKAGES = ("torch", "transformers", "peft", "accelerate", "timm", "torchvision", "sentence-transformers",
                "scikit-learn", "pandas")
T11_RUFF_OVER = ("torch", "transformers", "peft", "sympy")
T11_COLD_TARGET = 3.0  # against ruff analyze graph over the same packages
T11_WARM_S = 1.0
T11_RSS_MB = 600
T11_RULES_TARGET = 1.2  # 48 rules against one, in time and memory


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
        raise SystemExit(f"bench: {' '.join(argv[:4])} ... exited {process.returncode} in {cwd}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


@dataclass
class Command:
    name: str
    argv: list[str]
    before: Callable[[], None] = lambda: None  # e.g. empty a cache, untimed
    cwd: Path | None = None  # None: the folder `alternate` is given
    timing: Timing = field(default_factory=Timing)
    env: dict[str, str] | None = None  # None: the bench's own environment variables


def alternate(commands: Sequence[Command], runs: int, cwd: Path) -> None:
    for round_ in range(runs):
        order = commands if round_ % 2 == 0 else list(reversed(commands))
        for command in order:
            command.before()
            command.timing.add(*measure(command.argv, command.cwd or cwd, command.env))
        print(f"  round {round_ + 1}/{runs}: " + ", ".join(f"{c.name} {c.timing.cpu[-1]:.2f}s" for c in commands),
              file=sys.stderr)


# --- the corpus and the venv (run under whatever Python started the bench) ----------


def run_or_exit(argv: Sequence[str], doing: str) -> None:
    if subprocess.run(argv, check=False).returncode != 0:
        raise SystemExit(f"bench: {doing} failed: {' '.join(argv)}")


def fetch_corpus(corpus: Path, fetcher: Path) -> None:
    if corpus.is_dir():
        return
    if corpus.name != f"{CORPUS_NAME}-{CORPUS_VERSION}":
        raise SystemExit(f"bench: no corpus at {corpus}; only {CORPUS_NAME}-{CORPUS_VERSION} can be fetched")
    if not fetcher.is_file():
        raise SystemExit(f"bench: no corpus at {corpus}, and no fetcher at {fetcher} to download it "
                         "(pass --fetcher PATH, or --corpus DIR of an unpacked vllm 0.33.0 sdist)")
    print(f"bench: fetching {CORPUS_NAME} {CORPUS_VERSION} into {corpus.parent}", file=sys.stderr)
    run_or_exit([sys.executable, str(fetcher), CORPUS_NAME, CORPUS_VERSION, str(corpus.parent)], "fetching the corpus")
    if not corpus.is_dir():
        raise SystemExit(f"bench: {fetcher} finished but {corpus} does not exist")


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def needs_corpus(cases: set[str], prepare_only: bool = False) -> bool:
    return prepare_only or bool(cases & CORPUS_CASES)


def tools_for(cases: set[str]) -> list[str]:
    """The comparison tools the cases run, in TOOLS' order (T8 needs none)."""
    wanted = {tool for case in cases for tool in CASE_TOOLS.get(case, ())}
    return [tool for tool in TOOLS if tool in wanted]


def prepare_venv(venv: Path, tools: Sequence[str]) -> Path:
    """Create the venv once; install the tools and this repository (editable) into it on every run."""
    python = venv_python(venv)
    if not python.exists():
        print(f"bench: creating {venv}", file=sys.stderr)
        run_or_exit([sys.executable, "-m", "venv", str(venv)], "creating the venv")
    run_or_exit([str(python), "-m", "pip", "install", "--quiet", *tools, "-e", str(REPO)], "installing into the venv")
    return python


def rerun_in(python: Path, argv: Sequence[str]) -> NoReturn:
    """The bench itself needs import_policy and PyYAML, which the venv has and the caller may not."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(python, [str(python), str(Path(__file__).resolve()), *argv], {**os.environ, INNER: "1"})


# --- configuration files the bench writes ---------------------------------------------


@contextlib.contextmanager
def written(path: Path, text: str) -> Iterator[Path]:
    """`path` holds `text` while the block runs; a file that was there is moved aside and put back."""
    backup = path.with_name(path.name + ".bench-backup")
    if backup.exists():
        raise SystemExit(f"bench: {backup} exists (left by an interrupted run?); put it back or remove it first")
    existed = path.exists()
    if existed:
        path.rename(backup)
        print(f"bench: {path} moved to {backup.name} while the bench runs", file=sys.stderr)
    try:
        path.write_text(text, encoding="utf-8")
        yield path
    finally:
        path.unlink(missing_ok=True)
        if existed:
            backup.rename(path)


def remover(folder: Path) -> Callable[[], None]:
    return lambda: shutil.rmtree(folder, ignore_errors=True)


# --- T6: the tree copied four times ---------------------------------------------------


def load_yaml(path: Path) -> Any:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


def as_list(value: Any) -> list[Any]:
    return [value] if isinstance(value, str) else list(value or [])


def under_any_copy(globs: Any) -> list[str]:
    # Our globs are anchored at the project root and `*` matches one folder name.
    return [f"*/{glob}" for glob in as_list(globs)]


def merged_preset() -> dict[str, Any]:
    """The vllm preset as one document: later rule ids replace earlier ones, rocm_safety merges key by key."""
    documents = [load_yaml(PRESETS / f"{name}.yaml") for name in PRESET_ORDER]
    if as_list(documents[-1].get("extends")) != list(PRESET_ORDER[:-1]):
        raise SystemExit(f"bench: vllm.yaml no longer extends {list(PRESET_ORDER[:-1])}; update PRESET_ORDER")
    rules: dict[str, dict[str, Any]] = {}
    rocm: dict[str, Any] = {}
    exclude: list[str] = []
    for document in documents:
        for rule in document.get("rules") or []:
            rules.pop(rule["id"], None)
            rules[rule["id"]] = rule
        rocm.update(document.get("rocm_safety") or {})
        exclude += as_list(document.get("exclude"))
    return {"version": 1, "exclude": exclude, "rocm_safety": rocm, "rules": list(rules.values())}


def copies_policy(roots: Sequence[str]) -> dict[str, Any]:
    policy = merged_preset()
    for rule in policy["rules"]:
        for key in ("files", "allow_in"):
            if key in rule:
                rule[key] = under_any_copy(rule[key])
    if "files" in policy["rocm_safety"]:
        policy["rocm_safety"]["files"] = under_any_copy(policy["rocm_safety"]["files"])
    policy["exclude"] = under_any_copy(policy["exclude"])
    if not policy["exclude"]:
        del policy["exclude"]
    return {"version": 1, "roots": list(roots), **{k: v for k, v in policy.items() if k != "version"}}


def copy_tree(source: Path, dest: Path) -> None:
    """A hard-linked copy (cheap, and the same bytes), or a real one where links cannot be made."""
    if subprocess.run(["cp", "-al", str(source), str(dest)], stderr=subprocess.DEVNULL, check=False).returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(source, dest, symlinks=True)
    shutil.rmtree(dest / CACHE, ignore_errors=True)  # a corpus run's cache must not warm a copy


def build_copies(corpus: Path, root: Path, count: int) -> Path:
    """`root`/copy1..copyN, each the corpus, and `root`/import-policy.yaml over all of them."""
    import yaml

    root.mkdir(parents=True)
    names = [f"copy{i}" for i in range(1, count + 1)]
    for name in names:
        copy_tree(corpus, root / name)
    config = root / CONFIG
    config.write_text(yaml.safe_dump(copies_policy(names), sort_keys=False, width=1000), encoding="utf-8")
    return config


def check_loads(python: str, config: Path) -> None:
    out = subprocess.run([python, "-m", "import_policy", "rules", "--config", str(config)], cwd=config.parent,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"bench: the generated {config} does not load (exit {out.returncode}):\n{out.stderr}")


def prepare_t6(corpus: Path, python: str, scratch: Path) -> tuple[Path, Path]:
    """(the 4-copy root, the 1-copy root), both with a config that loads."""
    roots = []
    for folder, count in (("four", COPIES), ("one", 1)):
        print(f"T6: building {count} cop{'ies' if count > 1 else 'y'} of the corpus in {scratch / folder}",
              file=sys.stderr)
        config = build_copies(corpus, scratch / folder, count)
        check_loads(python, config)
        roots.append(config.parent)
    return roots[0], roots[1]


# --- the cases ------------------------------------------------------------------------


@dataclass
class Bench:
    python: str
    corpus: Path
    files: list[str]
    work: Path
    jobs: str
    runs: int
    slow_runs: int
    rows: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    deps_env: Path | None = None  # T10's environment
    t11_env: Path = DEFAULT_T11_ENV  # T11's

    @property
    def ours(self) -> list[str]:
        """T1's command: the preset in force at the corpus root, without the graph rule."""
        return [self.python, "-m", "import_policy", "check", "--jobs", self.jobs, "--ignore", GRAPH_RULE]

    @property
    def script(self) -> str:
        return str(self.corpus / "tools/pre_commit/check_forbidden_imports.py")

    def clear(self) -> None:
        shutil.rmtree(self.corpus / CACHE, ignore_errors=True)


def python_files(corpus: Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("build", "__pycache__"))
        out += sorted(os.path.relpath(os.path.join(folder, f), corpus) for f in files if f.endswith(".py"))
    return out


def no_parse_batch(corpus: Path, files: list[str], size: int = 10) -> list[str]:
    """`size` files under vllm/ the prefilter lets skip the parse (typical of a pre-commit run)."""
    from import_policy.policy.load import load
    from import_policy.project.modules import module_name
    from import_policy.pipeline.plan import Plan, Selection

    policy = load(None, corpus).policy
    plan = Plan(policy, Selection(ignore=frozenset({GRAPH_RULE})))
    batch: list[str] = []
    for relative in files:
        if not relative.startswith("vllm/") or len(batch) >= size:
            continue
        source = (corpus / relative).read_bytes()
        if not 2_000 < len(source) < 40_000:
            continue
        rules = plan.rules_for(relative)
        if not plan.needs(rules).could_report(source, module_name(relative, policy.roots)[0]):
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


# T12: one layers contract over vLLM's top-level packages, the same for both tools.
T12_LAYERS = [
    "entrypoints",
    "engine : v1",
    "model_executor : lora : multimodal : inputs : reasoning : tool_parsers : parser : renderers",
    "distributed : compilation",
    "config",
    "platforms",
    "utils : logging_utils",
]
T12_CONFIG = "import-policy-bench-t12.yaml"
T12_POLICY = (
    "version: 1\nexclude: [tests/, benchmarks/, examples/, tools/, docs/]\nrules:\n  - id: vllm-layers\n"
    "    kind: layers\n    containers: [vllm]\n    scope: any\n    type_checking: check\n    layers:\n"
    + "".join(f'      - "{layer}"\n' for layer in T12_LAYERS)
)
T12_IMPORTLINTER = (
    '[tool.importlinter]\nroot_package = "vllm"\n\n[[tool.importlinter.contracts]]\nname = "vllm-layers"\n'
    'type = "layers"\ncontainers = ["vllm"]\nlayers = [\n' + "".join(f'    "{layer}",\n' for layer in T12_LAYERS) + "]\n"
)


def rows(label: str, ours: Command, theirs: Command, target: float | None) -> str:
    ratio = ours.timing.cpu_median / theirs.timing.cpu_median
    verdict = "" if target is None else ("met" if ratio <= target else "missed")
    goal = "" if target is None else f"<= {target:g}x"
    return (
        f"| {label} | {ours.timing.cpu_median:.3f} s ({ours.timing.wall_median:.3f}) | {theirs.name} "
        f"{theirs.timing.cpu_median:.3f} s ({theirs.timing.wall_median:.3f}) | {ratio:.2f}x | {goal} {verdict} |"
    )


def case_t1(bench: Bench, t1b_config: Path) -> None:
    print("T1 cold whole tree (and T1b, vLLM's seven rules only)", file=sys.stderr)
    t1 = Command("import-policy cold", bench.ours, before=bench.clear)
    t1b = Command("import-policy T1b cold", [bench.python, "-m", "import_policy", "check", "--config", str(t1b_config),
                                             "--jobs", bench.jobs], before=bench.clear)
    vllm = Command("check_forbidden_imports.py", [bench.python, bench.script, *bench.files])
    alternate([t1, t1b, vllm], bench.slow_runs, bench.corpus)
    bench.rows.append(rows("T1 whole tree, vllm preset without the graph rule, cold", t1, vllm, 1.5))
    bench.rows.append(rows("T1b whole tree, vLLM's seven forbidden-import rules only, cold", t1b, vllm, None))
    bench.commands += [t1, t1b, vllm]


def case_t2(bench: Bench) -> None:
    print("T2 warm whole tree", file=sys.stderr)
    (bench.work / "ruff.toml").write_text(RUFF_CONFIG, encoding="utf-8")
    ruff = [bench.python, "-m", "ruff", "check", "--config", str(bench.work / "ruff.toml"), "--select",
            "TID251,TID253", "--exit-zero", "--quiet", "--cache-dir", str(bench.work / "ruff-cache"), "."]
    measure(bench.ours, bench.corpus)  # fill both caches, untimed
    measure(ruff, bench.corpus)
    t2 = Command("import-policy warm", bench.ours)
    ruff_cold = Command("ruff --no-cache", [*ruff, "--no-cache"])
    ruff_warm = Command("ruff cached", ruff)
    alternate([t2, ruff_cold, ruff_warm], bench.runs, bench.corpus)
    bench.rows.append(rows("T2 whole tree, warm", t2, ruff_warm, 1))
    bench.rows.append(rows("T2 whole tree, warm", t2, ruff_cold, None))
    bench.commands += [t2, ruff_cold, ruff_warm]


def imports_libcst(bench: Bench, args: Sequence[str]) -> bool:
    probe = "import sys; from import_policy.cli import main; main(sys.argv[1:]); print('libcst' in sys.modules)"
    out = subprocess.run([bench.python, "-c", probe, *args], cwd=bench.corpus, capture_output=True, text=True,
                         check=False)
    lines = out.stdout.strip().splitlines()
    if not lines or lines[-1] not in ("True", "False"):
        raise SystemExit(f"bench: the T3 libcst probe failed:\n{out.stderr}")
    return lines[-1] == "True"


def case_t3(bench: Bench) -> None:
    batch = no_parse_batch(bench.corpus, bench.files)
    print(f"T3 pre-commit batch: {' '.join(batch)}", file=sys.stderr)
    batch_args = ["check", "--ignore", GRAPH_RULE, "--no-cache", *batch]
    libcst = "libcst IMPORTED: missed" if imports_libcst(bench, batch_args) else "libcst not imported"
    t3_cold = Command("import-policy batch --no-cache", [*bench.ours, "--no-cache", *batch])
    t3 = Command("import-policy batch, warm cache", [*bench.ours, *batch])
    vllm3 = Command("check_forbidden_imports.py", [bench.python, bench.script, *batch])
    # As in a pre-commit run: an earlier run of the whole tree left the cache warm.
    measure(bench.ours, bench.corpus)
    alternate([t3, t3_cold, vllm3], bench.runs, bench.corpus)
    bench.rows.append(rows(f"T3 10-file batch, warm cache ({libcst})", t3, vllm3, 1.5))
    bench.rows.append(rows("T3 the same, --no-cache", t3_cold, vllm3, None))
    bench.commands += [t3, t3_cold, vllm3]


def case_t4(bench: Bench) -> None:
    print("T4 heavy-import-reachable", file=sys.stderr)
    (bench.work / ".importlinter").write_text(
        IMPORTLINTER.format(modules="\n".join(f"    {m}" for m in HEAVY)), encoding="utf-8")
    reach = [bench.python, "-m", "import_policy", "check", "--jobs", bench.jobs, "--select", GRAPH_RULE, "vllm"]
    lint = [bench.python, "-c", "import sys; from importlinter.cli import lint_imports_command as c; c()",
            "--config", str(bench.work / ".importlinter")]
    t4_cold = Command("import-policy reachable cold", reach, before=bench.clear)
    lint_cold = Command("import-linter --no-cache", [*lint, "--no-cache"])
    alternate([t4_cold, lint_cold], bench.slow_runs, bench.corpus)
    measure(lint, bench.corpus)
    measure(reach, bench.corpus)
    t4_warm = Command("import-policy reachable warm", reach)
    lint_warm = Command("import-linter cached", lint)
    alternate([t4_warm, lint_warm], bench.runs, bench.corpus)
    bench.rows.append(rows("T4 heavy-import-reachable, cold", t4_cold, lint_cold, 2))
    bench.rows.append(rows("T4 heavy-import-reachable, warm", t4_warm, lint_warm, 1))
    bench.commands += [t4_cold, lint_cold, t4_warm, lint_warm]


def case_t12(bench: Bench, config: Path) -> None:
    """A layers contract: both tools build the whole graph of vllm/ and look for the illegal
    chains between its layers; cold (no cache) and warm (each tool's own cache filled)."""
    print("T12 kind: layers over vLLM's top-level packages", file=sys.stderr)
    toml = bench.work / "importlinter-t12.toml"
    toml.write_text(T12_IMPORTLINTER, encoding="utf-8")
    ours = [bench.python, "-m", "import_policy", "check", "--jobs", bench.jobs, "--config", str(config), "vllm"]
    lint = [bench.python, "-c", "import sys; from importlinter.cli import lint_imports_command as c; c()", str(toml)]
    lint_cache = remover(bench.corpus / ".import_linter_cache")
    ours_cold = Command("import-policy layers cold", ours, before=bench.clear)
    lint_cold = Command("lint-imports --no-cache", [*lint, "--no-cache"])
    alternate([ours_cold, lint_cold], bench.slow_runs, bench.corpus)
    lint_cache()
    measure(lint, bench.corpus)
    measure(ours, bench.corpus)
    ours_warm = Command("import-policy layers warm", ours)
    lint_warm = Command("lint-imports cached", lint)
    alternate([ours_warm, lint_warm], bench.runs, bench.corpus)
    lint_cache()
    bench.rows.append(rows("T12 kind: layers over vllm's top-level packages, cold", ours_cold, lint_cold, 1))
    bench.rows.append(rows("T12 kind: layers over vllm's top-level packages, warm", ours_warm, lint_warm, 0.5))
    bench.commands += [ours_cold, lint_cold, ours_warm, lint_warm]


def case_t10(bench: Bench, config: Path) -> None:
    """`follow: [transformers]` against the same run without it: the whole tree (the graph
    rule on) cold and warm, and T3's batch warm, which must not move."""
    print("T10 follow: [transformers]", file=sys.stderr)
    whole = [bench.python, "-m", "import_policy", "check", "--jobs", bench.jobs]
    followed = [*whole, "--config", str(config)]
    plain_cold = Command("import-policy without follow, cold", whole, before=bench.clear)
    follow_cold = Command("import-policy follow, cold", followed, before=bench.clear)
    alternate([follow_cold, plain_cold], bench.slow_runs, bench.corpus)
    measure(whole, bench.corpus)
    measure(followed, bench.corpus)
    plain_warm = Command("import-policy without follow, warm", whole)
    follow_warm = Command("import-policy follow, warm", followed)
    batch = no_parse_batch(bench.corpus, bench.files)
    plain_batch = Command("import-policy T3 batch without follow, warm", [*bench.ours, *batch])
    follow_batch = Command("import-policy T3 batch with follow, warm", [*bench.ours, "--config", str(config), *batch])
    alternate([follow_warm, plain_warm, follow_batch, plain_batch], bench.runs, bench.corpus)
    bench.rows.append(rows("T10 whole tree, follow: [transformers], cold", follow_cold, plain_cold, None))
    bench.rows.append(rows("T10 whole tree, follow: [transformers], warm", follow_warm, plain_warm, 1.1))
    bench.rows.append(rows("T10 T3's 10-file batch with follow, warm", follow_batch, plain_batch, 1.1))
    bench.commands += [follow_cold, plain_cold, follow_warm, plain_warm, follow_batch, plain_batch]


def t11_setup(venv: Path) -> list[list[str]]:
    """What building T11's environment runs: nothing where it exists (it is only read, never
    installed into: the tool runs from this checkout, `environment.python` pointing at it);
    where it is missing, a new venv with the package index's ML stack."""
    python = venv_python(venv)
    if python.exists():
        return []
    return [[sys.executable, "-m", "venv", str(venv)], [str(python), "-m", "pip", "install", "--quiet", *T11_PACKAGES]]


def t11_env(venv: Path) -> Path:
    """T11's environment, built when it is not there yet."""
    steps = t11_setup(venv)
    if steps:
        print(f"bench: building T11's environment in {venv} (about 6 GB)", file=sys.stderr)
    for argv, doing in zip(steps, ("creating T11's venv", "installing T11's packages")):
        run_or_exit(argv, doing)
    return venv


def checkout_env() -> dict[str, str]:
    """The environment variables that make `python -m import_policy` this checkout's, whatever
    the interpreter has installed."""
    paths = [str(REPO / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def same_venv(bench_venv: Path, t11: Path) -> bool:
    """Whether the bench's own venv (which it installs its tools and this checkout into) is T11's."""
    try:
        return bench_venv.resolve() == t11.resolve()
    except OSError:
        return False


def t11_policy(python: Path, each: bool) -> str:
    """`follow: all` in the T11 venv; one rule per watched name (`each`), else one for all of them."""
    from import_truth import WATCHED, rule_id

    head = f"version: 1\nenvironment:\n  python: {python}\nfollow: all\nrules:\n"
    if not each:
        return head + f"  - id: heavy\n    kind: import-time\n    entry: [pkg]\n    forbid: [{', '.join(WATCHED)}]\n"
    return head + "".join(
        f"  - id: {rule_id(name)}\n    kind: import-time\n    entry: [pkg]\n    forbid: [{name}]\n" for name in WATCHED
    )


def t11_commands(bench: Bench, venv: Path) -> dict[str, Command]:
    """T11's probe projects, written under the bench's work folder, and the commands it times:
    import-policy from this checkout under the interpreter running the bench, reading the venv
    through `environment.python` only; ruff from the bench's venv over the venv's site-packages
    (`analyze graph` writes no cache). None of them writes into the venv."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))  # import_truth: the watched names
    python = venv_python(venv)
    site = next(venv.glob("lib/python3*/site-packages"))
    probes = {}
    for name, each in (("each", True), ("one", False)):
        folder = bench.work / "t11" / name
        (folder / "pkg").mkdir(parents=True)
        (folder / "pkg" / "__init__.py").write_text("import peft\n", encoding="utf-8")
        (folder / CONFIG).write_text(t11_policy(python, each), encoding="utf-8")
        probes[name] = folder
    check = [sys.executable, "-m", "import_policy", "check", "--jobs", bench.jobs]
    ours = checkout_env()
    return {
        "each_cold": Command("import-policy T11 48 rules cold", check, before=remover(probes["each"] / CACHE),
                             cwd=probes["each"], env=ours),
        "one_cold": Command("import-policy T11 1 rule cold", check, before=remover(probes["one"] / CACHE),
                            cwd=probes["one"], env=ours),
        "ruff": Command("ruff analyze graph --isolated", [bench.python, "-m", "ruff", "analyze", "graph", "--isolated",
                                                         *T11_RUFF_OVER], cwd=site),
        "each_warm": Command("import-policy T11 48 rules warm", check, cwd=probes["each"], env=ours),
    }


def case_t11(bench: Bench, venv: Path) -> None:
    """The `import peft` probe through the whole ML stack: cold and warm against ruff's module
    graph of torch, transformers, peft and sympy in the same venv; 48 rules against one."""
    print(f"T11 the import peft probe over {venv}", file=sys.stderr)
    commands = t11_commands(bench, venv)
    each_cold, one_cold, ruff, each_warm = (commands[key] for key in ("each_cold", "one_cold", "ruff", "each_warm"))
    alternate([each_cold, one_cold, ruff], bench.slow_runs, each_cold.cwd or bench.work)
    alternate([each_warm], bench.runs, each_warm.cwd or bench.work)
    bench.rows.append(rows("T11 import peft probe, follow: all, 48 rules, cold", each_cold, ruff, T11_COLD_TARGET))
    bench.rows.append(rows("T11 the same, 48 rules against 1 rule, cold", each_cold, one_cold, T11_RULES_TARGET))
    warm = each_warm.timing.cpu_median
    bench.rows.append(
        f"| T11 the same, warm | {warm:.3f} s ({each_warm.timing.wall_median:.3f}) | (absolute) | | "
        f"<= {T11_WARM_S:g} s {'met' if warm <= T11_WARM_S else 'missed'} |"
    )
    peak = max(each_cold.timing.rss_kb) / 1024
    bench.rows.append(f"| T11 peak RSS, 48 rules cold | {peak:.0f} MB | 1 rule {max(one_cold.timing.rss_kb) / 1024:.0f} MB "
                      f"| | <= {T11_RSS_MB} MB {'met' if peak <= T11_RSS_MB else 'missed'} |")
    bench.commands += [each_cold, one_cold, ruff, each_warm]


def case_t6(bench: Bench, four: Path, one: Path) -> None:
    print(f"T6 the tree copied {COPIES} times, cold, against the same layout with 1 copy (T1')", file=sys.stderr)
    t6 = Command(f"import-policy T6 {COPIES} copies cold", bench.ours, before=remover(four / CACHE), cwd=four)
    t1_prime = Command("import-policy T1' 1 copy cold", bench.ours, before=remover(one / CACHE), cwd=one)
    alternate([t6, t1_prime], bench.slow_runs, four)
    bench.rows.append(rows(f"T6 the tree copied {COPIES} times, cold", t6, t1_prime, T6_TARGET))
    bench.commands += [t6, t1_prime]


# --- T7: one big generated file with a use rule ------------------------------------------

T7_BYTES = 1_400_000
T7_POLICY = """\
version: 1
rules:
  - id: torch-cuda-sync
    message: "Use current_platform.synchronize()."
    forbid: [torch.cuda.synchronize]
"""
T7_RUFF = """\
[lint.flake8-tidy-imports.banned-api]
"torch.cuda.synchronize".msg = "Use current_platform.synchronize()."
"""
# One block of the file: imports bound under aliases, then uses through them in every
# kind of scope (module, class, method, nested function, lambda, comprehension), names
# rebound and shadowed, and attribute chains that only look like the forbidden name.
T7_BLOCK = """\
import torch
import torch.cuda as tc{n}
from torch import cuda as cu{n}
from torch.cuda import synchronize as sync{n}


def kernel_{n}(x, y, *, scale=1.0):
    \"\"\"Scale and add; synchronize when asked.\"\"\"
    out = [a * scale + b for a, b in zip(x, y)]
    if scale > 2:
        torch.cuda.synchronize()
    total = sum(v for v in out if v > 0)
    return out, total


class Runner{n}:
    device = torch.device("cuda")
    streams = {{i: torch.cuda.Stream() for i in range(4)}}

    def __init__(self, size: int = {n}) -> None:
        self.size = size
        self.buffer = torch.empty(size, device=self.device)

    def step(self, batch):
        tc{n}.synchronize()
        cu{n}.current_stream().wait_stream(self.streams[0])
        result = [self.buffer[i] + b for i, b in enumerate(batch)]
        return result

    def shadowed(self, torch=None):
        torch.cuda.synchronize()  # a parameter, not the module
        tc{n} = self
        return tc{n}.size

    @staticmethod
    def helper(values):
        def inner(v):
            sync{n}()
            return v * 2
        return list(map(inner, values)) + [lambda: cu{n}.synchronize()]


def report_{n}(stats: dict[str, float]) -> str:
    lines = []
    for key, value in sorted(stats.items()):
        lines.append(f"{{key}}: {{value:.3f}} on {{torch.cuda.device_count()}} devices")
    torch.cuda.empty_cache()
    return "\\n".join(lines)


TABLE_{n} = {{
    "name": "runner-{n}",
    "sizes": [1, 2, 4, 8, 16, 32],
    "flags": {{"sync": True, "async": False}},
}}
"""


def t7_source(size: int = T7_BYTES) -> str:
    """About `size` bytes of Python: `T7_BLOCK` again and again, numbered."""
    blocks: list[str] = ['"""A generated module for the T7 benchmark."""\n\n']
    total, n = len(blocks[0]), 0
    while total < size:
        block = T7_BLOCK.format(n=n) + "\n\n"
        blocks.append(block)
        total += len(block.encode("utf-8"))
        n += 1
    return "".join(blocks)


def prepare_t7(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG).write_text(T7_POLICY, encoding="utf-8")
    (folder / "ruff.toml").write_text(T7_RUFF, encoding="utf-8")
    (folder / "big.py").write_text(t7_source(), encoding="utf-8")
    return folder


def case_t7(bench: Bench) -> None:
    folder = prepare_t7(bench.work / "t7")
    print(f"T7 one generated file of {(folder / 'big.py').stat().st_size:,} bytes, a use rule, cold", file=sys.stderr)
    ours = Command("import-policy T7 cold", [bench.python, "-m", "import_policy", "check", "--no-cache", "big.py"],
                   cwd=folder)
    ruff = Command("ruff TID251 --no-cache", [bench.python, "-m", "ruff", "check", "--config", "ruff.toml",
                                              "--select", "TID251", "--no-cache", "--exit-zero", "--quiet", "big.py"],
                   cwd=folder)
    alternate([ours, ruff], bench.runs, folder)
    bench.rows.append(rows("T7 one 1.4 MB file, a use rule, cold", ours, ruff, 6))
    bench.commands += [ours, ruff]


# --- T8: --diff of one big file ----------------------------------------------------------


T8_CHUNK = '''

# Section {n}: a block of ordinary code, so the file reads like a (very long) module.
class Handler{n}:
    """Handles request kind {n}; keeps a small cache of parsed values."""

    limit = {n} % 97 + 3

    def __init__(self, name: str, values: list[int] | None = None) -> None:
        self.name = name
        self.values = values or [{n}, {n} + 1, {n} * 2]
        self.cache: dict[str, int] = {{}}

    def total(self, scale: float = 1.5) -> float:
        result = 0.0
        for index, value in enumerate(self.values):
            if value % 3 == 0 and index < self.limit:
                result += value * scale
            elif value % 5 == 0:
                result -= value / (index + 1)
            else:
                result += len(self.name) * 0.25
        return result

    def describe(self) -> str:
        parts = [f"{{key}}={{value}}" for key, value in sorted(self.cache.items())]
        return "handler {n} (" + ", ".join(parts) + ")"


def make_handler_{n}(names: tuple[str, ...] = ("alpha", "beta", "gamma")) -> list[Handler{n}]:
    table = {{"first": {n}, "second": [1, 2, 3], "third": {{"nested": (4, 5)}}}}
    out = []
    for name in names:
        try:
            out.append(Handler{n}(name, [table["first"], len(name)]))
        except (KeyError, ValueError) as error:  # never raised, but parsed
            raise RuntimeError(str(error)) from error
    return out
'''


def generate_t8(folder: Path, size: int = T8_BYTES) -> Path:
    """A project whose one file, `big.py`, has `import re` at the top and about `size` bytes of code."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG).write_text(T8_POLICY, encoding="utf-8")
    parts = ['"""A generated module for the bench: one import a rule forbids, then plain code."""\n\nimport os\nimport re\n']
    length, n = len(parts[0]), 0
    while length < size:
        chunk = T8_CHUNK.format(n=n)
        parts.append(chunk)
        length += len(chunk)
        n += 1
    path = folder / "big.py"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def absolute_row(label: str, ours: Command, target_s: float) -> str:
    verdict = "met" if ours.timing.cpu_median <= target_s else "missed"
    return (f"| {label} | {ours.timing.cpu_median:.3f} s ({ours.timing.wall_median:.3f}) | - | - | "
            f"<= {target_s:g} s {verdict} |")


def case_t8(bench: Bench) -> None:
    folder = bench.work / "t8"
    path = generate_t8(folder)
    print(f"T8 --diff of {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    t8 = Command("import-policy T8 --diff 4 MB file",
                 [bench.python, "-m", "import_policy", "check", "--no-cache", "--diff", "big.py"], cwd=folder)
    alternate([t8], bench.slow_runs, folder)
    bench.rows.append(absolute_row(f"T8 --diff, one {path.stat().st_size / 1e6:.1f} MB file, one fixable import",
                                   t8, T8_TARGET_S))
    bench.commands.append(t8)


# --- T9: --diff of many fixes ------------------------------------------------------------


def generate_t9(folder: Path, fixes: int = T9_FIXES) -> Path:
    """A project whose one file, `many.py`, holds `fixes` fixable imports, each followed by code
    that uses it (similar lines throughout: what made a whole-file sequence match quadratic)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG).write_text(T8_POLICY, encoding="utf-8")
    parts = [f"import re\npattern_{n} = re.compile(r'item-{n}')\n" for n in range(fixes)]
    path = folder / "many.py"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def case_t9(bench: Bench) -> None:
    folder = bench.work / "t9"
    path = generate_t9(folder)
    print(f"T9 --diff of {T9_FIXES} fixes in {path}", file=sys.stderr)
    diff = Command("import-policy T9 --diff 16,000 fixes",
                   [bench.python, "-m", "import_policy", "check", "--no-cache", "--diff", "many.py"], cwd=folder)
    check = Command("import-policy T9 check", [bench.python, "-m", "import_policy", "check", "--no-cache", "many.py"],
                    cwd=folder)
    alternate([diff, check], bench.runs, folder)
    bench.rows.append(rows(f"T9 --diff, one file with {T9_FIXES:,} fixable imports, against check of it", diff, check,
                           T9_TARGET))
    bench.commands += [diff, check]


# --- T13: one statement of newer syntax in a big file ----------------------------------


def generate_t13(folder: Path, newer: bool) -> Path:
    """T8's project at `T13_BYTES`, with `TABLE` bound near the top and one f-string reading it
    before a function half-way down: `T13_NEWER` (nested quotes) or `T13_PLAIN`."""
    path = generate_t8(folder, T13_BYTES)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    middle = next(index for index in range(len(lines) // 2, len(lines)) if lines[index].startswith("def "))
    lines[middle:middle] = [T13_NEWER if newer else T13_PLAIN, "\n\n"]
    lines.insert(4, "TABLE = {'k': 1}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def case_t13(bench: Bench) -> None:
    newer = generate_t13(bench.work / "t13-newer", newer=True)
    plain = generate_t13(bench.work / "t13-plain", newer=False)
    lines = newer.read_text(encoding="utf-8").count("\n")
    print(f"T13 check of a {lines:,}-line file with one nested-quote f-string, against it without", file=sys.stderr)
    argv = [bench.python, "-m", "import_policy", "check", "--no-cache", "big.py"]
    ours = Command("import-policy T13 with the f-string", argv, cwd=newer.parent)
    base = Command("import-policy T13 without it", argv, cwd=plain.parent)
    alternate([ours, base], bench.runs, newer.parent)
    bench.rows.append(rows(f"T13 one {lines:,}-line file, one nested-quote f-string ({versions_python(bench.python)})",
                           ours, base, T13_TARGET))
    bench.commands += [ours, base]


def versions_python(python: str) -> str:
    """`Python 3.11.7`: T13's ratio means something only where CPython refuses the f-string."""
    done = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                          capture_output=True, text=True, check=False)
    return f"Python {done.stdout.strip()}"


# --- output ---------------------------------------------------------------------------


def versions(python: str) -> str:
    from importlib import metadata

    parts = [f"python {sys.version.split()[0]} ({python})"]
    for dist in ("import-policy", "libcst", "ruff", "import-linter"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} not installed")
    return ", ".join(parts)


def print_tables(bench: Bench) -> None:
    print("| case | import-policy CPU (wall) | against CPU (wall) | ratio (CPU) | target |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(bench.rows))
    print("\n| command | peak RSS (MB) | target |")
    print("| --- | --- | --- |")
    for command in bench.commands:
        peak = max(command.timing.rss_kb) / 1024
        mine = command.name.startswith("import-policy")
        print(f"| {command.name} | {peak:.0f} | {'<= 300 ' + ('met' if peak <= 300 else 'missed') if mine else ''} |")


def case_list(value: str) -> set[str]:
    cases = {part.strip() for part in value.split(",") if part.strip()}
    unknown = sorted(cases - set(CASES))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    return cases


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"the vLLM tree (default: {DEFAULT_CORPUS})")
    parser.add_argument("--fetcher", type=Path, default=DEFAULT_FETCHER,
                        help="fetch_sdist.py, run when the corpus is missing (default: ../shared/corpus/ of the repo)")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help=f"the bench's own venv (default: {DEFAULT_VENV})")
    parser.add_argument("--runs", type=int, default=5, help="rounds for fast cases (median; at least 5 for the record)")
    parser.add_argument("--slow-runs", type=int, default=5, help="rounds for the cold whole-tree cases (T1, T4 cold, T6)")
    parser.add_argument("--cases", type=case_list, default=case_list("T1,T2,T3,T4,T6,T7,T8,T9"),
                        help="comma-separated subset of " + ",".join(CASES) + " (T5, peak RSS, is always printed)")
    parser.add_argument("--deps-env", type=Path,
                        help="T10: a venv with transformers installed (pip install --no-deps is enough)")
    parser.add_argument("--t11-env", type=Path, default=DEFAULT_T11_ENV,
                        help=f"T11: the venv with the ML stack, built when missing, else only read (default: {DEFAULT_T11_ENV})")
    parser.add_argument("--jobs", default=str(os.cpu_count() or 1), help="import-policy --jobs")
    parser.add_argument("--write-t7", type=Path, metavar="DIR",
                        help="write T7's generated file and its two configs into DIR, print the path and stop")
    parser.add_argument("--prepare-only", action="store_true",
                        help="build T6's tree and config, check the config loads, print the paths and stop")
    return parser


def run_cases(bench: Bench, cases: set[str], stack: contextlib.ExitStack) -> None:
    if cases & {"T1", "T2", "T3", "T4", "T10"}:
        stack.enter_context(written(bench.corpus / CONFIG, PRESET_POLICY))
    if "T1" in cases:
        t1b_config = stack.enter_context(written(bench.corpus / T1B_CONFIG, POLICY.read_text(encoding="utf-8")))
        case_t1(bench, t1b_config)
    if "T2" in cases:
        case_t2(bench)
    if "T3" in cases:
        case_t3(bench)
    if "T4" in cases:
        case_t4(bench)
    if "T6" in cases:
        case_t6(bench, *prepare_t6(bench.corpus, bench.python, bench.work / "t6"))
    if "T7" in cases:
        case_t7(bench)
    if "T8" in cases:
        case_t8(bench)
    if "T9" in cases:
        case_t9(bench)
    if "T10" in cases:
        if bench.deps_env is None:
            raise SystemExit("bench: T10 needs --deps-env (a venv with transformers installed)")
        text = FOLLOW_POLICY.format(python=bench.deps_env / "bin" / "python")
        case_t10(bench, stack.enter_context(written(bench.corpus / FOLLOW_CONFIG, text)))
    if "T11" in cases:
        case_t11(bench, t11_env(bench.t11_env))
    if "T12" in cases:
        case_t12(bench, stack.enter_context(written(bench.corpus / T12_CONFIG, T12_POLICY)))
    if "T13" in cases:
        case_t13(bench)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    if args.write_t7 is not None:
        print(prepare_t7(args.write_t7.expanduser().resolve()) / "big.py")
        return 0
    corpus: Path = args.corpus.expanduser().resolve()
    venv: Path = args.venv.expanduser().absolute()
    with_corpus = needs_corpus(args.cases, args.prepare_only)
    if "T11" in args.cases and same_venv(venv, args.t11_env.expanduser().absolute()):
        raise SystemExit(
            f"bench: --venv and --t11-env name one venv ({venv}): the bench installs its tools and this checkout "
            f"into --venv, and T11's venv is only read; give the bench a venv of its own (default {DEFAULT_VENV})"
        )
    if os.environ.get(INNER) != "1":
        if with_corpus:
            fetch_corpus(corpus, args.fetcher.expanduser().resolve())
        rerun_in(prepare_venv(venv, tools_for(args.cases)), argv)
    python = str(venv_python(venv))
    # SIGTERM as an exception too, so the configs written into the corpus are put back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # On the corpus's file system, so the copies of T6 can be hard links.
    work = Path(tempfile.mkdtemp(prefix="import-policy-bench-", dir=corpus.parent if with_corpus else None))
    if args.prepare_only:
        four, one = prepare_t6(corpus, python, work / "t6")
        print(f"T6 config {four / CONFIG} (roots copy1..copy{COPIES})\nT1' config {one / CONFIG}\n"
              f"remove with: rm -rf {work}")
        return 0
    files = python_files(corpus) if with_corpus else []
    print(versions(python))
    where = f"corpus {corpus}: {len(files)} .py files" if with_corpus else "no corpus needed"
    print(f"{where}; {os.cpu_count()} CPUs; --jobs {args.jobs}\n")
    bench = Bench(python, corpus, files, work, args.jobs, args.runs, args.slow_runs,
                  deps_env=args.deps_env.expanduser().absolute() if args.deps_env is not None else None,
                  t11_env=args.t11_env.expanduser().absolute())
    with contextlib.ExitStack() as stack:
        stack.callback(remover(work))
        run_cases(bench, args.cases, stack)
    print_tables(bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
