"""Each built-in platform profile against Python: a `kind: import-time` rule with `platform:`
that profile says which stand-in heavy modules importing a generated package loads; the
package is imported in a subprocess with a stand-in `torch` built as that platform's wheel
is (for `cpu`: the default wheel on a machine without a GPU, where `torch.version.cuda` is
set and `torch.cuda.is_available()` is false), and what lands in `sys.modules` is compared
with the tool's answer.

The package spells its imports under the platform tests real code spells: PyTorch's own
(`torch.cuda.is_available()`, `torch.version.hip`, `torch.version.cuda is not None`,
`torch.xpu.is_available()`), vLLM's `current_platform.is_cuda()` family (a platform object
detected from torch, as vLLM detects it), and a module-level flag bound to one of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import Project

# Each platform test, and the stand-in heavy module imported under it.
GATED = {
    "heavy_cuda_available": "if torch.cuda.is_available():",
    "heavy_no_cuda_available": "if not torch.cuda.is_available():",
    "heavy_hip": "if torch.version.hip:",
    "heavy_not_hip": "if torch.version.hip is None:",
    "heavy_cuda_version": "if torch.version.cuda is not None:",
    "heavy_xpu_available": "if torch.xpu.is_available():",
    "heavy_is_cuda": "if current_platform.is_cuda():",
    "heavy_not_is_cuda": "if not current_platform.is_cuda():",
    "heavy_is_rocm": "if current_platform.is_rocm():",
    "heavy_cuda_alike": "if current_platform.is_cuda_alike():",
    "heavy_is_xpu": "if current_platform.is_xpu():",
    "heavy_is_cpu": "if current_platform.is_cpu():",
    "heavy_flag_cuda": "if _is_cuda:",
    "heavy_either": "if current_platform.is_cuda() or current_platform.is_xpu():",
}

# How each platform's wheel answers, for the stand-in torch.
TORCH = {
    "cuda": {"cuda": "'12.8'", "hip": "None", "xpu": "None", "cuda_available": "True", "xpu_available": "False"},
    "rocm": {"cuda": "None", "hip": "'6.3.42131'", "xpu": "None", "cuda_available": "True", "xpu_available": "False"},
    "cpu": {"cuda": "'12.8'", "hip": "None", "xpu": "None", "cuda_available": "False", "xpu_available": "False"},
    "xpu": {"cuda": "None", "hip": "None", "xpu": "'20250101'", "cuda_available": "False", "xpu_available": "True"},
}

# What a profile leaves unknown, so the tool counts it as running: the `rocm` profile is the
# `rocm-safety` preset's, which does not say what `torch.cuda.is_available()` and
# `torch.xpu.is_available()` answer.
UNKNOWN = {
    "cuda": set(),
    "rocm": {"heavy_no_cuda_available", "heavy_xpu_available"},
    "cpu": set(),
    "xpu": set(),
}

PLATFORM_INFO = """\
import torch


class Platform:
    def __init__(self, kind):
        self.kind = kind

    def is_cuda(self):
        return self.kind == "cuda"

    def is_rocm(self):
        return self.kind == "rocm"

    def is_cuda_alike(self):
        return self.kind in ("cuda", "rocm")

    def is_xpu(self):
        return self.kind == "xpu"

    def is_cpu(self):
        return self.kind == "cpu"


def _detect():
    if torch.version.hip is not None and torch.cuda.is_available():
        return "rocm"
    if torch.version.cuda is not None and torch.cuda.is_available():
        return "cuda"
    if torch.xpu.is_available():
        return "xpu"
    return "cpu"


current_platform = Platform(_detect())
"""


def policy(platform: str) -> str:
    return textwrap.dedent(f"""\
        version: 1
        exclude: ["_standins/**"]
        rules:
          - id: light
            kind: import-time
            entry: [app]
            forbid: ["heavy_*"]
            platform: {platform}
        """)


def write_package(project: Project, platform: str) -> None:
    project.config(policy(platform))
    gated = "".join(f"{test}\n    import {name}\n" for name, test in GATED.items())
    project.write("app/__init__.py", "from app import gated\n")
    project.write("app/platform_info.py", PLATFORM_INFO)
    project.write("app/gated.py", (
        "import torch\n\nfrom app.platform_info import current_platform\n\n"
        "_is_cuda = current_platform.is_cuda()\n\n" + gated
    ))
    answers = TORCH[platform]
    project.write("_standins/torch/__init__.py", "from torch import cuda, version, xpu\n")
    project.write("_standins/torch/version.py", f"cuda = {answers['cuda']}\nhip = {answers['hip']}\nxpu = {answers['xpu']}\n")
    project.write("_standins/torch/cuda.py", f"def is_available():\n    return {answers['cuda_available']}\n")
    project.write("_standins/torch/xpu.py", f"def is_available():\n    return {answers['xpu_available']}\n")
    for name in GATED:
        project.write(f"_standins/{name}.py", "")


def loaded_by_python(root: Path) -> set[str]:
    code = (
        f"import sys; sys.path[:0] = [{str(root / '_standins')!r}, {str(root)!r}]; import app; "
        "print(sorted(m for m in sys.modules if m.startswith('heavy_')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    return set(eval(done.stdout))


def loaded_by_the_tool(project: Project) -> set[str]:
    code, out, err = project.run("check", "--no-cache", "--format", "json")
    assert code in (0, 1), err
    found = set()
    for finding in json.loads(out)["diagnostics"]:
        assert finding["rule"] == "light", finding
        [name] = [name for name in GATED if f"loads `{name}`" in finding["message"]]
        found.add(name)
    return found


@pytest.mark.parametrize("platform", ["cuda", "cpu", "rocm", "xpu"])
def test_a_profile_loads_what_the_platform_loads(project: Project, platform: str) -> None:
    write_package(project, platform)
    python = loaded_by_python(project.root)
    tool = loaded_by_the_tool(project)
    assert python <= tool  # the tool never misses what loads
    assert tool - python == UNKNOWN[platform]
    # Each platform loads something the others do not: the profiles are not one answer.
    assert python


def test_the_platforms_load_different_modules(project: Project) -> None:
    answers = {}
    for platform in TORCH:
        write_package(project, platform)
        answers[platform] = loaded_by_the_tool(project)
    assert len({frozenset(found) for found in answers.values()}) == len(TORCH)


def test_platform_any_runs_every_branch(project: Project) -> None:
    write_package(project, "cuda")
    project.config(policy("any"))
    assert loaded_by_the_tool(project) == set(GATED)


def test_why_judges_on_the_platform_asked(project: Project) -> None:
    """`why MODULE --platform NAME`: the chains of the rule (or the ROCm pass) on that profile."""
    write_package(project, "cuda")
    for platform, found in (("cuda", True), ("cpu", False), ("xpu", False), ("any", True)):
        code, out, err = project.run("why", "heavy_is_cuda", "--rule", "light", "--platform", platform)
        assert code == 0, err
        assert ("app.gated -> heavy_is_cuda (import heavy_is_cuda)" in out) is found, (platform, out)
    code, out, _ = project.run("why", "heavy_is_cpu", "--rule", "light", "--platform", "cpu")
    assert "app.gated -> heavy_is_cpu (import heavy_is_cpu)" in out
    code, _, err = project.run("why", "heavy_is_cpu", "--rule", "light", "--platform", "gpu")
    assert code == 2 and "unknown platform 'gpu'; platforms: any, rocm, cuda, cpu, xpu" in err


def test_why_without_a_rule_asks_the_rocm_pass_on_another_platform(project: Project) -> None:
    project.config("version: 1\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [app]\n")
    project.write("app/__init__.py", "from app.flags import is_cuda\nif is_cuda():\n    import flash_attn\n")
    project.write("app/flags.py", "def is_cuda():\n    return False\n")
    _, out, _ = project.run("why", "flash_attn")
    assert "app -> flash_attn (import flash_attn)" not in out  # on ROCm, `is_cuda()` is false
    _, out, _ = project.run("why", "flash_attn", "--platform", "cuda")
    assert "app -> flash_attn (import flash_attn)" in out
