"""Cache faults: corrupt, truncated or foreign entries are ignored and rebuilt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project


def test_corrupt_truncated_and_foreign_cache_entries_are_ignored(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: no-re\n    forbid: [re, os.path.join]\n")
    for i in range(6):
        project.write(f"m{i}.py", f"import os\nimport re\nos.path.join('a', '{i}')\n")
    first = project.run("check", ".")
    entries = sorted(p for p in (project.root / ".import_policy_cache").rglob("*") if p.is_file())
    assert entries
    damage = [b"", b"\0" * 64, b"{not json", b'{"version": 999, "facts": []}', b"\xff\xfe garbage"]
    for i, entry in enumerate(entries):
        entry.write_bytes(damage[i % len(damage)] if i % 2 == 0 else entry.read_bytes()[: len(entry.read_bytes()) // 2])
    assert project.run("check", ".") == first
    assert project.run("check", ".") == first


@pytest.mark.slow
def test_four_concurrent_runs_over_one_cache_agree(tmp_path: Path) -> None:
    (tmp_path / "import-policy.yaml").write_text("version: 1\nrules:\n  - id: no-re\n    forbid: [re]\n", encoding="utf-8")
    for i in range(40):
        (tmp_path / f"m{i}.py").write_text("import os\nimport re\n", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1"}
    runs = [
        subprocess.Popen([sys.executable, "-m", "import_policy", "check", "."], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    results = [(p.wait(timeout=120), p.stdout.read() if p.stdout else "", p.stderr.read() if p.stderr else "") for p in runs]
    assert all(code == 1 and err == "" for code, _, err in results), results
    assert len({out for _, out, _ in results}) == 1
