"""A gateway rule never reports nor rewrites inside its own gateway module: the module of
`fix.gateway` is always allowed, whatever `allow_in` says, so a fix never makes it import itself."""

from __future__ import annotations

from conftest import Project

CONFIG = """\
rules:
  - id: tilelang-gateway
    forbid: [tilelang]
    allow_in: ["*_utils.py"]
    fix:
      gateway: {gateway}
      exports: {{tilelang: tilelang, tilelang.language: T}}
"""


def test_the_gateway_module_is_never_flagged_nor_rewritten(project: Project) -> None:
    # `*_utils.py` is anchored at the root: it matches nothing under mypkg/.
    project.config(CONFIG.format(gateway="mypkg.tilelang_utils"))
    project.write("mypkg/__init__.py", "")
    gateway = "import tilelang\nimport tilelang.language as T\n"
    project.write("mypkg/tilelang_utils.py", gateway)
    project.write("mypkg/k.py", "import tilelang\n")
    code, out, _ = project.run("check", "--fix", "--no-cache")
    assert (project.root / "mypkg/tilelang_utils.py").read_text() == gateway
    assert (project.root / "mypkg/k.py").read_text() == "from mypkg.tilelang_utils import tilelang\n"
    assert (code, out) == (0, "Found 1 violation (1 fixed, 0 remaining).\n")


def test_a_package_gateway_is_its_init(project: Project) -> None:
    project.config(CONFIG.format(gateway="mypkg.gw"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/gw/__init__.py", "import tilelang\nimport tilelang.language as T\n")
    # Not the gateway module: reported as anywhere else, but never rewritten to import the
    # package it is part of (contract section 6).
    project.write("mypkg/gw/impl.py", "import tilelang\n")
    assert project.lines("--no-cache") == [
        "mypkg/gw/impl.py:1:8: tilelang-gateway `tilelang` is forbidden (not fixable: `mypkg.gw.impl` is part of the "
        "gateway `mypkg.gw`; the fix would make the gateway import itself)"
    ]


def test_the_gateway_under_src_is_found_through_roots(project: Project) -> None:
    project.config(CONFIG.format(gateway="mypkg.tilelang_utils"))
    project.write("src/mypkg/__init__.py", "")
    project.write("src/mypkg/tilelang_utils.py", "import tilelang\nimport tilelang.language as T\n")
    project.write("src/mypkg/k.py", "import tilelang\n")
    assert project.lines("--no-cache") == ["src/mypkg/k.py:1:8: tilelang-gateway [*] `tilelang` is forbidden"]
