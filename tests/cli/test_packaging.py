"""The wheel ships every subpackage and the presets (an editable install would hide a missing one)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    source = REPO / "src"
    found = {
        ".".join(init.parent.relative_to(source).parts) for init in source.rglob("__init__.py")
    }
    assert found | {"import_policy.rules"} == listed


def test_presets_are_in_the_rules_folder() -> None:
    assert (REPO / "rules" / "rocm-safety.yaml").is_file()
    assert (REPO / "rules" / "__init__.py").is_file()
