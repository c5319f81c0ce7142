"""The `vllm` preset: it loads, its examples pass, and a reduced vLLM tree gives one finding per rule."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project
from import_policy.policy.load import load
from import_policy.kinds.imports import ImportRule

REPO = Path(__file__).resolve().parents[2]
VLLM_RULES = (
    "pickle", "base64", "re", "triton", "tilelang", "huggingface-hub-repo-api", "transformers-legacy-names",
    "vllm-init-lazy-imports", "torch-cuda-api", "torch-cuda-manual-seed", "vllm-ir-boundary",
)
SELECT = ",".join(VLLM_RULES)
CUDA_MESSAGE = (
    "Found torch.cuda API call. Please refer RFC https://github.com/vllm-project/vllm/issues/30679, "
    "use torch.accelerator API instead."
)
LAZY_MESSAGE = (
    "vllm/__init__.py must import vLLM modules lazily: put the import under `if typing.TYPE_CHECKING:` "
    "and resolve it in __getattr__ (only vllm.env_override and .version are imported eagerly)."
)


@pytest.fixture
def vllm(project: Project) -> Project:
    project.config("version: 1\nextends: [vllm]\n")
    project.vllm_skeleton()
    return project


def test_preset_extends_rocm_safety_and_stable_abi(vllm: Project) -> None:
    policy = load(None, vllm.root).policy
    ids = [rule.id for rule in policy.rules]
    assert ids[:6] == [
        "stable-abi-include", "stable-abi-torch-library", "stable-abi-pybind11",
        "stable-abi-at-dispatch", "stable-abi-torch-check", "stable-abi-aten-types",
    ]
    # The import-time rule of tests/standalone_tests/lazy_imports.py, beside the scripts' rules.
    assert tuple(ids[6:]) == (*VLLM_RULES[:8], "light-vllm-import", *VLLM_RULES[8:])
    assert policy.sources == ("preset:rocm-safety", "preset:stable-abi", "preset:vllm", "import-policy.yaml")
    rocm = policy.rocm_safety
    assert rocm is not None
    assert rocm.entry_modules == ENTRIES
    assert [g.text for g in rocm.files] == ["vllm/**"]
    assert rocm.probes == (("_has_module", "_has_module_spec"),)
    assert rocm.guards[:3] == ("TYPE_CHECKING", "is_cuda", "is_xpu")
    assert rocm.rocm == ("is_rocm", "is_hip", "is_cuda_alike", "torch.version.hip")
    heavy = {p.text for p in rocm.heavy_modules}
    assert {"tilelang", "aiter", "deep_ep", "flashinfer", "cutlass"} <= heavy
    assert "triton" not in heavy  # the kernel language on ROCm
    assert rocm.reason("tilelang.language") is not None


def test_every_vllm_rule_has_examples(vllm: Project) -> None:
    policy = load(None, vllm.root).policy
    for rule in policy.rules:
        if isinstance(rule, ImportRule):
            assert rule.examples.flag and rule.examples.allow, rule.id


def test_test_rules_passes_on_the_preset(vllm: Project) -> None:
    code, out, err = vllm.run("test-rules")
    assert (code, err) == (0, "")
    assert out.startswith("All ") and out.endswith(" examples of 18 rules passed.\n")


def _reduced_tree(project: Project) -> None:
    """One case per vLLM rule, shaped after the files of vLLM 0.33.0 that show it."""
    project.write(
        "vllm/__init__.py",
        """\
        from .version import __version__
        import typing
        import vllm.env_override
        from vllm.sampling_params import SamplingParams

        if typing.TYPE_CHECKING:
            from vllm.entrypoints.llm import LLM
        """,
    )
    project.write("vllm/ir/op.py", "from vllm.config import VllmConfig\nfrom vllm.logger import init_logger\nfrom . import util\n")
    # Module-level triton imports the regex cannot see: in an `except` block and under `if HAS_TRITON:`.
    project.write(
        "vllm/models/minimax_m3/amd/ops/sparse_pa.py",
        "try:\n    from vllm.triton_utils import tl, triton\nexcept ImportError:\n    import triton\n",
    )
    project.write(
        "vllm/v1/worker/gpu/sample/watermark.py",
        "from vllm.triton_utils import HAS_TRITON\n\nif HAS_TRITON:\n    import triton.language as tl\n",
    )
    project.write("vllm/parser/response_template_grammar.py", "from re import _parser\n\nimport regex as re\n")
    project.write("vllm/utils/misc.py", "import os, re\nimport base64\nimport pickle\nimport tilelang\n")
    project.write(
        "vllm/hub.py",
        "from huggingface_hub import (\n    PyTorchModelHubMixin,\n    snapshot_download,\n)\n"
        "from transformers import AutoConfig, PretrainedConfig\n",
    )
    project.write(
        "vllm/worker/mem.py",
        """\
        import torch
        import torch.cuda as tc


        def f():
            torch.cuda.synchronize()
            free, total = tc.mem_get_info()
            torch.cuda.manual_seed(0)
            # torch.cuda.empty_cache()
        """,
    )
    project.write("vllm/platforms/cuda.py", "import torch\n\ntorch.cuda.synchronize()\n")


def test_reduced_vllm_tree(vllm: Project) -> None:
    _reduced_tree(vllm)
    code, out, _ = vllm.run("check", "--select", SELECT, "vllm")
    assert code == 1
    assert out.splitlines() == [
        f"vllm/__init__.py:4:6: vllm-init-lazy-imports {LAZY_MESSAGE}",
        "vllm/hub.py:3:5: huggingface-hub-repo-api Use the shared, vLLM-tagged helpers from "
        "vllm.transformers_utils.repo_utils (e.g. hf_api(), hf_fs(), list_repo_files, file_exists) "
        "instead of calling huggingface_hub directly.",
        "vllm/hub.py:5:38: transformers-legacy-names Use the Transformers v5 names, e.g. PreTrainedConfig, "
        "PythonBackend, TokenizersBackend, TorchvisionBackend, tokenization_utils_tokenizers, "
        "tokenization_utils_sentencepiece and image_processing_backends.",
        "vllm/ir/op.py:1:6: vllm-ir-boundary vLLM IR must not depend on the rest of vLLM: "
        "import only vllm.ir, vllm.logger and vllm.logging_utils.",
        # The fallback for a failed import of the gateway: through the gateway it would fail too.
        "vllm/models/minimax_m3/amd/ops/sparse_pa.py:4:12: triton Use 'from vllm.triton_utils import triton' instead. "
        "(not fixable: it is the fallback for a failed import of the gateway `vllm.triton_utils`)",
        "vllm/utils/misc.py:1:12: re [*] Replace 'import re' with 'import regex as re' or 'import regex'.",
        "vllm/utils/misc.py:2:8: base64 [*] Replace 'import base64' with 'import pybase64' or 'import pybase64 as base64'.",
        "vllm/utils/misc.py:3:8: pickle Avoid using pickle or cloudpickle or add this file to the pickle rule's allow_in.",
        "vllm/utils/misc.py:4:8: tilelang [*] Use 'from vllm.tilelang_utils import tilelang, T' instead.",
        "vllm/v1/worker/gpu/sample/watermark.py:4:12: triton [*] Use 'from vllm.triton_utils import triton' instead.",
        f"vllm/worker/mem.py:6:5: torch-cuda-api {CUDA_MESSAGE}",
        f"vllm/worker/mem.py:7:19: torch-cuda-api {CUDA_MESSAGE}",
        "vllm/worker/mem.py:8:5: torch-cuda-manual-seed Found torch.cuda manual_seed API call. Use set_random_seed instead.",
        "Found 13 violations (4 fixable with --fix).",
    ]


def test_reduced_tree_fixes(vllm: Project) -> None:
    _reduced_tree(vllm)
    code, out, _ = vllm.run("check", "--select", "triton,tilelang,re,base64", "--fix", "vllm")
    assert (code, out) == (1, (
        "vllm/models/minimax_m3/amd/ops/sparse_pa.py:4:12: triton Use 'from vllm.triton_utils import triton' instead. "
        "(not fixable: it is the fallback for a failed import of the gateway `vllm.triton_utils`)\n"
        "Found 5 violations (4 fixed, 1 remaining).\n"
    ))
    assert (vllm.root / "vllm/utils/misc.py").read_text() == (
        "import os, regex as re\nimport pybase64 as base64\nimport pickle\nfrom vllm.tilelang_utils import tilelang\n"
    )
    assert (vllm.root / "vllm/v1/worker/gpu/sample/watermark.py").read_text() == (
        "from vllm.triton_utils import HAS_TRITON\n\nif HAS_TRITON:\n    from vllm.triton_utils import tl\n"
    )
    assert (vllm.root / "vllm/models/minimax_m3/amd/ops/sparse_pa.py").read_text() == (
        "try:\n    from vllm.triton_utils import tl, triton\nexcept ImportError:\n    import triton\n"
    )


def test_the_triton_gateway_itself_imports_triton(vllm: Project) -> None:
    # vllm/triton_utils/__init__.py is the gateway: its module-level imports (under
    # `if TYPE_CHECKING or HAS_TRITON:`, runtime code) are what the rule points others to.
    gateway = (
        "from typing import TYPE_CHECKING\n\nfrom vllm.triton_utils.importing import HAS_TRITON\n\n"
        "if TYPE_CHECKING or HAS_TRITON:\n    import triton\n    import triton.language as tl\n"
    )
    vllm.write("vllm/triton_utils/__init__.py", gateway)
    vllm.write("vllm/triton_utils/importing.py", "import triton\n")
    vllm.write("vllm/triton_utils/other.py", "import triton\n")
    code, out, _ = vllm.run("check", "--select", "triton", "vllm")
    assert code == 1
    assert out.splitlines() == [
        # Part of the gateway package: never rewritten to import the package it is part of.
        "vllm/triton_utils/other.py:1:8: triton Use 'from vllm.triton_utils import triton' instead. (not fixable: "
        "`vllm.triton_utils.other` is part of the gateway `vllm.triton_utils`; the fix would make the gateway "
        "import itself)",
        "Found 1 violation (0 fixable with --fix).",
    ]


# -- torch.cuda: banned API uses, resolved through aliases -----------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import torch\n\ntorch.cuda.empty_cache()\n", ["w.py:3:1: torch-cuda-api"]),
        ("import torch.cuda as tc\nn = tc.device_count()\n", ["w.py:2:5: torch-cuda-api"]),
        ("from torch import cuda\ncuda.synchronize()\n", ["w.py:2:1: torch-cuda-api"]),
        ("from torch.cuda import max_memory_allocated\n", ["w.py:1:24: torch-cuda-api"]),
        ("import torch\nwith torch.cuda.device(0):\n    pass\n", ["w.py:2:6: torch-cuda-api"]),
        ("from vllm.platforms import current_platform\nfree, _ = current_platform.mem_get_info()\n", ["w.py:2:11: torch-cuda-api"]),
        ("import torch as t\nt.cuda.manual_seed_all(0)\n", ["w.py:2:1: torch-cuda-manual-seed"]),
        ("import torch\ntorch.accelerator.synchronize()\nok = torch.cuda.is_available()\n", []),
        ('import torch\n"""torch.cuda.synchronize()"""\n# torch.cuda.empty_cache()\n', []),
        ("torch.cuda.synchronize()  # no import of torch: not the module\n", []),
    ],
)
def test_torch_cuda(vllm: Project, source: str, expected: list[str]) -> None:
    vllm.write("w.py", source)
    code, out, _ = vllm.run("check", "--select", "torch-cuda-api,torch-cuda-manual-seed", "w.py")
    found = [" ".join(line.split(" ")[:2]) for line in out.splitlines()[:-1]] if code else []
    assert (code, found) == ((1, expected) if expected else (0, []))


def test_torch_cuda_allowlist(vllm: Project) -> None:
    for path in ("vllm/platforms/rocm.py", "vllm/device_allocator/cumem.py", "tests/distributed/test_packed_tensor.py"):
        vllm.write(path, "import torch\ntorch.cuda.synchronize()\ntorch.cuda.manual_seed(0)\n")
    vllm.write("tests/distributed/test_other.py", "import torch\ntorch.cuda.synchronize()\n")
    code, out, _ = vllm.run("check", "--select", "torch-cuda-api,torch-cuda-manual-seed", "vllm", "tests")
    assert code == 1
    assert out.splitlines() == [f"tests/distributed/test_other.py:2:1: torch-cuda-api {CUDA_MESSAGE}", "Found 1 violation (0 fixable with --fix)."]


# -- vllm/__init__.py stays lazy ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import vllm.envs\n", ["vllm/__init__.py:1:8"]),
        ("from . import envs\n", ["vllm/__init__.py:1:6"]),
        ("try:\n    from vllm.outputs import RequestOutput\nexcept ImportError:\n    pass\n", ["vllm/__init__.py:2:10"]),
        ("import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    from .outputs import RequestOutput\n", ["vllm/__init__.py:5:10"]),
        ("import importlib\nimportlib.import_module('vllm.outputs')\n", ["vllm/__init__.py:2:25"]),
        ("from .version import __version__\nimport vllm.env_override\n", []),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vllm.outputs import RequestOutput\n", []),
        ("def __getattr__(name):\n    from importlib import import_module\n    return import_module('vllm.outputs')\n", []),
        ("import torch\nimport regex as re\n", []),
    ],
)
def test_init_lazy_imports(vllm: Project, source: str, expected: list[str]) -> None:
    vllm.write("vllm/__init__.py", source)
    code, out, _ = vllm.run("check", "--select", "vllm-init-lazy-imports", "vllm/__init__.py")
    found = [line.split(": ")[0].rsplit(" ", 1)[0] for line in out.splitlines()[:-1]] if code else []
    assert (code, found) == ((1, expected) if expected else (0, []))


def test_init_lazy_imports_applies_to_vllm_init_only(vllm: Project) -> None:
    vllm.write("vllm/engine/__init__.py", "from vllm.engine.arg_utils import EngineArgs\n")
    vllm.write("other/__init__.py", "from vllm.engine.arg_utils import EngineArgs\n")
    code, out, _ = vllm.run("check", "--select", "vllm-init-lazy-imports", "vllm", "other")
    assert (code, out) == (0, "All checks passed!\n")


# -- the preset ships in the wheel ------------------------------------------------------------


@pytest.mark.slow
def test_extends_vllm_loads_from_an_installed_wheel(tmp_path: Path) -> None:
    source = _mkdir(tmp_path / "src-copy")  # built from a copy: no build/ folder in the shared tree
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    shutil.copytree(REPO / "rules", source / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(  # a wheel that does not build is a failure, never a skip
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, check=False,
    )
    assert built.returncode == 0, f"the wheel does not build: {built.stderr.strip()[-2000:]}"
    (wheel,) = (tmp_path / "dist").glob("import_policy-*.whl")
    project = _mkdir(tmp_path / "checkout")
    (project / "import-policy.yaml").write_text("version: 1\nextends: [vllm]\n", encoding="utf-8")
    script = (
        "import sys, import_policy\n"
        f"assert import_policy.__file__.startswith({str(wheel)!r}), import_policy.__file__\n"
        "from import_policy.cli import main\n"
        "sys.exit(main(['rules']))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, check=False,
        env={"PYTHONPATH": str(wheel), "PATH": "/usr/bin:/bin"},
    )
    assert ran.returncode == 0, ran.stderr
    table = ran.stdout.split("\n\n")[0]  # the merged rocm_safety settings follow the table
    listed = [line.split()[0] for line in table.splitlines()[1:]]
    assert set(VLLM_RULES) <= set(listed)
    assert "preset vllm:" in ran.stdout


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# -- the ROCm-safety settings: entry modules, probes, guards ------------------------------------

ROCM_RULES = "trial-import-probe,eager-heavy-import,import-time-jit,heavy-import-reachable"
ENTRIES = (
    "vllm", "vllm.platforms.rocm", "vllm.v1.worker.gpu_worker", "vllm.v1.engine.core",
    "vllm.entrypoints.openai.api_server", "vllm.model_executor.layers.quantization",
)


def _reduced_rocm_tree(project: Project) -> None:
    """One case per ROCm rule under the preset's settings, shaped after vLLM 0.33.0 and #51151:
    the entry module `vllm.model_executor.layers.quantization` imports mhc eagerly, and mhc asks
    has_tilelang() at import time."""
    for package in (
        "vllm", "vllm/model_executor", "vllm/model_executor/layers", "vllm/models", "vllm/utils", "vllm/platforms",
        "vllm/v1", "vllm/v1/worker", "vllm/v1/engine", "vllm/entrypoints", "vllm/entrypoints/openai",
    ):
        project.write(f"{package}/__init__.py", "")
    for entry in ("vllm/v1/worker/gpu_worker.py", "vllm/v1/engine/core.py", "vllm/entrypoints/openai/api_server.py"):
        project.write(entry, "")
    project.write("vllm/platforms/__init__.py", "current_platform = None\n")
    project.write("vllm/platforms/rocm.py", "import torch\n")
    project.write(
        "vllm/utils/import_utils.py",
        """\
        import importlib
        import importlib.util


        def _has_module(name):
            importlib.import_module(name)
            return True


        def _has_module_spec(name):
            return importlib.util.find_spec(name) is not None


        def has_tilelang():
            return _has_module("tilelang")


        def has_aiter():
            return _has_module_spec("aiter")
        """,
    )
    project.write(
        "vllm/model_executor/layers/mhc.py",
        "from vllm.utils.import_utils import has_aiter, has_tilelang\n\nHAS_TILELANG_MHC = has_tilelang()\nHAS_AITER = has_aiter()\n",
    )
    # The entry module: mhc eagerly; the model only from inside a function (lazy, like get_quantization_config()).
    project.write(
        "vllm/model_executor/layers/quantization/__init__.py",
        "from vllm.model_executor.layers import mhc\n\n\ndef get_quantization_config():\n    from vllm.models import dsv4\n    return dsv4\n",
    )
    project.write("vllm/models/dsv4.py", "import aiter\n")
    project.write("vllm/models/kernels.py", "import triton\n\n\n@triton.jit\ndef kernel():\n    pass\n")
    project.write(
        "vllm/models/cuda_only.py",
        "from vllm.platforms import current_platform\n\nif current_platform.is_cuda():\n    import tilelang\n",
    )


def test_reduced_vllm_tree_rocm_pass(vllm: Project) -> None:
    _reduced_rocm_tree(vllm)
    code, out, _ = vllm.run("check", "--select", ROCM_RULES, "vllm")
    assert code == 1
    # dsv4's aiter is eager in its own module but reached only from a function: only the opt-in
    # eager-heavy-import reports it. has_aiter() probes with _has_module_spec, cuda_only.py imports
    # under is_cuda(), and triton is not heavy: silent.
    assert out.splitlines() == [
        "vllm/model_executor/layers/mhc.py:3:20: heavy-import-reachable importing `vllm.model_executor.layers.quantization` "
        'calls `has_tilelang() -> _has_module("tilelang")`, which imports `tilelang`: '
        "vllm.model_executor.layers.quantization -> vllm.model_executor.layers.mhc -> tilelang "
        "(tilelang: on ROCm its HIP stub replaces hipMalloc/hipFree for the whole process, vLLM #51151)",
        "vllm/models/dsv4.py:1:8: eager-heavy-import heavy module `aiter` is imported when this module is imported; "
        "import it where it is used, or under a guard (aiter: AMD's kernel library: loads (and may JIT-build) HIP "
        "modules at import, whatever the config asks)",
        'vllm/utils/import_utils.py:15:12: trial-import-probe `_has_module("tilelang")` imports `tilelang` just to see '
        "whether it is installed; use `_has_module_spec`, which only looks for the module",
        "Found 3 violations (0 fixable with --fix).",
        "No fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]


# vLLM 0.33.0's #51151 route, reduced: the ROCm worker reaches mhc through the DeepSeek-V4 package.
ROUTE_51151 = {
    "vllm/v1/worker/gpu_worker.py": "from vllm.v1.worker.gpu.warmup import warmup\n",
    "vllm/v1/worker/gpu/__init__.py": "",
    "vllm/v1/worker/gpu/warmup.py": "from vllm.v1.worker.gpu.model_runner import Runner\n\ndef warmup():\n    pass\n",
    "vllm/v1/worker/gpu/model_runner.py": "from vllm.v1.worker.gpu.eplb_utils import eplb\n\nclass Runner:\n    pass\n",
    "vllm/v1/worker/gpu/eplb_utils.py": "from vllm.models.deepseek_v4 import DSpark\n\ndef eplb():\n    pass\n",
    "vllm/models/deepseek_v4/__init__.py": (
        "from vllm.platforms import current_platform\n\n"
        "if current_platform.is_rocm():\n    from .amd.dspark import DSpark\nelse:\n    from .nvidia.dspark import DSpark\n"
    ),
    "vllm/models/deepseek_v4/amd/__init__.py": "",
    "vllm/models/deepseek_v4/amd/dspark.py": "from vllm.model_executor.layers import mhc\n\nclass DSpark:\n    pass\n",
    "vllm/models/deepseek_v4/nvidia/__init__.py": "",
    "vllm/models/deepseek_v4/nvidia/dspark.py": "import deep_gemm\n\nclass DSpark:\n    pass\n",
    "vllm/model_executor/layers/mhc.py": (
        "from vllm.utils.import_utils import has_tilelang\n\n\n"
        "def _has_tilelang_mhc():\n    if not has_tilelang():\n        return False\n    return True\n\n\n"
        "HAS_TILELANG_MHC = _has_tilelang_mhc()\n"
    ),
    "vllm/model_executor/layers/quantization/__init__.py": "",
    # the CUDA-only shapes that must stay silent: a muse_spark-like package, flint-like early return
    "vllm/models/muse/__init__.py": (
        "from typing import TYPE_CHECKING\nfrom vllm.platforms import current_platform\n\n"
        "if TYPE_CHECKING or not current_platform.is_rocm():\n    from .nvidia import kernels\n"
    ),
    "vllm/models/muse/nvidia/__init__.py": "",
    "vllm/models/muse/nvidia/kernels.py": "import cutlass\nimport triton\n\n@triton.jit\ndef k():\n    pass\n",
    "vllm/models/flint.py": (
        "from vllm.platforms import current_platform\n\n\ndef _load():\n"
        "    if not current_platform.is_cuda():\n        return None\n    import deep_gemm\n    return deep_gemm\n\n\n"
        "KERNELS = _load()\n"
    ),
}


@pytest.mark.parametrize("spec_only", [False, True], ids=["regressed", "as-shipped"])
def test_51151_rebuilt_in_a_reduced_tree(vllm: Project, spec_only: bool) -> None:
    """has_tilelang() back on `_has_module`: reported at mhc's import-time call with the worker's chain,
    and at the probe; with `_has_module_spec` (as 0.33.0 ships) neither."""
    _reduced_rocm_tree(vllm)
    for path, text in ROUTE_51151.items():
        vllm.write(path, text)
    vllm.write("vllm/models/muse_spark.py", "from vllm.models import muse, flint\n")
    vllm.write("vllm/v1/worker/gpu/warmup.py", ROUTE_51151["vllm/v1/worker/gpu/warmup.py"] + "from vllm.models import muse_spark\n")
    if spec_only:
        source = (vllm.root / "vllm/utils/import_utils.py").read_text()
        vllm.write("vllm/utils/import_utils.py", source.replace('return _has_module("tilelang")', 'return _has_module_spec("tilelang")'))
    code, out, _ = vllm.run("check", "--format", "json", "--ignore", "eager-heavy-import", "vllm")
    rocm = ROCM_RULES.split(",")
    found = [(d["rule"], d["path"], d["line"], d.get("chain")) for d in json.loads(out)["diagnostics"] if d["rule"] in rocm]
    if spec_only:
        assert found == []
        return
    assert found == [
        ("heavy-import-reachable", "vllm/model_executor/layers/mhc.py", 10, [
            "vllm.v1.worker.gpu_worker", "vllm.v1.worker.gpu.warmup", "vllm.v1.worker.gpu.model_runner",
            "vllm.v1.worker.gpu.eplb_utils", "vllm.models.deepseek_v4", "vllm.models.deepseek_v4.amd.dspark",
            "vllm.model_executor.layers.mhc", "tilelang",
        ]),
        ("trial-import-probe", "vllm/utils/import_utils.py", 15, None),
    ]


def test_why_tilelang_from_the_preset_entry_modules(vllm: Project) -> None:
    _reduced_rocm_tree(vllm)
    code, out, err = vllm.run("why", "tilelang")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "vllm: no eager import chain to tilelang",
        "vllm.platforms.rocm: no eager import chain to tilelang",
        "vllm.v1.worker.gpu_worker: no eager import chain to tilelang",
        "vllm.v1.engine.core: no eager import chain to tilelang",
        "vllm.entrypoints.openai.api_server: no eager import chain to tilelang",
        "vllm.model_executor.layers.quantization -> tilelang (2 links):",
        "  vllm/model_executor/layers/quantization/__init__.py:1: vllm.model_executor.layers.quantization -> "
        "vllm.model_executor.layers.mhc (from vllm.model_executor.layers import mhc)",
        '  vllm/model_executor/layers/mhc.py:3: vllm.model_executor.layers.mhc -> tilelang (calls has_tilelang() -> _has_module("tilelang"))',
    ]


def test_import_vllm_must_not_load_cv2_or_async_compile(vllm: Project) -> None:
    """tests/standalone_tests/lazy_imports.py, statically: an eager chain from `import vllm`."""
    vllm.write("vllm/__init__.py", "import vllm.env_override\n\n\ndef __getattr__(name):\n    import vllm.multimodal\n")
    vllm.write("vllm/env_override.py", "import torch\nfrom vllm.logger import init_logger\n")
    vllm.write("vllm/logger.py", "import logging\n\n\ndef init_logger(name):\n    return logging.getLogger(name)\n")
    vllm.write("vllm/multimodal/__init__.py", "import cv2\n")  # loaded lazily, in __getattr__
    assert vllm.lines("--select", "light-vllm-import") == []
    vllm.write("vllm/logger.py", "import logging\nfrom torch._inductor import async_compile\n")
    assert vllm.lines("--select", "light-vllm-import") == [
        "vllm/logger.py:2:29: light-vllm-import `import vllm` must not load torch._inductor.async_compile "
        "(tests/standalone_tests/lazy_imports.py): import it where it is used: "
        "vllm -> vllm.env_override -> vllm.logger -> torch._inductor.async_compile"
    ]
