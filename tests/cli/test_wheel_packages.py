"""Every package of the source tree is in pyproject's list of packages the wheel ships: a
folder left out installs a tool that fails at its first import (the slow wheel test builds
one; this holds the list in the fast subset)."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib" if __import__("sys").version_info >= (3, 11) else "tomli")

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_every_package() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    source = ROOT / "src"
    found = {
        ".".join(init.parent.relative_to(source).parts)
        for init in source.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set(), "packages missing from [tool.setuptools] packages"
