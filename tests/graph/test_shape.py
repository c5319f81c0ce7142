"""The graph's shape as the code holds it: neutral (no rule, no configuration, no platform by
name) and in small functions.

The graph answers questions (`graph.question.Question`) that the configuration's users
state; were it to import them, or name a platform, a new question would be an edit to it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "import_policy"
# The folders the graph must not import: the configuration, its assembly, the rule kinds and the ROCm rules.
ABOVE = ("config", "policy", "kinds", "rocm")
LONGEST = 60  # lines of a function in graph/, rocm/ and pipeline/


def _modules(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (PACKAGE / folder).rglob("*.py"))


def _imported(tree: ast.AST) -> set[str]:
    """Every module an import names (function bodies and `if TYPE_CHECKING:` included)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", _modules("graph"), ids=lambda path: path.name)
def test_the_graph_imports_nothing_above_it(path: Path) -> None:
    above = tuple(f"import_policy.{folder}" for folder in ABOVE)
    wrong = sorted(name for name in _imported(ast.parse(path.read_text(encoding="utf-8"))) if name.startswith(above))
    assert not [name for name in wrong if name in above or name.startswith(tuple(f"{a}." for a in above))]


@pytest.mark.parametrize("path", _modules("graph"), ids=lambda path: path.name)
def test_the_graph_speaks_of_no_platform_by_name(path: Path) -> None:
    """What `grep -i rocm src/import_policy/graph/` prints: nothing (names, comments, strings)."""
    assert re.findall(r"(?i)rocm|\bhip\b|\bcuda\b", path.read_text(encoding="utf-8")) == []


def test_the_checks_above_see_an_import_of_the_configuration() -> None:
    """The import check above is not blind: the modules that ask the graph import what it must not."""
    tree = ast.parse((PACKAGE / "rocm" / "reachability.py").read_text(encoding="utf-8"))
    assert "import_policy.config.model" in _imported(tree)


def _functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def test_no_function_in_the_graph_the_rules_or_the_pipeline_is_over_60_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}: {name} ({lines} lines)"
        for path in _modules("graph", "rocm", "pipeline") for name, lines in _functions(path) if lines > LONGEST
    ]
    assert long == []
