"""ruff's spellings work with ruff's meanings, and --write-baseline says what it did."""

from __future__ import annotations

import json

import pytest

from conftest import Project
from import_policy.adoption import baseline
from import_policy.diagnostics import Diagnostic

CONFIG = """\
rules:
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
  - id: no-pickle
    forbid: [pickle]
  - id: sync
    forbid: [torch.cuda.synchronize]
    severity: warning
"""


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", "import re\nimport pickle\n")
    project.write("b.py", "from re import sub\n")
    return project


def test_output_format_is_format(tree: Project) -> None:
    assert tree.run("check", "--output-format", "json") == tree.run("check", "--format", "json")
    assert json.loads(tree.run("check", "--output-format=json")[1])["summary"]["violations"] == 3


def test_quiet_prints_the_findings_and_nothing_else(tree: Project) -> None:
    (tree.root / "import-policy.yaml").unlink()
    tree.write("c.py", "import os\n")
    assert tree.run("check", "-q", "c.py") == (0, "", "")  # no "no configuration found", no summary
    tree.config(CONFIG)
    code, out, err = tree.run("check", "--quiet")
    assert code == 1 and err == ""
    assert out.splitlines() == [
        "a.py:1:8: no-re [*] `re` is forbidden", "a.py:2:8: no-pickle `pickle` is forbidden", "b.py:1:6: no-re [*] `re` is forbidden",
    ]
    assert tree.run("check", "-q", "--select", "sync") == (0, "", "")


def test_quiet_drops_notes_but_not_errors(tree: Project) -> None:
    code, _, err = tree.run("check", "-q", "missing.py")
    assert code == 2 and "cannot read missing.py: No such file or directory" in err
    code, _, err = tree.run("check", "-q", "--diff")
    assert code == 1 and err == ""


def test_extend_select_adds_to_select(tree: Project) -> None:
    assert tree.lines("--select", "no-pickle", "--extend-select", "no-re") == tree.lines()
    assert tree.lines("--extend-select", "no-re") == tree.lines()  # already in force
    code, _, err = tree.run("check", "--extend-select", "nope")
    assert code == 2 and "--extend-select: unknown rule 'nope'" in err


def test_show_fixes_lists_what_was_fixed(tree: Project) -> None:
    code, out, _ = tree.run("check", "--fix", "--show-fixes")
    assert code == 1
    assert out.splitlines() == [
        "a.py:2:8: no-pickle `pickle` is forbidden",
        "Fixed 2 violations:",
        "- a.py:",
        "    1 × no-re",
        "- b.py:",
        "    1 × no-re",
        "Found 3 violations (2 fixed, 1 remaining).",
    ]


def test_fix_only_fixes_and_neither_reports_nor_fails_on_the_rest(tree: Project) -> None:
    assert tree.run("check", "--fix-only") == (0, "Fixed 2 violations.\n", "")
    assert (tree.root / "b.py").read_text() == "from regex import sub\n"
    assert tree.run("check", "--fix-only") == (0, "No violations fixed.\n", "")
    assert tree.run("check", "--fix-only", "-q") == (0, "", "")


def test_fix_only_with_show_fixes(tree: Project) -> None:
    _, out, _ = tree.run("check", "--fix-only", "--show-fixes")
    assert out.splitlines() == ["Fixed 2 violations:", "- a.py:", "    1 × no-re", "- b.py:", "    1 × no-re", "Fixed 2 violations."]


@pytest.mark.parametrize("argv", [["check", "--bogus"], ["check", ".", "--fixx"]])
def test_a_bad_flag_after_check_prints_checks_usage(tree: Project, argv: list[str]) -> None:
    code, out, err = tree.run(*argv)
    assert (code, out) == (2, "")
    assert err.startswith("usage: import-policy check ")
    assert "import-policy check: error: unrecognized arguments: " + argv[-1] in err


def test_a_bad_flag_after_why_prints_whys_usage(tree: Project) -> None:
    code, _, err = tree.run("why", "x", "--bogus")
    assert code == 2 and err.startswith("usage: import-policy why ")


# --- baselines --------------------------------------------------------------------------


def test_write_baseline_says_what_it_wrote(tree: Project) -> None:
    code, out, err = tree.run("check", "--write-baseline", "base.json")
    assert (code, err) == (0, "")
    assert out == "Wrote 3 findings as 3 entries to base.json; check with --baseline base.json to report only new ones.\n"


def test_write_baseline_with_a_document_format_keeps_stdout_a_document(tree: Project) -> None:
    code, out, err = tree.run("check", "--write-baseline", "base.json", "--format", "json")
    assert code == 0 and json.loads(out)["diagnostics"] == []
    assert err.startswith("import-policy: Wrote 3 findings as 3 entries to base.json")


def test_a_baseline_never_absorbs_a_syntax_error(tree: Project) -> None:
    tree.write("broken.py", "import pickle\ndef (:\n")
    code, out, _ = tree.run("check", "--write-baseline", "base.json")
    assert code == 1
    assert out.splitlines() == [
        "broken.py:2:5: syntax-error the file does not parse: invalid syntax (Python 3.15 syntax)",
        "Found 1 violation (0 fixable with --fix).",
        "Wrote 3 findings as 3 entries to base.json; check with --baseline base.json to report only new ones.",
    ]
    assert "syntax-error" not in (tree.root / "base.json").read_text()
    code, out, _ = tree.run("check", "--baseline", "base.json")
    assert code == 1 and out.splitlines()[0].startswith("broken.py:2:5: syntax-error")


def test_a_syntax_error_recorded_by_an_older_baseline_is_not_absorbed(tree: Project) -> None:
    tree.write("broken.py", "import pickle\ndef (:\n")
    tree.run("check", "--write-baseline", "base.json")
    found = json.loads(tree.run("check", "--format", "json")[1])["diagnostics"]
    [error] = [Diagnostic(**{k: v for k, v in d.items() if k != "fixable"}) for d in found if d["rule"] == "syntax-error"]
    data = json.loads((tree.root / "base.json").read_text())
    key = baseline.keyed([error], lambda path: (tree.root / path).read_bytes())[0].key
    data["entries"].append({"rule": "syntax-error", "path": "broken.py", "fingerprint": key[2], "count": 1, "text": "import pickle def (:"})
    (tree.root / "base.json").write_text(json.dumps(data))
    code, out, _ = tree.run("check", "--baseline", "base.json")
    assert code == 1 and "syntax-error" in out


def test_fix_only_through_stdin(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"import re\nimport pickle\n"), encoding="utf-8"))
    code, out, err = tree.run("check", "--fix-only", "--stdin-filename", "c.py", "-")
    assert (code, out, err) == (0, "import regex as re\nimport pickle\n", "")
