"""Lazy loaders as Python runs them (contract section 4, "Lazy loaders"): a module-level
`__getattr__` over a literal table, `lazy_loader.attach` / `attach_stub`, transformers'
`_LazyModule` with a literal structure and with `define_import_structure(__file__)`, in the
project and in a followed dependency.

Python is the oracle: each case is imported in a subprocess with stand-in heavy modules (each
records its import) and stand-ins of lazy_loader and transformers' utils that do what the real
ones do; the heavy modules it loads must be the ones the `import-time` rule reports.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import Project

HEAVY = ("heavy_a", "heavy_b", "heavy_c")
SITE = ".venv/lib/python3.11/site-packages"
POLICY = """\
version: 1
exclude: ["_standins/**"]
{follow}rules:
  - id: light
    kind: import-time
    message: "keep app light"
    entry: [app]
    forbid: [heavy_a, heavy_b, heavy_c]
"""
LAZY_LOADER = '''\
import importlib, os, sys

def attach(package_name, submodules=None, submod_attrs=None):
    submodules = set(submodules or ())
    attr_to_modules = {attr: mod for mod, attrs in (submod_attrs or {}).items() for attr in attrs}

    def __getattr__(name):
        if name in submodules:
            return importlib.import_module(f"{package_name}.{name}")
        if name in attr_to_modules:
            return getattr(importlib.import_module(f"{package_name}.{attr_to_modules[name]}"), name)
        raise AttributeError(name)

    return __getattr__, lambda: sorted(submodules | set(attr_to_modules)), sorted(submodules | set(attr_to_modules))

def attach_stub(package_name, filename):
    import ast
    submodules, attrs = set(), {}
    with open(os.path.splitext(filename)[0] + ".pyi") as f:
        for node in ast.walk(ast.parse(f.read())):
            if isinstance(node, ast.ImportFrom) and node.module:
                attrs.setdefault(node.module, []).extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                submodules.update(a.name for a in node.names)
    return attach(package_name, submodules, attrs)
'''
# transformers' `_LazyModule` and `define_import_structure`, cut down to what they do with a
# structure without backends: a name -> its module, imported on first access.
TRANSFORMERS_LIKE = '''\
import importlib, os
from types import ModuleType

def _all_of(text):
    start = None
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("__all__"):
            start = index
    if start is None:
        return []
    lines = lines[start:]
    if lines[0].endswith("]"):
        return [o.strip("\\"' ") for o in lines[0].split("=")[1].strip(" []").split(",")]
    out = []
    for line in lines[1:]:
        if line.strip() == "]":
            return out
        out.append(line.strip("\\"', "))
    return out

def _walk(folder):
    found = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.is_dir() and entry.name != "__pycache__":
            found.update({f"{entry.name}.{k}": v for k, v in _walk(entry.path).items()})
        elif entry.name.endswith(".py") and entry.name != "__init__.py":
            with open(entry.path) as f:
                found[entry.name[:-3]] = set(_all_of(f.read()))
    return found

def define_import_structure(module_path, prefix=None):
    folder = os.path.dirname(module_path) if os.path.isfile(module_path) else str(module_path)
    found = _walk(folder)
    if prefix:
        found = {f"{prefix}.{k}": v for k, v in found.items()}
    return {frozenset(): found}

class _LazyModule(ModuleType):
    def __init__(self, name, module_file, import_structure, module_spec=None, extra_objects=None):
        super().__init__(name)
        self._modules, self._class_to_module = set(), {}
        parts = import_structure.values() if any(isinstance(k, frozenset) for k in import_structure) else [import_structure]
        for part in parts:
            for key, values in part.items():
                self._modules.update(key.rsplit(".", i)[0] for i in range(key.count(".") + 1))
                for value in values:
                    self._class_to_module[value] = key
        self.__file__ = module_file
        self.__spec__ = module_spec
        self.__path__ = [os.path.dirname(module_file)]
        self._objects = extra_objects or {}

    def __getattr__(self, name):
        if name in self._objects:
            return self._objects[name]
        if name in self._class_to_module:
            value = getattr(importlib.import_module("." + self._class_to_module[name], self.__name__), name)
        elif name in self._modules:
            value = importlib.import_module("." + name, self.__name__)
        else:
            raise AttributeError(name)
        setattr(self, name, value)
        return value
'''
STANDINS = {
    **{f"_standins/{name}/__init__.py": f"import _loaded\n_loaded.add({name!r})\n" for name in HEAVY},
    "_standins/_loaded.py": (
        "import atexit, json\nseen = set()\ndef add(name):\n    seen.add(name)\n"
        "atexit.register(lambda: print('LOADED ' + json.dumps(sorted(seen))))\n"
    ),
    "_standins/lazy_loader/__init__.py": LAZY_LOADER,
    "_standins/tflike/__init__.py": TRANSFORMERS_LIKE,
}


def loaded_by_python(root: Path, site: bool = False) -> set[str]:
    """The heavy modules `import app` loads, as Python runs it."""
    paths = [str(root / "_standins"), str(root), *([str(root / SITE)] if site else [])]
    code = f"import sys; sys.path[:0] = {paths!r}; import _loaded, app"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    return set(json.loads(line[len("LOADED "):]))


def reported(project: Project) -> set[str]:
    code, out, err = project.run("check", "--no-cache", "--format", "json")
    assert code in (0, 1), err
    found = set()
    for finding in json.loads(out)["diagnostics"]:
        found.update(name for name in HEAVY if f"-> {name}" in str(finding["message"]))
    return found


def write(project: Project, files: dict[str, str], follow: str = "") -> None:
    project.config(POLICY.format(follow=follow))
    for path, text in {**STANDINS, **files}.items():
        project.write(path, textwrap.dedent(text))


GETATTR_TABLE = {
    "pkg/__init__.py": """\
        _ATTR_TO_MODULE = {"dump": "utils", "Model": "models"}

        def __getattr__(name):
            import importlib
            if name in _ATTR_TO_MODULE:
                return getattr(importlib.import_module(f"{__name__}.{_ATTR_TO_MODULE[name]}"), name)
            raise AttributeError(name)
        """,
    "pkg/utils.py": "import heavy_a\ndef dump():\n    pass\n",
    "pkg/models.py": "import heavy_b\nclass Model:\n    pass\n",
}
MODULE_ATTRS = {
    # vLLM's spelling: ".module:Attr" values, the loader under `else:` of TYPE_CHECKING
    "pkg/__init__.py": """\
        import typing

        MODULE_ATTRS = {"SamplingParams": ".sampling_params:SamplingParams", "LLM": ".entrypoints.llm:LLM"}

        if typing.TYPE_CHECKING:
            from pkg.sampling_params import SamplingParams
        else:
            def __getattr__(name: str) -> typing.Any:
                from importlib import import_module

                if name in MODULE_ATTRS:
                    module_name, attr_name = MODULE_ATTRS[name].split(":")
                    module = import_module(module_name, __package__)
                    return getattr(module, attr_name)
                else:
                    raise AttributeError(name)
        """,
    "pkg/sampling_params.py": "import heavy_a\nclass SamplingParams:\n    pass\n",
    "pkg/entrypoints/__init__.py": "",
    "pkg/entrypoints/llm.py": "import heavy_b\nclass LLM:\n    pass\n",
}
INVERTED = {
    # huggingface_hub's spelling: module -> names, inverted by a comprehension
    "pkg/__init__.py": """\
        import importlib

        _SUBMOD_ATTRS = {"hub": ["download", "upload"], "cards": ["Card"]}
        _ATTR = {attr: mod for mod, attrs in _SUBMOD_ATTRS.items() for attr in attrs}

        def __getattr__(name):
            if name in _ATTR:
                submod = importlib.import_module(f"{__name__}.{_ATTR[name]}")
                return getattr(submod, name)
            raise AttributeError(name)
        """,
    "pkg/hub.py": "import heavy_a\ndef download():\n    pass\ndef upload():\n    pass\n",
    "pkg/cards.py": "import heavy_b\nclass Card:\n    pass\n",
}
ATTACH = {
    "pkg/__init__.py": """\
        import lazy_loader as lazy

        __getattr__, __dir__, __all__ = lazy.attach(
            __name__, submodules=["tools"], submod_attrs={"hub": ["download"], "cards": ["Card"]}
        )
        """,
    "pkg/hub.py": "import heavy_a\ndef download():\n    pass\n",
    "pkg/cards.py": "import heavy_b\nclass Card:\n    pass\n",
    "pkg/tools.py": "import heavy_c\n",
}
ATTACH_STUB = {
    "pkg/__init__.py": "import lazy_loader as lazy\n\n__getattr__, __dir__, __all__ = lazy.attach_stub(__name__, __file__)\n",
    "pkg/__init__.pyi": "from . import tools\nfrom .hub import download\nfrom .cards import Card\n",
    "pkg/hub.py": "import heavy_a\ndef download():\n    pass\n",
    "pkg/cards.py": "import heavy_b\nclass Card:\n    pass\n",
    "pkg/tools.py": "import heavy_c\n",
}
LAZY_MODULE = {
    "pkg/__init__.py": """\
        import sys
        from typing import TYPE_CHECKING

        from tflike import _LazyModule

        _import_structure = {"hub": ["download"], "cards": ["Card"], "tools": []}

        if TYPE_CHECKING:
            from .hub import download
        else:
            sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure, module_spec=__spec__)
        """,
    "pkg/hub.py": "import heavy_a\ndef download():\n    pass\n",
    "pkg/cards.py": "import heavy_b\nclass Card:\n    pass\n",
    "pkg/tools.py": "import heavy_c\n",
}
LAZY_MODULE_FILES = {
    "pkg/__init__.py": """\
        import sys
        from typing import TYPE_CHECKING

        from tflike import _LazyModule, define_import_structure

        if TYPE_CHECKING:
            from .modeling_x import *
        else:
            _file = globals()["__file__"]
            sys.modules[__name__] = _LazyModule(__name__, _file, define_import_structure(_file), module_spec=__spec__)
        """,
    "pkg/modeling_x.py": 'import heavy_a\n\nclass XModel:\n    pass\n\n__all__ = ["XModel"]\n',
    "pkg/configuration_x.py": 'class XConfig:\n    pass\n\n__all__ = [\n    "XConfig",\n]\n',
    "pkg/sub/__init__.py": "",
    "pkg/sub/tokenization_y.py": 'import heavy_b\n\nclass YTokenizer:\n    pass\n\n__all__ = ["YTokenizer"]\n',
}

# The package binds `Model` itself: a read of it never reaches the loader.
GETATTR_BOUND = {
    **GETATTR_TABLE,
    "pkg/__init__.py": "Model = None\n" + textwrap.dedent(GETATTR_TABLE["pkg/__init__.py"]),
}
GETATTR_ALL = {
    **GETATTR_TABLE,
    "pkg/__init__.py": '__all__ = ["dump"]\n__all__ += ["Extra"]\nExtra = 1\n' + textwrap.dedent(GETATTR_TABLE["pkg/__init__.py"]),
}
GETATTR_ALL_BOUND = {
    **GETATTR_TABLE,
    "pkg/__init__.py": '__all__ = ["dump"]\ndump = None\n' + textwrap.dedent(GETATTR_TABLE["pkg/__init__.py"]),
}
# A module of the package that reads its loader's name at import time (a dependency's own read).
GETATTR_USER = {**GETATTR_TABLE, "pkg/user.py": "import pkg\n\nclass User:\n    model = pkg.Model\n"}

# torch's spelling: submodules imported by name on first access.
LAZY_SUBMODULES = {
    "pkg/__init__.py": """\
        import importlib

        _lazy_modules = {"_dynamo"}

        def __getattr__(name):
            if name in _lazy_modules:
                return importlib.import_module(f".{name}", __name__)
            raise AttributeError(name)
        """,
    "pkg/_dynamo/__init__.py": "import heavy_a\n",
    "pkg/_dynamo/config.py": "import heavy_b\n",
    "pkg/utils.py": "import heavy_c\n",
}

CASES = {
    # name: (files, the app's module, heavy modules Python loads)
    "getattr-table": (GETATTR_TABLE, "from pkg import dump\n", {"heavy_a"}),
    "getattr-read": (GETATTR_TABLE, "import pkg\n\nMODEL = pkg.Model()\n", {"heavy_b"}),
    "getattr-bound": (GETATTR_TABLE, "import pkg\n\ndump = 1\n", set()),
    # the loader calls a module-level function with the name: it runs with it
    "getattr-helper": ({
        **GETATTR_TABLE,
        "pkg/__init__.py": (
            "import importlib\n_MAP = {'dump': 'pkg.utils'}\n\ndef _load(name):\n"
            "    return getattr(importlib.import_module(_MAP[name]), name)\n\ndef __getattr__(name):\n"
            "    if name in _MAP:\n        return _load(name)\n    raise AttributeError(name)\n"
        ),
    }, "from pkg import dump\n", {"heavy_a"}),
    # a `try:` import that binds the name may raise: the loader answers where it did
    "getattr-tried-first": ({
        **GETATTR_TABLE,
        "pkg/__init__.py": "try:\n    from pkg.fast import dump\nexcept ImportError:\n    pass\n" + textwrap.dedent(GETATTR_TABLE["pkg/__init__.py"]),
        "pkg/fast.py": "raise ImportError('no fast dump here')\n",
    }, "from pkg import dump\n", {"heavy_a"}),
    "getattr-called": (GETATTR_TABLE, "def load():\n    from pkg import dump\n\nload()\n", {"heavy_a"}),
    "getattr-not-run": (GETATTR_TABLE, "import pkg\n\ndef later():\n    return pkg.dump\n", set()),
    "module-attrs": (MODULE_ATTRS, "from pkg import SamplingParams\n", {"heavy_a"}),
    "module-attrs-nested": (MODULE_ATTRS, "from pkg import LLM\n", {"heavy_b"}),
    "inverted": (INVERTED, "from pkg import Card, upload\n", {"heavy_a", "heavy_b"}),
    "attach": (ATTACH, "from pkg import download, tools\n", {"heavy_a", "heavy_c"}),
    "attach-read": (ATTACH, "import pkg\n\nclass C(pkg.Card):\n    pass\n", {"heavy_b"}),
    "attach-stub": (ATTACH_STUB, "from pkg import Card, tools\n", {"heavy_b", "heavy_c"}),
    "lazy-module": (LAZY_MODULE, "from pkg import Card\n", {"heavy_b"}),
    "lazy-module-submodule": (LAZY_MODULE, "from pkg import tools\n", {"heavy_c"}),
    "lazy-module-files": (LAZY_MODULE_FILES, "from pkg import YTokenizer\n", {"heavy_b"}),
    "lazy-module-files-config": (LAZY_MODULE_FILES, "from pkg import XConfig\n", set()),
    # Every read of `pkg.name` at import time calls the loader, wherever it stands.
    "read-assigned": (GETATTR_TABLE, "import pkg\n\nX = pkg.Model\n", {"heavy_b"}),
    "read-argument": (GETATTR_TABLE, "import pkg\n\nX = isinstance(1, pkg.Model)\n", {"heavy_b"}),
    "read-annotation": (GETATTR_TABLE, "import pkg\n\nX: pkg.Model = None\n", {"heavy_b"}),
    "read-class-body": (GETATTR_TABLE, "import pkg\n\nclass C:\n    m = pkg.Model\n", {"heavy_b"}),
    "read-class-annotation": (GETATTR_TABLE, "import pkg\n\nclass C:\n    m: pkg.Model\n", {"heavy_b"}),
    "read-default": (GETATTR_TABLE, "import pkg\n\ndef f(x=pkg.dump):\n    pass\n", {"heavy_a"}),
    "read-decorated-default": (
        GETATTR_TABLE, "import pkg\n\ndef deco(f):\n    return f\n\n@deco\ndef g(y=pkg.Model):\n    pass\n", {"heavy_b"},
    ),
    "read-parameter-annotation": (GETATTR_TABLE, "import pkg\n\ndef f(x: pkg.Model) -> pkg.dump:\n    pass\n", {"heavy_a", "heavy_b"}),
    "read-chained": (GETATTR_TABLE, "import pkg as p\n\nNAME = p.Model.__name__\n", {"heavy_b"}),
    "read-stored-through": (GETATTR_TABLE, "import pkg\n\npkg.Model.flag = 1\n", {"heavy_b"}),
    "getattr-literal": (GETATTR_TABLE, "import pkg\n\nx = getattr(pkg, 'dump')\n", {"heavy_a"}),
    "getattr-default": (GETATTR_TABLE, "import pkg\n\nx = getattr(pkg, 'dump', None)\n", {"heavy_a"}),
    "hasattr-literal": (GETATTR_TABLE, "import pkg\n\nx = hasattr(pkg, 'Model')\n", {"heavy_b"}),
    "getattr-loop": (GETATTR_TABLE, "import pkg\n\nfor n in ('dump', 'Model'):\n    getattr(pkg, n)\n", {"heavy_a", "heavy_b"}),
    "star-all": (GETATTR_ALL, "from pkg import *\n", {"heavy_a"}),
    "star-attach": (ATTACH, "from pkg import *\n", {"heavy_a", "heavy_b", "heavy_c"}),
    "module-attrs-called": (MODULE_ATTRS, "import pkg\n\ndef f():\n    return pkg.LLM\n\nf()\n", {"heavy_b"}),
    "read-in-init-called": (
        GETATTR_TABLE, "import pkg\n\nclass C:\n    def __init__(self):\n        self.m = pkg.Model\n\nC()\n", {"heavy_b"},
    ),
    "read-in-dependency-module": (GETATTR_USER, "import pkg.user\n", {"heavy_b"}),
    "read-submodule-named": (LAZY_SUBMODULES, "import pkg\n\nNAME = pkg._dynamo.__name__\n", {"heavy_a"}),
    "read-attach-submodule": (ATTACH, "import pkg\n\nNAME = pkg.tools.__name__\n", {"heavy_c"}),
    # ... and no read Python does not run, or that finds a binding, asks it.
    "read-submodule-not-named": (LAZY_SUBMODULES, "import pkg\n\nX = getattr(pkg, 'utils', None)\n", set()),
    "read-submodule-imported": (
        LAZY_SUBMODULES, "import pkg\nimport pkg._dynamo.config\n\nX = pkg._dynamo.config\n", {"heavy_a", "heavy_b"},
    ),
    "read-future-annotation": (
        GETATTR_TABLE, "from __future__ import annotations\nimport pkg\n\nX: pkg.Model = None\n\ndef f(y: pkg.dump): pass\n", set(),
    ),
    "read-string-annotation": (GETATTR_TABLE, "import pkg\n\nX: 'pkg.Model' = None\n", set()),
    "read-local-annotation": (GETATTR_TABLE, "import pkg\n\ndef f():\n    x: pkg.Model = 1\n\nf()\n", set()),
    "read-type-checking": (
        GETATTR_TABLE, "from typing import TYPE_CHECKING\nimport pkg\n\nif TYPE_CHECKING:\n    X = pkg.Model\n", set(),
    ),
    "read-in-lambda": (GETATTR_TABLE, "import pkg\n\nF = lambda: pkg.Model\n", set()),
    "read-not-called": (MODULE_ATTRS, "import pkg\n\ndef f():\n    return pkg.LLM\n", set()),
    "read-bound": (GETATTR_BOUND, "import pkg\n\nX = pkg.Model\n", set()),
    "read-stored": (GETATTR_TABLE, "import pkg\n\npkg.Model = 1\n", set()),
    "hasattr-unknown-name": (GETATTR_TABLE, "import pkg\n\nx = hasattr(pkg, 'nothing')\n", set()),
    "star-without-all": (GETATTR_TABLE, "from pkg import *\n", set()),
    "star-all-bound": (GETATTR_ALL_BOUND, "from pkg import *\n", set()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_a_lazy_loader_imports_is_what_python_loads(project: Project, case: str) -> None:
    files, app, expected = CASES[case]
    write(project, {**files, "app/__init__.py": app})
    assert loaded_by_python(project.root) == expected
    assert reported(project) == expected


def test_annotations_are_not_read_where_every_python_supported_defers_them(project: Project) -> None:
    """PEP 649: from 3.14 on, Python evaluates no annotation when it runs a definition; the
    other reads stay (Python 3.11 runs this test: the oracle is the 3.13 reading, above)."""
    app = "import pkg\n\nX: pkg.Model = None\n\ndef f(y: pkg.Model = pkg.dump):\n    pass\n"
    write(project, {**GETATTR_TABLE, "app/__init__.py": app}, follow='target_version: "3.14"\n')
    assert reported(project) == {"heavy_a"}
    write(project, {**GETATTR_TABLE, "app/__init__.py": app}, follow='target_version: "3.13"\n')
    assert reported(project) == {"heavy_a", "heavy_b"}


def test_a_read_of_what_every_module_binds_asks_no_loader(project: Project) -> None:
    """`pkg.__name__`, `pkg.__file__`: Python finds them on the module object, so even a loader
    the pass cannot read is not asked (no cut is named)."""
    write(project, {
        "pkg/__init__.py": "import importlib\n\ndef __getattr__(name):\n    return importlib.import_module(_where(name))\n",
        "app/__init__.py": "import pkg\n\nNAME = pkg.__name__, pkg.__file__, pkg.__spec__, pkg.__class__\n",
    })
    assert reported(project) == set()
    code, _, err = project.run("why", "heavy_a", "--rule", "light")
    assert code == 0 and "cut" not in err
    project.write("app/__init__.py", "import pkg\n\nNAME = pkg.Model\n")
    code, _, err = project.run("why", "heavy_a", "--rule", "light")
    assert "app/__init__.py:3: reads `pkg.Model`: the lazy loader at pkg/__init__.py:3" in err


def test_a_getattr_of_a_name_the_pass_cannot_tell_is_a_named_cut(project: Project) -> None:
    write(project, {**GETATTR_TABLE, "app/__init__.py": "import pkg\n\nX = [getattr(pkg, n) for n in ('dump',)]\n"})
    assert loaded_by_python(project.root) == {"heavy_a"}
    assert reported(project) == set()  # the pass cannot tell the name, and says where
    code, out, err = project.run("why", "heavy_a", "--rule", "light")
    assert code == 0 and "no eager import chain" in out
    assert (
        "app/__init__.py:3: `getattr(pkg, ...)` asks the lazy loader at pkg/__init__.py:3 for a name the pass "
        "cannot tell; the chain is cut there"
    ) in err


def test_a_computed_getattr_in_a_called_function_names_no_cut(project: Project) -> None:
    """numpy.ma's shape: a wrapper class called at import time with names the package binds."""
    app = "import pkg\n\nclass Wrap:\n    def __init__(self, name):\n        self.f = getattr(pkg, name)\n\nM = Wrap('Model')\n"
    write(project, {**GETATTR_BOUND, "app/__init__.py": app})
    assert loaded_by_python(project.root) == set()
    assert reported(project) == set()
    code, _, err = project.run("check")
    assert "cut" not in err


def test_an_all_the_pass_cannot_read_is_a_named_cut_of_a_star_import(project: Project) -> None:
    init = "import os\n__all__ = os.environ.get('X', 'dump').split()\n" + textwrap.dedent(GETATTR_TABLE["pkg/__init__.py"])
    write(project, {**GETATTR_TABLE, "pkg/__init__.py": init, "app/__init__.py": "from pkg import *\n"})
    assert loaded_by_python(project.root) == {"heavy_a"}
    assert reported(project) == set()
    code, out, err = project.run("why", "heavy_a", "--rule", "light")
    assert code == 0 and "no eager import chain" in out
    assert (
        "app/__init__.py:1: from pkg import *: the lazy loader at pkg/__init__.py:5 is asked each name of "
        "`__all__` (line 2), which the pass cannot read; the chain is cut there"
    ) in err


def _installed(project: Project, files: dict[str, str]) -> None:
    """The package as a followed distribution `pkgdist`, in a venv-like folder."""
    site = project.root / SITE
    (project.root / ".venv" / "pyvenv.cfg").parent.mkdir(parents=True, exist_ok=True)
    (project.root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7.final.0\n")
    for relative, text in files.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    info = site / "pkgdist-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "RECORD").write_text("".join(f"{r},sha256=x,1\n" for r in files) + f"{info.name}/RECORD,,\n")


FOLLOW = "environment:\n  python: .venv/bin/python\nfollow: [pkgdist]\n"


@pytest.mark.parametrize(
    "case", ["module-attrs", "inverted", "lazy-module", "lazy-module-files", "read-in-dependency-module", "module-attrs-called"],
)
def test_a_followed_dependencys_lazy_loader(project: Project, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    files, app, expected = CASES[case]
    write(project, {"app/__init__.py": app}, follow=FOLLOW)
    _installed(project, files)
    assert loaded_by_python(project.root, site=True) == expected
    assert reported(project) == expected
    assert reported(project) == expected  # the same from the caches


def test_a_loader_the_pass_cannot_read_is_a_named_cut(project: Project) -> None:
    write(project, {
        "pkg/__init__.py": """\
            import importlib

            def __getattr__(name):
                return importlib.import_module(_where(name))

            def _where(name):
                return "pkg.utils"
            """,
        "pkg/utils.py": "import heavy_a\n",
        "app/__init__.py": "from pkg import dump\n",
    })
    assert reported(project) == set()  # Python loads heavy_a: the pass cannot tell, and says where
    code, out, err = project.run("why", "heavy_a", "--rule", "light")
    assert code == 0 and "no eager import chain" in out
    assert (
        "app/__init__.py:1: from pkg import dump: the lazy loader at pkg/__init__.py:3 imports what the pass "
        "cannot tell (`importlib.import_module(_where(name))` (line 4)); the chain is cut there"
    ) in err


MANY_SITES = {
    "pkgdist_x/__init__.py": "from pkgdist_x import a, b\n",
    "pkgdist_x/a.py": "import heavy_a\nfrom pkgdist_x import c\n",
    "pkgdist_x/b.py": "import heavy_a\nimport heavy_b\n",
    "pkgdist_x/c.py": "import heavy_a.sub\n",
}


def test_one_finding_per_link_and_forbidden_name(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three sites of `heavy_a` in the dependency behind one project line: one finding, the
    shortest chain, the rule's message, the first site and the count of the others."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    write(project, {"app/__init__.py": "import json\nimport pkgdist_x\n", "_standins/heavy_a/sub.py": ""}, follow=FOLLOW)
    _installed(project, MANY_SITES)
    expected = [
        "app/__init__.py:2:1: light keep app light: app -> pkgdist_x -> pkgdist_x.a -> heavy_a "
        "(in dependency `pkgdist`, pkgdist_x/a.py:1, and 2 more sites; import-policy why heavy_a --rule light)",
        "app/__init__.py:2:1: light keep app light: app -> pkgdist_x -> pkgdist_x.b -> heavy_b "
        "(in dependency `pkgdist`, pkgdist_x/b.py:2)",
    ]
    assert project.lines("--no-cache") == expected
    assert project.lines() == expected
    code, out, _ = project.run("why", "heavy_a", "--rule", "light", "--all")
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith(f"  {SITE}") and "-> heavy_a" in line] == [
        f"  {SITE}/pkgdist_x/a.py:1: pkgdist_x.a -> heavy_a (import heavy_a)",
        f"  {SITE}/pkgdist_x/b.py:1: pkgdist_x.b -> heavy_a (import heavy_a)",
        f"  {SITE}/pkgdist_x/c.py:1: pkgdist_x.c -> heavy_a.sub (import heavy_a.sub)",
    ]


def test_in_dependency_names_the_distribution_that_holds_the_site(
    project: Project, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`from transformers import X` reaching huggingface_hub's file: the site is huggingface_hub's."""
    from test_follow import install

    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    write(project, {"app/__init__.py": "import outer_dep\n"}, follow="environment:\n  python: .venv/bin/python\nfollow: all\n")
    install(project.root, {"outer_dep/__init__.py": "from inner_dep import tool\n"}, name="outer_dep")
    install(project.root, {"inner_dep/__init__.py": "", "inner_dep/tool.py": "import heavy_a\n"}, name="inner_dep")
    assert project.lines("--no-cache") == [
        "app/__init__.py:1:1: light keep app light: app -> outer_dep -> inner_dep.tool -> heavy_a "
        "(in dependency `inner_dep`, inner_dep/tool.py:1)"
    ]


def test_a_warm_run_sees_an_edit_of_a_file_the_table_was_read_from(project: Project) -> None:
    """`define_import_structure` reads files as text: an edit of one moves the name, cached or not."""
    write(project, {**LAZY_MODULE_FILES, "app/__init__.py": "from pkg import YTokenizer\n"})
    code, _, err = project.run("check")
    assert code == 1, err
    project.write("pkg/sub/tokenization_y.py", "import heavy_b\n\nclass YTokenizer:\n    pass\n\n__all__ = []\n")
    project.write("pkg/other.py", 'import heavy_c\n\nclass YTokenizer:\n    pass\n\n__all__ = ["YTokenizer"]\n')
    assert loaded_by_python(project.root) == {"heavy_c"}
    code, out, err = project.run("check", "--format", "json")
    assert {name for name in HEAVY if f"-> {name}" in out} == {"heavy_c"}, err
    assert reported(project) == {"heavy_c"}
