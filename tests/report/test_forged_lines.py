"""No line a run prints begins with `::` unless it is a workflow command of `--format github`
(a GitHub runner reads such a line as a command the pull request chose), and module names
read from the checked code (a dynamic import's string literal) are escaped in every format
`why` writes, as `check` escapes them."""

from __future__ import annotations

import json

import pytest

from conftest import Project

COMMAND = "::notice file=README.md,line=1,title=Approved::LGTM.py"
LITERAL = "tilelang.x\n::error::X\x1b[31m"


@pytest.fixture
def forged(project: Project) -> Project:
    project.config("version: 1\nextends: [rocm-safety]\nrules:\n  - id: no-torch\n    forbid: [torch]\n")
    project.write(COMMAND, "import torch\n")
    project.write("pkg/__init__.py", 'import importlib\nimportlib.import_module("pkg.b")\n')
    project.write_bytes("pkg/b.py", b'import importlib\nimportlib.import_module("tilelang.x\\n::error::X\\x1b[31m")\n')
    return project


def _clean(text: str) -> list[str]:
    lines = text.splitlines()
    assert not [line for line in lines if line.startswith("::")], text
    assert "\x1b" not in text, text
    return lines


def test_a_path_that_would_start_a_command_is_written_dot_slash(forged: Project) -> None:
    code, out, err = forged.run("check", "--no-cache")
    lines = _clean(out + err)
    assert code == 1
    assert f"./{COMMAND}:1:8: no-torch `torch` is forbidden" in lines
    code, out, err = forged.run("check", "--no-cache", "--statistics")
    _clean(out + err)
    code, out, err = forged.run("check", "--no-cache", "--format", "github")
    assert all(line.startswith(("::error ", "::warning ")) for line in out.splitlines())  # its own, and only those


def test_why_escapes_names_from_the_checked_code_in_every_format(forged: Project) -> None:
    for fmt in ("text", "mermaid", "dot"):
        code, out, err = forged.run("why", "tilelang", "--format", fmt)
        assert code == 0, err
        lines = _clean(out + err)
        escaped = "tilelang.x\\n::error::X\\033[31m"
        if fmt == "dot":  # a DOT string's own backslashes are doubled
            escaped = escaped.replace("\\", "\\\\")
        assert any(escaped in line for line in lines), out
    code, out, err = forged.run("why", "tilelang", "--format", "json")
    assert json.loads(out)["chains"][0]["chain"][-1] == LITERAL  # JSON escapes on its own
