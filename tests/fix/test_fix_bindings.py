"""A fix binds what the original bound (contract section 6): each case is fixed with
`--fix --unsafe-fixes`, then the original and the fixed module are imported in a subprocess
with stand-in modules, and every module-level name's binding is compared."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from import_policy.cli import main
from tests.fix.bindings import CONFIG, GATEWAY, bindings, module_of, standins, write_tree


def fix_tree(tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """(stand-ins, original tree, fixed tree)."""
    stub = standins(tmp_path / "stub")
    original = tmp_path / "original"
    write_tree(original, {"import-policy.yaml": CONFIG, **GATEWAY, **files})
    fixed = tmp_path / "fixed"
    shutil.copytree(original, fixed)
    monkeypatch.chdir(fixed)
    main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", "."])
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
