"""The bench's quick commands in docs/benchmarks.md work on a fresh clone, or say what they need.

The bench itself is never run here (timings never go into pytest): these tests read which
cases need the vLLM corpus and which tools, and hold the docs' promises to it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "bench" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _quick_commands() -> list[tuple[list[str], str]]:
    text = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    found = []
    for line in text.splitlines():
        match = re.match(r"python bench/run\.py(.*?)#\s*(.*)$", line)
        if match:
            found.append((shlex.split(match.group(1)), match.group(2)))
    return found


def _cases(bench: ModuleType, argv: list[str]) -> tuple[set[str], bool]:
    args = bench.parser().parse_args(argv)
    return args.cases, args.prepare_only


def test_the_generated_cases_need_no_corpus_and_t8_no_other_tool(bench: ModuleType) -> None:
    assert not bench.needs_corpus({"T7", "T8"})
    assert bench.tools_for({"T8"}) == []
    assert bench.tools_for({"T7"}) == ["ruff"]
    assert bench.needs_corpus({"T3"}) and bench.needs_corpus(set(), prepare_only=True)
    assert bench.tools_for(set(bench.CASES)) == list(bench.TOOLS)


def test_the_docs_quick_commands_say_what_they_need(bench: ModuleType) -> None:
    commands = _quick_commands()
    assert len(commands) >= 5
    for argv, comment in commands:
        cases, prepare_only = _cases(bench, argv)
        fresh = "fresh clone" in comment or "needs only import-policy" in comment
        if bench.needs_corpus(cases, prepare_only):
            assert not fresh, (argv, comment)
        if fresh:
            assert not bench.needs_corpus(cases, prepare_only) and not bench.tools_for(cases), (argv, comment)
    assert any("fresh clone" in comment for _, comment in commands)


def test_a_missing_corpus_stops_with_what_to_do(bench: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.fetch_corpus(tmp_path / "vllm-0.33.0", tmp_path / "no-fetcher.py")
    assert "pass --fetcher PATH, or --corpus DIR" in str(stopped.value)


def _fake_t11_venv(root: Path) -> Path:
    """A venv-like folder holding `peft`, which imports `torch`: what T11's probe reads."""
    venv = root / "t11"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7.final.0\n")
    site = venv / "lib" / "python3.11" / "site-packages"
    for name, text in (("peft", "import torch\n"), ("torch", "")):
        (site / name).mkdir(parents=True)
        (site / name / "__init__.py").write_text(text)
        info = site / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "RECORD").write_text(f"{name}/__init__.py,,\n{info.name}/RECORD,,\n")
    return venv


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(path.relative_to(root)): (path.lstat().st_size, path.lstat().st_mtime_ns) for path in root.rglob("*")}


def test_t11_installs_nothing_into_an_existing_venv(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An existing --t11-env is only read: nothing is run to set it up; a missing one is built,
    pip running in the new venv only."""
    venv = _fake_t11_venv(tmp_path)
    ran: list[list[str]] = []
    monkeypatch.setattr(bench.subprocess, "run", lambda argv, **_: ran.append(list(argv)))
    assert bench.t11_setup(venv) == [] and bench.t11_env(venv) == venv and ran == []
    missing = tmp_path / "new"
    create, install = bench.t11_setup(missing)
    assert create == [sys.executable, "-m", "venv", str(missing)]
    assert install[:4] == [str(missing / "bin" / "python"), "-m", "pip", "install"] and "-e" not in install


def _t11_commands(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Any]]:
    monkeypatch.setattr(sys, "path", list(sys.path))  # the bench puts its folder on it
    venv = _fake_t11_venv(tmp_path)
    state = bench.Bench("/bench-venv/bin/python", tmp_path, [], tmp_path / "work", "1", 1, 1)
    return venv, bench.t11_commands(state, venv)


def test_t11_runs_this_checkout_and_names_the_venv(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """T11's import-policy runs are this checkout's (`python -m import_policy` with the checkout's
    src first on PYTHONPATH, under the interpreter running the bench), the venv named by
    `environment.python` only; no command installs anything."""
    venv, commands = _t11_commands(bench, tmp_path, monkeypatch)
    site = venv / "lib" / "python3.11" / "site-packages"
    work = tmp_path / "work"
    for key in ("each_cold", "one_cold", "each_warm"):
        command = commands[key]
        assert command.argv[:4] == [sys.executable, "-m", "import_policy", "check"], command.argv
        assert command.env["PYTHONPATH"].split(os.pathsep)[0] == str(REPO / "src")
        assert command.cwd is not None and venv not in command.cwd.parents
    assert commands["ruff"].argv[:3] == ["/bench-venv/bin/python", "-m", "ruff"] and commands["ruff"].cwd == site
    assert not any("pip" in arg or arg == "install" for command in commands.values() for arg in command.argv)
    for probe in ("each", "one"):
        assert f"environment:\n  python: {venv / 'bin' / 'python'}\nfollow: all\n" in (work / "t11" / probe / "import-policy.yaml").read_text()


@pytest.mark.slow
def test_t11_probe_leaves_the_venv_as_it_was(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-rule probe, run for real as T11 runs it, answers and writes nothing into the venv."""
    venv, commands = _t11_commands(bench, tmp_path, monkeypatch)
    before = _tree(venv)
    one = commands["one_cold"]
    one.before()
    done = subprocess.run(one.argv, cwd=one.cwd, env=one.env, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and done.stderr == "" and "loads `peft` at import time" in done.stdout, (done.stdout, done.stderr)
    assert _tree(venv) == before


def test_t11_refuses_the_bench_venv_as_its_own(bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench installs its tools and the checkout into --venv: that is never T11's venv."""
    venv = _fake_t11_venv(tmp_path)
    monkeypatch.setattr(bench.subprocess, "run", lambda *a, **k: pytest.fail("ran something"))
    monkeypatch.setattr(bench.os, "execve", lambda *a, **k: pytest.fail("ran again under the venv"))
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--cases", "T11", "--venv", str(venv), "--t11-env", str(tmp_path / "." / "t11")])
    assert "--venv and --t11-env name one venv" in str(stopped.value)
