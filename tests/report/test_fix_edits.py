"""A fix's edits, as JSON and SARIF give them, turn the file into what `--fix` writes: one
replacement per change region of the fixer's own edits (those `--diff` makes its hunks of),
never a sequence match of the whole file."""

from __future__ import annotations

import codecs
import difflib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Project
from import_policy.policy.load import load
from import_policy.config.model import Policy
from import_policy.discovery.files import SourceFile
from import_policy.fix.apply import fix_bytes
from import_policy.fix.patch import edits_between
from import_policy.pipeline.engine import run
from import_policy.pipeline.plan import Plan, Selection
from import_policy.report.fix_edits import edits_hook, replacements
from import_policy.report.sarif import Replacement


def _apply(text: str, replacements: list[Replacement] | tuple[Replacement, ...]) -> str:
    """The replacements made on `text` as SARIF reads them: lines end at '\\n', columns count code points."""
    lines = text.split("\n")

    def offset(line: int, column: int) -> int:
        return sum(len(part) + 1 for part in lines[: line - 1]) + column - 1

    for r in sorted(replacements, key=lambda r: (r.line, r.column), reverse=True):
        text = text[: offset(r.line, r.column)] + r.text + text[offset(r.end_line, r.end_column):]
    return text


LINES = st.lists(st.sampled_from(["import re\n", "x = 1\n", "\x0cy = 2\n", "z = 3\r\n", "w", "\n", "é\n"]), max_size=8)


@settings(max_examples=150, deadline=None)
@given(LINES, LINES, LINES, LINES)
def test_edits_applied_give_the_new_text(head: list[str], old: list[str], new: list[str], tail: list[str]) -> None:
    before = "".join(head + old + tail)
    after = "".join(head + new + tail)
    edits = edits_between(before.encode(), after.encode(), None)
    assert _apply(before, replacements(before.encode(), edits)) == after


def test_only_the_changed_lines_are_edited() -> None:
    before = "a = 1\n" * 50 + "import re\n" + "b = 2\n" * 50
    at = before.index("import re")
    edits = [(at, at + len("import re"), b"import regex as re")]
    assert replacements(before.encode(), edits) == [Replacement(51, 1, 52, 1, "import regex as re\n")]


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a report's fix compared the whole file")


@pytest.mark.parametrize("fmt", ["sarif", "json"])
def test_report_fixes_never_match_the_whole_file(project: Project, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    project.config("rules:\n  - id: no-re\n    forbid: [re]\n    fix: {replace_module: regex}\n")
    project.write("m.py", "import re\n" + "x = 1\n" * 40 + "from re import sub\n" + "y = 2\n" * 40)
    monkeypatch.setattr(difflib, "SequenceMatcher", _refuse)
    code, out, _ = project.run("check", "--no-cache", "--format", fmt)
    assert code == 1
    assert '"import regex as re\\n"' in out and '"from regex import sub\\n"' in out


# ---- over generated files, through the real fixer ----------------------------------------

CONFIG = """\
rules:
  - id: no-re
    forbid: [re]
    fix: {replace_module: regex}
  - id: gw
    forbid: [triton]
    fix:
      gateway: pk.gw
      exports: {triton: triton, triton.language: tl}
"""

# Whole top-level statements, so every file parses: statement-local fixes, whole-file ones
# (two imports from the gateway fold into one), a split statement, lines that do not change.
STATEMENTS = st.sampled_from([
    "import re", "from re import sub, compile as c", "import os, re  # keep", "import triton",
    "import triton.language as tl", "import os", "x = 1", "é = 'é'", "", "# a comment", "\x0cy = 2",
])


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    root = tmp_path_factory.mktemp("generated")
    (root / "import-policy.yaml").write_text(CONFIG)
    (root / "pk").mkdir()
    (root / "pk" / "__init__.py").write_text("")
    (root / "pk" / "gw.py").write_text("triton = tl = None\n")
    return load(None, root).policy


@settings(max_examples=40, deadline=None)
@given(
    st.lists(STATEMENTS, min_size=1, max_size=12),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
def test_each_findings_replacements_give_what_the_fixer_writes(
    policy: Policy, statements: list[str], newline: str, bom: bool, last_newline: bool
) -> None:
    text = newline.join(statements) + (newline if last_newline else "")
    source = (codecs.BOM_UTF8 if bom else b"") + text.encode()
    path = "pk/m.py"
    found = run(Plan(policy, Selection()), [SourceFile(policy.root / path, path, "python")], read=lambda _: source)
    edits_for = edits_hook(Path(policy.root), {path: source})
    for d in found.diagnostics:
        if d.fix is None:
            continue
        fixed = fix_bytes(source, [replace(d, fixable=True)], unsafe=True)
        edits = edits_for(d)
        if not fixed.changed:
            assert edits is None
            continue
        assert edits is not None
        expected = fixed.new.removeprefix(codecs.BOM_UTF8).decode()
        assert _apply(text, edits.replacements) == expected
        # Each replacement is whole lines that change: the lines it starts and ends on differ.
        for r in edits.replacements:
            assert r.column == 1 and (r.end_column == 1 or r.end_line == text.count("\n") + 1)



def test_a_fix_that_adds_an_import_gives_a_replacement_per_place(project: Project) -> None:
    # The inline probe's fix adds `import importlib.util` at the top and rewrites the `try:`
    # far below: two small replacements, not one spanning the file between.
    project.config("extends: [rocm-safety]\n")
    source = (
        '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n' + "x = 1\n" * 40
        + "def found():\n    try:\n        import aiter  # noqa: F401\n\n        return True\n"
        "    except ImportError:\n        return False\n"
    )
    project.write("pkg/__init__.py", "")
    project.write("pkg/a.py", source)
    code, out, _ = project.run("check", "--no-cache", "--format", "json", "--select", "trial-import-probe")
    assert code == 1
    (finding,) = json.loads(out)["diagnostics"]
    edits = finding["fix"]["edits"]
    assert [(e["line"], e["end_line"]) for e in edits] == [(3, 3), (46, 52)]
    replaced = _apply(source, [Replacement(e["line"], e["column"], e["end_line"], e["end_column"], e["content"]) for e in edits])
    project.run("check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "trial-import-probe")
    assert replaced == (project.root / "pkg/a.py").read_text(encoding="utf-8") != source
