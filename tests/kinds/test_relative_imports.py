"""`kind: relative-imports` (ruff TID252): flag and allow cases, through `main` and on hand-built facts."""

from __future__ import annotations

import pytest

from import_policy.config.model import Examples, Origin
from import_policy.facts.records.model import Context, FileFacts, ImportFact, Span
from import_policy.kinds.relative_imports import RelativeImportsKind, RelativeImportsRule

from conftest import Project

CONFIG = """\
version: 1
rules:
  - id: no-parents
    kind: relative-imports
  - id: no-relative
    kind: relative-imports
    ban: all
    files: ["pkg/sub/**"]
"""


def _project(project: Project, body: str) -> None:
    project.write("import-policy.yaml", CONFIG)
    project.write("pkg/__init__.py", "")
    project.write("pkg/sub/__init__.py", "")
    project.write("pkg/sub/m.py", body)
    project.write("pkg/top.py", body)


def test_parents_and_all(project: Project) -> None:
    _project(project, "from . import a\nfrom .b import c, d\nfrom ..e import f\nimport os\nfrom pkg.x import y\n")
    code, out, _ = project.run("check", "--no-cache")
    assert code == 1
    assert out.splitlines() == [
        "pkg/sub/m.py:1:6: no-relative [*] Prefer absolute imports over relative imports: `from pkg.sub import ...`",
        "pkg/sub/m.py:2:6: no-relative [*] Prefer absolute imports over relative imports: `from pkg.sub.b import ...`",
        "pkg/sub/m.py:3:6: no-parents [*] Prefer absolute imports over relative imports from parent modules: `from pkg.e import ...`",
        "pkg/sub/m.py:3:6: no-relative [*] Prefer absolute imports over relative imports: `from pkg.e import ...`",
        # pkg/top.py: `from ..e` climbs above `pkg`
        "pkg/top.py:3:6: no-parents `from ..e` climbs above the top package: Python cannot resolve it",
        "Found 5 violations (4 fixable with --fix).",
    ]


@pytest.mark.parametrize("body", ["from .x import y\n", "from . import y\n", "import pkg.x\n", "from pkg import x\n"])
def test_parents_allows_siblings_and_absolute(project: Project, body: str) -> None:
    project.write("import-policy.yaml", "version: 1\nrules:\n  - id: r\n    kind: relative-imports\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/sub/__init__.py", "")
    project.write("pkg/sub/m.py", body)
    assert project.run("check", "--no-cache")[0] == 0


def test_escape_is_reported_under_both_bans(project: Project) -> None:
    project.write("import-policy.yaml", CONFIG)
    project.write("pkg/__init__.py", "")
    project.write("pkg/sub/__init__.py", "")
    project.write("pkg/sub/m.py", "from ....g import h\n")
    code, out, _ = project.run("check", "--no-cache")
    assert code == 1
    assert out.splitlines()[:2] == [
        "pkg/sub/m.py:1:6: no-parents `from ....g` climbs above the top package: Python cannot resolve it",
        "pkg/sub/m.py:1:6: no-relative `from ....g` climbs above the top package: Python cannot resolve it",
    ]


def test_suppression_and_multiline(project: Project) -> None:
    project.write("import-policy.yaml", "version: 1\nrules:\n  - id: r\n    kind: relative-imports\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/sub/__init__.py", "")
    project.write("pkg/sub/m.py", "from ..a import b  # import-policy: ignore[r]\nfrom ..c import (\n    d,\n    e,\n)\n")
    code, out, _ = project.run("check", "--no-cache")
    assert out.splitlines()[0].startswith("pkg/sub/m.py:2:6: r ")
    assert "Found 1 violation" in out


def test_bad_ban_is_a_config_error(project: Project) -> None:
    project.write("import-policy.yaml", "version: 1\nrules:\n  - id: r\n    kind: relative-imports\n    ban: some\n    forbid: [x]\n")
    code, _, err = project.run("check")
    assert code == 2
    assert "import-policy.yaml:5: ban must be one of: parents, all; got 'some'" in err
    assert "import-policy.yaml:6: unknown key 'forbid' in a rule of kind 'relative-imports'" in err


def _fact(level: int, statement: int, line: int, module: str = "pkg.x") -> ImportFact:
    span = Span(line, 6, line, 6 + level + 1)
    return ImportFact("from", f"{module}.y", module, "y", "y", span, span, statement, line, Context(True, False), level)


def _rule(ban: str) -> RelativeImportsRule:
    return RelativeImportsRule(
        "r", "", (), (), "error", Examples(), Origin("t.yaml", 1), ban=ban,  # type: ignore[arg-type]
    )


def test_check_on_hand_built_facts() -> None:
    facts = FileFacts(
        "pkg/sub/m.py", "pkg.sub.m", False,
        imports=(_fact(1, 0, 1), _fact(2, 1, 2), _fact(2, 1, 2), _fact(0, 2, 3)),
        escapes=(ImportFact("from", "g", "", None, None, Span(4, 6, 4, 11), Span(4, 6, 4, 11), 3, 4, Context(True, False), 4),),
    )
    kind = RelativeImportsKind()
    assert [d.line for d in kind.check(_rule("parents"), facts)] == [2, 4]
    assert [d.line for d in kind.check(_rule("all"), facts)] == [1, 2, 4]


def test_fix_rewrites_to_the_absolute_module(project: Project) -> None:
    _project(project, "from . import a\nfrom .b import c, d as e  # kept\nfrom ..f import (\n    g,\n)\nfrom ..h import *\n")
    code, out, _ = project.run("check", "--no-cache", "--fix", "pkg/sub/m.py")
    assert (project.root / "pkg/sub/m.py").read_text() == (
        "from pkg.sub import a\nfrom pkg.sub.b import c, d as e  # kept\nfrom pkg.f import (\n    g,\n)\nfrom ..h import *\n"
    )
    assert "Found 6 violations (4 fixed, 2 remaining)." in out  # a star import is left as it is
    before = (project.root / "pkg/sub/m.py").read_bytes()
    project.run("check", "--no-cache", "--fix", "pkg/sub/m.py")
    assert (project.root / "pkg/sub/m.py").read_bytes() == before


def test_fix_is_unsafe_where_the_absolute_name_could_bind_elsewhere(project: Project) -> None:
    _project(project, "from ..e import f\n")
    project.write("src/pkg/__init__.py", "")  # a second `pkg` on the roots ('.' and 'src')
    code, out, _ = project.run("check", "--no-cache", "--fix", "pkg/sub/m.py")
    assert (project.root / "pkg/sub/m.py").read_text() == "from ..e import f\n"
    assert "hidden fixes can be enabled with the --unsafe-fixes option" in out
    project.run("check", "--no-cache", "--fix", "--unsafe-fixes", "pkg/sub/m.py")
    assert (project.root / "pkg/sub/m.py").read_text() == "from pkg.e import f\n"


def test_a_stdlib_name_makes_the_fix_unsafe(project: Project) -> None:
    project.write("import-policy.yaml", "version: 1\nrules:\n  - id: r\n    kind: relative-imports\n")
    project.write("email/__init__.py", "")
    project.write("email/sub/__init__.py", "")
    project.write("email/sub/m.py", "from ..x import y\n")
    project.run("check", "--no-cache", "--fix")
    assert (project.root / "email/sub/m.py").read_text() == "from ..x import y\n"


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        ("", "from pkg.util import _has_module_spec\n"),
        ("\n\ng = _has_module\n", "from pkg.util import _has_module, _has_module_spec\n"),
    ],
)
def test_fix_and_the_probe_fix_on_one_statement(project: Project, after: str, expected: str) -> None:
    """Both fixes land in one --fix: the probe's rename, and the move to the absolute module
    (the name the probe fix adds moves with the others)."""
    project.write("import-policy.yaml", "version: 1\nextends: [rocm-safety]\nrules:\n  - id: r\n    kind: relative-imports\n")
    project.write("pkg/__init__.py", "")
    project.write("pkg/sub/__init__.py", "")
    project.write("pkg/util.py", "def _has_module(x): return True\ndef _has_module_spec(x): return True\n")
    project.write("pkg/sub/m.py", 'from ..util import _has_module\n\n\ndef f():\n    return _has_module("aiter")\n' + after)
    code, out, _ = project.run("check", "--no-cache", "--fix", "--unsafe-fixes", "pkg/sub/m.py")
    assert (code, out.splitlines()[-1]) == (0, "Found 2 violations (2 fixed, 0 remaining).")
    assert (project.root / "pkg/sub/m.py").read_text().splitlines()[0] + "\n" == expected
