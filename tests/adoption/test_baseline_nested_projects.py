"""A baseline's entries are written and matched by the path from the baseline's folder, in
cold and warm runs alike (contract section 7), the graph findings of a nested project
included: a project-relative path joined to the baseline's folder names another file."""

from __future__ import annotations

import json

import pytest

from conftest import Project

CONFIG = "version: 1\nextends: [rocm-safety]\nrocm_safety:\n  entry_modules: [pkg]\n"


@pytest.fixture
def monorepo(project: Project) -> Project:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "from pkg import mod\n")
    project.write("pkg/mod.py", "import os\n\n\nimport json\n")  # the outer project's file of that name
    project.write("sub/import-policy.yaml", CONFIG)
    project.write("sub/pkg/__init__.py", "from pkg import mod\n")
    project.write("sub/pkg/mod.py", "import os\nimport tilelang\n")
    return project


def _entries(project: Project, baseline: str) -> list[tuple[str, str, str]]:
    data = json.loads((project.root / baseline).read_text(encoding="utf-8"))
    return [(e["rule"], e["path"], e["text"]) for e in data["entries"]]


@pytest.mark.parametrize(("baseline", "path"), [("bl.json", "sub/pkg/mod.py"), ("sub/bl.json", "pkg/mod.py")])
def test_entries_hold_the_path_from_the_baseline_s_folder_cold_and_warm(monorepo: Project, baseline: str, path: str) -> None:
    expected = [("heavy-import-reachable", path, "import tilelang")]
    for argv in ([], [], ["--no-cache"]):  # a cold cache, a warm one, none
        code, _, err = monorepo.run("check", *argv, "--write-baseline", baseline)
        assert code == 0, err
        assert _entries(monorepo, baseline) == expected
    for argv in (["--no-cache"], []):
        assert monorepo.run("check", *argv, "--baseline", baseline)[:2] == (0, "All checks passed!\n")
