"""The command line: exit codes, options, output, and snapshots of the bundled example."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project, snapshot
from import_policy.cli import main

REPO = Path(__file__).resolve().parents[2]

CONFIG = """\
rules:
  - id: no-pickle
    message: "no pickle"
    forbid: [pickle]
  - id: sync
    forbid: [torch.cuda.synchronize]
    severity: warning
"""


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", "import pickle\nimport torch\ntorch.cuda.synchronize()\n")
    project.write("b.py", "import os\n")
    return project


def test_exit_1_with_violations_and_exact_lines(tree: Project) -> None:
    code, out, err = tree.run("check")
    assert code == 1
    assert out == (
        "a.py:1:8: no-pickle no pickle\n"
        "a.py:3:1: sync warning: `torch.cuda.synchronize` is forbidden\n"
        "Found 2 violations (0 fixable with --fix).\n"
    )
    assert err == ""


def test_exit_0_when_only_warnings_remain(tree: Project) -> None:
    code, out, _ = tree.run("check", "--ignore", "no-pickle")
    assert code == 0
    assert out.splitlines()[-1] == "Found 1 violation (0 fixable with --fix)."


def test_exit_0_when_clean(tree: Project) -> None:
    code, out, _ = tree.run("check", "b.py")
    assert (code, out) == (0, "All checks passed!\n")


def test_select_and_ignore(tree: Project) -> None:
    assert tree.lines("--select", "sync") == ["a.py:3:1: sync warning: `torch.cuda.synchronize` is forbidden"]
    assert tree.lines("--select", "sync,no-pickle", "--ignore", "sync") == ["a.py:1:8: no-pickle no pickle"]


def test_unknown_rule_in_select_is_exit_2(tree: Project) -> None:
    code, out, err = tree.run("check", "--select", "nope")
    assert code == 2
    assert "--select: unknown rule 'nope'; did you mean `no-pickle`? (a selector is a rule id, or a prefix of ids" in err
    assert "; rules in force: no-pickle, sync, syntax-error\n" in err
    assert out == ""


def test_exit_zero(tree: Project) -> None:
    code, out, _ = tree.run("check", "--exit-zero")
    assert code == 0
    assert "Found 2 violations" in out


def test_statistics(tree: Project) -> None:
    tree.write("c.py", "import pickle\n")
    code, out, _ = tree.run("check", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "2\tno-pickle\t0 fixable",
        "1\tsync     \t0 fixable",
        "Found 3 violations (0 fixable with --fix).",
    ]
    _, out, _ = tree.run("check", "--statistics", "--format", "json")
    assert json.loads(out)[0] == {"rule": "no-pickle", "count": 2, "fixable_count": 0}


def test_json_document(tree: Project) -> None:
    code, out, _ = tree.run("check", "--format", "json")
    assert code == 1
    document = json.loads(out)
    assert document["version"] == 1
    assert document["summary"] == {"files": 2, "violations": 2, "fixable": 0}
    assert document["diagnostics"][0] == {
        "rule": "no-pickle", "severity": "error", "path": "a.py", "line": 1, "column": 8,
        "end_line": 1, "end_column": 14, "message": "no pickle", "fixable": False, "fix": None,
    }


def test_paths_relative_to_the_current_folder(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    tree.write("sub/c.py", "import pickle\n")
    monkeypatch.chdir(tree.root / "sub")
    assert tree.lines("--config", "../import-policy.yaml", ".", "../a.py", "--select", "no-pickle") == [
        "../a.py:1:8: no-pickle no pickle",
        "c.py:1:8: no-pickle no pickle",
    ]


def test_no_colour_when_not_a_terminal_and_with_no_color(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from import_policy.report import text

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR")
    assert text.use_colour(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not text.use_colour(Tty())  # type: ignore[arg-type]
    _, out, _ = tree.run("check")
    assert "\033[" not in out


def test_usage_error_is_exit_2(tree: Project) -> None:
    code, _, err = tree.run("check", "--format", "xml")
    assert code == 2
    assert "invalid choice" in err
    assert tree.run("frobnicate")[0] == 2


def test_flags_of_later_features_are_not_accepted_without_them(tree: Project) -> None:
    # Every accepted flag does something: --help lists only implemented ones.
    code, out, _ = tree.run("check", "--help")
    assert code == 0
    assert "--select" in out


def test_no_configuration_uses_the_default_preset(project: Project) -> None:
    project.write("a.py", "import pickle\n")
    code, out, err = project.run("check")
    assert err.splitlines()[0] == "import-policy: no configuration found from . upward (looked for import-policy.yaml, .import-policy.yaml, or a pyproject.toml with [tool.import-policy] config); using the built-in rocm-safety preset"


def test_unreadable_file_is_exit_2(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "b.py":  # chmod 0 does not stop root, who runs CI
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, _, err = tree.run("check")
    assert code == 2
    assert "cannot read b.py" in err


def test_rules_lists_id_kind_severity_fixable_source_message(tree: Project) -> None:
    code, out, _ = tree.run("rules")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "kind", "severity", "fixable", "source", "message"]
    assert lines[1].split()[:5] == ["no-pickle", "import", "error", "no", "import-policy.yaml:2"]
    assert any(line.startswith("syntax-error") for line in lines)


def test_explain_shows_a_rule_with_its_examples(project: Project) -> None:
    project.config(
        "rules:\n  - id: p\n    forbid: [pickle]\n    examples:\n      flag: ['import pickle']\n"
        "      allow: [\"def f():\\n    import json\\n\"]\n"
    )
    code, out, _ = project.run("explain", "p")
    assert code == 0
    assert "  declared in:   import-policy.yaml:2" in out
    assert "    - import pickle" in out
    assert "    - def f():\n          import json" in out
    code, _, err = project.run("explain", "nope")
    assert code == 2
    assert "unknown rule 'nope'" in err


def test_python_dash_m(tree: Project) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", "--select", "no-pickle"],
        cwd=tree.root, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"},
    )
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == "a.py:1:8: no-pickle no pickle"


# --- snapshots of the bundled example ------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_example_snapshot(fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO / "examples")
    monkeypatch.setenv("NO_COLOR", "1")
    code = main(["check", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 1
    snapshot(f"example.{fmt if fmt != 'text' else 'txt'}", out)
