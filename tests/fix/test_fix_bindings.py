"""A fix binds what the original bound (contract section 6): each case is fixed with
`--fix --unsafe-fixes`, then the original and the fixed module are imported in a subprocess
with stand-in modules, and every module-level name's binding is compared."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from import_policy.cli import main
from tests.fix.bindings import CONFIG, GATEWAY, bindings, module_of, standins, write_tree


def fix_tree(
    tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch, tree: dict[str, str] | None = None,
    named: tuple[str, ...] = (".",),
) -> tuple[Path, Path, Path]:
    """(stand-ins, original tree, fixed tree). `tree`: the configuration and gateway (else ours)."""
    stub = standins(tmp_path / "stub")
    original = tmp_path / "original"
    write_tree(original, {**(tree if tree is not None else {"import-policy.yaml": CONFIG, **GATEWAY}), **files})
    fixed = tmp_path / "fixed"
    shutil.copytree(original, fixed)
    monkeypatch.chdir(fixed)
    main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", *named])
    return stub, original, fixed


def same_bindings(tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Fix the files and assert every module binds what it bound; the fixed sources."""
    stub, original, fixed = fix_tree(tmp_path, files, monkeypatch)
    modules = [module_of(path) for path in files]
    before = bindings(stub, original, modules)
    after = bindings(stub, fixed, modules)
    assert all("!error" not in names for names in before.values()), before
    assert after == before
    return {path: (fixed / path).read_text(encoding="utf-8") for path in files}


# --- a rebinding between: rewritten in place, never folded across ---------------------------


def test_an_import_after_a_rebinding_is_not_folded_into_an_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = "from pk.gw import tl\ntriton = None\nimport triton\n"
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == "from pk.gw import tl\ntriton = None\nfrom pk.gw import triton\n"


def test_an_import_after_a_read_is_not_folded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import os\nimport triton.language as tl\nseen = 'tl' in dir()\nimport triton\ntl = 1\nimport triton.language as tl\n"
    same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)


def test_splitting_keeps_the_order_of_bindings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import triton as t, os as t\nimport os as u, tilelang as u\n"
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == "from pk.gw import triton as t\nimport os as t\nimport os as u\nfrom pk.gw import tilelang as u\n"


def test_a_later_import_with_nothing_between_still_folds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import triton\nimport os\nimport triton.language as tl\n"
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == "from pk.gw import triton, tl\nimport os\n"


def test_a_star_import_between_binds_any_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import triton\nfrom os.path import *\nimport triton.language as join\n"
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == "from pk.gw import triton\nfrom os.path import *\nfrom pk.gw import tl as join\n"


def test_a_name_folded_twice_keeps_its_last_binding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "import triton\nfrom triton import language as triton\nimport triton\n"
    same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)


@pytest.mark.parametrize(
    ("source", "after"),
    [
        # `import a.b as a` binds the module `a.b`; `import a.b` binds `a`: the finding cannot
        # tell them apart, so it carries the gateway's name for both.
        ("import triton.language as triton\n", "from pk.gw import tl as triton\n"),
        ("import triton.language\nimport triton.language as triton\n", "from pk.gw import triton, tl as triton\n"),
    ],
)
def test_a_dotted_import_aliased_to_its_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], source: str, after: str
) -> None:
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == after
    capsys.readouterr()
    main(["check", "--no-cache", "."])
    assert capsys.readouterr().out.strip() == "All checks passed!"


# --- imports in every kind of block ----------------------------------------------------------


def test_imports_in_else_except_and_finally_blocks_are_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        "import os\n"
        "if os.sep == '/':\n    x = 1\nelse:\n    import triton\n"
        "try:\n    import os.path\nexcept ImportError:\n    import tilelang\n"
        "else:\n    import triton.language as tl\nfinally:\n    import tilelang.language as T\n"
    )
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == (
        "import os\n"
        "if os.sep == '/':\n    x = 1\nelse:\n    from pk.gw import triton\n"
        "try:\n    import os.path\nexcept ImportError:\n    from pk.gw import tilelang\n"
        "else:\n    from pk.gw import tl\nfinally:\n    from pk.gw import T\n"
    )
    capsys.readouterr()
    main(["check", "--no-cache", "."])
    assert capsys.readouterr().out.strip() == "All checks passed!"


# --- every alias the original bound ----------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "after"),
    [
        ("import tilelang as a, tilelang as b\n", "from pk.gw import tilelang as a, tilelang as b\n"),
        ("import tilelang, tilelang as T\n", "from pk.gw import tilelang, tilelang as T\n"),
        ("from tilelang import language as T, language as L\n", "from pk.gw import T, T as L\n"),
        ("import triton.language as a, triton.language as b\n", "from pk.gw import tl as a, tl as b\n"),
    ],
)
def test_every_alias_is_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, after: str) -> None:
    out = same_bindings(tmp_path, {"app/m.py": source}, monkeypatch)
    assert out["app/m.py"] == after


# --- never in a module the gateway runs while it loads ------------------------------------

TRITON_UTILS = """\
version: 1
rocm_safety:
  heavy_modules: [xformers]
  guards: [is_cuda]
rules:
  - id: triton-gateway
    forbid: [triton]
    fix:
      gateway: pk.triton_utils
      exports: {triton: triton, triton.language: tl}
"""


def findings(capsys: pytest.CaptureFixture[str], *named: str) -> list[str]:
    capsys.readouterr()
    main(["check", "--no-cache", *named])
    return [line for line in capsys.readouterr().out.splitlines() if "triton-gateway" in line]


def unchanged_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], files: dict[str, str],
    refused: dict[str, str], named: tuple[str, ...] = (".",),
) -> None:
    """Fix `files`; each of `refused` (path -> why) is left as it was, its finding not fixable
    and saying why; every module still imports and binds what it bound."""
    stub, original, fixed = fix_tree(tmp_path, files, monkeypatch, {"import-policy.yaml": TRITON_UTILS}, named)
    for path in refused:
        assert (fixed / path).read_bytes() == (original / path).read_bytes(), path
    lines = findings(capsys, *named)
    for path, why in refused.items():
        mine = [line for line in lines if line.startswith(f"{path}:")]
        assert mine and all("[*]" not in line and f"(not fixable: {why}" in line for line in mine), (path, lines)
    modules = [module_of(path) for path in files]
    assert bindings(stub, fixed, modules) == bindings(stub, original, modules)


def test_a_package_gateway_s_own_submodules_are_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pk/__init__.py": "",
        "pk/triton_utils/__init__.py": "from pk.triton_utils.importing import triton, tl\n",
        "pk/triton_utils/importing.py": "import triton\nimport triton.language as tl\n",
        "pk/triton_utils/extra.py": "import triton\n",
        "app/__init__.py": "",
        "app/m.py": "import triton\n",
    }
    unchanged_and_why(tmp_path, monkeypatch, capsys, files, {
        "pk/triton_utils/importing.py": "`pk.triton_utils.importing` is part of the gateway `pk.triton_utils`",
        "pk/triton_utils/extra.py": "`pk.triton_utils.extra` is part of the gateway `pk.triton_utils`",
    })
    assert (tmp_path / "fixed/app/m.py").read_text() == "from pk.triton_utils import triton\n"


def test_a_module_the_gateway_imports_is_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pk/__init__.py": "",
        "pk/triton_utils.py": "import pk.platform\nimport triton\nimport triton.language as tl\n",
        "pk/platform.py": "from pk import helpers\n",
        "pk/helpers.py": "import triton\n",
        "pk/other.py": "import triton\n",
    }
    unchanged_and_why(tmp_path, monkeypatch, capsys, files, {
        "pk/helpers.py": "`pk.helpers` is imported by the gateway `pk.triton_utils` while it loads "
        "(pk.triton_utils -> pk.platform -> pk.helpers)",
    })
    assert (tmp_path / "fixed/pk/other.py").read_text() == "from pk.triton_utils import triton\n"


def test_the_gateway_s_parent_packages_are_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pk/__init__.py": "import triton\nfrom pk import setup\n",
        "pk/setup.py": "import triton.language as tl\n",
        "pk/triton_utils.py": "import triton\nimport triton.language as tl\n",
    }
    unchanged_and_why(tmp_path, monkeypatch, capsys, files, {
        "pk/__init__.py": "`pk` is imported by the gateway `pk.triton_utils` while it loads (pk.triton_utils -> pk)",
        "pk/setup.py": "`pk.setup` is imported by the gateway `pk.triton_utils` while it loads (pk.triton_utils -> pk -> pk.setup)",
    })


def test_every_branch_but_type_checking_runs_while_the_gateway_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pk/__init__.py": "",
        "pk/triton_utils.py": (
            "import os\nfrom typing import TYPE_CHECKING\nimport triton\nimport triton.language as tl\n"
            "def is_cuda():\n    return os.environ.get('CUDA') == '1'\nif is_cuda():\n    import pk.cuda_only\n"
            "if TYPE_CHECKING:\n    import pk.typing_only\n"
        ),
        "pk/cuda_only.py": "import triton\n",
        "pk/typing_only.py": "import triton\n",
    }
    unchanged_and_why(tmp_path, monkeypatch, capsys, files, {
        "pk/cuda_only.py": "`pk.cuda_only` is imported by the gateway `pk.triton_utils` while it loads",
    })
    assert (tmp_path / "fixed/pk/typing_only.py").read_text() == "from pk.triton_utils import triton\n"


def test_a_hook_run_naming_one_file_knows_the_gateway_s_closure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pk/__init__.py": "",
        "pk/triton_utils.py": "import pk.platform\nimport triton\nimport triton.language as tl\n",
        "pk/platform.py": "import triton\n",
    }
    unchanged_and_why(tmp_path, monkeypatch, capsys, files, {
        "pk/platform.py": "`pk.platform` is imported by the gateway `pk.triton_utils` while it loads",
    }, named=("pk/platform.py",))


def test_the_closure_is_kept_between_runs_and_follows_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_tree(tmp_path, {
        "import-policy.yaml": TRITON_UTILS,
        "pk/__init__.py": "",
        "pk/triton_utils.py": "import pk.platform\nimport triton\nimport triton.language as tl\n",
        "pk/platform.py": "from pk import helpers\n",
        "pk/helpers.py": "import triton\n",
    })
    monkeypatch.chdir(tmp_path)

    def run() -> list[str]:
        capsys.readouterr()
        main(["check", "pk/helpers.py"])
        return capsys.readouterr().out.splitlines()

    cold = run()
    assert "not fixable: `pk.helpers` is imported by the gateway" in cold[0]
    assert run() == cold  # warm: the stored graph answers
    (tmp_path / "pk/platform.py").write_text("import os\n\n\n", encoding="utf-8")
    assert "[*]" in run()[0]  # the edit cut the gateway's closure: the fix is offered again


def test_a_buffer_on_stdin_is_judged_in_the_gateway_s_closure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    write_tree(tmp_path, {
        "import-policy.yaml": TRITON_UTILS,
        "pk/__init__.py": "",
        "pk/triton_utils.py": "import pk.platform\nimport triton\nimport triton.language as tl\n",
        "pk/platform.py": "x = 1\n",
        "pk/other.py": "import triton\n",
    })
    monkeypatch.chdir(tmp_path)
    main(["check", "."])  # the cache and the stored graph are warm, from the files on disk
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"import triton\n"), encoding="utf-8"))
    main(["check", "--fix", "--stdin-filename", "pk/platform.py"])
    out, err = capsys.readouterr()
    assert out == "import triton\n"  # left as it was: the gateway imports it
    assert "not fixable: `pk.platform` is imported by the gateway `pk.triton_utils` while it loads" in err
