"""Hostile configuration: each is a clear message with file:line and exit 2 (a diagnostic for a
token-regex timeout), never a hang or a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import regex

from conftest import Project
from import_policy.config import yamltree
from import_policy.policy.load import MAX_EXTENDS_DEPTH
from import_policy.kinds import cfamily


def test_python_object_tag_is_refused(project: Project) -> None:
    project.config("version: 1\nrules:\n  - id: x\n    forbid: !!python/object/apply:os.system [touch pwned]\n")
    code, out, err = project.run("check", ".")
    assert (code, out) == (2, "")
    assert err.splitlines()[0].startswith("import-policy: import-policy.yaml:4: unsupported YAML tag ")
    assert not (project.root / "pwned").exists()


class _Expanded(BaseException):
    """More values converted than any refusal may take: raised past the CLI's handler of
    internal errors, so an unbounded expansion fails the test at once instead of hanging it."""


# However the limit is tuned, a document is refused within this many values.
_EXPANSION_BOUND = 10**6


@pytest.mark.slow
def test_alias_bomb_is_refused_quickly(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nine levels of nine aliases expand to 9**9 values (a billion laughs). The refusal comes
    once the limit is crossed, never after the expansion: counted, not timed (the machine may
    be shared), as the values converted before the error."""
    counts: list[int] = []

    def count(converter: yamltree._Converter, value: int) -> None:
        if value == 0:
            counts.append(0)
        counts[-1] = value
        if value > _EXPANSION_BOUND:
            raise _Expanded(f"{value} values converted and no refusal yet")

    monkeypatch.setattr(yamltree._Converter, "nodes", property(lambda _: counts[-1], count), raising=False)
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for previous, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    project.config("\n".join(lines) + "\n")
    code, _, err = project.run("check", ".")
    assert code == 2
    assert "import-policy.yaml:1: the document expands to more than" in err
    assert counts == [yamltree._MAX_NODES + 1]  # one reading, refused at the first value past the limit


def test_extends_cycle(project: Project) -> None:
    project.config("version: 1\nextends: [b.yaml]\n")
    project.write("b.yaml", "version: 1\nextends: [import-policy.yaml]\n")
    code, _, err = project.run("check", ".")
    assert code == 2
    assert err.splitlines()[0].startswith("import-policy: b.yaml:2: circular extends: ")


def test_extends_chain_deeper_than_the_limit(project: Project) -> None:
    depth = MAX_EXTENDS_DEPTH + 5
    project.config("version: 1\nextends: [c0.yaml]\n")
    for i in range(depth):
        project.write(f"c{i}.yaml", f"version: 1\nextends: [c{i + 1}.yaml]\n")
    project.write(f"c{depth}.yaml", "version: 1\n")
    code, _, err = project.run("check", ".")
    assert code == 2
    assert f"extends nests deeper than {MAX_EXTENDS_DEPTH} files" in err


@pytest.mark.slow
def test_huge_rules_file_loads_in_reasonable_time(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found here: 3000 stale allow_in entries re-parsed the whole file once each (minutes, a
    # seeming hang after the report), then walked all 3000 rules once each; stale.entry_line
    # now indexes a file's rules once per text. Counted, not timed: the machine may be shared.
    from import_policy.adoption import stale

    stale._rules_by_line.cache_clear()
    parses: list[int] = []
    real_parse = stale.parse
    monkeypatch.setattr(stale, "parse", lambda text: parses.append(1) or real_parse(text))
    rules = "".join(
        f"  - id: rule-{i}\n    forbid: [pkg{i}.mod, other{i}.*.x]\n    files: ['src/**']\n    allow_in: ['src/ok{i}/**']\n"
        for i in range(3000)
    )
    project.config("version: 1\nrules:\n" + rules)
    project.write("src/m.py", "import pkg2999.mod\nimport os\n")
    _, out, err = project.run("check", ".")
    assert out.splitlines()[0] == "src/m.py:1:8: rule-2999 `pkg2999.mod` is forbidden"
    assert err.count("matched no checked file") == 3000
    assert "import-policy.yaml:12002: warning: allow_in entry 'src/ok2999/**' of rule 'rule-2999'" in err
    assert len(parses) == 1
    code, out, _ = project.run("rules")
    assert code == 0 and len(out.splitlines()) == 1 + 3000 + 1  # header, rules, syntax-error


class _Budgeted:
    """A compiled token pattern that records the time budget of every search made with it,
    and refuses a search without one (which could hang the run)."""

    def __init__(self, compiled: regex.Pattern[str], budgets: list[tuple[str, float]]) -> None:
        self.compiled = compiled
        self.pattern = compiled.pattern
        self.budgets = budgets

    def _budget(self, timeout: float | None) -> float:
        assert timeout is not None, f"{self.pattern!r} searched without a timeout"
        self.budgets.append((self.pattern, timeout))
        return timeout

    def search(self, code: str, *, timeout: float | None = None) -> regex.Match[str] | None:
        return self.compiled.search(code, timeout=self._budget(timeout))

    def finditer(self, code: str, *, timeout: float | None = None) -> Iterator[regex.Match[str]]:
        return self.compiled.finditer(code, timeout=self._budget(timeout))


def test_catastrophic_token_regex_is_cut_off_and_reported(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """`(a|aa)+$` on forty `a`s and a `!` backtracks for minutes. What bounds the run is the
    time each search of a pattern may take and how many searches it gets: counted, not timed
    (the machine may be shared). The slow pattern gets one search of at most a second on the
    file, and then is reported; the other rule is checked as usual."""
    budgets: list[tuple[str, float]] = []
    real = cfamily._compiled
    monkeypatch.setattr(cfamily, "_compiled", lambda pattern: _Budgeted(real(pattern), budgets))
    project.config(
        "version: 1\nrules:\n  - id: slow\n    kind: token\n    forbid: ['(a|aa)+$']\n"
        "  - id: fine\n    kind: token\n    forbid: ['TORCH_LIBRARY']\n"
    )
    project.write("k.cu", "a" * 40 + "!\nTORCH_LIBRARY(x, m) {}\n")
    code, out, err = project.run("check", ".")
    assert [budget for pattern, budget in budgets if pattern == "(a|aa)+$"] == [cfamily.TOKEN_TIMEOUT]
    assert cfamily.TOKEN_TIMEOUT <= 1.0
    assert {pattern for pattern, _ in budgets} == {"(a|aa)+$", "TORCH_LIBRARY"}
    assert code == 1, err
    lines = out.splitlines()
    assert any(" slow " in line and "timed out" in line for line in lines), out
    assert "k.cu:2:1: fine `TORCH_LIBRARY` is forbidden" in lines


@pytest.mark.parametrize(
    "text",
    [
        "version: 1\nrules: [{id: a, forbid: ['(']}]\n",
        "version: 1\nrules:\n  - id: a\n    kind: token\n    forbid: ['(?P<x']\n",
        "\0\0\0",
        "version: 1\nrules: " + "[" * 5000 + "]" * 5000 + "\n",
        "version: 1\nrules:\n  - {id: a, forbid: [x]}\n  - {id: a, forbid: [y]}\n",
        "- a\n- b\n",
        "",
    ],
    ids=["bad-glob", "bad-regex", "nul", "deep-flow", "duplicate-id", "not-a-map", "empty"],
)
def test_malformed_configuration_is_exit_2_with_a_message(project: Project, text: str, tmp_path: Path) -> None:
    project.config(text)
    project.write("m.py", "import os\n")
    code, out, err = project.run("check", ".")
    assert "internal error" not in err and "Traceback" not in err
    assert code == 2 or (text == "" and code in (0, 1)), err
    if code == 2:
        assert err.startswith("import-policy: import-policy.yaml"), err


# --- extends: nothing outside the project root, and no file's contents in an error -------

SECRET = "ghp_0123456789abcdefSECRET"


def _refused(project: Project, target: str) -> str:
    """The one error of a project (in `proj/`) whose configuration extends `target`."""
    project.write("proj/import-policy.yaml", f"version: 1\nextends: [{target!r}]\n")
    project.write("proj/a.py", "import pickle\n")
    code, out, err = project.run("check", "--config", "proj/import-policy.yaml", "proj")
    assert (code, out) == (2, "")
    assert SECRET not in err
    (line, _) = err.splitlines()
    return line


@pytest.mark.parametrize("name", ["token", "token.yaml", "netrc.yml"])
def test_extends_refuses_an_absolute_path(project: Project, name: str) -> None:
    secret = project.write(name, SECRET + "\n")
    line = _refused(project, str(secret))
    assert line == (
        f"import-policy: proj/import-policy.yaml:2: extends {str(secret)!r}: an absolute path is refused; "
        "extends takes a built-in preset or a YAML file inside the repository "
        "(the project root where there is no git work tree), relative to this file"
    )


@pytest.mark.parametrize("target", ["../token", "../token.yaml", "sub/../../token.yaml", "./../proj/../token.yaml"])
def test_extends_refuses_a_path_that_leaves_the_project_root(project: Project, target: str) -> None:
    project.write("token", SECRET + "\n")
    project.write("token.yaml", SECRET + "\n")
    (project.root / "proj" / "sub").mkdir(parents=True)
    line = _refused(project, target)
    assert line == f"import-policy: proj/import-policy.yaml:2: extends {target!r}: it leaves the project root (there is no git work tree around it to share a base from)"


def test_extends_refuses_a_link_out_of_the_project_root(project: Project) -> None:
    project.write("token.yaml", SECRET + "\n")
    (project.root / "proj").mkdir()
    (project.root / "proj" / "base.yaml").symlink_to(project.root / "token.yaml")
    line = _refused(project, "base.yaml")
    assert line == "import-policy: proj/import-policy.yaml:2: extends 'base.yaml': it leaves the project root (there is no git work tree around it to share a base from)"


@pytest.mark.parametrize(
    "text",
    [SECRET, f"machine github.com login x password {SECRET}", f"https://x:{SECRET}@github.com", f"- {SECRET}"],
)
def test_an_error_never_prints_the_contents_of_a_file(project: Project, text: str) -> None:
    # A one-line token, .netrc or .git-credentials file is a YAML scalar (or list): the error
    # says what it is, never what it holds.
    project.write("proj/token.yaml", text + "\n")
    line = _refused(project, "token.yaml")
    kind = "a list" if text.startswith("- ") else f"a string of {len(text)} characters"
    assert line == f"import-policy: proj/token.yaml:1: the configuration must be a map of settings, got {kind}"


def test_a_long_value_in_an_error_is_not_echoed(project: Project) -> None:
    project.config(f"version: 1\nrules: {SECRET * 3}\n")
    code, _, err = project.run("check", ".")
    assert code == 2 and SECRET not in err
    assert "import-policy.yaml:2: rules must be a list of rules, got a string of 78 characters" in err


def test_extends_may_reach_the_root_that_root_names(project: Project) -> None:
    # tools/import-policy.yaml with `root: ..`: the project is the whole folder, so a shared
    # file beside tools/ is inside it; a file above the project is still refused.
    project.write("policies/base.yaml", "version: 1\nrules:\n  - id: no-pickle\n    forbid: [pickle]\n")
    project.write("tools/import-policy.yaml", "version: 1\nroot: ..\nextends: [../policies/base.yaml]\n")
    project.write("a.py", "import pickle\n")
    code, out, _ = project.run("check", "--config", "tools/import-policy.yaml")
    assert (code, out.splitlines()[0]) == (1, "a.py:1:8: no-pickle `pickle` is forbidden")
    project.write("tools/import-policy.yaml", "version: 1\nroot: ..\nextends: [../../outside.yaml]\n")
    code, _, err = project.run("check", "--config", "tools/import-policy.yaml")
    assert code == 2
    assert "tools/import-policy.yaml:3: extends '../../outside.yaml': it leaves the project root (there is no git work tree around it to share a base from)" in err
