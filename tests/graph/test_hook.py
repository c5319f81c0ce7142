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


# A reached module that does not parse: the pass cannot follow its imports, so a chain through
# it (to a hazard, through any file) may be missing. A run that names files reports it as a
# whole-tree run does, at the broken file, whether or not that file is named.
GAP_POLICY = """\
version: 1
rocm_safety:
  heavy_modules: [xformers]
  entry_modules: [mypkg]
"""
GAP_SITE = "mypkg/broken.py:2:5: syntax-error the file does not parse: '(' was never closed (Python 3.15 syntax)"
GAP = (
    f"{GAP_SITE}; importing `mypkg` runs it, so its imports cannot be followed "
    "and a chain through it may be missing: mypkg -> mypkg.broken"
)


def a_reached_module_does_not_parse(project: Project, broken: str = "import xformers\nx = (\n") -> None:
    project.config(GAP_POLICY)
    project.write("mypkg/__init__.py", "from mypkg import a\nfrom mypkg import broken\n")
    project.write("mypkg/a.py", "import json\n")
    project.write("mypkg/broken.py", broken)
    project.write("mypkg/island.py", "import os\n")  # nothing imports it


def test_a_named_file_on_the_chain_does_not_pass_over_a_reached_module_that_does_not_parse(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    for named in ("mypkg/__init__.py", "mypkg/a.py"):
        code, out, _ = project.run("check", "--no-cache", named)
        assert (code, out.splitlines()[:-1]) == (1, [GAP]), named
        assert "All checks passed!" not in out


def test_a_named_file_on_no_chain_does_not_pass_over_it_either(project: Project) -> None:
    """What the broken module imports is unknown: it may import the named file itself."""
    a_reached_module_does_not_parse(project)
    code, out, _ = project.run("check", "--no-cache", "mypkg/island.py")
    assert (code, out.splitlines()[:-1]) == (1, [GAP])


def test_the_gap_is_reported_once_and_as_a_whole_tree_run_has_it_where_the_broken_file_is_checked(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    assert project.lines("--no-cache") == [GAP_SITE]
    assert project.lines("--no-cache", "mypkg") == [GAP_SITE]
    assert project.lines("--no-cache", "mypkg/a.py", "mypkg/broken.py") == [GAP_SITE]
    every = sorted(str(p.relative_to(project.root)) for p in project.root.rglob("*.py"))
    assert project.lines("--no-cache", *every) == [GAP_SITE]


def test_a_module_no_entry_reaches_is_no_gap(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    project.write("mypkg/__init__.py", "from mypkg import a\n")
    assert project.run("check", "--no-cache", "mypkg/a.py") == (0, "All checks passed!\n", "")


def test_the_gap_is_reported_on_warm_runs_too(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    assert project.lines() == [GAP_SITE]  # a whole-tree run fills the caches
    assert project.lines("mypkg/__init__.py") == [GAP]
    assert project.lines("mypkg/__init__.py") == [GAP]
    project.write("mypkg/broken.py", "import xformers\n")  # fixed: the hazard behind it shows
    assert project.lines("mypkg/__init__.py") == [
        "mypkg/__init__.py:2:1: heavy-import-reachable this import makes `mypkg` reach `xformers` "
        "(mypkg/broken.py:1): mypkg -> mypkg.broken -> xformers"
    ]
    assert project.lines("mypkg/a.py") == []  # the graph is kept now that it has no gap
    project.write("mypkg/broken.py", "import xformers\nx = (\n")  # broken again after a clean run
    assert project.lines("mypkg/a.py") == [GAP]


def test_no_suppression_or_baseline_silences_the_gap(project: Project) -> None:
    """As in a whole-tree run: nothing in a file that does not parse was checked."""
    a_reached_module_does_not_parse(project, "# import-policy: ignore-file\nimport xformers\nx = (\n")
    project.write("mypkg/__init__.py", "from mypkg import a\nfrom mypkg import broken  # import-policy: ignore\n")
    gap = GAP.replace("broken.py:2:5", "broken.py:3:5")
    assert project.lines("--no-cache", "mypkg/a.py") == [gap]
    code, _, _ = project.run("check", "mypkg/a.py", "--write-baseline", "base.json")
    assert code == 1
    assert json.loads((project.root / "base.json").read_text())["entries"] == []
    assert project.lines("mypkg/a.py", "--baseline", "base.json") == [gap]


def test_json_carries_the_chain_to_the_gap(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    code, out, _ = project.run("check", "--no-cache", "--format", "json", "mypkg/a.py")
    assert code == 1
    [finding] = json.loads(out)["diagnostics"]
    assert (finding["rule"], finding["path"], finding["line"], finding["column"]) == ("syntax-error", "mypkg/broken.py", 2, 5)
    assert finding["chain"] == ["mypkg", "mypkg.broken"]


def test_an_import_time_rule_does_not_pass_over_a_gap(project: Project) -> None:
    a_reached_module_does_not_parse(project)
    project.config(
        "version: 1\nrules:\n  - id: light-import\n    kind: import-time\n    entry: [mypkg]\n    forbid: [xformers]\n"
    )
    assert project.lines("--no-cache", "mypkg/island.py") == [GAP]
    assert project.lines("--no-cache") == [GAP_SITE]


def test_a_call_followed_into_a_module_that_does_not_parse_is_a_gap_too(project: Project) -> None:
    """`eager-heavy-import` follows a named file's import-time call into a module no entry reaches."""
    a_reached_module_does_not_parse(project)
    project.write("mypkg/__init__.py", "from mypkg import a\n")
    project.write("mypkg/island.py", "from mypkg import broken\n\nbroken.f()\n")
    assert project.lines("--no-cache", "--select", "eager-heavy-import", "mypkg/island.py") == [
        f"{GAP_SITE}; a call is followed into it and it cannot be read, so a finding may be missing"
    ]
    assert project.lines("--no-cache", "--select", "eager-heavy-import") == [GAP_SITE]


def test_a_named_file_outside_the_pass_reads_no_graph_and_so_no_gap(project: Project) -> None:
    """No finding of the pass can stand in it: the graph is not read for it."""
    a_reached_module_does_not_parse(project)
    project.config(GAP_POLICY + '  files: ["mypkg/**"]\n')
    project.write("tools/script.py", "import os\n")
    assert project.run("check", "--no-cache", "tools/script.py") == (0, "All checks passed!\n", "")
    assert project.lines("--no-cache", "mypkg/island.py") == [GAP]


NESTED = (
    '"""mypkg."""\n'
    "if True:\n"
    "    from mypkg import (  # the statement's first line\n"
    "        other,\n"
    "        heavy_side,\n"
    "    )\n"
)


def test_a_link_inside_a_multi_line_indented_statement_stands_at_its_name(project: Project) -> None:
    commit_adds_the_import(project, NESTED)
    lines = NESTED.splitlines()
    row = next(number for number, text in enumerate(lines, 1) if text.strip() == "heavy_side,")
    column = len(lines[row - 1]) - len(lines[row - 1].lstrip()) + 1  # where the line's text starts
    assert project.lines("mypkg/__init__.py") == [
        f"mypkg/__init__.py:{row}:{column}: heavy-import-reachable this import makes `mypkg` reach `xformers` "
        "(mypkg/heavy_side.py:1): mypkg -> mypkg.heavy_side -> xformers"
    ]
    # A suppression on the statement's first line covers every line of it (contract section 3).
    first = next(number for number, text in enumerate(lines, 1) if "from mypkg import (" in text)
    quiet = lines[:]
    quiet[first - 1] = quiet[first - 1].replace("# the statement's first line", "# import-policy: ignore")
    project.write("mypkg/__init__.py", "\n".join(quiet) + "\n")
    assert project.lines("mypkg/__init__.py") == []


def test_a_link_in_a_file_the_pass_does_not_cover_is_not_reported(project: Project) -> None:
    commit_adds_the_import(project)
    project.config(POLICY + '  files: ["mypkg/heavy_side.py", "mypkg/other.py"]\n')
    # where the pass reports nothing, no link either (a covered file named beside it)
    assert project.lines("mypkg/__init__.py", "mypkg/other.py") == []
    assert project.lines("mypkg/__init__.py", "mypkg/heavy_side.py") == [SITE]


def test_a_link_at_a_call_inside_a_multi_line_statement_is_suppressed_on_its_first_line(project: Project) -> None:
    """The link is the call (line 3); the suppression stands on the statement's first line."""
    init = (
        "from mypkg.other import load\n"
        "VALUE = (  # import-policy: ignore[heavy-import-reachable]\n"
        "    load()\n"
        ")\n"
    )
    commit_adds_the_import(project, init)
    project.write("mypkg/other.py", "def load():\n    import mypkg.heavy_side\n")
    assert project.lines("mypkg/__init__.py") == []
    unsuppressed = init.replace("  # import-policy: ignore[heavy-import-reachable]", "")
    project.write("mypkg/__init__.py", unsuppressed)
    assert project.lines("mypkg/__init__.py") == [
        "mypkg/__init__.py:3:5: heavy-import-reachable this call makes `mypkg` reach `xformers` "
        "(mypkg/heavy_side.py:1): mypkg -> mypkg.heavy_side -> xformers"
    ]
