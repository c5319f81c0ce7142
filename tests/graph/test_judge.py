"""What runs on ROCm (contract section 4), point by point: each with a flag and an allow case.

Each case is `app/mod.py`, imported by the entry module `app`; a finding of
`heavy-import-reachable` there means the pass judged the import to run on ROCm.
"""

from __future__ import annotations

import json

import pytest

from conftest import Project

POLICY = """\
version: 1
rocm_safety:
  heavy_modules:
    aiter: "loads HIP modules at import"
    flashinfer: "CUDA kernels"
    tilelang:
  probes: {_has_module: _has_module_spec}
  guards: [TYPE_CHECKING, is_cuda, is_xpu, torch.version.cuda]
  rocm: [is_rocm, is_hip, torch.version.hip]
  values: {DEVICE_TYPE: hip, SYSTEM: rocm, torch.version.cuda: null, 'info["has_te"]': false, 'info["has_fa"]': true}
  entry_modules: [app]
"""


def reached(project: Project, source: str, extra: dict[str, str] | None = None, rule: str = "heavy-import-reachable") -> list[str]:
    project.config(POLICY)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", source)
    for path, text in (extra or {}).items():
        project.write(path, text)
    return [line for line in project.lines("--select", rule) if line.startswith("app/")]


# (point of the contract, flag source, allow source)
CASES = [
    ("guard is false", "if is_rocm():\n    import aiter\n", "if is_cuda():\n    import aiter\n"),
    ("guard as attribute call", "if current_platform.is_hip():\n    import aiter\n", "if current_platform.is_xpu():\n    import aiter\n"),
    ("rocm name is true: its else does not run", "if is_cuda():\n    pass\nelse:\n    import aiter\n", "if is_rocm():\n    pass\nelse:\n    import aiter\n"),
    ("a dotted name matches however imported", "import torch\nif torch.version.hip:\n    import aiter\n", "from torch import version\nif version.cuda:\n    import aiter\n"),
    ("a dotted name is not a last name", "if args.version.cuda:\n    import aiter\n", "import torch\nif not torch.version.hip:\n    import aiter\n"),
    ("leading underscores ignored", "if _is_hip:\n    import aiter\n", "if _is_cuda:\n    import aiter\n"),
    ("TYPE_CHECKING however imported", "import typing\nif not typing.TYPE_CHECKING:\n    import aiter\n", "from typing import TYPE_CHECKING as TC\nif TC:\n    import aiter\n"),
    ("__main__ blocks", "if __name__ != '__main__':\n    import aiter\n", "if __name__ == '__main__':\n    import aiter\n"),
    ("module-level flag bound once", "_ON = is_cuda() or x\nif _ON:\n    import aiter\n", "_ON = is_cuda() and x\nif _ON:\n    import aiter\n"),
    ("a flag bound twice is unknown", "_ON = is_cuda()\n_ON = y\nif _ON:\n    import aiter\n", "_ON = is_cuda()\nif _ON:\n    import aiter\n"),
    ("a flag bound under an if is unknown", "if z:\n    _ON = is_cuda()\nif _ON:\n    import aiter\n", "_ON = is_cuda()\nif _ON:\n    import aiter\n"),
    ("a flag bound to a literal is state, not a platform test", "_READY = False\ndef load():\n    if _READY:\n        import aiter\nload()\n", "_READY = is_cuda()\ndef load():\n    if _READY:\n        import aiter\nload()\n"),
    ("flag of a rocm name", "USE = is_hip()\nif USE:\n    import aiter\n", "USE = is_hip()\nif not USE:\n    import aiter\n"),
    ("function whose every return is false", "def ok():\n    return is_cuda() or x\nif ok():\n    import aiter\n", "def ok():\n    return is_cuda() and x\nif ok():\n    import aiter\n"),
    ("returns that cannot run are skipped", "def ok():\n    if is_rocm():\n        return y\n    return False\nif ok():\n    import aiter\n", "def ok():\n    if is_cuda():\n        return True\n    return False\nif ok():\n    import aiter\n"),
    ("not", "if not is_cuda():\n    import aiter\n", "if not is_rocm():\n    import aiter\n"),
    ("and", "if is_rocm() and x:\n    import aiter\n", "if x and is_cuda():\n    import aiter\n"),
    ("or", "if is_cuda() or x:\n    import aiter\n", "if is_cuda() or is_xpu():\n    import aiter\n"),
    ("TYPE_CHECKING or not rocm", "if TYPE_CHECKING or not is_hip():\n    pass\nelse:\n    import aiter\n", "from typing import TYPE_CHECKING\nif TYPE_CHECKING or not is_rocm():\n    import aiter\n"),
    ("elif", "if is_cuda():\n    pass\nelif x:\n    import aiter\n", "if is_rocm():\n    pass\nelif x:\n    import aiter\n"),
    ("early return in a function run at import time", "def load():\n    if is_cuda():\n        return\n    import aiter\nload()\n", "def load():\n    if not is_cuda():\n        return None\n    import aiter\nload()\n"),
    ("early raise at module level", "if is_cuda():\n    raise ImportError\nimport aiter\n", "if not is_cuda():\n    raise ImportError('CUDA only')\nimport aiter\n"),
    ("unknown counts as running", "if x:\n    import aiter\n", "if is_cuda():\n    import aiter\n"),
    ("a guard's attribute read is an object's property", "if tensor.is_cuda:\n    import aiter\n", "if current_platform.is_cuda():\n    import aiter\n"),
    ("a rocm attribute read is an object's property", "if x.is_hip:\n    pass\nelse:\n    import aiter\n", "if x.is_hip():\n    pass\nelse:\n    import aiter\n"),
    ("a value ==", "if DEVICE_TYPE == 'hip':\n    import aiter\n", "if DEVICE_TYPE == 'cuda':\n    import aiter\n"),
    ("a value !=", "if DEVICE_TYPE != 'cuda':\n    import aiter\n", "if DEVICE_TYPE != 'hip':\n    import aiter\n"),
    ("a value, literal first", "if 'hip' == DEVICE_TYPE:\n    import aiter\n", "if 'cuda' == DEVICE_TYPE:\n    import aiter\n"),
    ("a value in a tuple", "if DEVICE_TYPE in ('cuda', 'hip'):\n    import aiter\n", "if DEVICE_TYPE in ['cuda', 'xpu']:\n    import aiter\n"),
    ("a value not in", "if DEVICE_TYPE not in ('cuda',):\n    import aiter\n", "if DEVICE_TYPE not in ('hip', 'cpu'):\n    import aiter\n"),
    ("a value whatever the code assigns", "SYSTEM = 'cuda'\nif SYSTEM == 'rocm':\n    import aiter\n", "SYSTEM = 'rocm'\nif SYSTEM == 'cuda':\n    import aiter\n"),
    ("a value imported", "from app.plat import DEVICE_TYPE\nif DEVICE_TYPE == 'hip':\n    import aiter\n", "from app.plat import DEVICE_TYPE as D\nif D == 'cuda':\n    import aiter\n"),
    ("a value in a flag", "_ON = DEVICE_TYPE == 'hip'\nif _ON:\n    import aiter\n", "_ON = DEVICE_TYPE == 'cuda'\nif _ON:\n    import aiter\n"),
    ("a null value is None", "import torch\nif torch.version.cuda is None:\n    import aiter\n", "import torch\nif torch.version.cuda is not None:\n    import aiter\n"),
    ("a rocm dotted entry is not None", "import torch\nif torch.version.hip is not None:\n    import aiter\n", "import torch\nif torch.version.hip is None:\n    import aiter\n"),
    ("getattr reads the attribute", "import torch\nif getattr(torch.version, 'hip', None):\n    import aiter\n", "import torch\nif getattr(torch.version, 'cuda', None):\n    import aiter\n"),
    # The binding that ran last before the read, in module order.
    (
        "a rebinding after the read does not change it",
        "_FAST = DEVICE_TYPE == 'cuda'\ntry:\n    import x\nexcept ImportError:\n    _FAST = y\nif _FAST:\n    import aiter\n",
        "_FAST = DEVICE_TYPE == 'cuda'\nif _FAST:\n    try:\n        import aiter\n    except Exception:\n        _FAST = y\n",
    ),
    ("a rebinding before the read decides", "_ON = is_cuda()\n_ON = is_hip()\nif _ON:\n    import aiter\n", "_ON = x\n_ON = is_cuda()\nif _ON:\n    import aiter\n"),
    ("an if that may rebind it", "_ON = is_cuda()\nif z:\n    _ON = y\nif _ON:\n    import aiter\n", "_ON = is_cuda()\nif z:\n    _ON = is_xpu()\nif _ON:\n    import aiter\n"),
    ("a rebinding that never runs on ROCm", "_ON = is_cuda()\nif is_rocm():\n    _ON = y\nif _ON:\n    import aiter\n", "_ON = is_cuda()\nif is_cuda():\n    _ON = y\nif _ON:\n    import aiter\n"),
    ("a function that rebinds it with global", "_ON = is_cuda()\ndef f():\n    global _ON\n    _ON = y\nif _ON:\n    import aiter\n", "_ON = is_cuda()\ndef f():\n    _ON = y\nif _ON:\n    import aiter\n"),
    ("a del before the read", "_ON = is_cuda()\ndel _ON\nif _ON:\n    import aiter\n", "_ON = y\ndel _ON\n_ON = is_cuda()\nif _ON:\n    import aiter\n"),
    ("in a function, any binding may be in force", "_ON = is_cuda()\ndef f():\n    if _ON:\n        import aiter\nf()\n_ON = y\n", "_ON = is_cuda()\ndef f():\n    if _ON:\n        import aiter\nf()\n_ON = is_xpu()\n"),
    # Flags in dicts.
    ("a dict entry bound by a display", "env = {'has_te': is_hip(), 'n': 1}\nif env['has_te']:\n    import aiter\n", "env = {'has_te': is_cuda(), 'n': 1}\nif env['has_te']:\n    import aiter\n"),
    ("a dict entry bound by a literal key, read with get", "env = {}\nenv['k'] = is_rocm()\nif env.get('k'):\n    import aiter\n", "env = {}\nenv['k'] = is_cuda()\nif env.get('k', False):\n    import aiter\n"),
    ("a dict bound again after its entry", "env = {'k': is_cuda()}\nenv = load()\nif env['k']:\n    import aiter\n", "env = load()\nenv['k'] = is_cuda()\nif env['k']:\n    import aiter\n"),
    ("a dict entry compared with a value", "env = {'dev': DEVICE_TYPE}\nif env['dev'] == 'hip':\n    import aiter\n", "env = {'dev': DEVICE_TYPE}\nif env['dev'] == 'cuda':\n    import aiter\n"),
    ("a dict entry values names", "info = CHECKER.get_info()\nif info['has_fa']:\n    import aiter\n", "info = CHECKER.get_info()\nif info['has_te']:\n    import aiter\n"),
    # `values` and `rocm` describe the process's names, never an object's attribute of that name
    ("a value read as an object's attribute is unknown", "if config.DEVICE_TYPE == 'cuda':\n    import aiter\n", "if DEVICE_TYPE == 'cuda':\n    import aiter\n"),
    ("a rocm name read as an object's attribute may be None", "if x.is_hip is None:\n    import aiter\n", "if is_hip is None:\n    import aiter\n"),
    ("getattr compared with None", "import torch\nif getattr(torch.version, 'hip', None) is not None:\n    import aiter\n", "import torch\nif getattr(torch.version, 'hip', None) is None:\n    import aiter\n"),
]


@pytest.mark.parametrize(("point", "flag", "allow"), CASES, ids=[case[0] for case in CASES])
def test_what_runs_on_rocm(project: Project, point: str, flag: str, allow: str) -> None:
    assert len(reached(project, flag)) == 1, point
    assert reached(project, allow) == [], point


FLAGS = "from app.plat import is_hip\n_is_cuda = False\nUSE_AITER = is_hip()\nCUDA_ONLY = is_cuda()\nOTHER = x()\n"


def test_a_flag_keeps_its_value_where_another_module_imports_it(project: Project) -> None:
    extra = {"app/flags.py": FLAGS}
    assert reached(project, "from app.flags import CUDA_ONLY\nif CUDA_ONLY:\n    import aiter\n", extra) == []
    assert reached(project, "import app.flags as f\nif f.CUDA_ONLY:\n    import aiter\n", extra) == []
    assert len(reached(project, "from app.flags import OTHER\nif OTHER:\n    import aiter\n", extra)) == 1
    assert reached(project, "from app.flags import USE_AITER\nif USE_AITER:\n    pass\nelse:\n    import aiter\n", extra) == []


def test_another_module_reads_the_binding_that_ran_last_in_the_whole_module(project: Project) -> None:
    extra = {"app/flags.py": "ON = x\nON = is_cuda()\nenv = {'on': is_hip(), 'off': is_cuda()}\nLATE = is_cuda()\nif y:\n    LATE = z\n"}
    assert reached(project, "from app.flags import ON\nif ON:\n    import aiter\n", extra) == []
    assert reached(project, "from app.flags import env\nif env['off']:\n    import aiter\n", extra) == []
    assert len(reached(project, "from app.flags import env\nif env['on']:\n    import aiter\n", extra)) == 1
    assert len(reached(project, "import app.flags as f\nif f.env.get('on'):\n    import aiter\n", extra)) == 1
    assert len(reached(project, "from app.flags import LATE\nif LATE:\n    import aiter\n", extra)) == 1


def test_a_value_the_configuration_does_not_give_stays_unknown(project: Project) -> None:
    assert len(reached(project, "if BACKEND == 'cuda':\n    import aiter\n")) == 1
    assert len(reached(project, "if DEVICE_TYPE == other:\n    import aiter\n")) == 1  # not a literal
    assert len(reached(project, "if x.is_cuda_device() == 'hip':\n    import aiter\n")) == 1  # a call's result
    # `is None` of a guard's dotted entry: falsy is not None, so it stays unknown
    policy = POLICY.replace("torch.version.cuda: null", "OTHER: 1")
    project.config(policy)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", "import torch\nif torch.version.cuda is None:\n    import aiter\n")
    assert len([line for line in project.lines("--select", "heavy-import-reachable") if line.startswith("app/")]) == 1


def test_a_module_level_flag_read_as_a_module_attribute(project: Project) -> None:
    extra = {"app/flags.py": "_is_cuda = probe()\nDEVICE_TYPE = probe()\n"}
    assert reached(project, "from app import flags\nif flags._is_cuda:\n    import aiter\n", extra) == []
    assert reached(project, "import app.flags as f\nif f.DEVICE_TYPE == 'cuda':\n    import aiter\n", extra) == []
    assert len(reached(project, "import app.flags as f\nif f.DEVICE_TYPE == 'hip':\n    import aiter\n", extra)) == 1


def test_a_function_of_another_module_whose_returns_are_false(project: Project) -> None:
    extra = {"app/support.py": "def supported():\n    return is_cuda() and has_x()\n\ndef maybe():\n    return has_x()\n"}
    assert reached(project, "from app.support import supported\nif supported():\n    import aiter\n", extra) == []
    assert len(reached(project, "from app.support import maybe\nif maybe():\n    import aiter\n", extra)) == 1


# --- heavy sites --------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "import importlib.util\nOK = importlib.util.find_spec('flashinfer.comm') is not None\n",
        "from importlib.util import find_spec\nOK = find_spec('flashinfer.comm')\n",
        "from importlib import util as u\nOK = u.find_spec('flashinfer.comm')\n",
        "from importlib.util import find_spec\ndef has_comm():\n    return find_spec('flashinfer.comm') is not None\nOK = has_comm()\n",
    ],
)
def test_find_spec_of_a_dotted_name_imports_its_heavy_parent(project: Project, source: str) -> None:
    [line] = reached(project, source)
    assert "`flashinfer`" in line and "CUDA kernels" in line


@pytest.mark.parametrize(
    "source",
    [
        "from importlib.util import find_spec\nOK = find_spec('flashinfer')\n",  # a top-level name imports nothing
        "from importlib.util import find_spec\nOK = find_spec('numpy.linalg')\n",
        "from importlib.util import find_spec\ndef f():\n    return find_spec('flashinfer.comm')\n",  # never called
        "from importlib.util import find_spec\nif is_cuda():\n    OK = find_spec('flashinfer.comm')\n",
    ],
)
def test_find_spec_allows(project: Project, source: str) -> None:
    assert reached(project, source) == []


def test_a_site_is_reported_once_from_the_first_entry_that_reaches_it(project: Project) -> None:
    project.config(POLICY.replace("entry_modules: [app]", "entry_modules: [app.mod, app]"))
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", "import aiter\n")
    [line] = project.lines("--select", "heavy-import-reachable")
    assert line == (
        "app/mod.py:1:8: heavy-import-reachable importing `app.mod` imports `aiter`: app.mod -> aiter "
        "(aiter: loads HIP modules at import)"
    )


def test_a_probe_reached_at_import_time_is_one_finding_with_its_fix(project: Project) -> None:
    project.config(POLICY)
    project.write("app/__init__.py", "from app.utils import _has_module\nOK = _has_module('aiter')\n")
    project.write("app/utils.py", "def _has_module(name):\n    return True\n")
    code, out, _ = project.run("check", "--format", "json", "--unsafe-fixes")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["rule"], finding["fixable"]) == ("heavy-import-reachable", True)  # the fix is unsafe


# --- the graph ----------------------------------------------------------------


def test_from_pkg_import_name_is_the_submodule_only_when_init_does_not_bind_it(project: Project) -> None:
    assert len(reached(project, "from app.pkg import sub\n", {"app/pkg/__init__.py": "", "app/pkg/sub.py": "import aiter\n"})) == 1
    binds = {"app/pkg/__init__.py": "def sub():\n    pass\n", "app/pkg/sub.py": "import aiter\n"}
    assert reached(project, "from app.pkg import sub\n", binds) == []


def test_a_function_named_like_a_submodule_is_not_the_submodule(project: Project) -> None:
    """sglang's dsa/__init__.py: `from .paged_mqa_logits import cutedsl_paged_mqa_logits` binds a
    function named like the submodule `cutedsl_paged_mqa_logits.py`."""
    extra = {
        "app/pkg/__init__.py": "from .impl import sub\n",
        "app/pkg/impl.py": "def sub():\n    pass\n",
        "app/pkg/sub.py": "import aiter\n",
    }
    assert reached(project, "from app.pkg import sub\n", extra) == []


def test_a_class_instantiated_at_import_time_runs_its_init(project: Project) -> None:
    source = "class Loader:\n    def __init__(self):\n        import aiter\n\nLOADER = Loader()\n"
    assert len(reached(project, source)) == 1
    assert reached(project, source.replace("LOADER = Loader()\n", "")) == []


def test_init_importing_its_own_submodule_is_an_edge(project: Project) -> None:
    extra = {"app/pkg/__init__.py": "from app.pkg import sub\n", "app/pkg/sub.py": "import aiter\n"}
    assert len(reached(project, "import app.pkg\n", extra)) == 1


WALK = "import importlib, pkgutil\nimport app.models as models\nfor _, name, _ in pkgutil.iter_modules(models.__path__):\n    importlib.import_module(f'app.models.{name}')\n"
REGISTRY = """\
import importlib, pkgutil


def import_classes(package_name):
    package = importlib.import_module(package_name)
    for _, name, _ in pkgutil.iter_modules(package.__path__, package_name + "."):
        importlib.import_module(name)


class _Registry:
    def _load(self):
        return import_classes("app.models")

    def register(self, name):
        self._load()


Registry = _Registry()
Registry.register("x")
"""
MODELS = {"app/models/__init__.py": "", "app/models/llama.py": "import aiter\n", "app/models/opt.py": "x = 1\n"}


@pytest.mark.parametrize("source", [WALK, REGISTRY], ids=["module-level walk", "registry"])
def test_a_package_walk_imports_every_module_of_the_package(project: Project, source: str) -> None:
    project.config(POLICY)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", source)
    for path, text in MODELS.items():
        project.write(path, text)
    [line] = project.lines("--select", "heavy-import-reachable")
    assert line.startswith("app/models/llama.py:1:8: heavy-import-reachable importing `app` imports `aiter`")
    assert "app -> app.mod -> app.models.llama -> aiter" in line


def test_a_package_walk_in_a_function_never_called_is_no_edge(project: Project) -> None:
    project.config(POLICY)
    project.write("app/__init__.py", "from app import mod\n")
    project.write("app/mod.py", REGISTRY.replace('Registry.register("x")\n', ""))
    for path, text in MODELS.items():
        project.write(path, text)
    assert project.lines("--select", "heavy-import-reachable") == []


# --- configuration: ignore and enable -----------------------------------------


def test_config_ignore_and_enable(project: Project) -> None:
    project.config(POLICY + "ignore: [heavy-import-reachable]\n")
    project.write("app/__init__.py", "")
    project.write("app/mod.py", "import aiter\n")
    project.write("lonely/x.py", "import aiter\n")
    assert project.run("check")[0] == 0
    project.config(POLICY + "enable: [eager-heavy-import]\n")
    lines = project.lines()
    assert [line.split(": ")[0] + ": " + line.split(" ")[1] for line in lines] == [
        "app/mod.py:1:8: eager-heavy-import", "lonely/x.py:1:8: eager-heavy-import",
    ]
    project.config(POLICY)
    assert len(project.lines("--extend-select", "eager-heavy-import")) == 2  # lonely/x.py and app/mod.py
    # --select replaces the set in force, config `ignore:` included
    project.config(POLICY + "ignore: [eager-heavy-import]\n")
    assert len(project.lines("--select", "eager-heavy-import")) == 2


def test_config_ignore_of_a_declared_rule(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n  - id: no-os\n    forbid: [os]\nignore: [no-re]\n")
    project.write("m.py", "import re\n")
    assert project.run("check")[0] == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("ignore: [no-such-rule]\n", "import-policy.yaml:12: ignore: unknown rule 'no-such-rule'"),
        ("enable:\n  - nope\n", "import-policy.yaml:13: enable: unknown rule 'nope'"),
        ("ignore: [syntax-error]\n", "import-policy.yaml:12: syntax-error cannot be ignored"),
    ],
)
def test_config_switch_errors(project: Project, extra: str, message: str) -> None:
    project.config(POLICY + extra)
    code, _, err = project.run("check")
    assert code == 2
    assert message in err


def test_a_function_re_exported_by_a_star_import_is_followed(project: Project) -> None:
    extra = {
        "app/utils/__init__.py": "from app.utils.common import *\n",
        "app/utils/common.py": "def available():\n    return find_spec('flashinfer') is not None and is_cuda()\n",
    }
    assert reached(project, "from app.utils import available\nif available():\n    import flashinfer\n", extra) == []
    assert len(reached(project, "from app.utils import other\nif other():\n    import flashinfer\n", extra)) == 1


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("import tilelang\n\n@tilelang.jit\ndef k():\n    pass\n", 1),
        ("try:\n    import tilelang\nexcept ImportError:\n    tilelang = None\n\n@tilelang.jit\ndef k():\n    pass\n", 1),
        # a local proxy named like the module is not the module
        ("class _Lazy:\n    def jit(self, f):\n        return f\n\ntilelang = _Lazy()\n\n@tilelang.jit\ndef k():\n    pass\n", 0),
    ],
)
def test_a_decorator_is_heavy_only_through_an_import(project: Project, source: str, count: int) -> None:
    assert len(reached(project, source, rule="import-time-jit")) == count


def test_why_all_lists_every_route(project: Project) -> None:
    project.config(POLICY)
    project.write("app/__init__.py", "from app import mod, other\n")
    project.write("app/mod.py", "import aiter\n")
    project.write("app/other.py", "def f():\n    import aiter\n\nf()\n")
    _, shortest, _ = project.run("why", "aiter")
    _, every, _ = project.run("why", "aiter", "--all")
    assert shortest.count("app -> aiter") == 1
    assert every.count("app -> aiter") == 2
    assert "app/other.py:4: app.other -> aiter (calls f() -> import aiter)" in every


def test_an_import_in_a_function_called_at_import_time_is_an_edge(project: Project) -> None:
    extra = {"app/plugins.py": "import aiter\n"}
    called = "def _register():\n    if is_cuda():\n        return\n    from app import plugins\n\n_register()\n"
    assert len(reached(project, called, extra)) == 1
    assert reached(project, called.replace("_register()\n", ""), extra) == []  # never called
    assert reached(project, called.replace("if is_cuda()", "if not is_cuda()"), extra) == []  # CUDA only
