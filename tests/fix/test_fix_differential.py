"""The differential fix test (contract section 6): generated modules with forbidden imports
in every spelling (tests/fix/differential.py) are fixed with `--fix --unsafe-fixes`; the
original and the fixed tree are imported in a subprocess with stand-in modules for the
gateway and the forbidden packages, and every module-level name (with the reads that record
what a name held at each point) must be bound to the same object in both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from import_policy.cli import main
from tests.fix.bindings import CONFIG, GATEWAY, bindings, module_of, standins, write_tree
from tests.fix.differential import tree


def differential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, count: int) -> None:
    files = tree(seed, count)
    stub = standins(tmp_path / "stub")
    original = tmp_path / "original"
    write_tree(original, {"import-policy.yaml": CONFIG, **GATEWAY, **files})
    fixed = tmp_path / "fixed"
    shutil.copytree(original, fixed)
    monkeypatch.chdir(fixed)
    code = main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", "."])
    assert code in (0, 1)
    changed = {path: (fixed / path).read_bytes() for path in files if (fixed / path).read_bytes() != files[path]}
    assert changed  # the mix always holds something to fix
    for path, data in changed.items():
        compile(data, path, "exec", dont_inherit=True)
    main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", "."])
    assert {path: (fixed / path).read_bytes() for path in changed} == changed  # a second --fix changes nothing
    modules = [module_of(path) for path in files if path.endswith(".py")]
    before = bindings(stub, original, modules)
    after = bindings(stub, fixed, modules)
    for module in modules:
        if "!error" in before[module]:
            continue  # a generated module that does not import as written proves nothing
        assert after[module] == before[module], (
            f"{module}:\n--- original\n{files[module.replace('.', '/') + '.py'].decode('latin-1')}"
            f"--- fixed\n{(fixed / (module.replace('.', '/') + '.py')).read_bytes().decode('latin-1')}"
        )
    assert sum("!error" not in names for names in before.values()) > len(modules) // 2


@pytest.mark.parametrize("seed", [1, 2])
def test_fixed_modules_bind_what_the_originals_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    differential(tmp_path, monkeypatch, seed, 20)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 104))
def test_fixed_modules_bind_what_the_originals_bound_many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    differential(tmp_path, monkeypatch, seed, 100)
