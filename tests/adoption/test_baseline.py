"""Baselines: `--write-baseline` records today's violations; `--baseline` reports only new ones."""

from __future__ import annotations

import json

import pytest

from conftest import Project

CONFIG = """\
rules:
  - id: no-pickle
    message: no pickle
    forbid: [pickle]
  - id: no-re
    message: use regex
    forbid: [re]
"""

A = """\
import pickle
import re


def f():
    import pickle
"""


@pytest.fixture
def legacy(project: Project) -> Project:
    project.config(CONFIG)
    project.write("pkg/a.py", A)
    project.write("pkg/b.py", "import os\nfrom re import sub\n")
    return project


def _write(project: Project) -> None:
    code, out, err = project.run("check", "--write-baseline", "baseline.json")
    # What happened, on stdout where "All checks passed!" would stand; nothing on stderr.
    assert (code, out, err) == (
        0, "Wrote 4 findings as 3 entries to baseline.json; check with --baseline baseline.json to report only new ones.\n", ""
    )


def test_written_file(legacy: Project) -> None:
    _write(legacy)
    data = json.loads((legacy.root / "baseline.json").read_text())
    assert data["version"] == 1
    entries = [(e["rule"], e["path"], e["count"], e["text"]) for e in data["entries"]]
    assert sorted(entries) == [
        ("no-pickle", "pkg/a.py", 2, "import pickle"),
        ("no-re", "pkg/a.py", 1, "import re"),
        ("no-re", "pkg/b.py", 1, "from re import sub"),
    ]
    assert all(len(e["fingerprint"]) == 16 for e in data["entries"])
    assert "line" not in data["entries"][0]


def test_unchanged_tree_is_clean(legacy: Project) -> None:
    _write(legacy)
    assert legacy.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")


def test_line_shift_changes_nothing(legacy: Project) -> None:
    _write(legacy)
    legacy.write("pkg/a.py", '"""A docstring added above."""\n\nimport os\n\n' + A.replace("import re", "import   re"))
    assert legacy.run("check", "--baseline", "baseline.json") == (0, "All checks passed!\n", "")


def test_new_violation_is_reported(legacy: Project) -> None:
    _write(legacy)
    # A third `import pickle` in the same file: the multiset allows two.
    legacy.write("pkg/a.py", A + "\n\ndef g():\n    import pickle\n")
    legacy.write("pkg/c.py", "import re\n")
    code, out, err = legacy.run("check", "--baseline", "baseline.json")
    assert (code, err) == (1, "")
    assert out == (
        "pkg/a.py:10:12: no-pickle no pickle\n"
        "pkg/c.py:1:8: no-re use regex\n"
        "Found 2 violations (0 fixable with --fix).\n"
    )


def test_fixed_violation_is_reported_as_stale(legacy: Project) -> None:
    _write(legacy)
    legacy.write("pkg/a.py", A.replace("import re\n", ""))
    legacy.write("pkg/b.py", "import os\n")
    code, out, err = legacy.run("check", "--baseline", "baseline.json")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines() == [
        "import-policy: warning: baseline.json: entry no longer matches: no-re in pkg/a.py: 'import re'; "
        "shrink the baseline with --write-baseline",
        "import-policy: warning: baseline.json: entry no longer matches: no-re in pkg/b.py: 'from re import sub'; "
        "shrink the baseline with --write-baseline",
    ]


def test_partly_fixed_entry_is_stale_by_its_count(legacy: Project) -> None:
    _write(legacy)
    legacy.write("pkg/a.py", A.replace("    import pickle\n", "    pass\n"))
    code, _, err = legacy.run("check", "--baseline", "baseline.json")
    assert code == 0
    assert err == (
        "import-policy: warning: baseline.json: entry no longer matches: no-pickle in pkg/a.py: 'import pickle'; "
        "shrink the baseline with --write-baseline\n"
    )


def test_entries_outside_the_run_are_not_stale(legacy: Project) -> None:
    _write(legacy)
    assert legacy.run("check", "--baseline", "baseline.json", "pkg/b.py") == (0, "All checks passed!\n", "")
    assert legacy.run("check", "--baseline", "baseline.json", "--select", "no-re") == (0, "All checks passed!\n", "")


def test_baseline_survives_a_check_from_a_subfolder(legacy: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(legacy)
    monkeypatch.chdir(legacy.root / "pkg")
    assert legacy.run("check", "--baseline", "../baseline.json") == (0, "All checks passed!\n", "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the baseline missing.json"),
        ("{", "the baseline missing.json is not JSON"),
        ('{"version": 7, "entries": []}', "is not an import-policy baseline"),
        ('{"version": 1, "entries": [{"rule": "x"}]}', "entry 1 needs rule, path, fingerprint and count"),
    ],
)
def test_bad_baseline_is_exit_2(legacy: Project, content: str | None, message: str) -> None:
    if content is not None:
        legacy.write("missing.json", content)
    code, out, err = legacy.run("check", "--baseline", "missing.json")
    assert (code, out) == (2, "")
    assert message in err


def test_write_and_read_together_is_a_usage_error(legacy: Project) -> None:
    code, _, err = legacy.run("check", "--baseline", "a.json", "--write-baseline", "b.json")
    assert code == 2
    assert "not allowed with argument" in err
