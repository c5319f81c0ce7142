"""Stale allowlists: `allow_in` globs and `except` patterns that excuse nothing, on a whole-tree run."""

from __future__ import annotations

import pytest

from conftest import Project

CONFIG = """\
rules:
  - id: no-pickle
    forbid: [pickle]
    allow_in:
      - "pkg/serial.py"      # live: it imports pickle
      - "pkg/gone.py"        # no such file
      - "pkg/clean.py"       # exists, but imports no pickle
  - id: no-re
    forbid: [re]
    except: [re._parser, re._constants]
  - id: headers
    kind: include
    forbid: ["ATen/**"]
    allow_in: ["csrc/legacy/"]
"""


@pytest.fixture
def tree(project: Project) -> Project:
    project.config(CONFIG)
    project.write("pkg/serial.py", "import pickle\n")
    project.write("pkg/clean.py", "import os\n")
    project.write("pkg/uses.py", "from re import _parser\n")
    project.write("csrc/legacy/a.cpp", "#include <ATen/ATen.h>\n")
    return project


def test_whole_tree_reports_each_stale_entry_at_its_line(tree: Project) -> None:
    code, out, err = tree.run("check")
    assert (code, out) == (0, "All checks passed!\n")
    assert err.splitlines() == [
        "import-policy: import-policy.yaml:6: warning: allow_in entry 'pkg/gone.py' of rule 'no-pickle' "
        "matched no checked file; remove it",
        "import-policy: import-policy.yaml:7: warning: allow_in entry 'pkg/clean.py' of rule 'no-pickle' "
        "exempts nothing: no file it covers has a finding of this rule; remove it",
        "import-policy: import-policy.yaml:10: warning: except entry 're._constants' of rule 'no-re' "
        "matched no imported or used name; remove it",
    ]


def test_live_entries_are_quiet(tree: Project) -> None:
    tree.write("pkg/clean.py", "import pickle\nimport re._constants\n")
    tree.write("pkg/gone.py", "from pickle import loads\n")
    assert tree.run("check") == (0, "All checks passed!\n", "")


def test_partial_runs_say_nothing(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    assert tree.run("check", "pkg") == (0, "All checks passed!\n", "")
    assert tree.run("check", "pkg/clean.py") == (0, "All checks passed!\n", "")
    monkeypatch.chdir(tree.root / "pkg")
    assert tree.run("check") == (0, "All checks passed!\n", "")


def test_explicit_root_counts_as_the_whole_tree(tree: Project) -> None:
    _, _, err = tree.run("check", ".")
    assert len(err.splitlines()) == 3


def test_unselected_rules_are_not_judged(tree: Project) -> None:
    _, _, err = tree.run("check", "--select", "no-pickle")
    assert [line.split(": warning: ")[1].split(" of rule ")[0] for line in err.splitlines()] == [
        "allow_in entry 'pkg/gone.py'", "allow_in entry 'pkg/clean.py'",
    ]


def test_stale_entry_from_a_preset_or_extended_file(project: Project) -> None:
    project.write("base.yaml", "rules:\n  - id: r\n    forbid: [x]\n    except: [x.y]\n")
    project.config("extends: [base.yaml]\n")
    project.write("a.py", "import x\n")
    code, _, err = project.run("check")
    assert code == 1
    assert err == (
        "import-policy: base.yaml:4: warning: except entry 'x.y' of rule 'r' matched no imported or used name; remove it\n"
    )


def test_entries_of_built_in_presets_are_never_reported(project: Project) -> None:
    # A user cannot edit a built-in preset, and a preset is written for trees this one may not be.
    project.config("extends: [vllm]\n")
    project.vllm_skeleton()
    project.write("vllm/a.py", "import os\n")
    code, _, err = project.run("check")
    assert code == 0
    assert "matched no" not in err
    assert "preset:" not in err


@pytest.mark.parametrize(
    "files",
    [{"a.py": "import foo.bar\n", "b.py": "import foo.baz\n"}, {"a.py": "import foo.bar\nimport foo.baz\n"}],
    ids=["two-files", "one-file"],
)
def test_an_except_entry_for_names_no_forbid_covers_is_stale(project: Project, files: dict[str, str]) -> None:
    # `foo.baz` is not forbidden to begin with, so the entry `foo` decided nothing for it;
    # `foo.bar` is forbidden, `foo.bar` being more specific than `foo`.
    project.config("rules:\n  - id: r\n    forbid: [foo.bar]\n    except: [foo]\n")
    for path, text in files.items():
        project.write(path, text)
    code, out, err = project.run("check")
    assert code == 1 and "a.py:1:8: r" in out
    assert err == (
        "import-policy: import-policy.yaml:4: warning: except entry 'foo' of rule 'r' matched no imported "
        "or used name; remove it\n"
    )


def test_an_except_entry_that_carves_out_of_a_forbid_is_live(project: Project) -> None:
    project.config("rules:\n  - id: r\n    forbid: [foo]\n    except: [foo.ok]\n")
    project.write("a.py", "import foo.ok.deep\n")
    assert project.run("check") == (0, "All checks passed!\n", "")


def test_stale_allowlists_come_from_the_one_run(tree: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from import_policy.pipeline import engine

    runs: list[int] = []
    real = engine._run

    def counting(*args: object, **kwargs: object) -> object:
        runs.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_run", counting)
    _, _, err = tree.run("check", "--no-cache")
    assert len(err.splitlines()) == 3 and runs == [1]


def test_an_allow_in_entry_is_live_through_a_use(project: Project) -> None:
    project.config(
        "rules:\n  - id: sync\n    forbid: [torch.cuda.synchronize]\n    allow_in: [\"plat/\", \"other/\"]\n"
    )
    project.write("plat/a.py", "import torch.cuda as tc\ntc.synchronize()\n")
    project.write("other/b.py", "import torch.cuda as tc\ntc.current_stream()\n")
    code, _, err = project.run("check")
    assert code == 0
    assert err == (
        "import-policy: import-policy.yaml:4: warning: allow_in entry 'other/' of rule 'sync' exempts nothing: "
        "no file it covers has a finding of this rule; remove it\n"
    )


def test_a_suppressed_finding_keeps_no_allow_in_entry_live(project: Project) -> None:
    project.config("rules:\n  - id: p\n    forbid: [pickle]\n    allow_in: [\"a.py\"]\n")
    project.write("a.py", "import pickle  # import-policy: ignore[p]\n")
    _, _, err = project.run("check")
    assert "allow_in entry 'a.py' of rule 'p' exempts nothing" in err
