"""`check --stdin-filename PATH -`: source from stdin, reported as PATH, with PATH's rules."""

from __future__ import annotations

import io
import sys

import pytest

from conftest import Project

CONFIG = """\
exclude: ["build/**"]
rules:
  - id: no-pickle
    message: no pickle
    forbid: [pickle]
    files: ["pkg/**"]
    allow_in: ["pkg/serial.py"]
  - id: no-re
    message: use regex
    forbid: [re]
    fix: {replace_module: regex}
"""


@pytest.fixture
def editor(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    project.config(CONFIG)
    project.write("pkg/on_disk.py", "import os\n")
    return project


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))


def test_reported_as_the_given_path_with_its_rules(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # The buffer, not the file on disk, is checked; the file need not exist at all.
    for name in ("pkg/on_disk.py", "pkg/new.py"):
        _stdin(monkeypatch, "import json\nimport pickle\n")
        code, out, err = editor.run("check", "--stdin-filename", name, "-")
        assert (code, err) == (1, "")
        assert out == f"{name}:2:8: no-pickle no pickle\nFound 1 violation (0 fixable with --fix).\n"


def test_rules_follow_the_path(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import pickle\n")
    assert editor.run("check", "--stdin-filename", "pkg/serial.py", "-") == (0, "All checks passed!\n", "")
    _stdin(monkeypatch, "import pickle\n")
    assert editor.run("check", "--stdin-filename", "other/x.py") == (0, "All checks passed!\n", "")


def test_relative_to_the_project_root_from_a_subfolder(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(editor.root / "pkg")
    _stdin(monkeypatch, "import pickle\n")
    code, out, _ = editor.run("check", "--stdin-filename", "mod.py", "-")
    assert code == 1
    assert out.splitlines()[0] == "mod.py:1:8: no-pickle no pickle"


def test_excluded_path_is_not_checked(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re\n")
    assert editor.run("check", "--stdin-filename", "build/gen.py", "-") == (0, "All checks passed!\n", "")


def test_syntax_error_on_stdin(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re\ndef f(:\n")
    code, out, _ = editor.run("check", "--stdin-filename", "pkg/x.py", "-")
    assert code == 1
    assert out.startswith("pkg/x.py:2:")
    assert " syntax-error " in out


def test_json_output_from_stdin(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re\n")
    code, out, _ = editor.run("check", "--stdin-filename", "pkg/x.py", "--format", "github", "-")
    assert code == 1
    assert out == "::error file=pkg/x.py,line=1,endLine=1,col=8,endColumn=10,title=no-re::use regex\n"


def test_other_paths_with_stdin_are_a_usage_error(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import os\n")
    code, out, err = editor.run("check", "--stdin-filename", "pkg/x.py", "pkg")
    assert (code, out) == (2, "")
    assert err == "import-policy: error: --stdin-filename reads the source from stdin: give '-' or no PATH\n"


def test_fix_writes_the_fixed_source_to_stdout(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re  # keep me\nimport os\n")
    code, out, err = editor.run("check", "--fix", "--stdin-filename", "pkg/on_disk.py", "-")
    assert (code, out, err) == (0, "import regex as re  # keep me\nimport os\n", "")
    assert (editor.root / "pkg/on_disk.py").read_text() == "import os\n"  # nothing written


def test_fix_reports_what_remains_on_stderr(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re\nimport pickle\n")
    code, out, err = editor.run("check", "--fix", "--stdin-filename", "pkg/x.py", "-")
    assert code == 1
    assert out == "import regex as re\nimport pickle\n"
    assert err == "pkg/x.py:2:8: no-pickle no pickle\nFound 1 violation (0 fixable with --fix).\n"


def test_fix_of_an_excluded_or_clean_buffer_echoes_it(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("build/gen.py", "pkg/clean.py"):
        source = "import re\n" if name.startswith("build") else "import os\n"
        _stdin(monkeypatch, source)
        assert editor.run("check", "--fix", "--stdin-filename", name, "-") == (0, source, "")


def test_diff_from_stdin(editor: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, "import re\n")
    code, out, _ = editor.run("check", "--diff", "--stdin-filename", "pkg/x.py", "-")
    assert code == 1
    assert "-import re\n+import regex as re\n" in out
