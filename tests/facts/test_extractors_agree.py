"""CPython's `ast` and libcst give the same facts (uses aside) on every fixture (issue 7, means 5).

The ROCm pass reads its graph facts through `facts.fast`; the import rules and
the fixer read libcst's. These tests hold the two to the same imports, calls,
decorators, functions, contexts and spans, or `facts.fast` to handing the file
back to libcst (None).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from import_policy.facts import from_ast as fast
from import_policy.facts.from_cst import extract as libcst_extract

from fuzz_support import cases, render
from corner_cases import TRICKY

REPO = Path(__file__).resolve().parents[2]



def _sources() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for folder in ("src", "tests", "examples", "bench"):
        for path in sorted((REPO / folder).rglob("*.py")):
            found.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
    for preset in sorted((REPO / "rules").glob("*.yaml")):
        for rule in yaml.safe_load(preset.read_text(encoding="utf-8")).get("rules", []):
            examples = rule.get("examples") or {}
            for kind in ("flag", "allow"):
                for index, snippet in enumerate(examples.get(kind, [])):
                    if not rule.get("kind", "import") == "import" or rule.get("include") or rule.get("tokens"):
                        continue
                    found.append((f"{preset.name}:{rule['id']}:{kind}{index}", snippet))
    found.extend((f"tricky{index}", source) for index, source in enumerate(TRICKY))
    return found


def _agree(source: bytes, module: str = "pkg.sub.mod", is_package: bool = False) -> None:
    ours = fast.extract(source, "pkg/sub/mod.py", module, is_package)
    theirs = libcst_extract(source, "pkg/sub/mod.py", module, is_package)
    if ours is None:
        return  # handed back to libcst: nothing to disagree on
    if theirs.syntax_error is not None or ours.syntax_error is not None:
        # CPython decides syntax in both (libcst's parse runs only after CPython's check).
        assert (ours.syntax_error is None) == (theirs.syntax_error is None) or theirs.syntax_error is not None
        return
    for field in ("imports", "calls", "decorators", "functions", "assigns", "returns", "scans", "suppressions"):
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize(("name", "source"), _sources(), ids=[name for name, _ in _sources()])
def test_fast_facts_agree_with_libcst(name: str, source: str) -> None:
    data = source.encode("latin-1") if "coding: latin-1" in source else source.encode("utf-8")
    _agree(data)
    _agree(data, module="pkg", is_package=True)


@pytest.mark.parametrize("source", [TRICKY[1], TRICKY[10]])
def test_spellings_ast_cannot_place_go_back_to_libcst(source: str) -> None:
    assert fast.extract(source.encode(), "m.py", "m", False) is None


def test_most_tricky_sources_stay_on_the_fast_path() -> None:
    handled = [source for source in TRICKY if fast.extract(source.encode("utf-8"), "m.py", "m", False) is not None]
    assert len(handled) >= len(TRICKY) - 3


def test_a_file_cpython_refuses_is_a_syntax_error() -> None:
    facts = fast.extract(b"import (\n", "m.py", "m", False)
    assert facts is not None and facts.syntax_error is not None and facts.imports == ()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_fast_facts_agree_on_generated_programs(case: object) -> None:
    source, _ = render(case)  # type: ignore[arg-type]
    _agree(source.encode("utf-8"))


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(TRICKY), st.integers(min_value=0, max_value=3))
def test_fast_facts_agree_when_indented_in_a_function(source: str, depth: int) -> None:
    body = "".join("    " * depth + line + "\n" for line in source.splitlines())
    wrapped = "".join("    " * level + f"def f{level}():\n" for level in range(depth)) + (body or "pass\n")
    _agree(wrapped.encode("utf-8"))
