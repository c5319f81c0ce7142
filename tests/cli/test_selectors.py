"""`--select`, `--extend-select`, `--ignore`: ids, ruff-style prefixes, a near miss named, and
`syntax-error`, which no flag turns off (ruff says so of a rule ignoring cannot touch)."""

from __future__ import annotations

import pytest

from conftest import Project, snapshot

CONFIG = """\
rules:
  - id: triton-gateway
    forbid: [triton]
  - id: triton-jit
    forbid: [triton.jit]
  - id: tri
    forbid: [trio]
  - id: no-pickle
    forbid: [pickle]
"""
SOURCE = "import triton\nimport trio\nimport pickle\nfrom triton import jit\n"


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("a.py", SOURCE)
    project.write("broken.py", "import pickle\ndef f(:\n")
    return project


def _rules(tree: Project, *argv: str) -> set[str]:
    return {line.split()[1] for line in tree.lines(*argv, "a.py")}


def test_a_near_miss_is_named_and_exits_2(tree: Project) -> None:
    code, out, err = tree.run("check", "--select", "no-pikle")
    assert (code, out) == (2, "")
    assert "--select: unknown rule 'no-pikle'; did you mean `no-pickle`?" in err
    snapshot("select-unknown.stderr", err)
    code, _, err = tree.run("check", "--ignore", "triton-gatway")
    assert code == 2 and "--ignore: unknown rule 'triton-gatway'; did you mean `triton-gateway`?" in err


def test_a_prefix_selects_every_rule_it_starts(tree: Project) -> None:
    assert _rules(tree, "--select", "triton-") == {"triton-gateway", "triton-jit"}
    assert _rules(tree, "--select", "triton") == {"triton-gateway", "triton-jit"}
    assert _rules(tree, "--ignore", "triton-") == {"tri", "no-pickle"}
    assert _rules(tree, "--select", "no-pickle", "--extend-select", "triton") == {
        "no-pickle", "triton-gateway", "triton-jit",
    }


def test_an_exact_id_is_that_rule_alone_and_a_prefix_ends_at_a_dash(tree: Project) -> None:
    assert _rules(tree, "--select", "tri") == {"tri"}  # not triton-*: `tri` is an id
    code, _, err = tree.run("check", "--select", "trit")
    assert code == 2 and "--select: unknown rule 'trit'" in err  # not a word of any id


def test_an_opt_in_rule_is_selected_by_its_id_only(tree: Project) -> None:
    tree.write("a.py", "import os  # import-policy: ignore[no-pickle]\n")
    code, _, err = tree.run("check", "--select", "unused-")
    assert code == 2 and "unknown rule 'unused-'; did you mean `unused-suppression`?" in err
    assert _rules(tree, "--select", "unused-suppression") == {"unused-suppression"}


def test_ignoring_syntax_error_says_it_cannot(tree: Project) -> None:
    code, out, err = tree.run("check", "--ignore", "syntax-error", "broken.py")
    assert code == 1
    assert out.startswith("broken.py:2:7: syntax-error ")
    assert err == (
        "import-policy: warning: `syntax-error` cannot be ignored: a file that does not parse was not checked, "
        "so it stays reported\n"
    )
    snapshot("ignore-syntax-error.stderr", err)
    _, _, err = tree.run("check", "--ignore", "syntax-", "broken.py")  # a prefix reaching it, too
    assert "cannot be ignored" in err
    assert tree.run("check", "-q", "--ignore", "syntax-error", "broken.py")[2] == ""  # -q: findings only


def test_ignoring_syntax_error_warns_on_a_warm_whole_tree_run_too(tree: Project) -> None:
    tree.run("check")  # fills the run cache
    code, _, err = tree.run("check", "--ignore", "syntax-error")
    assert code == 1 and "`syntax-error` cannot be ignored" in err
