"""The facts cache and the process pool: same results as a plain run, whatever is on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project
from import_policy.facts.cpython import from_ast
from import_policy.pipeline import parallel
from import_policy.cache.facts import FOLDER
from import_policy.facts.cst import from_cst as python_facts
from import_policy.facts.cst.from_cst import extract
from import_policy.facts.records.serial import from_json, to_json

CONFIG = """\
version: 1
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: re-regex
    forbid: [re]
    except: [re._constants]
"""

RICH = """\
# import-policy: ignore[no-pickle]
import pickle
import torch as t
from typing import TYPE_CHECKING
if TYPE_CHECKING and not t.cuda.is_available() or x == 1:
    import re
else:
    from . import sibling
@t.jit.script
def f():
    import importlib
    importlib.import_module("pickle")
    t.cuda.synchronize()  # import-policy: ignore
class C:
    g = lambda: t.cuda.synchronize()
"""


def _entries(root: Path) -> list[Path]:
    """The per-file facts entries (not the whole-run, walk, policy and .gitignore entries of their own folders)."""
    others = ("runs", "walk", "policies", "built", "ignores")
    return sorted(p for p in (root / FOLDER).rglob("*.json") if p.parent.name not in others)


def test_facts_round_trip_through_json() -> None:
    facts = extract(RICH.encode(), "pkg/m.py", "pkg.m", False, want_uses=True)
    assert facts.uses and facts.calls and facts.decorators and facts.functions and facts.suppressions.lines
    assert from_json(json.loads(json.dumps(to_json(facts)))) == facts
    # classes and their bases, globals, dict entries, dels, bindings in a try, if tests' lines and text
    semantics = extract(
        b"class K(C):\n    def f(self):\n        global X\nenv = {'k': is_hip()}\ndel env\n"
        b"try:\n    Y = 1\nexcept ImportError:\n    pass\nif env['k']:\n    import a\n",
        "pkg/m.py", "pkg.m", False,
    )
    assert semantics.classes and semantics.functions[0].globals and any(a.removed for a in semantics.assigns)
    assert any(a.context.tried for a in semantics.assigns) and semantics.imports[0].context.branches[0].text
    assert from_json(json.loads(json.dumps(to_json(semantics)))) == semantics
    broken = extract(b"def (:\n", "m.py", "m", False)
    assert broken.syntax_error is not None
    assert from_json(json.loads(json.dumps(to_json(broken)))) == broken


@pytest.mark.parametrize("bad", [{"facts": 1}, [1, 2], {"key": "x", "facts": {}}, {"imports": [[1]]}])
def test_malformed_facts_are_refused(bad: object) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        from_json(bad.get("facts", bad) if isinstance(bad, dict) else bad)


@pytest.mark.parametrize("span", [[1, True, 1, 2], [1, 2.0, 1, 3], [1, 2, 3], [1, 2, 3, 4, 5], "1,2,3,4", None])
def test_a_span_that_is_not_four_integers_is_refused(span: object) -> None:
    data = to_json(extract(b"import os\n", "m.py", "m", False))
    data["imports"][0][5] = span
    with pytest.raises(ValueError):
        from_json(json.loads(json.dumps(data)))


def _tree(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", "import pickle\nimport torch\ntorch.cuda.synchronize()\n")
    project.write("pkg/b.py", "import os\n")
    project.write("pkg/c.py", "import re\nfrom re import _constants\n")
    project.write("pkg/d.py", "import pickle\ndef (:\n")


def test_warm_run_parses_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project)
    cold = project.run("check")
    # pkg/__init__.py and pkg/b.py can hold no finding: never parsed, nothing to cache.
    assert cold[0] == 1 and len(_entries(project.root)) == 3
    assert (project.root / FOLDER / ".gitignore").read_text(encoding="utf-8").endswith("*\n")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed a file the cache holds")

    monkeypatch.setattr(python_facts, "extract", refuse)
    monkeypatch.setattr(from_ast, "rule_facts", refuse)  # where the engine and the pass import them from
    monkeypatch.setattr(from_ast, "graph_facts", refuse)
    shutil.rmtree(project.root / FOLDER / "runs")  # the per-file entries alone answer it
    assert project.run("check") == cold


def test_a_changed_file_is_parsed_again(project: Project) -> None:
    _tree(project)
    project.run("check")
    project.write("pkg/b.py", "import pickle\n")
    code, out, _ = project.run("check", "pkg/b.py")
    assert (code, out.splitlines()[0]) == (1, "pkg/b.py:1:8: no-pickle `pickle` is forbidden")


@pytest.mark.parametrize("damage", [b"", b"{", b"\x00\xff", b'{"key": "0000", "facts": {}}', b"[]", b'{"key": null}'])
def test_corrupt_truncated_or_foreign_entries_are_rebuilt(project: Project, damage: bytes) -> None:
    _tree(project)
    cold = project.run("check")
    for entry in _entries(project.root):
        entry.write_bytes(damage)
    shutil.rmtree(project.root / FOLDER / "runs")  # else the whole-run entry answers
    assert project.run("check") == cold
    for entry in _entries(project.root):  # rewritten whole
        assert json.loads(entry.read_bytes())["key"] == entry.parent.name + entry.stem


def test_an_entry_moved_to_another_key_is_foreign(project: Project) -> None:
    _tree(project)
    cold = project.run("check")
    entries = _entries(project.root)
    texts = [entry.read_bytes() for entry in entries]
    for entry, text in zip(entries, texts[1:] + texts[:1]):
        entry.write_bytes(text)
    assert project.run("check") == cold


def test_no_cache_writes_nothing(project: Project) -> None:
    _tree(project)
    project.run("check", "--no-cache")
    assert not (project.root / FOLDER).exists()


def test_an_unwritable_cache_only_costs_speed(project: Project) -> None:
    _tree(project)
    (project.root / FOLDER).write_text("not a folder", encoding="utf-8")
    code, out, err = project.run("check")
    assert code == 1 and "no-pickle" in out and err == ""


@pytest.mark.parametrize("flags", [["--no-cache"], []])
def test_any_number_of_jobs_gives_the_same_output(
    project: Project, monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 2)
    _tree(project)
    for n in range(12):
        project.write(f"pkg/m{n:02}.py", "import pickle\n" if n % 3 == 0 else f"import os\nx = {n}\n")
    outputs = {jobs: project.run("check", *flags, "--format", "json", "--jobs", jobs) for jobs in ("1", "2", "3", "1")}
    assert len(set(outputs.values())) == 1
    assert outputs["1"][0] == 1 and outputs["1"][1].count('"no-pickle"') == 5


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_number(project: Project, value: str) -> None:
    _tree(project)
    code, _, err = project.run("check", "--jobs", value)
    assert code == 2 and "--jobs: expected a whole number of processes (1 or more)" in err


@pytest.mark.slow
def test_concurrent_runs_share_the_cache(project: Project) -> None:
    _tree(project)
    for n in range(40):
        project.write(f"pkg/m{n:02}.py", "import pickle\n" if n % 4 == 0 else "import os\n")
    command = [sys.executable, "-m", "import_policy", "check", "--jobs", "1", "--format", "json"]
    runs = [subprocess.Popen(command, cwd=project.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
    results = [(run.wait(timeout=120), *run.communicate()) for run in runs]
    assert {r[0] for r in results} == {1} and {r[2] for r in results} == {b""}
    assert len({r[1] for r in results}) == 1
    assert project.run("check", "--format", "json")[1].encode() == results[0][1]
