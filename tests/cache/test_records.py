"""Built policies as JSON and back (cache.records): equal to what was built, the run cache's
digest of them included, and nothing but this package's records ever constructed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from import_policy.cache.records import decode, encode
from import_policy.cache.run import policy_digest
from import_policy.policy.load import load, presets
from import_policy.config.model import Origin

SETTINGS = """\
version: 1
extends: [{preset}]
roots: [".", "src"]
exclude: ["build/", "**/gen_*.py"]
ignore: [trial-import-probe]
target_version: "3.12"
rocm_safety:
  heavy_modules: [xformers]
  entry_modules: [pkg]
  values: {{DEVICE_TYPE: hip}}
rules:
  - id: gateway
    forbid: [triton]
    fix: {{gateway: pkg.gw, exports: {{triton: triton}}}}
    allow_in: [pkg/gw.py, "pkg/[ab]*.py"]
    examples: {{flag: ["import triton"], allow: ["from pkg.gw import triton"]}}
  - id: no-re
    forbid: [re]
    fix: {{replace_module: regex}}
    scope: module
"""


@pytest.mark.parametrize("preset", presets())
def test_a_built_policy_comes_back_equal(tmp_path: Path, preset: str) -> None:
    (tmp_path / "import-policy.yaml").write_text(SETTINGS.format(preset=preset), encoding="utf-8")
    loaded = load(None, tmp_path)
    back = decode(json.loads(json.dumps(encode(loaded))))
    assert back == loaded
    assert repr(back) == repr(loaded)
    assert policy_digest(back.policy) == policy_digest(loaded.policy) is not None
    globs = [glob for rule in back.policy.rules for glob in rule.allow_in]
    assert [glob.matches("pkg/b2.py") for glob in globs] == [glob.matches("pkg/b2.py") for rule in loaded.policy.rules for glob in rule.allow_in]


@pytest.mark.parametrize("forged", [
    {"c": "os:system", "v": {}},  # not this package
    {"c": "import_policy.cli:main", "v": {}},  # not a record
    {"c": "import_policy.policy.load:Path", "v": {}},  # a name the module imported
    {"c": "import_policy.config.model:Origin.__init__", "v": {}},
    {"x": 1},
    {"t": [1], "l": [2]},
])
def test_only_records_of_this_package_are_built(forged: dict[str, object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        decode(forged)


def test_what_has_no_plain_form_is_refused() -> None:
    with pytest.raises(ValueError):
        encode(object())
    with pytest.raises(ValueError):
        encode({1: "a"})


def test_a_record_of_another_shape_is_refused() -> None:
    """Written by code whose record had other fields (an editable install moved on): a miss,
    never a record with a default filled in where the old code had nothing."""
    good = encode(Origin("a.yaml", 3))
    assert decode(good) == Origin("a.yaml", 3)
    for fields in ({"source": "a.yaml"}, {"source": "a.yaml", "line": 3, "column": 1}):
        with pytest.raises(ValueError):
            decode({"c": good["c"], "v": fields})
