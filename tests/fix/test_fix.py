"""Contract section 6: every fix form as a before/after pair (Fixit-style), and the guarantees
(comments, encoding, BOM, line endings kept; idempotent; nothing written that does not parse)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.policy.load import load
from import_policy.config.model import Policy
from import_policy.diagnostics import Diagnostic
from import_policy.fix.apply import fix_bytes
from import_policy.fix.run import fix_source
from import_policy.edits.payload import AliasEdit, ImportFix, ProbeFix

POLICY = """\
version: 1
rules:
  - id: triton-gateway
    forbid: [triton]
    allow_in: ["vllm/triton_utils/**"]
    fix:
      gateway: vllm.triton_utils
      exports: {triton: triton, triton.language: tl}
  - id: tilelang-gateway
    forbid: [tilelang]
    fix:
      gateway: vllm.tilelang_utils
      exports: {tilelang: tilelang, tilelang.language: T}
  - id: regex-not-re
    forbid: [re]
    except: [re._constants, re._parser]
    fix: {replace_module: regex}
  - id: pybase64
    forbid: [base64]
    fix: {replace_module: pybase64}
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    root = tmp_path_factory.mktemp("policy")
    (root / "import-policy.yaml").write_text(POLICY, encoding="utf-8")
    return load(root / "import-policy.yaml", root).policy


def fixed(policy: Policy, source: str | bytes, path: str = "app/mod.py") -> tuple[bytes, list[Diagnostic]]:
    data = source.encode() if isinstance(source, str) else source
    return fix_source(data, path, policy)


GATEWAY = [
    ("import tilelang\n", "from vllm.tilelang_utils import tilelang\n"),
    ("import tilelang.language as T\n", "from vllm.tilelang_utils import T\n"),
    ("import triton.language as tl2\n", "from vllm.triton_utils import tl as tl2\n"),
    ("import triton as tt\n", "from vllm.triton_utils import triton as tt\n"),
    ("import os, triton  # keep me\n", "import os  # keep me\nfrom vllm.triton_utils import triton\n"),
    # Split in the order the names are bound (`import triton as t, os as t` binds os last).
    ("import triton, os\n", "from vllm.triton_utils import triton\nimport os\n"),
    ("from triton import language as lang\n", "from vllm.triton_utils import tl as lang\n"),
    ("from triton import language\n", "from vllm.triton_utils import tl as language\n"),
    ("from tilelang import language as T\n", "from vllm.tilelang_utils import T\n"),
    (
        "from tilelang import (\n    language,  # the DSL\n)\n",
        "from vllm.tilelang_utils import (\n    T as language,  # the DSL\n)\n",
    ),
    # `import m.sub` binds `m`: it becomes the gateway's `m`.
    ("import triton.language\n", "from vllm.triton_utils import triton\n"),
    # Several in one block: one gateway import, never a duplicate.
    ("import triton\nimport triton.language as tl\n", "from vllm.triton_utils import triton, tl\n"),
    ("import os, triton, triton.language as tl\n", "import os\nfrom vllm.triton_utils import triton, tl\n"),
    (
        "from vllm.triton_utils import triton\nimport triton.language as tl\n",
        "from vllm.triton_utils import triton, tl\n",
    ),
    ("from vllm.triton_utils import triton\nimport triton\n", "from vllm.triton_utils import triton\n"),
    (
        "from vllm.triton_utils import (\n    triton,\n    tl2,\n)\nimport triton.language as tl\n",
        "from vllm.triton_utils import (\n    triton,\n    tl2,\n    tl,\n)\n",
    ),
    # A statement with a comment of its own is rewritten in place, not folded away.
    (
        "import triton\n# the language\nimport triton.language as tl\n",
        "from vllm.triton_utils import triton\n# the language\nfrom vllm.triton_utils import tl\n",
    ),
    ("import triton\nimport triton  # again\n", "from vllm.triton_utils import triton\nfrom vllm.triton_utils import triton  # again\n"),
    # Other blocks keep their own import.
    (
        "import triton\nif x:\n    import triton.language as tl\n",
        "from vllm.triton_utils import triton\nif x:\n    from vllm.triton_utils import tl\n",
    ),
    (
        "def f():\n    import triton\n    return triton\n",
        "def f():\n    from vllm.triton_utils import triton\n    return triton\n",
    ),
    ("x = 1; import triton\n", "x = 1; from vllm.triton_utils import triton\n"),
    ("if x: import triton\n", "if x: from vllm.triton_utils import triton\n"),
    ("if x: import os, triton\n", "if x: import os; from vllm.triton_utils import triton\n"),
]

MODULE = [
    ("import re\n", "import regex as re\n"),
    ("import re as r\n", "import regex as r\n"),
    ("from re import sub\n", "from regex import sub\n"),
    ("import base64\n", "import pybase64 as base64\n"),
    ("from base64 import b64encode\n", "from pybase64 import b64encode\n"),
    ("import os, re  # c\n", "import os, regex as re  # c\n"),
    ("import re.sub_mod as s\n", "import regex.sub_mod as s\n"),
    ("from re import _constants, sub\n", "from re import _constants\nfrom regex import sub\n"),
    (
        "from re import (\n    sub,  # s\n    match,\n)\n",
        "from regex import (\n    sub,  # s\n    match,\n)\n",
    ),
    (
        "from re import (\n    _constants,  # c\n    sub,  # s\n    match\n)\n",
        "from re import (\n    _constants,  # c\n)\nfrom regex import (\n    sub,  # s\n    match\n)\n",
    ),
    (
        "def f():\n    from re import (\n        _parser,\n        sub,\n    )\n",
        "def f():\n    from re import (\n        _parser,\n    )\n    from regex import (\n        sub,\n    )\n",
    ),
    ("import re, triton\n", "import regex as re\nfrom vllm.triton_utils import triton\n"),
]

UNFIXABLE = [
    ("import triton.runtime as rt\n", "`vllm.triton_utils` does not export `triton.runtime`"),
    ("from triton import language, jit\n", "`vllm.triton_utils` does not export `triton.jit`"),
    ("from triton import *\n", "a star import is not rewritten"),
    ("import importlib\nimportlib.import_module('triton')\n", "a dynamic import is not rewritten"),
    ("import re.sub_mod\n", "`import re.sub_mod` binds `re`"),
]


@pytest.mark.parametrize(("before", "after"), GATEWAY + MODULE)
def test_fix(policy: Policy, before: str, after: str) -> None:
    new, remaining = fixed(policy, before)
    assert new.decode() == after
    assert remaining == []
    again, _ = fixed(policy, new)
    assert again == new


@pytest.mark.parametrize(("source", "why"), UNFIXABLE)
def test_not_fixable_says_why(policy: Policy, source: str, why: str) -> None:
    new, remaining = fixed(policy, source)
    assert new == source.encode()
    assert [d.fixable for d in remaining] == [False]
    assert f"(not fixable: {why}" in remaining[0].message


def test_allow_in_is_left_alone(policy: Policy) -> None:
    new, remaining = fixed(policy, "import triton\n", "vllm/triton_utils/importing.py")
    assert new == b"import triton\n" and remaining == []


def test_relative_import_is_fixed_through_the_gateway(policy: Policy, tmp_path: Path) -> None:
    source = "from . import x\nfrom triton import language\n"
    new, _ = fixed(policy, source, "app/mod.py")
    assert new.decode() == "from . import x\nfrom vllm.triton_utils import tl as language\n"


# --- bytes kept --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"import os\r\nimport triton, re\r\nx = 1\r\n", b"import os\r\nfrom vllm.triton_utils import triton\r\nimport regex as re\r\nx = 1\r\n"),
        (b"\xef\xbb\xbfimport re\nx = '\xc3\xa9'\n", b"\xef\xbb\xbfimport regex as re\nx = '\xc3\xa9'\n"),
        (
            b"# -*- coding: latin-1 -*-\nimport re, triton\nx = '\xe9'\n",
            b"# -*- coding: latin-1 -*-\nimport regex as re\nfrom vllm.triton_utils import triton\nx = '\xe9'\n",
        ),
        (b"if x:\n\timport triton\n\ty = 1\n", b"if x:\n\tfrom vllm.triton_utils import triton\n\ty = 1\n"),
        (
            b"from re import (  # why\n    sub,  # s\n    # between\n    match,\n)  # after\n",
            b"from regex import (  # why\n    sub,  # s\n    # between\n    match,\n)  # after\n",
        ),
        (b"import re  # noqa: X\n\n\ny = 2  # other\n", b"import regex as re  # noqa: X\n\n\ny = 2  # other\n"),
        (b"import re", b"import regex as re"),
    ],
    ids=["crlf", "bom", "latin-1", "tabs", "comments-in-parens", "trailing-comments", "no-final-newline"],
)
def test_round_trip_keeps_bytes(policy: Policy, before: bytes, after: bytes) -> None:
    new, remaining = fixed(policy, before)
    assert new == after
    assert remaining == []


# --- safety ------------------------------------------------------------------------------


def _diagnostic(line: int, column: int, fix: object, rule: str = "r") -> Diagnostic:
    return Diagnostic(rule, "error", "app/mod.py", line, column, line, column + 1, "m", fixable=True, fix=fix)


def test_a_result_that_does_not_parse_is_not_written() -> None:
    source = b"import triton\n"
    bad = ImportFix("import", (AliasEdit("triton", False, "triton", "class", "gw"),))
    result = fix_bytes(source, [_diagnostic(1, 8, bad)])
    assert result.new == source
    assert not result.changed
    assert "would not parse" in result.failed[0][1]


def test_a_finding_that_points_nowhere_is_refused() -> None:
    fix = ImportFix("import", (AliasEdit("triton", False, "triton", "triton", "gw"),))
    result = fix_bytes(b"x = 1\n", [_diagnostic(1, 1, fix)])
    assert result.new == b"x = 1\n"
    assert "not found" in result.failed[0][1]


def test_two_rules_on_one_name_fix_it_once() -> None:
    first = ImportFix("import", (AliasEdit("triton", False, "triton", "triton", "gw_a"),))
    second = ImportFix("import", (AliasEdit("triton", False, "triton", "triton", "gw_b"),))
    result = fix_bytes(b"import triton\n", [_diagnostic(1, 8, first, "a"), _diagnostic(1, 8, second, "b")])
    assert result.new == b"from gw_a import triton\n"


# --- probes (unsafe) -----------------------------------------------------------------------


PROBE = ProbeFix("_has_module", "_has_module_spec")


@pytest.mark.parametrize(
    ("before", "where", "after"),
    [
        (
            "from vllm.utils.import_utils import _has_module\nHAS = _has_module('tilelang')\n",
            [(2, 7)],
            "from vllm.utils.import_utils import _has_module_spec\nHAS = _has_module_spec('tilelang')\n",
        ),
        (
            "from m import _has_module\nA = _has_module('tilelang')\nB = _has_module('numpy')\n",
            [(2, 5)],
            "from m import _has_module, _has_module_spec\nA = _has_module_spec('tilelang')\nB = _has_module('numpy')\n",
        ),
        (
            "from m import _has_module\nA = _has_module('aiter')\nB = _has_module('triton')\n",
            [(2, 5), (3, 5)],
            "from m import _has_module_spec\nA = _has_module_spec('aiter')\nB = _has_module_spec('triton')\n",
        ),
        (
            "from m import _has_module\n__all__ = ['_has_module']\nA = _has_module('aiter')\n",
            [(3, 5)],
            "from m import _has_module, _has_module_spec\n__all__ = ['_has_module']\nA = _has_module_spec('aiter')\n",
        ),
        ("import m\nA = m._has_module('aiter')\n", [(2, 5)], "import m\nA = m._has_module_spec('aiter')\n"),
        (
            "from m import _has_module as hm\nA = hm('aiter')\n",
            [(2, 5)],
            "from m import _has_module as hm, _has_module_spec\nA = _has_module_spec('aiter')\n",
        ),
    ],
)
def test_probe_fix(before: str, where: list[tuple[int, int]], after: str) -> None:
    diagnostics = [_diagnostic(line, column, PROBE, "trial-import-probe") for line, column in where]
    assert fix_bytes(before.encode(), diagnostics, unsafe=False).new == before.encode()
    result = fix_bytes(before.encode(), diagnostics, unsafe=True)
    assert result.new.decode() == after
    assert result.failed == []


def test_probe_not_imported_is_refused() -> None:
    result = fix_bytes(b"A = _has_module('aiter')\n", [_diagnostic(1, 5, PROBE)], unsafe=True)
    assert not result.changed
    assert "is not imported here" in result.failed[0][1]


# --- property: fixing twice is fixing once; the result parses; nothing fixable is left --------

FORMS = [
    "import triton", "import triton.language as tl", "import triton.language", "import os, triton",
    "import tilelang.language as T", "from triton import language as tl", "import re", "import re as r",
    "from re import sub, _constants", "from base64 import (\n    b64encode,  # c\n    b64decode,\n)",
    "from vllm.triton_utils import triton", "import triton  # c", "# note", "x = 1", "",
    "import triton.runtime as rt", "if x:\n    import triton\n    import base64",
    "def f():\n    import re\n    import triton.language as tl\n    return re",
]


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FORMS), max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_fixing_twice_is_fixing_once(policy: Policy, lines: list[str], newline: str) -> None:
    source = newline.join(line.replace("\n", newline) for line in lines) + newline
    once, remaining = fixed(policy, source)
    ast.parse(once)
    assert not any(d.fixable for d in remaining)
    twice, _ = fixed(policy, once)
    assert twice == once
