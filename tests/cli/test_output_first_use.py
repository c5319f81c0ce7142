"""Output a ruff user reads right: warnings marked, FORCE_COLOR, --statistics by rule, github chains once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project

CONFIG = """\
rules:
  - id: no-pickle
    forbid: [pickle]
    fix: {replace_module: json}
  - id: sync
    message: "use the platform's synchronize"
    forbid: [torch.cuda.synchronize]
    severity: warning
"""
SOURCE = "import pickle\nimport torch\ntorch.cuda.synchronize()\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", SOURCE)
    return project


def test_a_warning_says_so_without_colour(tree: Project) -> None:
    code, out, _ = tree.run("check", "--select", "sync")
    assert code == 0
    assert out == "a.py:3:1: sync warning: use the platform's synchronize\nFound 1 violation (0 fixable with --fix).\n"


def test_an_error_is_not_marked(tree: Project) -> None:
    assert tree.lines("--select", "no-pickle") == ["a.py:1:8: no-pickle [*] `pickle` is forbidden"]


def _colour_run(root: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-m", "import_policy", "check", "--no-cache"], cwd=root, env=environment,
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1, done.stderr
    return done.stdout


@pytest.mark.slow
def test_force_color_colours_a_pipe_and_no_color_wins(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text(CONFIG)
    (tmp_path / "a.py").write_text(SOURCE)
    plain = _colour_run(tmp_path)
    assert "\033[" not in plain  # a pipe is not a terminal
    forced = _colour_run(tmp_path, FORCE_COLOR="1")
    assert "\033[1ma.py\033[0m" in forced and "\033[33mwarning:\033[0m use the platform's synchronize" in forced
    assert _colour_run(tmp_path, FORCE_COLOR="1", NO_COLOR="1") == plain
    assert _colour_run(tmp_path, FORCE_COLOR="") == plain  # set but empty: not set


def test_statistics_shows_rule_count_and_fixable_count(tree: Project) -> None:
    tree.write("b.py", "import pickle\nimport torch\n\nimport pickle as p\n")
    code, out, _ = tree.run("check", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "3\tno-pickle\t3 fixable",
        "1\tsync     \t0 fixable",
        "Found 4 violations (3 fixable with --fix).",
    ]
    _, out, _ = tree.run("check", "--statistics", "--format", "json")
    assert json.loads(out) == [
        {"rule": "no-pickle", "count": 3, "fixable_count": 3},
        {"rule": "sync", "count": 1, "fixable_count": 0},
    ]


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_statistics_refuses_formats_it_would_break(tree: Project, fmt: str) -> None:
    code, out, err = tree.run("check", "--statistics", "--format", fmt)
    assert (code, out) == (2, "")
    assert err == f"import-policy: error: --statistics prints a table (text or json); it cannot be written as --format {fmt}\n"


def test_github_gives_the_chain_once(project: Project) -> None:
    project.config("extends: [rocm-safety]\nrocm_safety:\n  entry_modules: [pkg]\n")
    project.write("pkg/__init__.py", "from pkg import kernels\n")
    project.write("pkg/kernels.py", "import tilelang\n")
    code, out, _ = project.run("check", "--format", "github", "--select", "heavy-import-reachable")
    assert code == 1
    [line] = out.splitlines()
    assert "::importing `pkg` imports `tilelang`: pkg -> pkg.kernels -> tilelang (tilelang: " in line
    assert line.count("pkg -> pkg.kernels") == 1
