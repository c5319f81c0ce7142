"""Run vLLM's own import scripts over a checkout and read their findings.

Each script is run the way vLLM's .pre-commit-config.yaml runs it, from the
checkout's root with paths relative to it:

- check_forbidden_imports.py and check_torch_cuda.py (`types: [python]`): every
  `.py` file is passed as an argument, in batches, as pre-commit passes files.
- check_init_lazy_imports.py: run once; it ignores its arguments and reads
  vllm/__init__.py itself.
- check_vllm_ir_imports.py (upstream, not in 0.33.0's tools/): run once without
  arguments, which makes it check every file under vllm/ir/. It locates the
  tree from its own path, so it runs from a scratch folder holding
  tools/pre_commit/<script> and a `vllm` symlink to the checkout's vllm/.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BATCH = 1000
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# check_forbidden_imports.py's rule names -> the preset's rule ids.
FORBIDDEN_NAMES = {
    "pickle/cloudpickle": "pickle",
    "base64": "base64",
    "re": "re",
    "triton": "triton",
    "tilelang": "tilelang",
    "huggingface_hub repo API": "huggingface-hub-repo-api",
    "transformers legacy names": "transformers-legacy-names",
}


@dataclass(frozen=True)
class ScriptFinding:
    rule: str
    path: str
    line: int  # as the script printed it
    text: str  # the script's message


@dataclass
class ScriptRun:
    script: str
    how: str
    findings: list[ScriptFinding]
    seconds: float  # wall
    cpu: float  # user + system of the script's processes


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], cwd: Path) -> tuple[str, str]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    return ANSI.sub("", done.stdout), ANSI.sub("", done.stderr)


def _batches(files: list[str]) -> list[list[str]]:
    return [files[i : i + BATCH] for i in range(0, len(files), BATCH)]


def forbidden_imports(corpus: Path, files: list[str]) -> ScriptRun:
    script = "tools/pre_commit/check_forbidden_imports.py"
    line = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: Found forbidden import: (?P<name>.+?)\. (?P<tip>.*)$")
    findings = []
    cpu, start = _cpu(), time.perf_counter()
    for batch in _batches(files):
        out, _ = _run([sys.executable, script, *batch], corpus)
        for text in out.splitlines():
            m = line.match(text)
            if m:
                rule = FORBIDDEN_NAMES[m["name"]]
                findings.append(ScriptFinding(rule, m["path"], int(m["line"]), text))
    how = f"python {script} FILE... over the {len(files)} .py files, {BATCH} per call (pre-commit, types: [python])"
    return ScriptRun(script, how, findings, time.perf_counter() - start, _cpu() - cpu)


def torch_cuda(corpus: Path, files: list[str]) -> ScriptRun:
    script = "tools/pre_commit/check_torch_cuda.py"
    line = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<msg>.*)$")
    findings = []
    cpu, start = _cpu(), time.perf_counter()
    for batch in _batches(files):
        out, _ = _run([sys.executable, script, *batch], corpus)
        for text in out.splitlines():
            m = line.match(text)
            if m:
                rule = "torch-cuda-manual-seed" if "manual_seed" in m["msg"] else "torch-cuda-api"
                findings.append(ScriptFinding(rule, m["path"], int(m["line"]), text))
    how = f"python {script} FILE... over the {len(files)} .py files, {BATCH} per call (pre-commit, types: [python])"
    return ScriptRun(script, how, findings, time.perf_counter() - start, _cpu() - cpu)


def init_lazy_imports(corpus: Path) -> ScriptRun:
    script = "tools/pre_commit/check_init_lazy_imports.py"
    line = re.compile(r"^\s+Line (?P<line>\d+): (?P<msg>.*)$")
    cpu, start = _cpu(), time.perf_counter()
    _, err = _run([sys.executable, script], corpus)
    findings = [
        ScriptFinding("vllm-init-lazy-imports", "vllm/__init__.py", int(m["line"]), m["msg"])
        for m in map(line.match, err.splitlines())
        if m
    ]
    how = f"python {script} (once: it reads vllm/__init__.py whatever files it is given)"
    return ScriptRun(script, how, findings, time.perf_counter() - start, _cpu() - cpu)


def ir_imports(corpus: Path, script_path: Path | None) -> ScriptRun | None:
    """None when neither the checkout nor --ir-script provides the script."""
    own = corpus / "tools/pre_commit/check_vllm_ir_imports.py"
    source = own if own.is_file() else script_path
    if source is None or not (corpus / "vllm/ir").is_dir():
        return None
    line = re.compile(r"^(?P<path>vllm/ir/[^:]+):(?P<line>\d+): Disallowed import: (?P<msg>.*)$")
    scratch = Path(tempfile.mkdtemp(prefix="parity-ir-"))
    try:
        (scratch / "tools/pre_commit").mkdir(parents=True)
        shutil.copy(source, scratch / "tools/pre_commit/check_vllm_ir_imports.py")
        os.symlink(corpus / "vllm", scratch / "vllm")
        cpu, start = _cpu(), time.perf_counter()
        _, err = _run([sys.executable, "tools/pre_commit/check_vllm_ir_imports.py"], scratch)
        seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    finally:
        shutil.rmtree(scratch)
    findings = [
        ScriptFinding("vllm-ir-boundary", m["path"], int(m["line"]), m["msg"])
        for m in map(line.match, err.splitlines())
        if m
    ]
    how = f"python tools/pre_commit/check_vllm_ir_imports.py (upstream copy from {source}), no arguments: every file under vllm/ir/"
    return ScriptRun("check_vllm_ir_imports.py", how, findings, seconds, cpu)
