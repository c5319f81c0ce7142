"""`unused-suppression` (opt-in, ruff's RUF100): a suppression that silenced nothing, or names no rule."""

from __future__ import annotations

import pytest

from conftest import Project
from import_policy.diagnostics import Diagnostic
from import_policy.kinds import unused_suppression as unused

CONFIG = """\
version: 1
extends: [rocm-safety]
rocm_safety:
  entry_modules: [pkg]
rules:
  - id: no-pickle
    forbid: [pickle]
  - id: no-re
    forbid: [re]
  - id: no-std-thread
    kind: include
    forbid: [thread]
"""
SOURCE = """\
import pickle  # import-policy: ignore[no-pickel]
import os  # import-policy: ignore
import re  # import-policy: ignore[no-re, no-pickle]
x = "# import-policy: ignore"
import json  # import-policy: ignore[unused-suppression]
def f(): return _has_module("tilelang")  # import-policy: ignore[trial-import-probe]
import pickle as p  # import-policy: ignore
"""
TYPO = "pkg/__init__.py:1:16: unused-suppression `import-policy: ignore[no-pickel]` names `no-pickel`, which is no rule (did you mean `no-pickle`?)"
BLANKET = "pkg/__init__.py:2:12: unused-suppression `import-policy: ignore` silenced nothing; remove it"
PARTLY = "pkg/__init__.py:3:12: unused-suppression `import-policy: ignore[no-re, no-pickle]` silenced nothing for `no-pickle`"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("pkg/__init__.py", SOURCE)
    return project


def test_off_by_default(tree: Project) -> None:
    assert tree.lines() == ["pkg/__init__.py:1:8: no-pickle `pickle` is forbidden"]


def test_extend_select_turns_it_on_beside_the_rules_in_force(tree: Project) -> None:
    code, out, _ = tree.run("check", "--extend-select", "unused-suppression")
    assert code == 1
    assert tree.lines("--extend-select", "unused-suppression") == [
        "pkg/__init__.py:1:8: no-pickle `pickle` is forbidden", TYPO, BLANKET, PARTLY,
    ]


def test_select_alone_still_judges_against_every_rule_in_force(tree: Project) -> None:
    # Line 6 silenced trial-import-probe, line 3 no-re: neither is selected, both were used.
    assert tree.lines("--select", "unused-suppression") == [TYPO, BLANKET, PARTLY]


def test_a_project_level_finding_counts_as_silenced(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "from pkg import kernels\n")
    project.write(
        "pkg/kernels.py",
        "import tilelang  # import-policy: ignore[heavy-import-reachable, eager-heavy-import]\n"
        "import os  # import-policy: ignore[heavy-import-reachable]\n",
    )
    assert project.lines("--select", "unused-suppression") == [
        "pkg/kernels.py:2:12: unused-suppression `import-policy: ignore[heavy-import-reachable]` silenced nothing for "
        "`heavy-import-reachable`",
    ]


def test_an_ignored_rule_is_not_judged(tree: Project) -> None:
    # Line 3 names no-pickle, which did not run; the blanket comment on line 7 silenced nothing that ran.
    assert tree.lines("--select", "unused-suppression", "--ignore", "no-pickle") == [
        TYPO, BLANKET, "pkg/__init__.py:7:21: unused-suppression `import-policy: ignore` silenced nothing; remove it",
    ]


def test_ignoring_the_rule_itself(tree: Project) -> None:
    assert tree.lines("--select", "unused-suppression,no-re", "--ignore", "unused-suppression") == []


def test_a_fix_keeps_the_findings(tree: Project) -> None:
    tree.config(CONFIG.replace("    forbid: [re]\n", "    forbid: [re]\n    fix: {replace_module: regex}\n"))
    tree.write("pkg/m.py", "import re\n")
    lines = tree.lines("--extend-select", "unused-suppression", "--fix")
    assert TYPO in lines and BLANKET in lines
    assert (tree.root / "pkg/m.py").read_text() == "import regex as re\n"


def test_ignore_file_that_silenced_nothing(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "")  # the entry module CONFIG names
    project.write("a.py", "# import-policy: ignore-file\nimport os\n")
    project.write("b.py", "# import-policy: ignore-file\nimport pickle\n")
    assert project.lines("--select", "unused-suppression") == [
        "a.py:1:1: unused-suppression `import-policy: ignore-file` silenced nothing; remove it",
    ]


def test_c_family_comments(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "")  # the entry module CONFIG names
    project.write("k.cpp", '#include <thread>  // import-policy: ignore[no-std-thread]\n#include <vector>  // import-policy: ignore[no-std-thred]\nconst char* s = "// import-policy: ignore";\n')
    assert project.lines("--select", "unused-suppression") == [
        "k.cpp:2:20: unused-suppression `import-policy: ignore[no-std-thred]` names `no-std-thred`, which is no rule "
        "(did you mean `no-std-thread`?)",
    ]


def test_a_file_that_does_not_parse_is_not_judged(project: Project) -> None:
    project.config(CONFIG)
    project.write("pkg/__init__.py", "")  # the entry module CONFIG names
    project.write("a.py", "import pickle\nimport os  # import-policy: ignore\ndef (:\n")
    assert [line.split(": ")[0] + " " + line.split(" ")[1] for line in project.lines("--extend-select", "unused-suppression")] == [
        "a.py:3:5 syntax-error"
    ]


def test_the_run_cache_keeps_the_opt_in_apart(tree: Project) -> None:
    plain = tree.run("check")
    with_rule = tree.run("check", "--extend-select", "unused-suppression")
    assert tree.run("check") == plain
    assert tree.run("check", "--extend-select", "unused-suppression") == with_rule
    assert plain != with_rule


def test_it_is_explained_and_listed_only_when_in_force(tree: Project) -> None:
    _, out, _ = tree.run("rules")
    assert not any(line.startswith("unused-suppression") for line in out.splitlines())
    code, out, _ = tree.run("explain", "unused-suppression")
    assert code == 0 and "RUF100" in out


def test_its_id_is_reserved(project: Project) -> None:
    project.config("rules:\n  - id: unused-suppression\n    forbid: [x]\n")
    code, _, err = project.run("check")
    assert code == 2 and "reserved for a built-in rule" in err


# --- the pure part, on hand-built findings ------------------------------------------------


def _finding(rule: str, line: int, statement: int | None = None) -> Diagnostic:
    return Diagnostic(rule, "error", "a.py", line, 1, line, 2, "m", suppress_lines=(line, statement or line))


def test_comments_are_found_in_comments_only() -> None:
    found = unused.comments(b'x = 1  # import-policy: ignore[a]\ny = "# import-policy: ignore"\n', "python")
    assert [(c.line, c.column, c.rules) for c in found] == [(1, 8, frozenset({"a"}))]


def test_a_multi_line_statement_is_silenced_on_its_first_line() -> None:
    comment = unused.Comment(1, 5, 30, False, frozenset({"a"}), "import-policy: ignore[a]")
    assert unused.check("a.py", [comment], [_finding("a", 2, statement=1)], {"a"}, {"a"}) == []
    [d] = unused.check("a.py", [comment], [_finding("a", 3, statement=2)], {"a"}, {"a"})
    assert d.message == "`import-policy: ignore[a]` silenced nothing for `a`"


def test_neutralise_keeps_every_position() -> None:
    source = b"import os  # import-policy: ignore\n"
    assert len(unused.neutralise(source)) == len(source) and b"import-policy:" not in unused.neutralise(source)


def test_sarif_describes_it_when_it_reports(tree: Project) -> None:
    import json

    code, out, _ = tree.run("check", "--format", "sarif", "--select", "unused-suppression")
    document = json.loads(out)
    [rule] = [r for r in document["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "unused-suppression"]
    assert "RUF100" in rule["help"]["text"]
    assert {r["ruleId"] for r in document["runs"][0]["results"]} == {"unused-suppression"}


def test_the_rule_is_off_by_default_even_in_a_selection_not_yet_under_a_policy() -> None:
    from import_policy.pipeline.plan import Selection
    from import_policy.pipeline.unused import UNUSED_SUPPRESSION, wants_unused_suppression

    assert not wants_unused_suppression(Selection())
    assert wants_unused_suppression(Selection(enable=frozenset({UNUSED_SUPPRESSION})))
    assert wants_unused_suppression(Selection(select=frozenset({UNUSED_SUPPRESSION})))
    assert not wants_unused_suppression(
        Selection(enable=frozenset({UNUSED_SUPPRESSION}), ignore=frozenset({UNUSED_SUPPRESSION}))
    )
