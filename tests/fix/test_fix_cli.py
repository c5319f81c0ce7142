"""`check --fix`, `--unsafe-fixes`, `--diff` through `main(argv)`: exact output, files kept or written."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import Project

from import_policy.policy.load import load
from import_policy.diagnostics import Diagnostic
from import_policy.fix.run import fix_source
from import_policy.edits.payload import ProbeFix
from import_policy.report.text import summary

RULES = """\
version: 1
rules:
  - id: triton-gateway
    forbid: [triton]
    fix:
      gateway: vllm.triton_utils
      exports: {triton: triton, triton.language: tl}
  - id: regex-not-re
    forbid: [re]
    fix: {replace_module: regex}
"""

SOURCE = "import os, triton  # c\nimport triton.language as tl\nimport re\nimport triton.runtime as rt\n"
FIXED = "import os  # c\nfrom vllm.triton_utils import triton, tl\nimport regex as re\nimport triton.runtime as rt\n"
UNFIXABLE = "app/m.py:4:8: triton-gateway `triton.runtime` is forbidden (not fixable: `vllm.triton_utils` does not export `triton.runtime`)"


def config(project: Project) -> None:
    project.config(RULES)
    project.write("vllm/triton_utils/__init__.py", "triton = tl = None\n")  # the gateway RULES names


def setup(project: Project) -> Path:
    config(project)
    return project.write("app/m.py", SOURCE)


def test_check_marks_fixable(project: Project) -> None:
    setup(project)
    code, out, _ = project.run("check", "app")
    assert code == 1
    assert out.splitlines() == [
        "app/m.py:1:12: triton-gateway [*] `triton` is forbidden",
        "app/m.py:2:8: triton-gateway [*] `triton.language` is forbidden",
        "app/m.py:3:8: regex-not-re [*] `re` is forbidden",
        UNFIXABLE,
        "Found 4 violations (3 fixable with --fix).",
    ]


def test_diff_writes_nothing(project: Project) -> None:
    path = setup(project)
    other = project.write("app/clean.py", "import os\n")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (path, other)}
    code, out, err = project.run("check", "--diff", "app")
    assert code == 1
    assert out == (
        "--- a/app/m.py\n+++ b/app/m.py\n@@ -1,4 +1,4 @@\n"
        "-import os, triton  # c\n-import triton.language as tl\n-import re\n"
        "+import os  # c\n+from vllm.triton_utils import triton, tl\n+import regex as re\n"
        " import triton.runtime as rt\n"
    )
    assert "Would fix 3 violations." in err
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (path, other)} == before


def test_diff_with_nothing_to_fix_exits_0(project: Project) -> None:
    config(project)
    project.write("app/m.py", "import triton.runtime as rt\n")
    code, out, _ = project.run("check", "--diff", "app")
    assert (code, out) == (0, "")


def test_fix_writes_and_reports_what_remains(project: Project) -> None:
    path = setup(project)
    os.chmod(path, 0o750)
    code, out, _ = project.run("check", "--fix", "app")
    assert code == 1
    assert out.splitlines() == [UNFIXABLE, "Found 4 violations (3 fixed, 1 remaining)."]
    assert path.read_text() == FIXED
    assert path.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in path.parent.iterdir()] == ["m.py"]  # no temporary file left behind
    # A second --fix changes nothing, and nothing fixable is left.
    mtime = path.stat().st_mtime_ns
    code, out, _ = project.run("check", "--fix", "app")
    assert out.splitlines() == [UNFIXABLE, "Found 1 violation (0 fixable with --fix)."]
    assert path.stat().st_mtime_ns == mtime


def test_fix_everything_exits_0(project: Project) -> None:
    config(project)
    path = project.write("app/m.py", "import re\n")
    code, out, _ = project.run("check", "--fix", "app")
    assert (code, out) == (0, "Found 1 violation (1 fixed, 0 remaining).\n")
    assert path.read_text() == "import regex as re\n"


def test_json_fixable_and_fix(project: Project) -> None:
    setup(project)
    _, out, _ = project.run("check", "--format", "json", "app")
    document = json.loads(out)
    assert [d["fixable"] for d in document["diagnostics"]] == [True, True, True, False]
    assert document["summary"]["fixable"] == 3
    _, out, _ = project.run("check", "--format", "json", "--fix", "app")
    assert [d["line"] for d in json.loads(out)["diagnostics"]] == [4]


def test_fix_keeps_a_symlink(project: Project) -> None:
    path = setup(project)
    link = project.root / "app" / "link.py"
    link.symlink_to(path.name)
    project.run("check", "--fix", "app/link.py")
    assert link.is_symlink() and path.read_text() == FIXED


def _d(fixable: bool, safe: bool) -> Diagnostic:
    fix = ProbeFix("p", "q", safe=safe) if fixable else None
    return Diagnostic("r", "error", "a.py", 1, 1, 1, 2, "m", fixable=fixable, fix=fix)


def test_summary_lines() -> None:
    assert summary([]) == "All checks passed!"
    assert summary([_d(True, True)]) == "Found 1 violation (1 fixable with --fix)."
    assert summary([_d(False, False)], hidden=2) == (
        "Found 1 violation (0 fixable with --fix).\n"
        "No fixes available (2 hidden fixes can be enabled with the --unsafe-fixes option)."
    )
    assert summary([_d(True, True), _d(False, False)], hidden=1) == (
        "Found 2 violations (1 fixable with --fix).\n(1 hidden fix can be enabled with the --unsafe-fixes option)."
    )
    assert summary([], fixed=2) == "Found 2 violations (2 fixed, 0 remaining)."


PROBE_RULES = """\
version: 1
rules: []
rocm_safety:
  heavy_modules: [aiter]
  probes: {_has_module: _has_module_spec}
"""
PROBE_SOURCE = 'from vllm.utils.import_utils import _has_module\n\n\ndef f():\n    return _has_module("aiter")\n'
PROBE_LINE = (
    'app/m.py:5:12: trial-import-probe `_has_module("aiter")` imports `aiter` just to see whether it is installed; '
    "use `_has_module_spec`, which only looks for the module"
)


def test_unsafe_probe_fix_is_hidden_until_asked_for(project: Project) -> None:
    project.config(PROBE_RULES)
    path = project.write("app/m.py", PROBE_SOURCE)
    code, out, _ = project.run("check", "--fix", "app")
    assert code == 1
    assert out.splitlines() == [
        PROBE_LINE,
        "Found 1 violation (0 fixable with --fix).",
        "No fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]
    assert path.read_text() == PROBE_SOURCE
    _, out, _ = project.run("check", "--format", "json", "--unsafe-fixes", "app")
    assert [d["fixable"] for d in json.loads(out)["diagnostics"]] == [True]
    code, out, _ = project.run("check", "--fix", "--unsafe-fixes", "app")
    assert (code, out) == (0, "Found 1 violation (1 fixed, 0 remaining).\n")
    assert path.read_text() == PROBE_SOURCE.replace("_has_module", "_has_module_spec")


def test_an_export_no_module_can_bind_leaves_the_file_alone(project: Project) -> None:
    # `class` passes as an identifier in the configuration, but no module binds it (and
    # `from gw import class` would not parse): the name is not fixable, the file not touched.
    project.config("version: 1\nrules:\n  - id: t\n    forbid: [triton]\n    fix: {gateway: gw, exports: {triton: class}}\n")
    project.write("gw.py", "triton = None\n")
    path = project.write("app/m.py", "import triton\n")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    code, out, err = project.run("check", "--fix", "app")
    assert code == 1
    assert "gw.py does not bind `class` at module level; `triton` is not fixable" in err
    assert out.splitlines()[0] == "app/m.py:1:8: t `triton` is forbidden (not fixable: `gw` does not export `triton`)"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# A safe fix applied and an unsafe one refused in the same file: every entry point says why.
MIXED_RULES = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
rocm_safety:
  heavy_modules: [tilelang]
  probes: {_has_module: _has_module_spec}
"""
MIXED_SOURCE = 'import re\n\n\ndef f():\n    return _has_module("tilelang")\n'
NOT_IMPORTED = "(fix not applied: `_has_module` is not imported here, so `_has_module_spec` cannot be imported beside it)"


def test_fix_says_why_the_probe_fix_was_not_applied(project: Project) -> None:
    project.config(MIXED_RULES)
    path = project.write("app/m.py", MIXED_SOURCE)
    code, out, _ = project.run("check", "--fix", "--unsafe-fixes", "app")
    assert code == 1
    assert path.read_text() == MIXED_SOURCE.replace("import re", "import regex as re")
    assert NOT_IMPORTED in out.splitlines()[0]


def test_stdin_fix_says_why_the_probe_fix_was_not_applied(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config(MIXED_RULES)
    project.write("app/__init__.py", "import os\n")  # the pass's entry (a tree without one is an error)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(MIXED_SOURCE.encode()), encoding="utf-8"))
    code, out, err = project.run("check", "--fix", "--unsafe-fixes", "--stdin-filename", "app/m.py", "-")
    assert code == 1
    assert out == MIXED_SOURCE.replace("import re", "import regex as re")
    assert NOT_IMPORTED in err.splitlines()[0]


def test_fix_source_says_why_the_probe_fix_was_not_applied(project: Project) -> None:
    project.config(MIXED_RULES)
    policy = load(project.root / "import-policy.yaml", project.root).policy
    new, remaining = fix_source(MIXED_SOURCE.encode(), "app/m.py", policy, unsafe=True)
    assert new == MIXED_SOURCE.replace("import re", "import regex as re").encode()
    assert [NOT_IMPORTED in d.message for d in remaining] == [True]
