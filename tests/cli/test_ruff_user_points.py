"""What a ruff user expects of small things: "did you mean", the valid values listed, plain
grammar, `--select ALL`, an unsafe fix shown as one, and ruff's whole default exclude list."""

from __future__ import annotations

import pytest

from conftest import Project

POLICY = "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n"


@pytest.mark.parametrize(("key", "near", "where"), [
    ("rulez", "rules", "the configuration"),
    ("allow-in", "allow_in", "a rule of kind 'import'"),
])
def test_an_unknown_key_gets_a_did_you_mean(project: Project, key: str, near: str, where: str) -> None:
    if key == "rulez":
        project.config(POLICY + "rulez: []\n")
        line = 5
    else:
        project.config(POLICY + "    allow-in: [a.py]\n")
        line = 5
    code, out, err = project.run("check")
    assert code == 2
    assert err.splitlines()[0].startswith(f"import-policy: import-policy.yaml:{line}: unknown key {key!r} in {where} (did you mean {near!r}?); expected one of: ")


def test_explain_an_unknown_rule_gets_a_did_you_mean(project: Project) -> None:
    project.config(POLICY)
    code, out, err = project.run("explain", "no-pickel")
    assert code == 2 and "unknown rule 'no-pickel'; did you mean `no-pickle`?" in err, err


def test_a_choice_of_the_wrong_type_lists_the_valid_values(project: Project) -> None:
    project.config(POLICY + "    type_checking: true\n")
    code, out, err = project.run("check")
    assert code == 2
    assert err.splitlines()[0] == "import-policy: import-policy.yaml:5: type_checking must be one of: ignore, check; got bool True"


def test_test_rules_says_one_rule(project: Project) -> None:
    project.config(POLICY + "    examples:\n      flag: [\"import pickle\"]\n")
    assert project.run("test-rules") == (0, "All 1 example of 1 rule passed.\n", "")


def test_select_all_is_every_rule(project: Project) -> None:
    project.config(POLICY)
    project.write("a.py", "import pickle  # import-policy: ignore[no-pickle]\nimport os  # import-policy: ignore[no-pickle]\n")
    code, out, err = project.run("check", "--select", "ALL")
    assert code == 1, err
    # The opt-in rules too: the second comment silences nothing.
    assert [line.split(" ")[1] for line in out.splitlines()[:-1]] == ["unused-suppression"]


def test_relative_imports_is_shown_as_unsafe(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: rel\n    kind: relative-imports\n")
    code, out, err = project.run("rules")
    row = [line for line in out.splitlines() if line.startswith("rel ")]
    assert row and row[0].split()[3] == "unsafe", out


# ruff's default `exclude` (its documentation lists these folder names).
RUFF_EXCLUDES = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)


def test_the_default_excludes_are_ruffs_whole_list(project: Project) -> None:
    project.config(POLICY)
    project.write("pkg/a.py", "import pickle\n")
    for folder in RUFF_EXCLUDES:
        project.write(f"{folder}/pkg/a.py", "import pickle\n")
        project.write(f"lib/{folder}/b.py", "import pickle\n")
    code, out, err = project.run("check", "--no-cache")
    assert out.splitlines() == ["pkg/a.py:1:8: no-pickle `pickle` is forbidden", "Found 1 violation (0 fixable with --fix)."]
