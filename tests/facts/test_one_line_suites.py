"""One-line suites (`else: import x`) in the module-level binding scan used for use analysis."""

from __future__ import annotations

from conftest import Project


def test_one_line_else_and_finally_do_not_recurse(project: Project) -> None:
    project.config("rules:\n  - id: env\n    forbid: [os.environ]\n")
    project.write(
        "a.py",
        "import os\n"
        "try:\n    import json\nexcept ImportError: json = None\nelse: import pickle\nfinally: pass\n"
        "if os: pass\nelse: import sys\n"
        "os.environ['X'] = '1'\n",
    )
    code, out, _ = project.run("check")
    assert code == 1
    assert out == "a.py:9:1: env `os.environ` is forbidden\nFound 1 violation (0 fixable with --fix).\n"
