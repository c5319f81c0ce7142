"""Import a project's modules in a subprocess, with stand-in modules for the gateway and the
forbidden packages, and say what every module-level name is bound to.

What a name is bound to is told by identity: a module by its `__name__`; an object any
stand-in module holds by the first `module.attribute` that holds it; a plain value by its
`repr`. Two runs (the original tree, the fixed one) bind the same names to the same things
exactly when their answers are equal. Many modules are imported by one subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

# The forbidden packages, outside the project (so no rule reports in them): `import triton`
# makes `triton.language` an attribute, as the real packages do.
STANDINS = {
    "triton/__init__.py": "from . import language\njit = object()\n",
    "triton/language.py": "dtype = object()\n",
    "tilelang/__init__.py": "from . import language\n",
    "tilelang/language.py": "kernel = object()\n",
}
# The gateway, inside the project: it binds what `exports` names.
GATEWAY = {
    "pk/__init__.py": "",
    "pk/gw.py": "import triton\nimport triton.language as tl\nimport tilelang\nimport tilelang.language as T\n",
}
CONFIG = """\
version: 1
rules:
  - id: triton-gateway
    forbid: [triton]
    fix:
      gateway: pk.gw
      exports: {triton: triton, triton.language: tl}
  - id: tilelang-gateway
    forbid: [tilelang]
    fix:
      gateway: pk.gw
      exports: {tilelang: tilelang, tilelang.language: T}
"""

_PROBE = r'''
import importlib, json, sys, types
stub, root, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path[:0] = [root, stub]
sys.dont_write_bytecode = True
held = {}
def index():
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] in ("triton", "tilelang", "pk") and module is not None:
            for attribute, value in vars(module).items():
                held.setdefault(id(value), f"{module_name}.{attribute}")
def describe(value):
    if isinstance(value, types.ModuleType):
        return "module " + value.__name__
    if value is None or isinstance(value, (bool, int, float, str, bytes, tuple)):
        return "value " + repr(value)
    if id(value) in held:
        return "held " + held[id(value)]
    return "object " + type(value).__qualname__
out = {}
for name in names:
    try:
        module = importlib.import_module(name)
    except BaseException as error:
        out[name] = {"!error": f"{type(error).__name__}: {error}"}
        continue
    index()
    out[name] = {k: describe(v) for k, v in sorted(vars(module).items()) if not (k.startswith("__") and k.endswith("__"))}
print(json.dumps(out))
'''


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


def standins(folder: Path) -> Path:
    write_tree(folder, STANDINS)
    return folder


def bindings(stub: Path, root: Path, modules: Iterable[str]) -> dict[str, dict[str, str]]:
    """module -> name -> what it is bound to, once every module is imported (in order)."""
    result = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(stub), str(root), *modules],
        capture_output=True, text=True, check=True, timeout=300,
    )
    found: dict[str, dict[str, str]] = json.loads(result.stdout)
    return found


def module_of(relative: str) -> str:
    return relative[: -len(".py")].replace("/", ".").removesuffix(".__init__")
