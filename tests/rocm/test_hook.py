"""The hook rule: with files named (as pre-commit passes the changed ones), a reachability
finding whose chain passes through a named file is reported there, at its link."""

from __future__ import annotations

import json

from conftest import Project
from import_policy.adoption import baseline
from import_policy.diagnostics import Diagnostic

POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [xformers, tilelang]
"""

INIT = '"""mypkg."""\nimport os\nfrom mypkg import heavy_side\n'
LINK = (
    "mypkg/__init__.py:3:1: heavy-import-reachable this import makes `mypkg` reach `xformers` "
    "(mypkg/heavy_side.py:1): mypkg -> mypkg.heavy_side -> xformers"
)
SITE = (
    "mypkg/heavy_side.py:1:8: heavy-import-reachable importing `mypkg` imports `xformers`: "
    "mypkg -> mypkg.heavy_side -> xformers"
)


def commit_adds_the_import(project: Project, init: str = INIT) -> None:
    """`heavy_side.py` already imported xformers; the commit makes `mypkg/__init__.py` import it."""
    project.config(POLICY)
    project.write("mypkg/__init__.py", init)
    project.write("mypkg/heavy_side.py", "import xformers\n")
    project.write("mypkg/other.py", "import json\n")
    project.write("mypkg/island.py", "from mypkg import heavy_side\n")  # nothing imports it


def test_the_changed_file_on_the_chain_is_blamed_at_its_link(project: Project) -> None:
    commit_adds_the_import(project)
    code, out, _ = project.run("check", "mypkg/__init__.py")
    assert code == 1
    assert out.splitlines()[0] == LINK


def test_the_site_is_reported_where_its_file_is_named_and_only_there(project: Project) -> None:
    """Once, with its chain (which names the changed file): every file named, as `pre-commit
    run --all-files` names them, reports what a whole-tree check does."""
    commit_adds_the_import(project)
    assert project.lines("mypkg/heavy_side.py") == [SITE]
    assert project.lines("mypkg/__init__.py", "mypkg/heavy_side.py") == [SITE]
    every = sorted(str(p.relative_to(project.root)) for p in project.root.rglob("*.py"))
    assert project.lines(*every) == project.lines() == [SITE]


def test_a_named_file_on_no_chain_is_never_blamed(project: Project) -> None:
    commit_adds_the_import(project)
    # island.py imports the hazard too, but no entry module reaches island.py.
    code, out, _ = project.run("check", "mypkg/other.py", "mypkg/island.py")
    assert (code, out) == (0, "All checks passed!\n")


def test_a_whole_tree_run_reports_at_the_site_only(project: Project) -> None:
    commit_adds_the_import(project)
    assert project.lines() == [SITE]
    assert project.lines("mypkg") == [SITE]  # a folder walked is not a file named


def test_a_suppression_at_the_site_silences_the_link(project: Project) -> None:
    commit_adds_the_import(project)
    project.write("mypkg/heavy_side.py", "import xformers  # import-policy: ignore[heavy-import-reachable]\n")
    assert project.lines("mypkg/__init__.py") == []
    assert project.lines("mypkg/__init__.py", "--no-cache") == []


def test_a_suppression_at_the_link_silences_every_report(project: Project) -> None:
    commit_adds_the_import(project, INIT.replace("heavy_side\n", "heavy_side  # import-policy: ignore[heavy-import-reachable]\n"))
    assert project.lines("mypkg/__init__.py") == []
    assert project.lines("mypkg/__init__.py", "mypkg/heavy_side.py") == []


def test_a_suppression_of_another_rule_at_the_link_does_not(project: Project) -> None:
    commit_adds_the_import(project, INIT.replace("heavy_side\n", "heavy_side  # import-policy: ignore[no-such]\n"))
    assert project.lines("mypkg/__init__.py") == [LINK]


def test_a_multi_line_import_is_suppressed_on_its_first_line(project: Project) -> None:
    init = "from mypkg import (  # import-policy: ignore[heavy-import-reachable]\n    heavy_side,\n)\n"
    commit_adds_the_import(project, init)
    assert project.lines("mypkg/__init__.py") == []


def test_a_baseline_entry_at_the_site_silences_the_link(project: Project) -> None:
    commit_adds_the_import(project)
    code, _, _ = project.run("check", "--write-baseline", "base.json")
    assert code == 0
    assert project.lines("mypkg/__init__.py", "--baseline", "base.json") == []
    assert project.lines("mypkg/__init__.py", "mypkg/heavy_side.py", "--baseline", "base.json") == []


def test_a_baseline_written_by_a_hook_run_records_the_finding_at_its_site(project: Project) -> None:
    commit_adds_the_import(project)
    project.run("check", "mypkg/__init__.py", "mypkg/heavy_side.py", "--write-baseline", "base.json")
    [entry] = json.loads((project.root / "base.json").read_text())["entries"]
    assert (entry["path"], entry["text"], entry["count"]) == ("mypkg/heavy_side.py", "import xformers", 1)
    code, _, err = project.run("check", "--baseline", "base.json")
    assert code == 0 and "no longer matches" not in err


def test_a_baseline_entry_at_the_link_silences_the_finding(project: Project) -> None:
    commit_adds_the_import(project)
    text = "from mypkg import heavy_side"
    link = Diagnostic("heavy-import-reachable", "error", "mypkg/__init__.py", 3, 1, 3, 1 + len(text), "")
    print_ = baseline.fingerprint(link, INIT.split("\n"))
    entry = {"rule": link.rule, "path": link.path, "fingerprint": print_, "count": 1, "text": text}
    project.write("base.json", json.dumps({"version": 1, "tool": "import-policy", "entries": [entry]}))
    assert project.lines("mypkg/__init__.py", "--baseline", "base.json") == []
    assert project.lines("mypkg/__init__.py", "mypkg/heavy_side.py", "--baseline", "base.json") == []


def test_every_named_link_is_blamed_and_a_call_link_says_so(project: Project) -> None:
    project.config(POLICY)
    project.write("mypkg/__init__.py", "from mypkg import a\n")
    project.write("mypkg/a.py", "from mypkg import loader\n\nloader.load()\n")
    project.write("mypkg/loader.py", "def load():\n    from mypkg import kernels\n")
    project.write("mypkg/kernels.py", "import tilelang\n\n\n@tilelang.jit\ndef k():\n    pass\n")
    chain = "mypkg -> mypkg.a -> mypkg.kernels -> tilelang"
    assert project.lines("mypkg/__init__.py", "mypkg/a.py", "mypkg/loader.py") == [
        f"mypkg/__init__.py:1:1: heavy-import-reachable this import makes `mypkg` reach `tilelang` (mypkg/kernels.py:1): {chain}",
        f"mypkg/__init__.py:1:1: import-time-jit this import makes `mypkg` reach `@tilelang.jit` (mypkg/kernels.py:4): {chain}",
        f"mypkg/a.py:3:1: heavy-import-reachable this call makes `mypkg` reach `tilelang` (mypkg/kernels.py:1): {chain}",
        f"mypkg/a.py:3:1: import-time-jit this call makes `mypkg` reach `@tilelang.jit` (mypkg/kernels.py:4): {chain}",
    ]


def test_a_link_outside_the_files_of_the_pass_is_not_blamed(project: Project) -> None:
    commit_adds_the_import(project)
    project.config(POLICY + '  files: ["mypkg/heavy_side.py"]\n')
    assert project.lines("mypkg/__init__.py") == []
    project.config(POLICY + '  files: ["mypkg/__init__.py"]\n')
    assert project.lines("mypkg/__init__.py") == []  # nor a finding whose site no run reports


def test_json_carries_the_chain_at_the_link(project: Project) -> None:
    commit_adds_the_import(project)
    code, out, _ = project.run("check", "--format", "json", "mypkg/__init__.py")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["path"], finding["line"], finding["column"], finding["end_column"]) == ("mypkg/__init__.py", 3, 1, 29)
    assert finding["chain"] == ["mypkg", "mypkg.heavy_side", "xformers"]
