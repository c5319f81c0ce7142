"""What a configuration names in the tree must be there: an entry module or a gateway that
is not a module of the project is an error at its line (exit 2); a gateway that does not bind
one of its exports gets a warning, and that name is not fixable."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project

GATEWAY = """\
rules:
  - id: tilelang-gateway
    forbid: [tilelang]
    allow_in: [mypkg/tilelang_utils.py]
    fix:
      gateway: {gateway}
      exports:
        tilelang: tilelang
        tilelang.language: T
"""


def test_a_typo_in_an_entry_module_is_an_error_at_its_line(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  entry_modules:\n    - mypkg\n    - mypkg.nope\n")
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/heavy.py", "import xformers\n")
    code, out, err = project.run("check")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "import-policy: import-policy.yaml:5: entry module 'mypkg.nope' is not a module of the project "
        "(no mypkg/nope.py or mypkg/nope/__init__.py under roots .); the project's top-level packages: mypkg",
        "import-policy: 1 configuration error(s); nothing was checked",
    ]


def test_why_refuses_the_same_typo(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  entry_modules: [mypkg.nope]\n")
    project.write("mypkg/__init__.py", "")
    code, _, err = project.run("why", "xformers")
    assert code == 2
    assert err.startswith("import-policy: import-policy.yaml:3: entry module 'mypkg.nope' is not a module of the project")


def test_an_excluded_entry_module_is_not_a_module_of_the_project(project: Project) -> None:
    project.config("exclude: [mypkg/]\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [mypkg]\n")
    project.write("mypkg/__init__.py", "import xformers\n")
    code, _, err = project.run("check")
    assert code == 2
    assert "import-policy.yaml:4: entry module 'mypkg' is not a module of the project" in err


def test_a_gateway_that_is_not_a_module_is_an_error_at_its_line(project: Project) -> None:
    project.config(GATEWAY.format(gateway="mypkg.tilelang_util"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/tilelang_utils.py", "import tilelang\nimport tilelang.language as T\n")
    project.write("mypkg/k.py", "import tilelang\n")
    code, out, err = project.run("check")
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        "import-policy: import-policy.yaml:6: fix.gateway 'mypkg.tilelang_util' of rule 'tilelang-gateway' is not a "
        "module of the project (no mypkg/tilelang_util.py or mypkg/tilelang_util/__init__.py under roots .)"
    )


def test_an_export_the_gateway_does_not_bind_is_a_warning_and_not_fixable(project: Project) -> None:
    project.config(GATEWAY.format(gateway="mypkg.tilelang_utils"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/tilelang_utils.py", "import tilelang\n")  # binds `tilelang`, not `T`
    project.write("mypkg/k.py", "import tilelang\nimport tilelang.language as T\n")
    code, out, err = project.run("check", "--fix")
    assert code == 1
    assert err.splitlines()[0] == (
        "import-policy: import-policy.yaml:9: warning: fix.exports of rule 'tilelang-gateway' maps `tilelang.language` "
        "to `mypkg.tilelang_utils.T`, but mypkg/tilelang_utils.py does not bind `T` at module level; "
        "`tilelang.language` is not fixable"
    )
    # The bound export is fixed; the other is left as it was, so `import mypkg.k` still works.
    assert (project.root / "mypkg/k.py").read_text() == "from mypkg.tilelang_utils import tilelang\nimport tilelang.language as T\n"
    assert "mypkg/k.py:2:8: tilelang-gateway `tilelang.language` is forbidden (not fixable: " in out


def test_a_gateway_binding_in_a_branch_a_package_submodule_or_a_star_counts(project: Project) -> None:
    project.config(GATEWAY.format(gateway="mypkg.gw").replace("mypkg/tilelang_utils.py", "mypkg/gw/"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/gw/__init__.py", "try:\n    import tilelang\nexcept ImportError:\n    tilelang = None\n")
    project.write("mypkg/gw/T.py", "from tilelang.language import *\n")
    project.write("mypkg/k.py", "import tilelang\nimport tilelang.language as T\n")
    code, _, err = project.run("check", "--fix")
    assert (code, err) == (0, "")
    assert (project.root / "mypkg/k.py").read_text() == "from mypkg.gw import tilelang, T\n"


def test_a_gateway_that_does_not_parse_makes_its_exports_unfixable(project: Project) -> None:
    project.config(GATEWAY.format(gateway="mypkg.tilelang_utils"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/tilelang_utils.py", "import tilelang\ndef (:\n")
    project.write("mypkg/k.py", "import tilelang\n")
    code, _, err = project.run("check", "--fix")
    assert code == 1
    assert "mypkg/tilelang_utils.py does not parse (line 2); `tilelang` is not fixable" in err
    assert (project.root / "mypkg/k.py").read_text() == "import tilelang\n"


def test_the_warning_comes_back_on_a_run_the_cache_answers(project: Project) -> None:
    project.config(GATEWAY.format(gateway="mypkg.tilelang_utils"))
    project.write("mypkg/__init__.py", "")
    project.write("mypkg/tilelang_utils.py", "import tilelang\n")
    project.write("mypkg/k.py", "import tilelang.language as T\n")
    first = project.run("check")
    assert "does not bind `T` at module level" in first[2]
    assert project.run("check") == first


def test_a_preset_entry_module_missing_from_the_tree_is_an_error_too(project: Project) -> None:
    # Extending a preset says the tree is the kind it was written for; a silent gap is worse.
    project.config("extends: [vllm]\n")
    project.vllm_skeleton()
    (project.root / "vllm/v1/engine/core.py").unlink()
    code, _, err = project.run("check")
    assert code == 2
    preset = (Path(__file__).resolve().parents[2] / "rules" / "vllm.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(preset, 1) if text.strip().startswith("- vllm.v1.engine.core"))
    assert err.splitlines()[0] == (
        f"import-policy: preset:vllm:{line}: entry module 'vllm.v1.engine.core' is not a module of the project "
        "(no vllm/v1/engine/core.py or vllm/v1/engine/core/__init__.py under roots .); the project's top-level "
        "packages: vllm; set rocm_safety.entry_modules to replace the preset's list"
    )


@pytest.mark.parametrize(
    "files",
    [
        {"mypkg/gw/__init__.py": "import tilelang\n", "mypkg/gw/T/__init__.py": "from tilelang.language import *\n"},
        {"mypkg/gw/__init__.py": "import tilelang\n\ndef __getattr__(name):\n    import tilelang.language\n"
                                 "    return tilelang.language\n"},
    ],
    ids=["subpackage", "module-getattr"],
)
def test_a_gateway_binds_a_subpackage_and_what_its_getattr_gives(project: Project, files: dict[str, str]) -> None:
    """`from mypkg.gw import T` imports a subpackage `T` (as it does a submodule), and a module
    `__getattr__` (PEP 562) answers any name: neither export is a warning, both are fixed."""
    project.config(GATEWAY.format(gateway="mypkg.gw").replace("mypkg/tilelang_utils.py", "mypkg/gw/"))
    project.write("mypkg/__init__.py", "")
    for path, text in files.items():
        project.write(path, text)
    project.write("mypkg/k.py", "import tilelang\nimport tilelang.language as T\n")
    code, _, err = project.run("check", "--fix")
    assert (code, err) == (0, "")
    assert (project.root / "mypkg/k.py").read_text() == "from mypkg.gw import tilelang, T\n"
