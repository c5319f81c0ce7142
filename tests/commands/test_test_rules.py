"""`import-policy test-rules`: each rule's examples, run through the engine in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Project
from import_policy.policy.load import load
from import_policy.commands.test_rules import sample_path

REPO = Path(__file__).resolve().parents[2]


def test_bundled_example_passes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from import_policy.cli import main

    monkeypatch.chdir(REPO / "examples")
    assert main(["test-rules"]) == 0
    assert capsys.readouterr().out == "All 23 examples of 8 rules passed.\n"


def test_failures_name_rule_example_and_yaml_line(project: Project) -> None:
    project.config(
        """\
        rules:
          - id: no-pickle
            forbid: [pickle]
            files: ["pkg/"]
            allow_in: ["pkg/legacy/**"]
            examples:
              flag:
                - "import pickle"
                - "import json"
              allow:
                - "import os"
                - "from pickle import loads"
                - "def f(:\\n    pass\\n"
          - id: fine
            forbid: [os]
            examples:
              flag: ["import os"]
        """
    )
    code, out, err = project.run("test-rules")
    assert (code, err) == (1, "")
    assert out == (
        "import-policy.yaml:9: no-pickle: flag example 2 gives no finding in pkg/example.py: import json\n"
        "import-policy.yaml:12: no-pickle: allow example 2 is reported in pkg/example.py at 1:6 (`pickle` is forbidden): from pickle import loads\n"
        "import-policy.yaml:13: no-pickle: allow example 3 does not parse (the file does not parse: invalid syntax (Python 3.15 syntax), line 1): def f(: ...\n"
        "3 of 6 examples of 2 rules failed.\n"
    )


def test_rule_without_a_path_for_its_examples(project: Project) -> None:
    project.config(
        """\
        rules:
          - id: nowhere
            forbid: [pickle]
            files: ["pkg/**"]
            allow_in: ["pkg/"]
            examples: {flag: ["import pickle"]}
        """
    )
    code, out, _ = project.run("test-rules")
    assert code == 1
    assert out.splitlines()[0] == (
        "import-policy.yaml:6: nowhere: flag example 1 cannot run: no path of its language is covered "
        "by files and not by allow_in: import pickle"
    )


def test_no_examples(project: Project) -> None:
    project.config("rules:\n  - id: a\n    forbid: [x]\n")
    assert project.run("test-rules") == (0, "No rule has examples.\n", "")


def test_never_imports_the_code(project: Project) -> None:
    # A snippet that would raise if it ran, or if its module were imported.
    project.config(
        """\
        rules:
          - id: a
            forbid: [definitely_not_installed_xyz]
            examples:
              flag: ["import definitely_not_installed_xyz\\nraise SystemExit(3)\\n"]
        """
    )
    assert project.run("test-rules") == (0, "All 1 example of 1 rule passed.\n", "")


@pytest.mark.parametrize(
    ("files", "allow_in", "kind", "expected"),
    [
        ([], [], "import", "example"),
        (["vllm/**"], ["vllm/tilelang_utils/**"], "import", "vllm/example/example.py"),
        (["vllm/model_executor/*.py"], [], "import", "vllm/model_executor/example.py"),
        (["src/[ab]x/"], [], "import", "src/ax/example.py"),
        (["csrc/libtorch_stable/**"], [], "include", "csrc/libtorch_stable/example/example.cpp"),
        (["**"], ["example.py", "example/"], "import", "sample"),
    ],
)
def test_sample_path(project: Project, files: list[str], allow_in: list[str], kind: str, expected: str) -> None:
    project.config(
        "rules:\n  - id: r\n"
        + (f"    kind: {kind}\n" if kind != "import" else "")
        + f"    forbid: [{'x/**' if kind == 'include' else 'x'}]\n"
        + (f"    files: {files}\n" if files else "")
        + (f"    allow_in: {allow_in}\n" if allow_in else "")
    )
    rule = load(None, project.root).policy.rules[0]
    path = sample_path(rule)
    assert path is not None and path.startswith(expected)
    assert rule.applies_to(path)


IMPORT_TIME_RULE = """\
version: 1
rules:
  - id: light
    kind: import-time
    entry: [app]
    forbid: [cv2]
    examples:
      flag:
        - "import cv2\\n"
        - "# file: app/__init__.py\\nfrom app.media import image\\n# file: app/media/image.py\\nimport cv2\\n"
        - "import json\\n"
      allow:
        - "def f():\\n    import cv2\\n"
        - "# file: app/__init__.py\\nfrom app import media\\n# file: app/media.py\\nimport cv2\\n"
        - "# file: ../outside.py\\nimport json\\n"
        - "# file: app/__init__.py\\nimport app.b\\n# file: app/b.py\\ndef f(:\\n"
"""


def test_import_time_examples_are_small_projects(project: Project) -> None:
    project.config(IMPORT_TIME_RULE)
    project.write("app/__init__.py", "import cv2\n")  # the real tree never leaks into an example
    code, out, _ = project.run("test-rules")
    assert code == 1
    assert out.splitlines() == [
        "import-policy.yaml:11: light: flag example 3 gives no finding importing app: import json",
        "import-policy.yaml:14: light: allow example 2 is reported in app/media.py at 1:8 "
        "(importing `app` loads `cv2` at import time: app -> app.media -> cv2): # file: app/__init__.py ...",
        "import-policy.yaml:15: light: allow example 3 names '../outside.py', not a relative .py path inside the project: "
        "# file: ../outside.py ...",
        "import-policy.yaml:16: light: allow example 4 does not parse (app/b.py: invalid syntax, line 1): "
        "# file: app/__init__.py ...",
        "4 of 7 examples of 1 rule failed.",
    ]
