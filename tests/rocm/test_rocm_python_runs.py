"""The pass follows code as Python runs it: classes called at import time, the binding that ran
last, flags in dicts, the submodule `from pkg import b` loads.

Each case is a small package; what it loads on ROCm comes from Python itself: the package is
imported in a subprocess with stand-in heavy modules (each records its import) and a stand-in
torch whose `torch.version.hip` is set, and the heavy modules it loaded are compared with the
ones the pass reports as reached from the entry.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import Project

HEAVY = ("flash_attn", "xformers", "aiter", "transformer_engine", "flashinfer")
POLICY = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  heavy_modules: {transformer_engine: CUDA-only}
  entry_modules: [app]
exclude: ["_standins/**"]
"""
# Stand-ins: a heavy module records that it was imported; torch describes a ROCm build.
STANDINS = {
    **{f"_standins/{name}/__init__.py": f"import _loaded\n_loaded.add({name!r})\ndef f(*a, **k):\n    return 1\nflash_attn_func = f\n" for name in HEAVY},
    "_standins/transformer_engine/pytorch.py": "te = 1\n",
    "_standins/_loaded.py": "import atexit, json, os\nseen = set()\ndef add(name):\n    seen.add(name)\natexit.register(lambda: print('LOADED ' + json.dumps(sorted(seen))))\n",
    "_standins/torch/__init__.py": "from torch import version, cuda\n",
    "_standins/torch/version.py": "cuda = None\nhip = '6.2'\n",
    "_standins/torch/cuda.py": "def is_available():\n    return True\n",
}


def loaded_by_python(root: Path, entry: str = "app") -> set[str]:
    """The heavy modules importing `entry` loads, as Python runs it."""
    code = f"import sys; sys.path[:0] = [{str(root / '_standins')!r}, {str(root)!r}]; import _loaded, {entry}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    return set(json.loads(line[len("LOADED "):]))


def reported(project: Project) -> tuple[set[str], list[dict[str, object]]]:
    code, out, err = project.run("check", "--no-cache", "--format", "json", "--select", "heavy-import-reachable", "app")
    assert code in (0, 1), err
    found = json.loads(out)["diagnostics"]
    heavy = set()
    for finding in found:
        message = str(finding["message"])
        heavy.update(name for name in HEAVY if f"`{name}" in message)
    return heavy, found


def write(project: Project, files: dict[str, str]) -> None:
    project.config(POLICY)
    for path, text in {**STANDINS, **files}.items():
        project.write(path, textwrap.dedent(text))


ENV_CHECKER = """\
import torch

def _is_hip():
    return torch.version.hip is not None

class EnvChecker:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.initialize()
        return cls._instance

    def initialize(self):
        self.info = {"has_fa": self.check_flash_attn(), "has_te": self.check_te()}

    def check_flash_attn(self):
        {guard}
        try:
            from flash_attn import flash_attn_func
            return True
        except ImportError:
            return False

    def check_te(self):
        return False

ENV_CHECKER = EnvChecker()
"""

# (what the case is, its files, the heavy modules Python loads on ROCm)
CASES = [
    ("a singleton whose __new__ runs a trial import", {
        "app/__init__.py": "from app import env\n",
        "app/env.py": ENV_CHECKER.replace("{guard}", "pass"),
    }, {"flash_attn"}),
    ("a method that returns early on ROCm", {
        "app/__init__.py": "from app import env\n",
        "app/env.py": ENV_CHECKER.replace("{guard}", "if not torch.cuda.is_available() or _is_hip():\n            return False"),
    }, set()),
    ("a class whose constructor imports nothing heavy", {
        "app/__init__.py": "class C:\n    def __init__(self):\n        self.x = 1\n    def load(self):\n        import xformers\nC()\n",
    }, set()),
    ("an inherited __init__ through a base in another module, calling an override", {
        "app/__init__.py": "from app.impl import Impl\nIMPL = Impl()\n",
        "app/base.py": "class Base:\n    def __init__(self):\n        self.setup()\n    def setup(self):\n        pass\n",
        "app/impl.py": "from app.base import Base\nclass Impl(Base):\n    def setup(self):\n        import xformers\n",
    }, {"xformers"}),
    ("super().__init__() runs the base's", {
        "app/__init__.py": "class A:\n    def __init__(self):\n        import aiter\nclass B(A):\n    def __init__(self):\n        super().__init__()\nB()\n",
    }, {"aiter"}),
    ("a static method called on the class", {
        "app/__init__.py": "class K:\n    @staticmethod\n    def load():\n        import flashinfer\nclass L(K):\n    pass\nL.load()\n",
    }, {"flashinfer"}),
    ("a method of a module-level instance", {
        "app/__init__.py": "class K:\n    def load(self):\n        import flashinfer\nk = K()\nk.load()\n",
    }, {"flashinfer"}),
    ("a rebinding after the read", {
        "app/__init__.py": textwrap.dedent("""\
            import torch
            _FAST = torch.version.cuda is not None
            if _FAST:
                try:
                    from flash_attn import flash_attn_func
                except Exception:
                    _FAST = False
            """),
    }, set()),
    ("a rebinding before the read", {
        "app/__init__.py": "import torch\nON = False\nON = torch.version.hip is not None\nif ON:\n    import aiter\n",
    }, {"aiter"}),
    ("a dict entry true on ROCm", {
        "app/__init__.py": "import torch\nenv = {'hip': torch.version.hip is not None, 'cuda': torch.version.cuda is not None}\nif env['hip']:\n    import aiter\nif env.get('cuda'):\n    import xformers\n",
    }, {"aiter"}),
    ("torch.version.cuda is not None is false under the preset", {
        "app/__init__.py": "import torch\nif torch.version.cuda is not None:\n    import flashinfer\nif torch.version.hip:\n    import aiter\n",
    }, {"aiter"}),
    ("from pkg import b: b bound only under TYPE_CHECKING", {
        "app/__init__.py": "from app.pkg import side\n",
        "app/pkg/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    side = None\n",
        "app/pkg/side.py": "import xformers\n",
    }, {"xformers"}),
    ("from pkg import b: b bound under if False, or deleted", {
        "app/__init__.py": "from app.pkg import side, other\n",
        "app/pkg/__init__.py": "if False:\n    side = None\nother = None\ndel other\n",
        "app/pkg/side.py": "import xformers\n",
        "app/pkg/other.py": "import aiter\n",
    }, {"xformers", "aiter"}),
    ("from pkg import b: a try that fails", {
        "app/__init__.py": "from app.pkg import side\n",
        "app/pkg/__init__.py": "try:\n    from app.pkg._missing import side\nexcept ImportError:\n    pass\n",
        "app/pkg/side.py": "import xformers\n",
    }, {"xformers"}),
    ("from pkg import b: b surely bound", {
        "app/__init__.py": "from app.pkg import side\n",
        "app/pkg/__init__.py": "side = None\n",
        "app/pkg/side.py": "import xformers\n",
    }, set()),
]


@pytest.mark.parametrize(("case", "files", "loads"), CASES, ids=[case[0] for case in CASES])
def test_the_pass_reports_what_python_loads(project: Project, case: str, files: dict[str, str], loads: set[str]) -> None:
    write(project, files)
    assert loaded_by_python(project.root) == loads, case  # the expectation is Python's
    heavy, _ = reported(project)
    assert heavy == loads, case


def test_an_except_importerror_fallback_in_pkg_init_is_an_edge(project: Project) -> None:
    write(project, {
        "app/__init__.py": "from app import pkg\n",
        "app/pkg/__init__.py": "try:\n    from app.pkg import side\nexcept ImportError:\n    side = None\n",
        "app/pkg/side.py": "import xformers\n",
        "app/user.py": "from app.pkg import side\n",
    })
    assert loaded_by_python(project.root) == {"xformers"}
    heavy, [finding] = reported(project)
    assert heavy == {"xformers"}
    assert finding["chain"] == ["app", "app.pkg", "app.pkg.side", "xformers"]


def test_the_site_is_the_import_time_call_with_the_chain_through_the_methods(project: Project) -> None:
    write(project, {"app/__init__.py": "from app import env\n", "app/env.py": ENV_CHECKER.replace("{guard}", "pass")})
    _, [finding] = reported(project)
    assert (finding["path"], finding["line"]) == ("app/env.py", 29)  # `ENV_CHECKER = EnvChecker()`
    assert "EnvChecker() -> initialize() -> check_flash_attn() -> try: import flash_attn" in str(finding["message"])


WORKED = {
    "app/__init__.py": "from app import env, model\n",
    "app/env.py": "class Checker:\n    def get_info(self):\n        return {'has_te': self.probe()}\n    def probe(self):\n        return False\nenv = Checker().get_info()\n",
    "app/model.py": "from app.env import env\nif env['has_te']:\n    from transformer_engine.pytorch import te\n",
}


def test_a_finding_names_the_test_it_could_not_judge_and_one_values_line_settles_it(project: Project) -> None:
    write(project, WORKED)
    assert loaded_by_python(project.root) == set()
    _, [finding] = reported(project)
    assert (finding["path"], finding["line"]) == ("app/model.py", 3)
    assert str(finding["message"]).endswith(
        "; under `env['has_te']`, which the pass cannot judge on ROCm: state it in rocm_safety.values"
    )
    project.config(POLICY.replace("  entry_modules: [app]\n", "  entry_modules: [app]\n  values:\n    env[\"has_te\"]: false\n"))
    assert reported(project) == (set(), [])


def test_a_call_names_the_tests_on_its_way_it_could_not_judge(project: Project) -> None:
    write(project, {"app/__init__.py": "def load():\n    if not FAST or SLOW:\n        return\n    import aiter\nif MODE == 'x':\n    load()\n"})
    _, [finding] = reported(project)
    assert str(finding["message"]).endswith(
        "; under `MODE == 'x'`, `not FAST or SLOW`, which the pass cannot judge on ROCm: state them in rocm_safety.values"
    )


def test_a_site_under_judged_tests_names_none(project: Project) -> None:
    write(project, {"app/__init__.py": "import torch\nif torch.version.hip:\n    import aiter\n"})
    _, [finding] = reported(project)
    assert "cannot judge" not in str(finding["message"])


def test_a_method_of_an_instance_another_module_built(project: Project) -> None:
    write(project, {
        "app/__init__.py": "from app.env import CHECKER\nCHECKER.load()\n",
        "app/env.py": "class Checker:\n    def load(self):\n        import flashinfer\nCHECKER = Checker()\n",
    })
    assert loaded_by_python(project.root) == {"flashinfer"}
    heavy, [finding] = reported(project)
    assert heavy == {"flashinfer"} and (finding["path"], finding["line"]) == ("app/__init__.py", 2)


# xfuser 0.7.0's shape (xfuser/envs.py): a module-level singleton whose `__new__` runs
# `initialize()`, which runs check methods that each try an import; one under a platform test
# (`torch.cuda.is_available()`, true on ROCm), the others under none.
XFUSER_HEAVY = ("flash_attn", "flash_attn_interface", "flex_block_attn")
XFUSER_ENVS = """\
import torch


def _is_npu():
    return hasattr(torch, "npu")


class PackagesEnvChecker:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super(PackagesEnvChecker, cls).__new__(cls)
            cls._instance.initialize()
        return cls._instance

    def initialize(self):
        packages_info = {}
        packages_info["has_flash_attn"] = self.check_flash_attn()
        packages_info["has_flash_attn_3"] = self._check_flash_attn_3()
        packages_info["has_flex_block_attn"] = self._check_flex_block_attn()
        self.packages_info = packages_info

    def check_flash_attn(self):
        if not torch.cuda.is_available():
            return False
        if _is_npu():
            return False
        try:
            from flash_attn import flash_attn_func
            return True
        except ImportError:
            return False

    def _check_flash_attn_3(self):
        try:
            from flash_attn_interface import flash_attn_func as flash3_attn_func
            return True
        except:
            return False

    def _check_flex_block_attn(self):
        try:
            from flex_block_attn import flex_block_attn_func
            return True
        except:
            return False


PACKAGES_CHECKER = PackagesEnvChecker()
"""


def test_a_call_that_loads_several_heavy_modules_is_one_finding_naming_each(project: Project) -> None:
    standins = {
        f"_standins/{name}/__init__.py": f"import _loaded\n_loaded.add({name!r})\nflash_attn_func = flex_block_attn_func = 1\n"
        for name in XFUSER_HEAVY
    }
    write(project, {**standins, "app/__init__.py": "from app import envs\n", "app/envs.py": XFUSER_ENVS})
    project.config(POLICY.replace("{transformer_engine: CUDA-only}", "[flash_attn_interface, flex_block_attn]"))
    loaded = loaded_by_python(project.root)
    assert loaded == set(XFUSER_HEAVY)
    code, out, err = project.run("check", "--no-cache", "--format", "json", "--select", "heavy-import-reachable", "app")
    found = json.loads(out)["diagnostics"]
    assert [(d["path"], d["line"]) for d in found] == [("app/envs.py", 50)], out + err
    named = {name for name in XFUSER_HEAVY if f"`{name}`" in str(found[0]["message"])}
    assert named == loaded
    # `why` finds the site by each of its modules.
    code, out, err = project.run("why", "flex_block_attn")
    assert "app.envs -> flex_block_attn (calls PackagesEnvChecker() -> initialize() -> _check_flex_block_attn()" in out, out + err


# torchao 0.18.0's shape (torchao/prototype/moe_training/kernels/mxfp8/cute_utils.py): a module
# table of module names, looped over in one helper that `find_spec`s each, run at import time
# through another; `find_spec("cutlass.cute")` imports `cutlass` to look inside it.
TORCHAO_UTILS = """\
import importlib.util

_CUTEDSL_RUNTIME_PACKAGES = {
    "cuda.bindings.driver": "cuda-python",
    "cutlass.cute": "nvidia-cutlass-dsl",
    "tvm_ffi": "apache-tvm-ffi",
}


def _missing_cutedsl_runtime_packages():
    missing = []
    for module_name, package_name in _CUTEDSL_RUNTIME_PACKAGES.items():
        try:
            spec = importlib.util.find_spec(module_name)
        except (ModuleNotFoundError, ValueError):
            spec = None
        if spec is None and package_name not in missing:
            missing.append(package_name)
    return missing


def _cutedsl_runtime_available():
    return len(_missing_cutedsl_runtime_packages()) == 0


if _cutedsl_runtime_available():
    AVAILABLE = True
"""
# The same through a loop over a display written in the loop, and a literal subscript.
LOOP_AND_SUBSCRIPT = """\
from importlib.util import find_spec

KERNELS = ["xformers.ops", "flashinfer.jit"]


def _probe_all():
    for name in ("aiter.ops", "os.path"):
        find_spec(name)


def _probe_second():
    return find_spec(KERNELS[1])


_probe_all()
HAS = _probe_second()
"""


@pytest.mark.parametrize(
    ("files", "heavy", "lines"),
    [
        ({"app/__init__.py": "from app import cute_utils\n", "app/cute_utils.py": TORCHAO_UTILS}, ("cutlass",), [26]),
        ({"app/__init__.py": "from app import kernels\n", "app/kernels.py": LOOP_AND_SUBSCRIPT}, ("aiter", "flashinfer"), [15, 16]),
    ],
    ids=["torchao", "loop-and-subscript"],
)
def test_find_spec_of_a_name_from_a_literal_table_loads_its_parent(
    project: Project, files: dict[str, str], heavy: tuple[str, ...], lines: list[int]
) -> None:
    standins = {f"_standins/{name}/__init__.py": f"import _loaded\n_loaded.add({name!r})\n" for name in heavy}
    standins.update({f"_standins/{name}/{sub}.py": "" for name, sub in (("cutlass", "cute"), ("aiter", "ops"), ("flashinfer", "jit"))})
    write(project, {**standins, **files})
    project.config(POLICY.replace("{transformer_engine: CUDA-only}", "[" + ", ".join(heavy) + "]"))
    loaded = loaded_by_python(project.root)
    assert loaded == set(heavy)
    code, out, err = project.run("check", "--no-cache", "--format", "json", "--select", "heavy-import-reachable", "app")
    found = json.loads(out)["diagnostics"]
    assert [d["line"] for d in found] == lines, out + err
    assert {name for name in heavy for d in found if f"`{name}`" in str(d["message"])} == loaded


# A literal name passed through a project function: the loop's name (or a string literal) is the
# argument of a helper, in the same module or another, whose body `find_spec`s its parameter.
PASSED_CHECKS = """\
import importlib.util


def check(n):
    return importlib.util.find_spec(n) is not None
"""
PASSED_APP = """\
from app.checks import check


def helper(name):
    return check(name)


for name in ("cutlass.cute", "os.path"):
    check(name)

OK = helper("aiter.ops")
"""


def test_find_spec_of_a_literal_name_passed_through_project_functions_loads_its_parent(project: Project) -> None:
    heavy = ("aiter", "cutlass")
    standins = {f"_standins/{name}/__init__.py": f"import _loaded\n_loaded.add({name!r})\n" for name in heavy}
    standins.update({"_standins/cutlass/cute.py": "", "_standins/aiter/ops.py": ""})
    write(project, {**standins, "app/__init__.py": "from app import main\n", "app/checks.py": PASSED_CHECKS, "app/main.py": PASSED_APP})
    project.config(POLICY.replace("{transformer_engine: CUDA-only}", "[" + ", ".join(heavy) + "]"))
    assert loaded_by_python(project.root) == set(heavy)
    code, out, err = project.run("check", "--no-cache", "--format", "json", "--select", "heavy-import-reachable", "app")
    found = json.loads(out)["diagnostics"]
    assert [(d["path"], d["line"]) for d in found] == [("app/main.py", 9), ("app/main.py", 11)], out + err
    assert "`cutlass`" in str(found[0]["message"]) and 'check() -> find_spec("cutlass.cute")' in str(found[0]["message"]), out
    assert "`aiter`" in str(found[1]["message"]) and 'helper() -> check() -> find_spec("aiter.ops")' in str(found[1]["message"]), out


# A literal name passed through any parameter: by position or keyword, into plain functions and
# into methods called through `self.`, `cls.`, the class name or the class itself; a parameter
# bound again (a lambda's of the same name included) is never followed.
PASSING_CHECKS = """\
import importlib.util


def spec(kind, n, *, extra=None):
    return importlib.util.find_spec(n), importlib.util.find_spec(name=extra) if extra else None


def shadowed(n):
    look = lambda n: importlib.util.find_spec(n)
    return look("json.decoder")


def rebound(n):
    n = "json.decoder"
    return importlib.util.find_spec(n)


class Checker:
    def __init__(self, n=None):
        if n:
            importlib.util.find_spec(n)

    def helper(self, n):
        return importlib.util.find_spec(n)

    def run(self, name):
        return self.helper(name), self.stat(n=name)

    @staticmethod
    def stat(n):
        return spec("k", n)

    @classmethod
    def has(cls, first, n):
        return cls.stat(n)

    def run_static(self, name):
        return self.stat(name)

    @classmethod
    def via_cls(cls, name):
        return cls.has("json.decoder", name)


class Sub(Checker):
    def __init__(self, n):
        super().__init__(n)


def positional_only(n, /, **rest):
    return importlib.util.find_spec(n)


CHECKER = Checker()
"""
PASSING_CASES = {
    "second_positional": ('spec("k", "aiter.ops")', {"aiter"}),
    "keyword": ('spec(kind="k", n="xformers.ops")', {"xformers"}),
    "keyword_only": ('spec("k", "json.decoder", extra="flashinfer.jit")', {"flashinfer"}),
    "method_through_self": ('CHECKER.run("aiter.ops")', {"aiter"}),
    "classmethod_through_the_class": ('Checker.has("json.decoder", "flash_attn.ops")', {"flash_attn"}),
    "staticmethod_through_the_class": ('Checker.stat(n="xformers.ops")', {"xformers"}),
    "the_class_called": ('Checker("transformer_engine.pytorch")', {"transformer_engine"}),
    "instance_method_through_the_class": ('Checker.helper(Checker(), "flashinfer.jit")', {"flashinfer"}),
    "find_spec_by_keyword": ('importlib.util.find_spec(name="aiter.ops")', {"aiter"}),
    "staticmethod_through_self": ('CHECKER.run_static("xformers.ops")', {"xformers"}),
    "classmethod_through_cls": ('Checker.via_cls("flash_attn.ops")', {"flash_attn"}),
    "super_init": ('Sub("aiter.ops")', {"aiter"}),
    "positional_only_by_keyword": ('positional_only("json.decoder", n="aiter.ops")', set()),
    "lambda_parameter_of_the_same_name": ('shadowed("aiter.ops")', set()),
    "rebound": ('rebound("aiter.ops")', set()),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(PASSING_CASES))
def test_a_literal_name_passed_to_any_parameter_is_followed_as_python_binds_it(project: Project, case: str) -> None:
    call, expected = PASSING_CASES[case]
    app = f"import importlib.util\nfrom app.checks import CHECKER, Checker, Sub, positional_only, rebound, shadowed, spec\n\nRESULT = {call}\n"
    write(project, {"app/__init__.py": app, "app/checks.py": PASSING_CHECKS})
    assert loaded_by_python(project.root) == expected
    heavy, found = reported(project)
    assert heavy == expected, found
    assert [finding["line"] for finding in found] == ([4] if expected else []), found
