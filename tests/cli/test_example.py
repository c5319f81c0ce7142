"""The bundled example, the first thing a newcomer runs: a finding of every kind, fixes to
offer, a `why` chain, passing self-tests and no stale allowlist entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import snapshot
from import_policy.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples"


def _run(argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.chdir(EXAMPLE)
    monkeypatch.setenv("NO_COLOR", "1")
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_kind_of_rule_finds_something_and_nothing_is_stale(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["check", "--format", "json", "--no-cache"], monkeypatch, capsys)
    assert code == 1
    assert err == ""  # no stale `except`/`allow_in` entry, no note
    found = {d["rule"] for d in json.loads(out)["diagnostics"]}
    declared = {"no-pickle", "regex-not-re", "tilelang-gateway", "no-cuda-sync", "no-parent-imports",
                "stable-abi-include", "stable-abi-macro"}
    rocm = {"trial-import-probe", "heavy-import-reachable", "import-time-jit"}
    assert declared | rocm <= found
    # The gateway is the one place its rule allows, and it guards its import: never reported.
    assert not [d for d in json.loads(out)["diagnostics"] if d["path"].startswith("src/kernels/tilelang_utils/")]


def test_the_fixes_on_offer(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["check", "--diff", "--unsafe-fixes", "--no-cache"], monkeypatch, capsys)
    assert (code, err) == (1, "Would fix 4 violations.\n")
    snapshot("example.diff", out)


def test_why_shows_a_chain(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["why", "tilelang"], monkeypatch, capsys)
    assert (code, err) == (0, "")
    snapshot("example.why.txt", out)


def test_its_self_tests_pass(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["test-rules"], monkeypatch, capsys)
    assert (code, out) == (0, "All 23 examples of 8 rules passed.\n")


def test_fixing_a_copy_once_leaves_nothing_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns(".import_policy_cache"))
    monkeypatch.chdir(copy)
    monkeypatch.setenv("NO_COLOR", "1")
    main(["check", "--fix", "--unsafe-fixes", "--no-cache"])
    assert capsys.readouterr().out.splitlines()[-1] == "Found 15 violations (4 fixed, 11 remaining)."
    main(["check", "--fix", "--unsafe-fixes", "--no-cache"])
    assert capsys.readouterr().out.splitlines()[-1] == "Found 11 violations (0 fixable with --fix)."
