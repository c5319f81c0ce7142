"""The bench's quick commands in docs/benchmarks.md work on a fresh clone, or say what they need.

The bench itself is never run here (timings never go into pytest): these tests read which
cases need the vLLM corpus and which tools, and hold the docs' promises to it.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

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
