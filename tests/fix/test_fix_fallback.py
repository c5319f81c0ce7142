"""An import in the handler of a failed gateway import is the fallback for when the gateway
cannot be imported: rewriting it through the gateway would make the fallback fail exactly
when it is needed (contract section 6: a fix never changes what the program does). Such an
import gets no fix; its finding stays, without `[*]`, and says why.

The expectation comes from Python: the module is imported with a stand-in gateway that
raises ModuleNotFoundError, and the fallback must still bind what it bound."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from import_policy.cli import main
from tests.fix.bindings import CONFIG, GATEWAY, bindings, module_of, standins, write_tree

# What importing the gateway does where its own dependency is missing.
FAILING_GATEWAY = "raise ModuleNotFoundError(\"No module named 'triton'\", name='triton')\n"
WHY = "(not fixable: it is the fallback for a failed import of the gateway `pk.gw`)"
FALLBACK = "    import triton\n    import triton.language as tl\n"


def _fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], path: str, source: str) -> tuple[Path, Path, list[str]]:
    """(original tree, fixed tree, the check's lines on the original)."""
    original = tmp_path / "original"
    write_tree(original, {"import-policy.yaml": CONFIG, **GATEWAY, "app/__init__.py": "", path: source})
    fixed = tmp_path / "fixed"
    shutil.copytree(original, fixed)
    monkeypatch.chdir(original)
    monkeypatch.setenv("NO_COLOR", "1")
    capsys.readouterr()
    main(["check", "--no-cache", "."])
    lines = capsys.readouterr().out.splitlines()
    monkeypatch.chdir(fixed)
    main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", "."])
    capsys.readouterr()
    return original, fixed, lines


def _with_failing_gateway(tmp_path: Path, tree: Path, module: str) -> dict[str, str]:
    """What `module` binds when the gateway cannot be imported."""
    (tree / "pk" / "gw.py").write_text(FAILING_GATEWAY)
    return bindings(standins(tmp_path / "stub"), tree, [module])[module]


@pytest.mark.parametrize(
    ("path", "body", "handler"),
    [
        ("app/m.py", "from pk.gw import tl, triton", "ModuleNotFoundError"),  # vLLM's sparse_pa.py
        ("app/m.py", "import pk.gw", "ImportError"),
        ("app/m.py", "import pk.gw as g", "Exception"),
        ("app/m.py", "from pk import gw", "BaseException"),
        ("app/m.py", "from pk import ｇw", ""),  # NFKC: Python imports `pk.gw`; a bare `except:`
        ("pk/m.py", "from .gw import triton", "(KeyError, ImportError)"),
        ("pk/m.py", "from . import gw", "ImportError as error"),
        ("app/m.py", "import os, pk.gw", "(ModuleNotFoundError,)"),
    ],
)
def test_the_fallback_of_a_failed_gateway_import_is_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], path: str, body: str, handler: str
) -> None:
    source = f"try:\n    {body}\nexcept{' ' if handler else ''}{handler}:\n{FALLBACK}"
    original, fixed, lines = _fix(tmp_path, monkeypatch, capsys, path, source)
    mine = [line for line in lines if line.startswith(f"{path}:")]
    assert len(mine) == 2, lines
    assert all("[*]" not in line and line.endswith(WHY) for line in mine), mine
    assert (fixed / path).read_text(encoding="utf-8") == source
    module = module_of(path)
    expected = _with_failing_gateway(tmp_path, original, module)
    assert expected["triton"] == "module triton" and expected["tl"] == "module triton.language", expected
    assert _with_failing_gateway(tmp_path, fixed, module) == expected


@pytest.mark.parametrize(
    "source",
    [
        # The handler does not catch a failed import: the gateway's failure never reaches it.
        "try:\n    from pk.gw import tl, triton\nexcept KeyError:\n" + FALLBACK,
        # The `try:` does not import the gateway: its handler is no fallback for it.
        "try:\n    import json\nexcept ImportError:\n" + FALLBACK,
    ],
)
def test_other_handlers_are_still_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    _, fixed, lines = _fix(tmp_path, monkeypatch, capsys, "app/m.py", source)
    assert sum("[*]" in line for line in lines if line.startswith("app/m.py:")) == 2, lines
    assert "    import triton" not in (fixed / "app/m.py").read_text(encoding="utf-8")
