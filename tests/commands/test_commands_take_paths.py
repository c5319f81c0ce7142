"""`test-rules`, `rules`, `explain` and `why` take paths as `check` does and use every
configuration `check` would use there (contract section 7): at a monorepo's root, or above
a project kept in `python/`, they find the projects below; `test-rules` with no
configuration found fails."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import Project

KT = """\
version: 1
extends: [../base.yaml]
rocm_safety:
  heavy_modules: [xformers]
  entry_modules: [kt]
rules:
  - id: no-pickle
    forbid: [pickle]
    examples:
      flag: ["import pickle"]
      allow: ["import os"]
"""
BASE = """\
version: 1
rules:
  - id: no-re
    forbid: [re]
    examples:
      flag: ["import re"]
      allow: ["import regex"]
"""
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
WEB = "version: 1\nextends: [../base.yaml]\n"


@pytest.fixture
def monorepo(project: Project) -> Project:
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)  # a shared base lives in one repository
    project.write("base.yaml", BASE)
    project.write("python/import-policy.yaml", KT)
    project.write("python/kt/__init__.py", "from kt import ops\n")
    project.write("python/kt/ops.py", "import xformers\n")
    project.write("web/import-policy.yaml", WEB)
    project.write("web/app.py", "import os\n")
    return project


def test_test_rules_runs_every_project_s_examples_a_shared_base_once(monorepo: Project) -> None:
    for argv in ([], ["."], ["python", "web"]):
        assert monorepo.run("test-rules", *argv) == (0, "All 4 examples of 2 rules passed.\n", ""), argv
    assert monorepo.run("test-rules", "web")[:2] == (0, "All 2 examples of 1 rule passed.\n")
    assert monorepo.run("test-rules", "python/kt/ops.py")[:2] == (0, "All 4 examples of 2 rules passed.\n")


def test_a_failing_example_in_a_project_below_fails_the_run(monorepo: Project) -> None:
    monorepo.write("python/import-policy.yaml", KT.replace('allow: ["import os"]', 'allow: ["import pickle as p"]'))
    code, out, _ = monorepo.run("test-rules")
    assert code == 1
    assert out.splitlines()[-1] == "1 of 4 examples of 2 rules failed."
    assert out.startswith("python/import-policy.yaml:11: no-pickle: allow example 1 is reported")


def test_test_rules_with_no_configuration_fails(project: Project) -> None:
    project.write("src/a.py", "import os\n")
    code, out, err = project.run("test-rules")
    assert (code, out) == (2, "")
    assert err == (
        "import-policy: error: no configuration found from . upward or below it (looked for import-policy.yaml, "
        ".import-policy.yaml, or a pyproject.toml with [tool.import-policy] config); test-rules has no rule to test\n"
    )


def test_rules_and_explain_read_the_projects_below(monorepo: Project) -> None:
    code, out, _ = monorepo.run("rules", "--format", "json")
    assert code == 0
    declared = [(row["id"], row["source"]) for row in json.loads(out) if row["kind"] == "import"]
    assert declared == [("no-re", "base.yaml:3"), ("no-pickle", "python/import-policy.yaml:7")]
    code, out, _ = monorepo.run("rules")
    assert out.startswith("python/import-policy.yaml:\nid ") and "\nweb/import-policy.yaml:\nid " in out
    code, out, _ = monorepo.run("rules", "web")
    assert out.startswith("id ") and "no-pickle" not in out
    code, out, _ = monorepo.run("explain", "no-pickle")
    assert code == 0 and out.splitlines()[:3] == ["no-pickle", "  kind:          import", "  declared in:   python/import-policy.yaml:7"]
    code, out, err = monorepo.run("explain", "no-pickle", "web")
    assert (code, out) == (2, "") and "unknown rule 'no-pickle'" in err


def test_why_reads_the_project_below(monorepo: Project) -> None:
    assert monorepo.run("why", "xformers") == (0, (
        "kt -> xformers (2 links):\n"
        "  python/kt/__init__.py:1: kt -> kt.ops (from kt import ops)\n"
        "  python/kt/ops.py:1: kt.ops -> xformers (import xformers)\n"
    ), "")
