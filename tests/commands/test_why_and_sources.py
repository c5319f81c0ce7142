"""`why MODULE` with only `kind: import-time` rules names them and `--rule ID`; the rule
sources `rules`, `explain` and SARIF print are paths relative to the current folder,
normalized, as every other path a run prints."""

from __future__ import annotations

import json
import os

from conftest import Project

TIMED = """\
version: 1
rules:
  - id: light-import
    kind: import-time
    entry: [pkg]
    forbid: [cv2]
"""


def test_why_with_only_import_time_rules_names_them_and_the_flag(project: Project) -> None:
    project.config(TIMED)
    project.write("pkg/__init__.py", "from pkg import video\n")
    project.write("pkg/video.py", "import cv2\n")
    code, out, err = project.run("why", "cv2")
    assert (code, out) == (2, "")
    assert err == (
        "import-policy: error: the policy has no rocm_safety section; its import-time rules (light-import) have "
        "chains: ask with --rule ID (e.g. `import-policy why cv2 --rule light-import`)\n"
    )
    assert project.run("why", "cv2", "--rule", "light-import")[:2] == (0, (
        "pkg -> cv2 (2 links):\n"
        "  pkg/__init__.py:1: pkg -> pkg.video (from pkg import video)\n"
        "  pkg/video.py:1: pkg.video -> cv2 (import cv2)\n"
    ))


def test_rule_sources_are_relative_to_the_current_folder_and_normalized(project: Project) -> None:
    project.write("conf/policy.yaml", "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write("work/a.py", "import pickle\n")
    os.chdir(project.root / "work")
    config = "../work/../conf/policy.yaml"
    code, out, _ = project.run("rules", "--config", config, "--format", "json")
    assert code == 0
    assert [row["source"] for row in json.loads(out) if row["id"] == "no-pickle"] == ["../conf/policy.yaml:3"]
    code, out, _ = project.run("explain", "no-pickle", "--config", config)
    assert "  declared in:   ../conf/policy.yaml:3" in out.splitlines()
    for argv in (["--no-cache"], [], []):  # cold, then the policy as the caches keep it
        code, out, _ = project.run("check", *argv, "--config", config, "--format", "sarif", "a.py")
        rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
        assert [r["properties"]["source"] for r in rules if r["id"] == "no-pickle"] == ["../conf/policy.yaml:3"]
