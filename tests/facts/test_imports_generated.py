"""Fuzz: generated import statements in random scopes, judged against a reference model of
CONTRACT.md section 3 (tests/fuzz_support.py), through `main([...])`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.cli import main

from fuzz_support import Case, cases, expected_lines, policy, render, reported_lines

pytestmark = pytest.mark.fuzz

SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)


def run_case(case: Case, scope: str, type_checking: str, capsys: pytest.CaptureFixture[str]) -> tuple[set[int], set[int], str]:
    source, _ = render(case)
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "import-policy.yaml").write_text(policy(scope, type_checking), encoding="utf-8")
        target = root / case.path
        target.parent.mkdir(parents=True)
        (target.parent / "__init__.py").write_text("", encoding="utf-8")
        target.write_text(source, encoding="utf-8")
        os.chdir(root)
        try:
            capsys.readouterr()
            code = main(["check", "--format", "json", case.path])
            out, err = capsys.readouterr()
        finally:
            os.chdir(old)
    assert code in (0, 1), err
    assert '"syntax-error"' not in out, source  # the generator writes valid Python only
    got = reported_lines(out, case.path)
    return got, expected_lines(case, scope, type_checking), source


@pytest.mark.slow
@SETTINGS
@given(case=cases(), scope=st.sampled_from(["module", "anywhere"]), type_checking=st.sampled_from(["ignore", "check"]))
def test_generated_imports_match_the_reference_model(
    case: Case, scope: str, type_checking: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got, expected, source = run_case(case, scope, type_checking, capsys)
    assert got == expected, f"scope={scope} type_checking={type_checking}\n{source}"
