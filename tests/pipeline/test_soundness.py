"""The prefilter and CPython's fast facts change no result.

Every fixture is checked twice: as a run does it (prefilter on, facts from `ast`
where they equal libcst's) and the slow way (every file parsed with libcst, every
use resolved). The diagnostics must be identical. bench/soundness.py does the same
over a whole tree (vLLM 0.33.0: see docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from fuzz_support import cases, render

from import_policy.policy.load import load
from import_policy.config.model import Policy
from import_policy.kinds.imports import ImportRule
from import_policy.discovery.files import SourceFile
from import_policy.pipeline.plan import Plan, Selection
from import_policy.pipeline.engine import run
from import_policy.commands.test_rules import sample_path
from corner_cases import TRICKY

REPO = Path(__file__).resolve().parents[2]

USES = """\
version: 1
extends: [vllm]
rules:
  - id: uses
    forbid: [torch.cuda.synchronize, torch.cuda.**.get, pkg.sub, re]
    except: [re._constants]
  - id: module-only
    forbid: [triton, tilelang.language]
    scope: module
    type_checking: check
"""


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Policy:
    root = tmp_path_factory.mktemp("project")
    (root / "import-policy.yaml").write_text(USES, encoding="utf-8")
    return load(None, root).policy


def _both(policy: Policy, path: str, source: bytes) -> None:
    file = SourceFile(policy.root / path, path, "python")
    fast = run(Plan(policy, Selection()), [file], read=lambda _f: source).diagnostics
    slow = run(Plan(policy, Selection(), prefilter=False, fast_facts=False), [file], read=lambda _f: source).diagnostics
    assert fast == slow


def _snippets() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = [(f"tricky{i}", s) for i, s in enumerate(TRICKY)]
    for folder in ("src", "tests", "examples"):
        found += [(str(p.relative_to(REPO)), p.read_text(encoding="utf-8")) for p in sorted((REPO / folder).rglob("*.py"))]
    return found


def _rule_examples(policy: Policy) -> list[tuple[str, str]]:
    out = []
    for rule in policy.rules:
        if not isinstance(rule, ImportRule):
            continue
        path = sample_path(rule)
        for snippet in [*rule.examples.flag, *rule.examples.allow]:
            out.append((path or "vllm/x.py", snippet))
    return out


@pytest.mark.slow
def test_rule_examples_give_the_same_diagnostics(policy: Policy) -> None:
    examples = _rule_examples(policy)
    assert len(examples) > 40
    for path, snippet in examples:
        for where in (path, "vllm/model_executor/x.py", "tests/x.py", "vllm/__init__.py", "vllm/ir/x.py"):
            _both(policy, where, snippet.encode("utf-8"))


@pytest.mark.parametrize(
    ("name", "source"),
    # The repository's own files are marked slow: together they take a minute.
    [pytest.param(name, source, id=name, marks=[pytest.mark.slow] if "/" in name else []) for name, source in _snippets()],
)
def test_fixtures_give_the_same_diagnostics(policy: Policy, name: str, source: str) -> None:
    for where in ("vllm/model_executor/x.py", "vllm/ir/x.py", "vllm/__init__.py"):
        _both(policy, where, source.encode("utf-8"))


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(cases())
def test_generated_programs_give_the_same_diagnostics(policy: Policy, case: object) -> None:
    source, _ = render(case)  # type: ignore[arg-type]
    _both(policy, "vllm/pkg/x.py", source.encode("utf-8"))
