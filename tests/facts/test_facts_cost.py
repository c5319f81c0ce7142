"""Facts cost only what a file needs: scope analysis runs only when a use could be judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

from import_policy.policy.load import load
from import_policy.kinds.imports import ImportRule
from import_policy.kinds.imports import use_gate
from import_policy.facts.cst.from_cst import extract

RULES = """\
version: 1
rules:
  - id: cuda-sync
    forbid: [torch.cuda.synchronize]
  - id: re-regex
    forbid: [re]
    except: [re._constants]
"""


@pytest.fixture
def rules(tmp_path: Path) -> list[ImportRule]:
    (tmp_path / "import-policy.yaml").write_text(RULES, encoding="utf-8")
    policy = load(None, tmp_path).policy
    return [rule for rule in policy.rules if isinstance(rule, ImportRule)]


@pytest.fixture
def scope_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    resolve = MetadataWrapper.resolve

    def counting(self: MetadataWrapper, provider: object) -> object:
        if provider is ScopeProvider:
            calls.append(1)
        return resolve(self, provider)  # type: ignore[arg-type]

    monkeypatch.setattr(MetadataWrapper, "resolve", counting)
    return calls


@pytest.mark.parametrize(
    ("source", "uses", "scoped"),
    [
        # nothing a rule could judge: no scope analysis at all
        ("import torch\ntorch.ones(1)\nimport regex as re\nre.compile('x')\n", [], False),
        # the import itself is judged, so its uses need no analysis
        ("import re\nre.compile('x')\n", [], False),
        # through an alias, a plain import and a function-level import
        ("import torch as t\nt.cuda.synchronize()\n", [("t", ("torch.cuda.synchronize",))], True),
        ("import torch\ntorch.cuda.synchronize()\n", [("torch", ("torch.cuda.synchronize",))], True),
        ("def f():\n    from torch import cuda\n    cuda.synchronize()\n", [("cuda", ("torch.cuda.synchronize",))], True),
        # an except entry could decide: the stale-allowlist tracker must see it
        ("import re\nre._constants.MAXREPEAT\n", [("re", ("re._constants.MAXREPEAT",))], True),
    ],
)
def test_scope_analysis_only_when_a_use_could_be_judged(
    rules: list[ImportRule], scope_runs: list[int], source: str, uses: list[tuple[str, tuple[str, ...]]], scoped: bool
) -> None:
    facts = extract(source.encode(), "m.py", "m", False, want_uses=True, use_gate=use_gate(rules))
    assert [(u.root, u.qualified_names) for u in facts.uses] == uses
    assert bool(scope_runs) == scoped


def test_without_a_gate_every_use_is_recorded(rules: list[ImportRule]) -> None:
    facts = extract(b"import torch\ntorch.ones(1)\n", "m.py", "m", False, want_uses=True)
    assert [(u.root, u.qualified_names) for u in facts.uses] == [("torch", ("torch.ones",))]
