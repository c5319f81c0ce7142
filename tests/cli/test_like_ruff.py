"""Output a ruff user compares line by line: where the fix mark stands, colours, JSON fixes.

Expectations come from what ruff prints (`ruff check --output-format concise`,
`--output-format json`, `--diff` with FORCE_COLOR), not from our own output.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import Project, snapshot

CONFIG = """\
rules:
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
  - id: no-pickle
    message: "no pickle"
    forbid: [pickle]
  - id: sync
    forbid: [torch.cuda.synchronize]
    severity: warning
  - id: old-re
    forbid: [sre_compile]
    severity: warning
    fix: {replace_module: re}
"""
SOURCE = "import re\nimport pickle\nimport sre_compile\nimport torch\ntorch.cuda.synchronize()\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", SOURCE)
    return project


def test_the_fix_mark_follows_the_rule_id(tree: Project) -> None:
    # ruff: `a.py:1:8: F401 [*] `os` imported but unused`.
    code, out, _ = tree.run("check")
    assert code == 1
    assert out.splitlines()[:4] == [
        "a.py:1:8: no-re [*] `re` is forbidden",
        "a.py:2:8: no-pickle no pickle",
        "a.py:3:8: old-re [*] warning: `sre_compile` is forbidden",
        "a.py:5:1: sync warning: `torch.cuda.synchronize` is forbidden",
    ]
    snapshot("fix-mark.txt", out)


def test_the_coloured_fix_mark_is_ruffs(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # ruff, FORCE_COLOR=1: `\e[1ma.py\e[0m\e[36m:\e[0m1...\e[1m\e[31mF401\e[0m [\e[36m*\e[0m] message`.
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = tree.run("check")
    first = out.splitlines()[0]
    assert first == (
        "\033[1ma.py\033[0m\033[36m:\033[0m1\033[36m:\033[0m8\033[36m:\033[0m "
        "\033[1m\033[31mno-re\033[0m [\033[36m*\033[0m] `re` is forbidden"
    )
    snapshot("fix-mark.colour.txt", out)


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    """The edits of one fix, applied last first (they do not overlap)."""
    def offset(line: int, column: int) -> int:
        return sum(len(part) + 1 for part in text.split("\n")[: line - 1]) + column - 1

    for edit in sorted(edits, key=lambda e: (e["line"], e["column"]), reverse=True):
        start, end = offset(edit["line"], edit["column"]), offset(edit["end_line"], edit["end_column"])
        text = text[:start] + edit["content"] + text[end:]
    return text


PROBES = """\
version: 1
rocm_safety:
  heavy_modules: [aiter]
  probes: {_has_module: _has_module_spec}
  entry_modules: [pkg]
"""


def test_json_carries_each_fix_as_ruff_does(tree: Project) -> None:
    # ruff: `"fix": {"applicability": "safe", "edits": [{"content", "location", "end_location"}], ...}`,
    # `"fix": null` where there is none, and an unsafe fix listed whatever the flags.
    tree.write("pkg/__init__.py", "")
    tree.write("pkg/probe.py", "from pkg.util import _has_module\n\n\ndef f():\n    return _has_module('aiter')\n")
    tree.write("pkg/util.py", "def _has_module(name):\n    return True\n\n\ndef _has_module_spec(name):\n    return True\n")
    tree.config(CONFIG + PROBES.replace("version: 1\n", ""))
    code, out, _ = tree.run("check", "--format", "json")
    assert code == 1
    found = {(d["path"], d["rule"]): d for d in json.loads(out)["diagnostics"]}
    assert found[("a.py", "no-re")]["fix"] == {
        "applicability": "safe",
        "edits": [{"content": "import regex as re\n", "line": 1, "column": 1, "end_line": 2, "end_column": 1}],
    }
    assert found[("a.py", "no-pickle")]["fix"] is None
    probe = found[("pkg/probe.py", "trial-import-probe")]
    assert (probe["fixable"], probe["fix"]["applicability"]) == (False, "unsafe")  # not with these flags
    after = _apply((tree.root / "pkg/probe.py").read_text(), probe["fix"]["edits"])
    assert after == "from pkg.util import _has_module_spec\n\n\ndef f():\n    return _has_module_spec('aiter')\n"
    _, out, _ = tree.run("check", "--format", "json", "--unsafe-fixes", "pkg")
    assert [d["fixable"] for d in json.loads(out)["diagnostics"]] == [True]
    snapshot("json-fix.json", json.dumps(found[("a.py", "no-re")], indent=2) + "\n")


def test_json_fix_edits_are_what_fix_writes(tree: Project) -> None:
    _, out, _ = tree.run("check", "--format", "json")
    source = (tree.root / "a.py").read_text()
    fixes = [d["fix"] for d in json.loads(out)["diagnostics"] if d["fix"] is not None and d["fixable"]]
    assert len(fixes) == 2
    expected = source
    for fix in fixes[::-1]:  # the later line first, so the earlier positions still hold
        expected = _apply(expected, fix["edits"])
    tree.run("check", "--fix")
    assert (tree.root / "a.py").read_text() == expected


def test_no_fix_mark_where_fix_would_refuse(project: Project, tmp_path_factory: pytest.TempPathFactory) -> None:
    # `--fix` never writes a file whose real path lies outside the project root, so a plain
    # check offers no fix there: no [*], JSON `fixable: false` and `fix: null`, no SARIF fix.
    outside = tmp_path_factory.mktemp("outside")
    (outside / "x.py").write_text("import re\n", encoding="utf-8")
    project.config(CONFIG)
    project.write("pkg/b.py", "import re\n")
    (project.root / "pkg" / "a.py").symlink_to(outside / "x.py")
    code, out, _ = project.run("check", "pkg/a.py", "pkg/b.py")
    assert code == 1
    assert out == (
        "pkg/a.py:1:8: no-re `re` is forbidden (not fixable: the file resolves outside the project root)\n"
        "pkg/b.py:1:8: no-re [*] `re` is forbidden\n"
        "Found 2 violations (1 fixable with --fix).\n"
    )
    snapshot("fix-refused-outside-root.txt", out)
    _, out, _ = project.run("check", "--format", "json", "pkg/a.py")
    (finding,) = json.loads(out)["diagnostics"]
    assert (finding["fixable"], finding["fix"]) == (False, None)
    _, out, _ = project.run("check", "--format", "sarif", "pkg/a.py")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert "fixes" not in result
    _, out, _ = project.run("check", "--fix", "pkg/a.py")  # what --fix says stays as it was
    assert out.startswith("pkg/a.py:1:8: no-re `re` is forbidden (fix not applied: the file resolves outside the project root)\n")
    assert (outside / "x.py").read_text(encoding="utf-8") == "import re\n"


def test_force_color_colours_the_diff_as_ruff_does(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # ruff, FORCE_COLOR=1 `--diff`: `--- \e[31ma.py\e[0m`, `+++ \e[32ma.py\e[0m`, removed lines
    # red, added lines green, context and `@@` plain; the names with git's `a/` `b/`, which
    # `git apply` and `patch -p1` need (ruff prints the bare path).
    tree.write_bytes("b.py", b"import os\r\nimport re\r\nprint(re)\r\n")
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out, _ = tree.run("check", "--diff", "b.py")
    assert code == 1
    assert out == (
        "--- \033[31ma/b.py\033[0m\n"
        "+++ \033[32mb/b.py\033[0m\n"
        "@@ -1,3 +1,3 @@\n"
        " import os\r\n"
        "\033[31m-import re\033[0m\r\n"
        "\033[32m+import regex as re\033[0m\r\n"
        " print(re)\r\n"
    )
    snapshot("diff.colour.txt", out)
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins: the diff `git apply` takes
    assert tree.run("check", "--diff", "b.py")[1] == re.sub("\033\\[[0-9]+m", "", out)


def test_a_removed_line_that_looks_like_a_header_is_still_red() -> None:
    from import_policy.report.text import colour_diff

    diff = "--- a.py\n+++ a.py\n@@ -1,2 +1,1 @@\n--- x\n+++ y\n\\ No newline at end of file\n"
    assert colour_diff(diff).splitlines()[3:] == ["\033[31m--- x\033[0m", "\033[32m+++ y\033[0m", "\\ No newline at end of file"]
